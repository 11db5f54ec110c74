"""The core API of one memory: the write path and the read path, in one place.

Write path: validate the contract (nothing is touched until the whole request is valid) >
take the memory's write transaction (serialized per memory) > idempotency check > derive the
graph delta > re-fold and prune > persist > return what changed with the neighborhoods of the
touched entities. Every write commits whole or not at all.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from turngraph import graph
from turngraph.config import Limits
from turngraph.consolidate import find_candidates
from turngraph.errors import (
    ConflictError,
    IdempotencyConflictError,
    NotFoundError,
    TooLargeError,
    ValidationError,
)
from turngraph.files import FileOps
from turngraph.models import (
    DeleteResult,
    Entity,
    EntitySummary,
    MemoryInfo,
    MergeProposal,
    MergeResult,
    Observation,
    RetrievalConfig,
    WriteResult,
)
from turngraph.store.base import (
    EntityRow,
    IdempotencyRow,
    MemoryRow,
    ObservationRow,
    ProposalRow,
    ReadTx,
    Store,
    WriteTx,
)
from turngraph.validate import (
    RelationshipKey,
    check_confidence,
    check_text,
    fingerprint,
    normalize_name,
    normalize_tags,
    normalize_type,
    optional_text,
    parse_datetime,
    parse_entities,
    parse_names,
    parse_paths,
    parse_relationship_refs,
    parse_relationships,
    required_text,
    slugify,
)

PROPOSAL_STATUSES = ("open", "accepted", "rejected", "obsolete")
DEFAULT_CATEGORY = "note"


class Memory(FileOps):
    """One memory: observations, the entity graph derived from them, files and proposals.

    Obtain it from :meth:`turngraph.Database.memory` or ``create_memory``. Thread-safe.
    """

    def __init__(self, store: Store, row: MemoryRow) -> None:
        self._store = store
        self._row = row
        self._id = row.id
        self.name = row.name
        self._limits: Limits = store.settings.limits

    def __repr__(self) -> str:
        return f"<Memory {self.name!r} at {self._store.url}>"

    @property
    def retrieval(self) -> RetrievalConfig:
        """The retrieval configuration fixed when the memory was created."""
        return RetrievalConfig(**json.loads(self._row.retrieval))

    def info(self) -> MemoryInfo:
        with self._store.read(self._id) as tx:
            counts = tx.counts()
        return MemoryInfo(
            name=self.name, visibility=self._row.visibility,  # type: ignore[arg-type]
            retrieval=self.retrieval, created_at=self._row.created_at,
            observations=counts.observations, entities=counts.entities,
            relationships=counts.relationships, files=counts.files,
        )

    # -- observations: write ---------------------------------------------------------------

    def add_observation(
        self,
        *,
        title: str,
        content: str,
        category: str | None = None,
        tags: Sequence[str] | None = None,
        observed_at: datetime | str | None = None,
        confidence: float | None = None,
        source: str | None = None,
        entities: Sequence[Any] | None = None,
        relationships: Sequence[Any] | None = None,
        files: Sequence[str] | None = None,
        idempotency_key: str | None = None,
    ) -> WriteResult:
        """Write one observation and the entities and relationships it names, atomically.

        Every entity needs a non-empty description; a relationship endpoint must be in this
        write or already in the memory. Names merge into existing entities. With an
        ``idempotency_key``, a replay of the same request returns the first result
        (``replayed=True``) and a different request under the same key raises
        IdempotencyConflictError. Raises ValidationError (nothing written) for a broken
        contract.
        """
        lim = self._limits
        fields = {
            "title": required_text(title, field="title", limit=lim.title_chars),
            "content": self._content(content),
            "category": self._category(category) or DEFAULT_CATEGORY,
            "tags": normalize_tags(tags, limits=lim),
            "observed_at": None if observed_at is None else parse_datetime(
                observed_at, field="observed_at"),
            "confidence": check_confidence(confidence),
            "source": optional_text(source, field="source", limit=lim.source_chars),
        }
        ents = parse_entities(entities, limits=lim)
        rels = parse_relationships(relationships, limits=lim)
        paths = parse_paths(files, limits=lim, field="files")
        key = self._idempotency_key(idempotency_key)
        fp = fingerprint("add_observation", {**fields, "entities": ents, "relationships": rels,
                                             "files": paths})
        warnings = self._size_warnings(fields["content"])
        now = datetime.now(UTC)
        with self._store.write(self._id) as tx:
            if key and (replay := self._replay(tx, key, "add_observation", fp)) is not None:
                return WriteResult.model_validate_json(replay).model_copy(
                    update={"replayed": True})
            existing = graph.resolve_entities(tx, ents, rels)
            self._check_files_exist(tx, paths, field="files")
            slug = self._unique_slug(tx, slugify(fields["title"]))
            seq = tx.next_seq()
            obs_id = tx.insert_observation(
                slug=slug, title=fields["title"], content=fields["content"],
                category=fields["category"], tags=fields["tags"],
                observed_at=fields["observed_at"] or now, confidence=fields["confidence"],
                source=fields["source"], now=now,
            )
            touched = graph.Touched()
            graph.apply_entities(tx, obs_id, ents, existing, seq=seq, now=now, touched=touched)
            graph.apply_relationships(tx, obs_id, rels, existing, seq=seq, now=now,
                                      touched=touched)
            graph.link_endpoints(tx, obs_id, seq=seq)
            tx.set_observation_files(obs_id, paths)
            result = self._finish_write(tx, slug, touched, warnings, now=now)
            if key:
                self._remember_key(tx, key, "add_observation", fp, slug, result, now)
        return result

    def update_observation(
        self,
        slug: str,
        *,
        title: str | None = None,
        content: str | None = None,
        category: str | None = None,
        tags: Sequence[str] | None = None,
        observed_at: datetime | str | None = None,
        confidence: float | None = None,
        source: str | None = None,
        entities: Sequence[Any] | None = None,
        relationships: Sequence[Any] | None = None,
        remove_entities: Sequence[str] | None = None,
        remove_relationships: Sequence[Any] | None = None,
        files: Sequence[str] | None = None,
        remove_files: Sequence[str] | None = None,
        idempotency_key: str | None = None,
    ) -> WriteResult:
        """Edit an observation by its slug; the slug never changes, even with the title.

        Updates merge: ``entities`` and ``relationships`` union with what the observation
        already says (the caller wins on conflicts); anything omitted stays. Removal is
        explicit (``remove_entities``, ``remove_relationships``, ``remove_files``); entities
        and relationships no other observation backs are pruned. A materially changed entity
        description returns a review hint listing its relationships. A field left ``None``
        keeps its value. Raises NotFoundError for an unknown slug.
        """
        lim = self._limits
        slug = self._slug(slug)
        changes = {
            "title": None if title is None else required_text(
                title, field="title", limit=lim.title_chars),
            "content": None if content is None else self._content(content),
            "category": self._category(category),
            "tags": None if tags is None else normalize_tags(tags, limits=lim),
            "observed_at": None if observed_at is None else parse_datetime(
                observed_at, field="observed_at"),
            "confidence": check_confidence(confidence),
            "source": optional_text(source, field="source", limit=lim.source_chars),
        }
        ents = parse_entities(entities, limits=lim)
        rels = parse_relationships(relationships, limits=lim)
        removed_names = parse_names(remove_entities, limits=lim, field="remove_entities")
        removed_rels = parse_relationship_refs(remove_relationships, limits=lim,
                                               field="remove_relationships")
        add_paths = parse_paths(files, limits=lim, field="files")
        drop_paths = parse_paths(remove_files, limits=lim, field="remove_files")
        self._check_contradictions(ents, rels, removed_names, add_paths, drop_paths)
        key = self._idempotency_key(idempotency_key)
        fp = fingerprint("update_observation", {
            "slug": slug, **changes, "entities": ents, "relationships": rels,
            "remove_entities": [k for _, k in removed_names], "remove_relationships": removed_rels,
            "files": add_paths, "remove_files": drop_paths,
        })
        warnings = self._size_warnings(changes["content"]) if changes["content"] else []
        now = datetime.now(UTC)
        with self._store.write(self._id) as tx:
            if key and (replay := self._replay(tx, key, "update_observation", fp)) is not None:
                return WriteResult.model_validate_json(replay).model_copy(
                    update={"replayed": True})
            row = self._observation_row(tx, slug)
            existing = graph.resolve_entities(tx, ents, rels)
            self._check_files_exist(tx, add_paths, field="files")
            seq = tx.next_seq()
            tx.update_observation(
                row.id,
                title=changes["title"] or row.title,
                content=changes["content"] if changes["content"] is not None else row.content,
                category=changes["category"] or row.category,
                tags=changes["tags"] if changes["tags"] is not None else row.tags,
                observed_at=changes["observed_at"] or row.observed_at,
                confidence=(changes["confidence"] if changes["confidence"] is not None
                            else row.confidence),
                source=changes["source"] if changes["source"] is not None else row.source,
                now=now,
            )
            touched = graph.Touched()
            graph.apply_entities(tx, row.id, ents, existing, seq=seq, now=now, touched=touched)
            graph.apply_relationships(tx, row.id, rels, existing, seq=seq, now=now,
                                      touched=touched)
            candidates = self._remove_from_observation(
                tx, row.id, removed_names, removed_rels, touched, warnings)
            graph.link_endpoints(tx, row.id, seq=seq)
            current = tx.observation_files(row.id)
            missing = [p for p in drop_paths if p not in current]
            warnings += [f"file {p!r} was not referenced by this observation" for p in missing]
            tx.set_observation_files(
                row.id, [p for p in current if p not in drop_paths]
                + [p for p in add_paths if p not in current])
            pruned_entities, pruned_rels = graph.prune(
                tx, candidates | set(touched.entity_ids), touched.relationship_ids)
            for e in pruned_entities:
                warnings.append(f"entity {e.name!r} was removed: no other observation names it")
            for r in pruned_rels:
                warnings.append(f"relationship {r.source!r} -[{r.type}]-> {r.target!r} was "
                                "removed: no other observation backs it")
            result = self._finish_write(tx, slug, touched, warnings, now=now)
            if key:
                self._remember_key(tx, key, "update_observation", fp, slug, result, now)
        return result

    def delete_observation(self, slug: str, *, idempotency_key: str | None = None) -> DeleteResult:
        """Delete an observation and prune what only it backed; returns what was removed.

        Entities and relationships another observation backs survive (re-folded without this
        observation's assertions); degrees are recomputed. The slug is retired and never
        reused. Raises NotFoundError for an unknown slug.
        """
        slug = self._slug(slug)
        key = self._idempotency_key(idempotency_key)
        fp = fingerprint("delete_observation", {"slug": slug})
        now = datetime.now(UTC)
        with self._store.write(self._id) as tx:
            if key and (replay := self._replay(tx, key, "delete_observation", fp)) is not None:
                return DeleteResult.model_validate_json(replay).model_copy(
                    update={"replayed": True})
            row = self._observation_row(tx, slug)
            observation = graph.to_observation(tx, row)
            entity_ids = [link.entity_id for link in tx.observation_links(row.id)]
            rel_ids = tx.observation_relationship_ids(row.id)
            tx.delete_observation(row.id)
            dead_entities, dead_rels = graph.prune(tx, entity_ids, rel_ids)
            dead = {e.id for e in dead_entities}
            graph.refold_entities(tx, [i for i in entity_ids if i not in dead], now=now)
            graph.refold_relationships(tx, set(rel_ids) - {r.id for r in dead_rels}, now=now)
            tx.retire_slug(slug, now=now)
            tx.delete_idempotency_for_slug(slug)
            result = DeleteResult(
                observation=observation,
                pruned_entities=[e.name for e in dead_entities],
                pruned_relationships=[graph.to_ref(r) for r in dead_rels],
            )
            if key:
                self._remember_key(tx, key, "delete_observation", fp, None, result, now)
        return result

    # -- observations and entities: read ---------------------------------------------------

    def get_observation(self, slug: str) -> Observation:
        """The observation in full; NotFoundError (saying so if it was deleted) otherwise."""
        slug = self._slug(slug)
        with self._store.read(self._id) as tx:
            return graph.to_observation(tx, self._observation_row(tx, slug))

    def get_entity(self, name: str) -> Entity:
        """An entity by any of its names, with its relationships and observations (bounded)."""
        _, key = normalize_name(name, field="name", limit=self._limits.entity_name_chars)
        with self._store.read(self._id) as tx:
            entity = tx.find_entities([key]).get(key)
            if entity is None:
                raise NotFoundError(f"no entity named {name!r} in memory {self.name!r}",
                                    memory=self.name, entity=name)
            return self._entity_model(tx, entity)

    def _entity_model(self, tx: ReadTx, entity: EntityRow) -> Entity:
        lim = self._limits
        rels, rel_total = tx.entity_relationships(entity.id, limit=lim.entity_relationships)
        slugs, obs_total = tx.entity_observation_slugs(entity.id, limit=lim.entity_observations)
        return Entity(
            name=entity.name, type=entity.type, description=entity.description,
            degree=entity.degree, retrieval_queries=list(entity.retrieval_queries),
            aliases=tx.entity_aliases(entity.id),
            relationships=[graph.to_relationship(r) for r in rels],
            observations=slugs, relationships_truncated=rel_total > len(rels),
            observations_truncated=obs_total > len(slugs),
            created_at=entity.created_at, updated_at=entity.updated_at,
        )

    def list_entities(
        self, type: str | None = None, *, limit: int = 100, offset: int = 0
    ) -> list[EntitySummary]:
        """Entities, most connected first, optionally of one type; ``limit`` at most 1000."""
        etype = None if type is None else normalize_type(
            type, field="type", limit=self._limits.entity_type_chars)
        limit, offset = _page(limit, offset, maximum=1000)
        with self._store.read(self._id) as tx:
            rows = tx.list_entities(type=etype, limit=limit, offset=offset)
        return [EntitySummary(name=e.name, type=e.type, description=e.description,
                              degree=e.degree) for e in rows]

    # -- consolidation ---------------------------------------------------------------------

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
            for c in find_candidates(list(tx.iter_entities()), skip=skip):
                created.append(tx.insert_proposal(
                    canonical_key=c.canonical.key, canonical_name=c.canonical.name,
                    duplicate_key=c.duplicate.key, duplicate_name=c.duplicate.name,
                    type=c.type, reasons=c.reasons, score=c.score, now=now,
                ))
            return [_proposal(row) for i in created if (row := tx.get_proposal(i))]

    def list_proposals(self, status: str | None = "open") -> list[MergeProposal]:
        """Merge proposals with ``status`` (open, accepted, rejected, obsolete; None: all)."""
        if status is not None and status not in PROPOSAL_STATUSES:
            raise ValidationError(
                f"status must be one of {', '.join(PROPOSAL_STATUSES)}, not {status!r}",
                field="status")
        with self._store.read(self._id) as tx:
            return [_proposal(p) for p in tx.list_proposals(status=status)]

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
                    proposal=proposal_id)
            else:
                stale = None
                relinked, dropped, merged = graph.merge_entities(tx, canonical, duplicate,
                                                                 now=now)
                tx.set_proposal_status(proposal_id, "accepted", now=now)
                self._retire_settled_proposals(tx, now)
                entity = self._entity_model(tx, tx.get_entities([canonical.id])[canonical.id])
                accepted = tx.get_proposal(proposal_id)
                assert accepted is not None
                result = MergeResult(proposal=_proposal(accepted), entity=entity,
                                     relinked_observations=relinked,
                                     dropped_self_loops=dropped, merged_relationships=merged)
        if stale is not None:
            raise stale
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
        proposal = tx.get_proposal(proposal_id)
        if proposal is None:
            raise NotFoundError(f"no merge proposal {proposal_id} in memory {self.name!r}",
                                memory=self.name, proposal=proposal_id)
        if proposal.status != "open":
            raise ConflictError(f"proposal {proposal_id} is already {proposal.status}",
                                proposal=proposal_id, status=proposal.status)
        return proposal

    def _retire_settled_proposals(self, tx: WriteTx, now: datetime) -> None:
        for p in tx.list_proposals(status="open"):
            found = tx.find_entities([p.canonical_key, p.duplicate_key])
            a, b = found.get(p.canonical_key), found.get(p.duplicate_key)
            if a is None or b is None or a.id == b.id:
                tx.set_proposal_status(p.id, "obsolete", now=now)

    # -- helpers ---------------------------------------------------------------------------

    def _finish_write(
        self, tx: WriteTx, slug: str, touched: graph.Touched, warnings: list[str], *,
        now: datetime,
    ) -> WriteResult:
        graph.refold_entities(tx, touched.entity_ids, now=now)
        graph.refold_relationships(tx, touched.relationship_ids, now=now)
        tx.recompute_degrees(touched.entity_ids)
        row = tx.get_observation(slug)
        assert row is not None
        limit = self._limits.neighborhood_relationships
        return WriteResult(
            observation=graph.to_observation(tx, row),
            entities=graph.neighborhoods(tx, touched, limit=limit),
            warnings=warnings,
            hints=graph.review_hints(tx, touched, limit=limit),
        )

    def _remove_from_observation(
        self, tx: WriteTx, observation_id: int, names: list[tuple[str, str]],
        refs: list[RelationshipKey], touched: graph.Touched, warnings: list[str],
    ) -> set[int]:
        """Apply explicit removals; returns the entities that may now be orphans."""
        candidates: set[int] = set()
        keys = [k for _, k in names] + [k for r in refs for k in (r.source_key, r.target_key)]
        found = tx.find_entities(keys)
        backed = set(tx.observation_relationship_ids(observation_id))
        for ref in refs:
            s, t = found.get(ref.source_key), found.get(ref.target_key)
            rel_id = None if s is None or t is None else tx.find_relationship(s.id, ref.type,
                                                                                t.id)
            if rel_id is None or rel_id not in backed:
                warnings.append(f"relationship {ref.source_key!r} -[{ref.type}]-> "
                                f"{ref.target_key!r} was not backed by this observation")
                continue
            tx.delete_backing(observation_id, rel_id)
            backed.discard(rel_id)
            touched.relationship_ids.add(rel_id)
        linked = {link.entity_id for link in tx.observation_links(observation_id)}
        for display, key in names:
            entity = found.get(key)
            if entity is None or entity.id not in linked:
                warnings.append(f"entity {display!r} was not part of this observation")
                continue
            for rel in tx.get_relationships(backed):
                if entity.id in (rel.source_id, rel.target_id):
                    tx.delete_backing(observation_id, rel.id)
                    backed.discard(rel.id)
                    touched.relationship_ids.add(rel.id)
                    warnings.append(
                        f"relationship {rel.source!r} -[{rel.type}]-> {rel.target!r} left this "
                        f"observation with {entity.name!r}")
            tx.delete_link(observation_id, entity.id)
            candidates.add(entity.id)
        # Endpoints of relationships that left this observation may now be unlinked elsewhere.
        for rel in tx.get_relationships(touched.relationship_ids):
            candidates.update((rel.source_id, rel.target_id))
        return candidates

    def _check_contradictions(
        self, ents: Sequence[Any], rels: Sequence[Any], removed: list[tuple[str, str]],
        add_paths: list[str], drop_paths: list[str],
    ) -> None:
        gone = {k for _, k in removed}
        for i, e in enumerate(ents):
            if e.key in gone:
                raise ValidationError(
                    f"entity {e.name!r} is both added and removed in one update",
                    field=f"entities[{i}]", entity=e.name)
        for i, r in enumerate(rels):
            for key, name in ((r.source_key, r.source), (r.target_key, r.target)):
                if key in gone:
                    raise ValidationError(
                        f"relationship {r.source!r} -[{r.type}]-> {r.target!r} uses {name!r}, "
                        "which this update removes", field=f"relationships[{i}]", entity=name)
        both = sorted(set(add_paths) & set(drop_paths))
        if both:
            raise ValidationError(f"file {both[0]!r} is both added and removed in one update",
                                  field="files", path=both[0])

    def _observation_row(self, tx: ReadTx, slug: str) -> ObservationRow:
        row = tx.get_observation(slug)
        if row is None:
            if tx.slug_retired(slug):
                raise NotFoundError(f"observation {slug!r} was deleted from memory "
                                    f"{self.name!r}", memory=self.name, slug=slug)
            raise NotFoundError(f"no observation {slug!r} in memory {self.name!r}",
                                memory=self.name, slug=slug)
        return row

    def _unique_slug(self, tx: ReadTx, base: str) -> str:
        slug, n = base, 1
        while tx.slug_taken(slug):
            n += 1
            slug = f"{base}-{n}"
        return slug

    def _slug(self, slug: object) -> str:
        return required_text(slug, field="slug", limit=200)

    def _content(self, content: object) -> str:
        # Content is stored exactly as given: checked, never stripped or rewritten.
        lim = self._limits
        text = check_text(content, field="content", multiline=True)
        if not text.strip():
            raise ValidationError("content must not be empty", field="content")
        if len(text) > lim.content_hard_chars:
            raise TooLargeError(
                f"content is {len(text):,} characters; the hard limit is "
                f"{lim.content_hard_chars:,}. Split it into several observations, or store "
                "the source as an appendix file (put_file) and reference it by path",
                field="content", limit=lim.content_hard_chars)
        return text

    def _size_warnings(self, content: str) -> list[str]:
        soft = self._limits.content_soft_chars
        if len(content) <= soft:
            return []
        return [f"content is {len(content):,} characters, over the ~{soft:,} an observation "
                "should hold: consider splitting it into several observations, or moving the "
                "source into an appendix file and referencing it by path"]

    def _category(self, category: object) -> str | None:
        if category is None:
            return None
        text = required_text(category, field="category", limit=self._limits.category_chars)
        return text.lower()

    def _idempotency_key(self, key: object) -> str | None:
        if key is None:
            return None
        return required_text(key, field="idempotency_key",
                             limit=self._limits.idempotency_key_chars)

    def _replay(self, tx: ReadTx, key: str, operation: str, fp: str) -> str | None:
        row = tx.get_idempotency(key)
        if row is None:
            return None
        if row.operation != operation or row.fingerprint != fp:
            raise IdempotencyConflictError(
                f"idempotency key {key!r} was already used for a different {row.operation} "
                "request; use a new key for a new request",
                memory=self.name, idempotency_key=key)
        return row.result

    def _remember_key(
        self, tx: WriteTx, key: str, operation: str, fp: str, slug: str | None,
        result: WriteResult | DeleteResult, now: datetime,
    ) -> None:
        tx.put_idempotency(IdempotencyRow(key, operation, fp, slug, result.model_dump_json(),
                                          now))


def _proposal(row: ProposalRow) -> MergeProposal:
    return MergeProposal(
        id=row.id, status=row.status,  # type: ignore[arg-type]
        canonical=row.canonical_name, duplicate=row.duplicate_name, type=row.type,
        reasons=list(row.reasons), score=row.score, created_at=row.created_at,
        decided_at=row.decided_at,
    )


def _page(limit: object, offset: object, *, maximum: int) -> tuple[int, int]:
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ValidationError("limit must be a positive integer", field="limit")
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0:
        raise ValidationError("offset must be a non-negative integer", field="offset")
    return min(limit, maximum), offset
