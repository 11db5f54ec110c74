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
from typing import Any, TypeVar, cast

from pydantic import BaseModel

from turngraph.config import Limits
from turngraph.core import graph
from turngraph.core.chat import ChatOps
from turngraph.core.files import FileOps
from turngraph.core.forget import ForgetOps
from turngraph.core.inspection import InspectOps
from turngraph.core.merging import MergeOps
from turngraph.core.reconcile import repair_chain
from turngraph.core.state import StateOps
from turngraph.core.turns import Tails, TurnOps
from turngraph.core.validate import (
    RelationshipKey,
    content_warnings,
    fingerprint,
    normalize_name,
    normalize_type,
    page_bounds,
    parse_entities,
    parse_names,
    parse_observation_fields,
    parse_paths,
    parse_relationship_refs,
    parse_relationships,
    required_text,
    slugify,
)
from turngraph.errors import (
    IdempotencyConflictError,
    NotFoundError,
    ValidationError,
)
from turngraph.extract.base import STRUCTURAL_TYPES, Extractor
from turngraph.extract.rules import RuleExtractor
from turngraph.models import (
    DeleteResult,
    Entity,
    EntitySummary,
    MemoryInfo,
    Observation,
    RetrievalConfig,
    Visibility,
    WriteResult,
)
from turngraph.plugins import embedder_for
from turngraph.recall.embed import Embedder
from turngraph.recall.index import refresh_after_write, schedule
from turngraph.recall.search import RecallOps
from turngraph.store.base import (
    IdempotencyRow,
    MemoryRow,
    ObservationRow,
    ReadTx,
    Store,
    WriteTx,
)

_T = TypeVar("_T")
DEFAULT_CATEGORY = "note"


class Memory(TurnOps, StateOps, RecallOps, FileOps, MergeOps, ForgetOps, InspectOps, ChatOps):
    """One memory: observations, the entity graph derived from them, files and proposals.

    Obtain it from :meth:`turngraph.Database.memory` or ``create_memory``. Thread-safe.
    """

    def __init__(self, store: Store, row: MemoryRow, extractor: Extractor | None = None) -> None:
        self._store = store
        self.extractor: Extractor = extractor or RuleExtractor()
        self._row = row
        self._id = row.id
        self.name = row.name
        self._limits: Limits = store.settings.limits
        # Fixed at creation, so read once: recall and every write's indexing consult it.
        self._retrieval = RetrievalConfig(**json.loads(row.retrieval))
        self._tails = Tails.of(store)

    def __repr__(self) -> str:
        return f"<Memory {self.name!r} at {self._store.url}>"

    @property
    def embedder(self) -> Embedder | None:
        """The embedder of this memory's fixed retrieval configuration (None: lexical only)."""
        config = self.retrieval
        settings = self._store.settings
        return embedder_for(
            config.embedder,
            config.dimension,
            base_url=settings.embeddings_base_url,
            api_key=settings.embeddings_api_key,
        )

    def _after_write(self) -> None:
        """Embed what the write queued for recall, outside its transaction: at most one batch
        here and the rest on the background indexer (all of it there, with
        ``Settings(index_in_background=True)``). A write never embeds an unbounded queue.
        A lexical-only memory queues nothing (its rows skip the queue), so there is no work."""
        if self.lexical_only:
            return
        if self._store.settings.index_in_background:
            schedule(self._store, self._id, self.embedder)
        else:
            refresh_after_write(self._store, self._id, self.embedder)

    @property
    def lexical_only(self) -> bool:
        """Whether the memory keeps no vectors (its retrieval embedder is ``"none"``)."""
        return self._retrieval.embedder == "none"

    @property
    def retrieval(self) -> RetrievalConfig:
        """The retrieval configuration fixed when the memory was created."""
        return self._retrieval

    def info(self) -> MemoryInfo:
        """The memory's settings and counts, read fresh."""
        row = self._store.get_memory(self.name, organization=self._row.organization)
        if row is None or row.id != self._id:
            raise NotFoundError(f"memory {self.name!r} was deleted", memory=self.name)
        with self._store.read(self._id) as tx:
            counts = tx.counts()
        return MemoryInfo(
            name=self.name,
            visibility=cast(Visibility, row.visibility),
            organization=row.organization,
            retrieval=self.retrieval,
            created_at=row.created_at,
            observations=counts.observations,
            entities=counts.entities,
            relationships=counts.relationships,
            files=counts.files,
            sessions=counts.sessions,
            turns=counts.turns,
            open_proposals=counts.open_proposals,
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
        if title is None or content is None:
            missing = "title" if title is None else "content"
            raise ValidationError(f"{missing} is required", field=missing)
        fields = parse_observation_fields(
            title=title,
            content=content,
            category=category,
            tags=tags,
            observed_at=observed_at,
            confidence=confidence,
            source=source,
            limits=lim,
        )
        ents = parse_entities(entities, limits=lim)
        rels = parse_relationships(relationships, limits=lim)
        paths = parse_paths(files, limits=lim, field="files")
        key = self._idempotency_key(idempotency_key)
        fp = fingerprint(
            "add_observation",
            {"fields": fields, "entities": ents, "relationships": rels, "files": paths},
        )
        warnings = content_warnings(fields.content, limits=lim)
        assert fields.title is not None
        assert fields.content is not None
        now = datetime.now(UTC)
        with self._store.write(self._id) as tx:
            if key and (replay := self._replay(tx, key, "add_observation", fp)) is not None:
                return WriteResult.model_validate_json(replay).model_copy(update={"replayed": True})
            existing = graph.resolve_entities(tx, ents, rels)
            self._check_files_exist(tx, paths, field="files")
            slug = self._unique_slug(tx, slugify(fields.title))
            seq = tx.next_seq()
            obs_id = tx.insert_observation(
                slug=slug,
                title=fields.title,
                content=fields.content,
                category=fields.category or DEFAULT_CATEGORY,
                tags=fields.tags or [],
                observed_at=fields.observed_at or now,
                confidence=fields.confidence,
                source=fields.source,
                now=now,
            )
            touched = graph.Touched()
            graph.apply_entities(tx, obs_id, ents, existing, seq=seq, now=now, touched=touched)
            graph.apply_relationships(tx, obs_id, rels, existing, seq=seq, now=now, touched=touched)
            graph.link_endpoints(tx, obs_id, seq=seq)
            tx.set_observation_files(obs_id, paths)
            result = self._finish_write(tx, slug, touched, warnings, now=now)
            if key:
                self._remember_key(tx, key, "add_observation", fp, slug, result, now)
        self._after_write()
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
        changes = parse_observation_fields(
            title=title,
            content=content,
            category=category,
            tags=tags,
            observed_at=observed_at,
            confidence=confidence,
            source=source,
            limits=lim,
        )
        ents = parse_entities(entities, limits=lim)
        rels = parse_relationships(relationships, limits=lim)
        removed_names = parse_names(remove_entities, limits=lim, field="remove_entities")
        removed_rels = parse_relationship_refs(
            remove_relationships, limits=lim, field="remove_relationships"
        )
        add_paths = parse_paths(files, limits=lim, field="files")
        drop_paths = parse_paths(remove_files, limits=lim, field="remove_files")
        self._check_contradictions(ents, rels, removed_names, add_paths, drop_paths)
        key = self._idempotency_key(idempotency_key)
        fp = fingerprint(
            "update_observation",
            {
                "slug": slug,
                "fields": changes,
                "entities": ents,
                "relationships": rels,
                "remove_entities": [k for _, k in removed_names],
                "remove_relationships": removed_rels,
                "files": add_paths,
                "remove_files": drop_paths,
            },
        )
        warnings = content_warnings(changes.content, limits=lim)
        now = datetime.now(UTC)
        with self._store.write(self._id) as tx:
            if key and (replay := self._replay(tx, key, "update_observation", fp)) is not None:
                return WriteResult.model_validate_json(replay).model_copy(update={"replayed": True})
            row = self._observation_row(tx, slug)
            existing = graph.resolve_entities(tx, ents, rels)
            self._check_files_exist(tx, add_paths, field="files")
            seq = tx.next_seq()
            tx.update_observation(
                row.id,
                title=_given(changes.title, row.title),
                content=_given(changes.content, row.content),
                category=_given(changes.category, row.category),
                tags=_given(changes.tags, list(row.tags)),
                observed_at=_given(changes.observed_at, row.observed_at),
                confidence=_given(changes.confidence, row.confidence),
                source=_given(changes.source, row.source),
                now=now,
            )
            touched = graph.Touched()
            graph.apply_entities(tx, row.id, ents, existing, seq=seq, now=now, touched=touched)
            graph.apply_relationships(tx, row.id, rels, existing, seq=seq, now=now, touched=touched)
            candidates = self._remove_from_observation(
                tx, row.id, removed_names, removed_rels, touched, warnings
            )
            graph.link_endpoints(tx, row.id, seq=seq)
            current = tx.observation_files(row.id)
            missing = [p for p in drop_paths if p not in current]
            warnings += [f"file {p!r} was not referenced by this observation" for p in missing]
            tx.set_observation_files(
                row.id,
                [p for p in current if p not in drop_paths]
                + [p for p in add_paths if p not in current],
            )
            pruned_entities, pruned_rels = graph.prune(
                tx, candidates | set(touched.entity_ids), touched.relationship_ids
            )
            for e in pruned_entities:
                warnings.append(f"entity {e.name!r} was removed: no other observation names it")
            for r in pruned_rels:
                warnings.append(
                    f"relationship {r.source!r} -[{r.type}]-> {r.target!r} was "
                    "removed: no other observation backs it"
                )
            result = self._finish_write(tx, slug, touched, warnings, now=now)
            if key:
                self._remember_key(tx, key, "update_observation", fp, slug, result, now)
        self._after_write()
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
                    update={"replayed": True}
                )
            result = self._delete_in_tx(tx, self._observation_row(tx, slug), now)
            if key:
                self._remember_key(tx, key, "delete_observation", fp, None, result, now)
        self._after_write()  # entities re-folded without it: their texts to embed
        return result

    def _delete_in_tx(self, tx: WriteTx, row: ObservationRow, now: datetime) -> DeleteResult:
        """Delete one observation inside ``tx``: prune, re-fold, repair attribute histories."""
        observation = graph.to_observation(tx, row)
        entity_ids = [link.entity_id for link in tx.observation_links(row.id)]
        rel_ids = tx.observation_relationship_ids(row.id)
        chains = tx.attribute_chains(row.id)
        tx.delete_observation(row.id)
        dead_entities, dead_rels = graph.prune(tx, entity_ids, rel_ids)
        dead = {e.id for e in dead_entities}
        graph.refold_entities(tx, [i for i in entity_ids if i not in dead], now=now)
        graph.refold_relationships(tx, set(rel_ids) - {r.id for r in dead_rels}, now=now)
        for entity_id, key in chains:
            if entity_id not in dead:
                repair_chain(tx, entity_id, key)
        tx.retire_slug(row.slug, now=now)
        tx.delete_idempotency_for_slug(row.slug)
        return DeleteResult(
            observation=observation,
            pruned_entities=[e.name for e in dead_entities],
            pruned_relationships=[graph.to_ref(r) for r in dead_rels],
        )

    # -- observations and entities: read ---------------------------------------------------

    def get_observation(self, slug: str) -> Observation:
        """The observation in full; NotFoundError (saying so if it was deleted) otherwise."""
        slug = self._slug(slug)
        with self._store.read(self._id) as tx:
            return graph.to_observation(tx, self._observation_row(tx, slug))

    def resolve_slug(self, prefix: str) -> str:
        """The slug ``prefix`` names: itself when it is one, else the one slug it starts.
        NotFoundError when none does, ValidationError (listing some) when several do."""
        prefix = self._slug(prefix)
        with self._store.read(self._id) as tx:
            if tx.get_observation(prefix) is not None:
                return prefix
            found = tx.slugs_starting(prefix.lower(), limit=6)
        if len(found) == 1:
            return found[0]
        if not found:
            raise NotFoundError(
                f"no observation {prefix!r} in memory {self.name!r}", memory=self.name, slug=prefix
            )
        shown = ", ".join(found[:5]) + (", ..." if len(found) > 5 else "")
        raise ValidationError(
            f"{prefix!r} starts several observations ({shown}); give more of the slug",
            field="slug",
        )

    def get_entity(self, name: str) -> Entity:
        """An entity by any of its names, with its relationships and observations (bounded)."""
        _, key = normalize_name(name, field="name", limit=self._limits.entity_name_chars)
        with self._store.read(self._id) as tx:
            entity = tx.find_entities([key]).get(key)
            if entity is None:
                raise NotFoundError(
                    f"no entity named {name!r} in memory {self.name!r}",
                    memory=self.name,
                    entity=name,
                )
            return graph.to_entity(tx, entity, limits=self._limits)

    def list_entities(
        self, type: str | None = None, *, limit: int = 100, offset: int = 0
    ) -> list[EntitySummary]:
        """Entities, most connected first, optionally of one type; ``limit`` at most 1000.
        Without a type, the agent kit's conversation and message entities are left out (ask
        for them by type)."""
        etype = (
            None
            if type is None
            else normalize_type(type, field="type", limit=self._limits.entity_type_chars)
        )
        limit, offset = page_bounds(limit, offset, maximum=self._limits.entities_per_page)
        with self._store.read(self._id) as tx:
            rows = tx.list_entities(
                type=etype, limit=limit, offset=offset, exclude=STRUCTURAL_TYPES
            )
        return [
            EntitySummary(name=e.name, type=e.type, description=e.description, degree=e.degree)
            for e in rows
        ]

    # -- helpers ---------------------------------------------------------------------------

    def _finish_write(
        self,
        tx: WriteTx,
        slug: str,
        touched: graph.Touched,
        warnings: list[str],
        *,
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
        self,
        tx: WriteTx,
        observation_id: int,
        names: list[tuple[str, str]],
        refs: list[RelationshipKey],
        touched: graph.Touched,
        warnings: list[str],
    ) -> set[int]:
        """Apply explicit removals; returns the entities that may now be orphans."""
        candidates: set[int] = set()
        keys = [k for _, k in names] + [k for r in refs for k in (r.source_key, r.target_key)]
        found = tx.find_entities(keys)
        backed = set(tx.observation_relationship_ids(observation_id))
        for ref in refs:
            s, t = found.get(ref.source_key), found.get(ref.target_key)
            rel_id = None if s is None or t is None else tx.find_relationship(s.id, ref.type, t.id)
            if rel_id is None or rel_id not in backed:
                raise ValidationError(
                    f"relationship {ref.source_key!r} -[{ref.type}]-> {ref.target_key!r} is "
                    "not backed by this observation, so it cannot be removed from it",
                    field="remove_relationships",
                    relationship=f"{ref.source_key} -[{ref.type}]-> {ref.target_key}",
                )
            tx.delete_backing(observation_id, rel_id)
            backed.discard(rel_id)
            touched.relationship_ids.add(rel_id)
        linked = {link.entity_id for link in tx.observation_links(observation_id)}
        for display, key in names:
            entity = found.get(key)
            if entity is None or entity.id not in linked:
                raise ValidationError(
                    f"entity {display!r} is not part of this observation, so it cannot be "
                    "removed from it",
                    field="remove_entities",
                    entity=display,
                )
            for rel in tx.get_relationships(backed):
                if entity.id in (rel.source_id, rel.target_id):
                    tx.delete_backing(observation_id, rel.id)
                    backed.discard(rel.id)
                    touched.relationship_ids.add(rel.id)
                    warnings.append(
                        f"relationship {rel.source!r} -[{rel.type}]-> {rel.target!r} left this "
                        f"observation with {entity.name!r}"
                    )
            tx.delete_link(observation_id, entity.id)
            candidates.add(entity.id)
        # Endpoints of relationships that left this observation may now be unlinked elsewhere.
        for rel in tx.get_relationships(touched.relationship_ids):
            candidates.update((rel.source_id, rel.target_id))
        return candidates

    def _check_contradictions(
        self,
        ents: Sequence[Any],
        rels: Sequence[Any],
        removed: list[tuple[str, str]],
        add_paths: list[str],
        drop_paths: list[str],
    ) -> None:
        gone = {k for _, k in removed}
        for i, e in enumerate(ents):
            if e.key in gone:
                raise ValidationError(
                    f"entity {e.name!r} is both added and removed in one update",
                    field=f"entities[{i}]",
                    entity=e.name,
                )
        for i, r in enumerate(rels):
            for key, name in ((r.source_key, r.source), (r.target_key, r.target)):
                if key in gone:
                    raise ValidationError(
                        f"relationship {r.source!r} -[{r.type}]-> {r.target!r} uses {name!r}, "
                        "which this update removes",
                        field=f"relationships[{i}]",
                        entity=name,
                    )
        both = sorted(set(add_paths) & set(drop_paths))
        if both:
            raise ValidationError(
                f"file {both[0]!r} is both added and removed in one update",
                field="files",
                path=both[0],
            )

    def _observation_row(self, tx: ReadTx, slug: str) -> ObservationRow:
        row = tx.get_observation(slug)
        if row is None:
            if tx.slug_retired(slug):
                raise NotFoundError(
                    f"observation {slug!r} was deleted from memory {self.name!r}",
                    memory=self.name,
                    slug=slug,
                )
            raise NotFoundError(
                f"no observation {slug!r} in memory {self.name!r}", memory=self.name, slug=slug
            )
        return row

    def _unique_slug(self, tx: ReadTx, base: str) -> str:
        slug, n = base, 1
        while tx.slug_taken(slug):
            n += 1
            slug = f"{base}-{n}"
        return slug

    def _slug(self, slug: object) -> str:
        return required_text(slug, field="slug", limit=200)

    def _idempotency_key(self, key: object) -> str | None:
        if key is None:
            return None
        return required_text(key, field="idempotency_key", limit=self._limits.idempotency_key_chars)

    def _replay(self, tx: ReadTx, key: str, operation: str, fp: str) -> str | None:
        row = tx.get_idempotency(key)
        if row is None:
            return None
        if row.operation != operation or row.fingerprint != fp:
            raise IdempotencyConflictError(
                f"idempotency key {key!r} was already used for a different {row.operation} "
                "request; use a new key for a new request",
                memory=self.name,
                idempotency_key=key,
            )
        return row.result

    def _remember_key(
        self,
        tx: WriteTx,
        key: str,
        operation: str,
        fp: str,
        slug: str | None,
        result: BaseModel,
        now: datetime,
    ) -> None:
        tx.put_idempotency(IdempotencyRow(key, operation, fp, slug, result.model_dump_json(), now))


def _given(value: _T | None, current: _T) -> _T:
    return current if value is None else value
