"""Consolidation of a memory: proposing, accepting and rejecting entity merges."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, cast

from turngraph.config import Limits
from turngraph.core import graph
from turngraph.core.consolidate import find_candidates, first_name_pairs
from turngraph.core.reconcile import repair_chain
from turngraph.core.validate import page_bounds
from turngraph.errors import ConflictError, NotFoundError, ValidationError
from turngraph.models import MergeProposal, MergeResult, ProposalStatus
from turngraph.store.base import ProposalRow, ReadTx, Store, WriteTx

PROPOSAL_STATUSES = ("open", "accepted", "rejected", "obsolete")


class MergeOps:
    """The consolidation operations of a :class:`~turngraph.Memory`."""

    name: str
    _store: Store
    _id: int
    _limits: Limits

    if TYPE_CHECKING:  # provided by Memory

        def _after_write(self) -> None: ...

    def consolidate(self) -> list[MergeProposal]:
        """Propose merges of entities recorded under variant names; never applies one.

        Pairs already proposed (open) or once rejected are not proposed again. Returns the
        new proposals, best first.
        """
        now = datetime.now(UTC)
        with self._store.write(self._id) as tx:
            skip = set(tx.rejected_pairs())
            for p in tx.list_proposals(status="open"):
                a, b = sorted((p.canonical_key, p.duplicate_key))
                skip.add((a, b))
            created: list[int] = []
            entities = list(tx.iter_entities())
            people = {e.id for pair in first_name_pairs(entities) for e in pair}
            found = find_candidates(
                entities,
                skip=skip,
                described=tx.described_entities(),
                speakers=tx.entity_speakers(sorted(people)),
            )
            for c in found:
                created.append(
                    tx.insert_proposal(
                        canonical_key=c.canonical.key,
                        canonical_name=c.canonical.name,
                        duplicate_key=c.duplicate.key,
                        duplicate_name=c.duplicate.name,
                        type=c.type,
                        reasons=c.reasons,
                        score=c.score,
                        now=now,
                    )
                )
            return [_proposal(row) for i in created if (row := tx.get_proposal(i))]

    def list_proposals(
        self, status: str | None = "open", *, limit: int | None = None, offset: int = 0
    ) -> list[MergeProposal]:
        """Merge proposals with ``status`` (open, accepted, rejected, obsolete; None: all),
        oldest first; with ``limit`` (at most 1000), one page of them from ``offset``."""
        if status is not None and status not in PROPOSAL_STATUSES:
            raise ValidationError(
                f"status must be one of {', '.join(PROPOSAL_STATUSES)}, not {status!r}",
                field="status",
            )
        if limit is not None:
            limit, offset = page_bounds(limit, offset, maximum=1000)
        else:
            _, offset = page_bounds(1, offset, maximum=1000)
        with self._store.read(self._id) as tx:
            rows = tx.list_proposals(status=status, limit=limit, offset=offset)
        return [_proposal(p) for p in rows]

    def accept_proposal(self, proposal_id: int) -> MergeResult:
        """Merge the proposal's duplicate into its canonical entity.

        Every observation link and relationship endpoint moves to the canonical entity,
        self-loops are dropped, duplicate edges merge, degrees are recomputed, and the
        duplicate's name becomes an alias that resolves to the canonical entity. Raises
        ConflictError if the proposal is not open or no longer applies.
        """
        now = datetime.now(UTC)
        with self._store.write(self._id) as tx:
            proposal = self._open_proposal(tx, proposal_id)
            found = tx.find_entities([proposal.canonical_key, proposal.duplicate_key])
            canonical = found.get(proposal.canonical_key)
            duplicate = found.get(proposal.duplicate_key)
            if canonical is None or duplicate is None or canonical.id == duplicate.id:
                tx.set_proposal_status(proposal_id, "obsolete", now=now)
                stale = ConflictError(
                    f"proposal {proposal_id} no longer applies: {proposal.canonical_name!r} "
                    f"and {proposal.duplicate_name!r} are no longer two entities",
                    proposal=proposal_id,
                )
            else:
                stale = None
                relinked, dropped, merged = graph.merge_entities(tx, canonical, duplicate, now=now)
                for key in tx.attribute_keys(canonical.id):  # two histories become one
                    repair_chain(tx, canonical.id, key)
                tx.set_proposal_status(proposal_id, "accepted", now=now)
                self._retire_settled_proposals(tx, now)
                entity = graph.to_entity(
                    tx, tx.get_entities([canonical.id])[canonical.id], limits=self._limits
                )
                accepted = tx.get_proposal(proposal_id)
                assert accepted is not None
                result = MergeResult(
                    proposal=_proposal(accepted),
                    entity=entity,
                    relinked_observations=relinked,
                    dropped_self_loops=dropped,
                    merged_relationships=merged,
                )
        if stale is not None:
            raise stale
        self._after_write()  # the merged entity's text changed: refresh its vector
        return result

    def reject_proposal(self, proposal_id: int) -> MergeProposal:
        """Reject a proposal; the same pair is never proposed again."""
        now = datetime.now(UTC)
        with self._store.write(self._id) as tx:
            proposal = self._open_proposal(tx, proposal_id)
            tx.set_proposal_status(proposal_id, "rejected", now=now)
            tx.reject_pair(proposal.canonical_key, proposal.duplicate_key, now=now)
            row = tx.get_proposal(proposal_id)
            assert row is not None
            return _proposal(row)

    def _open_proposal(self, tx: ReadTx, proposal_id: int) -> ProposalRow:
        if isinstance(proposal_id, bool) or not isinstance(proposal_id, int):
            raise ValidationError("proposal id must be an integer", field="proposal_id")
        if not 0 < proposal_id < 2**63:
            raise NotFoundError(
                f"no merge proposal {proposal_id} in memory {self.name!r}",
                memory=self.name,
                proposal=proposal_id,
            )
        proposal = tx.get_proposal(proposal_id)
        if proposal is None:
            raise NotFoundError(
                f"no merge proposal {proposal_id} in memory {self.name!r}",
                memory=self.name,
                proposal=proposal_id,
            )
        if proposal.status != "open":
            raise ConflictError(
                f"proposal {proposal_id} is already {proposal.status}",
                proposal=proposal_id,
                status=proposal.status,
            )
        return proposal

    def _retire_settled_proposals(self, tx: WriteTx, now: datetime) -> None:
        for p in tx.list_proposals(status="open"):
            found = tx.find_entities([p.canonical_key, p.duplicate_key])
            a, b = found.get(p.canonical_key), found.get(p.duplicate_key)
            if a is None or b is None or a.id == b.id:
                tx.set_proposal_status(p.id, "obsolete", now=now)


def _proposal(row: ProposalRow) -> MergeProposal:
    return MergeProposal(
        id=row.id,
        status=cast(ProposalStatus, row.status),
        canonical=row.canonical_name,
        duplicate=row.duplicate_name,
        type=row.type,
        reasons=list(row.reasons),
        score=row.score,
        created_at=row.created_at,
        decided_at=row.decided_at,
    )
