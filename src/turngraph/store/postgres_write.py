"""PostgreSQL writes of one memory inside one write transaction: the graph.

Every statement names the memory; the memory's advisory lock, taken by the store when the
transaction began, serializes these writes with every other writer of the memory.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import datetime

from turngraph.store.base import EntityRow, IdempotencyRow
from turngraph.store.postgres_more_writes import MoreWrites
from turngraph.store.postgres_schema import Conn
from turngraph.store.sqlite_rows import to_db


class PostgresTx(MoreWrites):
    """Reads and writes of one memory inside one PostgreSQL write transaction."""

    def __init__(self, conn: Conn, memory_id: int, *, writes: int) -> None:
        super().__init__(conn, memory_id)
        self.writes = writes
        self.observations_added = 0  # for the statistics refresh (postgres_stats)

    def next_seq(self) -> int:
        return int(
            self._one(
                "UPDATE memories SET seq = seq + 1 WHERE id = %s RETURNING seq", (self.memory_id,)
            )[0]
        )

    def raise_seq(self, at_least: int) -> None:
        self._run(
            "UPDATE memories SET seq = greatest(seq, %s) WHERE id = %s", (at_least, self.memory_id)
        )

    # -- observations --------------------------------------------------------------------------

    def insert_observation(
        self,
        *,
        slug: str,
        title: str,
        content: str,
        category: str,
        tags: Sequence[str],
        observed_at: datetime,
        confidence: float | None,
        source: str | None,
        now: datetime,
        search_context: str = "",
    ) -> int:
        row = self._one(
            "INSERT INTO observations (memory_id, slug, title, content, category, tags, "
            "observed_at, confidence, source, created_at, updated_at, search_context) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING id",
            (
                self.memory_id,
                slug,
                title,
                content,
                category,
                json.dumps(list(tags)),
                to_db(observed_at),
                confidence,
                source,
                to_db(now),
                to_db(now),
                search_context,
            ),
        )
        observation_id = int(row[0])
        self._set_tags(observation_id, tags, new=True)
        self.observations_added += 1
        return observation_id

    def _set_tags(self, observation_id: int, tags: Sequence[str], *, new: bool = False) -> None:
        if not new:
            self._run(
                "DELETE FROM observation_tags WHERE memory_id = %s AND observation_id = %s",
                (self.memory_id, observation_id),
            )
        if tags:
            self._run(
                "INSERT INTO observation_tags (memory_id, observation_id, tag) "
                "SELECT %s, %s, unnest(%s::text[]) ON CONFLICT DO NOTHING",
                (self.memory_id, observation_id, list(tags)),
            )

    def update_observation(
        self,
        observation_id: int,
        *,
        title: str,
        content: str,
        category: str,
        tags: Sequence[str],
        observed_at: datetime,
        confidence: float | None,
        source: str | None,
        now: datetime,
    ) -> None:
        self._run(
            "UPDATE observations SET title = %s, content = %s, category = %s, tags = %s, "
            "observed_at = %s, confidence = %s, source = %s, updated_at = %s "
            "WHERE memory_id = %s AND id = %s",
            (
                title,
                content,
                category,
                json.dumps(list(tags)),
                to_db(observed_at),
                confidence,
                source,
                to_db(now),
                self.memory_id,
                observation_id,
            ),
        )
        self._set_tags(observation_id, tags)

    def delete_observation(self, observation_id: int) -> None:
        self._run(
            "DELETE FROM observations WHERE memory_id = %s AND id = %s",
            (self.memory_id, observation_id),
        )

    def retire_slug(self, slug: str, *, now: datetime) -> None:
        self._run(
            "INSERT INTO retired_slugs (memory_id, slug, deleted_at) VALUES (%s, %s, %s) "
            "ON CONFLICT DO NOTHING",
            (self.memory_id, slug, to_db(now)),
        )

    def set_observation_files(self, observation_id: int, paths: Sequence[str]) -> None:
        self._run(
            "DELETE FROM observation_files WHERE memory_id = %s AND observation_id = %s",
            (self.memory_id, observation_id),
        )
        if paths:
            self._run(
                "INSERT INTO observation_files (memory_id, observation_id, path) "
                "SELECT %s, %s, unnest(%s::text[]) ON CONFLICT DO NOTHING",
                (self.memory_id, observation_id, list(paths)),
            )

    # -- entities ------------------------------------------------------------------------------

    def insert_entity(
        self,
        *,
        key: str,
        name: str,
        type: str,
        description: str,
        retrieval_queries: Sequence[str],
        now: datetime,
        memory_category: str = "knowledge",
    ) -> EntityRow:
        row = self._one(
            "INSERT INTO entities (memory_id, key, name, type, description, retrieval_queries, "
            "degree, created_at, updated_at, memory_category) "
            "VALUES (%s, %s, %s, %s, %s, %s, 0, %s, %s, %s) RETURNING id",
            (
                self.memory_id,
                key,
                name,
                type,
                description,
                json.dumps(list(retrieval_queries)),
                to_db(now),
                to_db(now),
                memory_category,
            ),
        )
        return EntityRow(
            int(row[0]),
            key,
            name,
            type,
            description,
            tuple(retrieval_queries),
            0,
            now,
            now,
            memory_category,
        )

    def update_entity(
        self,
        entity_id: int,
        *,
        type: str,
        description: str,
        retrieval_queries: Sequence[str],
        now: datetime,
    ) -> None:
        self._run(
            "UPDATE entities SET type = %s, description = %s, retrieval_queries = %s, "
            "updated_at = %s WHERE memory_id = %s AND id = %s",
            (
                type,
                description,
                json.dumps(list(retrieval_queries)),
                to_db(now),
                self.memory_id,
                entity_id,
            ),
        )

    def delete_entities(self, ids: Iterable[int]) -> None:
        wanted = list(ids)
        if wanted:
            self._run(
                "DELETE FROM entities WHERE memory_id = %s AND id = ANY(%s)",
                (self.memory_id, wanted),
            )

    def add_alias(self, *, key: str, name: str, entity_id: int) -> None:
        self._run(
            "INSERT INTO entity_aliases (memory_id, key, name, entity_id) "
            "VALUES (%s, %s, %s, %s) ON CONFLICT (memory_id, key) "
            "DO UPDATE SET entity_id = excluded.entity_id, name = excluded.name",
            (self.memory_id, key, name, entity_id),
        )

    def move_aliases(self, from_entity_id: int, to_entity_id: int) -> None:
        self._run(
            "UPDATE entity_aliases SET entity_id = %s WHERE memory_id = %s AND entity_id = %s",
            (to_entity_id, self.memory_id, from_entity_id),
        )

    def put_link(
        self,
        observation_id: int,
        entity_id: int,
        *,
        explicit: bool,
        type: str | None,
        description: str | None,
        retrieval_queries: Sequence[str],
        seq: int,
    ) -> None:
        self._run(
            "INSERT INTO observation_entities (memory_id, observation_id, entity_id, explicit, "
            "type, description, retrieval_queries, seq) VALUES (%s, %s, %s, %s, %s, %s, %s, %s) "
            "ON CONFLICT (memory_id, observation_id, entity_id) DO UPDATE SET "
            "explicit = excluded.explicit, type = excluded.type, "
            "description = excluded.description, "
            "retrieval_queries = excluded.retrieval_queries, seq = excluded.seq",
            (
                self.memory_id,
                observation_id,
                entity_id,
                explicit,
                type,
                description,
                json.dumps(list(retrieval_queries)),
                seq,
            ),
        )

    def delete_link(self, observation_id: int, entity_id: int) -> None:
        self._run(
            "DELETE FROM observation_entities WHERE memory_id = %s AND observation_id = %s "
            "AND entity_id = %s",
            (self.memory_id, observation_id, entity_id),
        )

    def move_links(self, from_entity_id: int, to_entity_id: int) -> int:
        # Where an observation already links both, keep one row: an explicit assertion beats
        # an implicit link, and the newer explicit one wins.
        m = self.memory_id
        rows = self._all(
            "SELECT observation_id, explicit, type, description, retrieval_queries, seq "
            "FROM observation_entities WHERE memory_id = %s AND entity_id = %s ORDER BY pos",
            (m, from_entity_id),
        )
        for obs_id, explicit, etype, desc, rq, seq in rows:
            existing = self._one(
                "SELECT explicit, seq FROM observation_entities WHERE memory_id = %s "
                "AND observation_id = %s AND entity_id = %s",
                (m, obs_id, to_entity_id),
            )
            if existing is None or (explicit and (not existing[0] or seq > existing[1])):
                self.delete_link(obs_id, to_entity_id)
                self._run(
                    "INSERT INTO observation_entities (memory_id, observation_id, entity_id, "
                    "explicit, type, description, retrieval_queries, seq) "
                    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                    (m, obs_id, to_entity_id, explicit, etype, desc, rq, seq),
                )
        self._run(
            "DELETE FROM observation_entities WHERE memory_id = %s AND entity_id = %s",
            (m, from_entity_id),
        )
        return len(rows)

    def unlinked_entities(self, candidates: Iterable[int]) -> list[int]:
        wanted = list(candidates)
        if not wanted:
            return []
        return self._col(
            "SELECT id FROM entities e WHERE memory_id = %s AND id = ANY(%s) AND NOT EXISTS "
            "(SELECT 1 FROM observation_entities l WHERE l.memory_id = e.memory_id "
            "AND l.entity_id = e.id)",
            (self.memory_id, wanted),
        )

    def recompute_degrees(self, ids: Iterable[int]) -> None:
        wanted = list(ids)
        if wanted:
            self._run(
                "UPDATE entities e SET degree = "
                "(SELECT count(*) FROM relationships r WHERE r.memory_id = e.memory_id "
                "AND r.source_id = e.id) + "
                "(SELECT count(*) FROM relationships r WHERE r.memory_id = e.memory_id "
                "AND r.target_id = e.id) WHERE e.memory_id = %s AND e.id = ANY(%s)",
                (self.memory_id, wanted),
            )

    # -- relationships -------------------------------------------------------------------------

    def insert_relationship(
        self,
        *,
        source_id: int,
        type: str,
        target_id: int,
        now: datetime,
        memory_category: str = "knowledge",
        valid_from: datetime | None = None,
    ) -> int:
        row = self._one(
            "INSERT INTO relationships (memory_id, source_id, type, target_id, description, "
            "weight, created_at, updated_at, memory_category, valid_from) "
            "VALUES (%s, %s, %s, %s, '', 1.0, %s, %s, %s, %s) RETURNING id",
            (
                self.memory_id,
                source_id,
                type,
                target_id,
                to_db(now),
                to_db(now),
                memory_category,
                to_db(valid_from or now),
            ),
        )
        return int(row[0])

    def update_relationship(
        self, relationship_id: int, *, description: str, weight: float, now: datetime
    ) -> None:
        self._run(
            "UPDATE relationships SET description = %s, weight = %s, updated_at = %s "
            "WHERE memory_id = %s AND id = %s",
            (description, weight, to_db(now), self.memory_id, relationship_id),
        )

    def repoint_relationship(self, relationship_id: int, *, source_id: int, target_id: int) -> None:
        self._run(
            "UPDATE relationships SET source_id = %s, target_id = %s "
            "WHERE memory_id = %s AND id = %s",
            (source_id, target_id, self.memory_id, relationship_id),
        )

    def delete_relationships(self, ids: Iterable[int]) -> None:
        wanted = list(ids)
        if wanted:
            self._run(
                "DELETE FROM relationships WHERE memory_id = %s AND id = ANY(%s)",
                (self.memory_id, wanted),
            )

    def put_backing(
        self,
        observation_id: int,
        relationship_id: int,
        *,
        description: str | None,
        weight: float | None,
        seq: int,
    ) -> None:
        self._run(
            "INSERT INTO observation_relationships (memory_id, observation_id, relationship_id, "
            "description, weight, seq) VALUES (%s, %s, %s, %s, %s, %s) "
            "ON CONFLICT (memory_id, observation_id, relationship_id) DO UPDATE SET "
            "description = excluded.description, weight = excluded.weight, seq = excluded.seq",
            (self.memory_id, observation_id, relationship_id, description, weight, seq),
        )

    def delete_backing(self, observation_id: int, relationship_id: int) -> None:
        self._run(
            "DELETE FROM observation_relationships WHERE memory_id = %s AND observation_id = %s "
            "AND relationship_id = %s",
            (self.memory_id, observation_id, relationship_id),
        )

    def move_backings(self, from_relationship_id: int, to_relationship_id: int) -> None:
        m = self.memory_id
        rows = self._all(
            "SELECT observation_id, description, weight, seq FROM observation_relationships "
            "WHERE memory_id = %s AND relationship_id = %s ORDER BY pos",
            (m, from_relationship_id),
        )
        for obs_id, desc, weight, seq in rows:
            existing = self._one(
                "SELECT seq FROM observation_relationships WHERE memory_id = %s "
                "AND observation_id = %s AND relationship_id = %s",
                (m, obs_id, to_relationship_id),
            )
            if existing is None or seq > existing[0]:
                self.put_backing(
                    obs_id, to_relationship_id, description=desc, weight=weight, seq=seq
                )
        self._run(
            "DELETE FROM observation_relationships WHERE memory_id = %s AND relationship_id = %s",
            (m, from_relationship_id),
        )

    def unbacked_relationships(self, candidates: Iterable[int]) -> list[int]:
        wanted = list(candidates)
        if not wanted:
            return []
        return self._col(
            "SELECT id FROM relationships r WHERE memory_id = %s AND id = ANY(%s) AND "
            "NOT EXISTS (SELECT 1 FROM observation_relationships b "
            "WHERE b.memory_id = r.memory_id AND b.relationship_id = r.id)",
            (self.memory_id, wanted),
        )

    # -- idempotency and consolidation ---------------------------------------------------------

    def put_idempotency(self, row: IdempotencyRow) -> None:
        self._run(
            "INSERT INTO idempotency (memory_id, key, operation, fingerprint, slug, result, "
            "created_at) VALUES (%s, %s, %s, %s, %s, %s, %s)",
            (
                self.memory_id,
                row.key,
                row.operation,
                row.fingerprint,
                row.slug,
                row.result,
                to_db(row.created_at),
            ),
        )

    def delete_idempotency_for_slug(self, slug: str) -> None:
        self._run(
            "DELETE FROM idempotency WHERE memory_id = %s AND slug = %s", (self.memory_id, slug)
        )

    def insert_proposal(
        self,
        *,
        canonical_key: str,
        canonical_name: str,
        duplicate_key: str,
        duplicate_name: str,
        type: str,
        reasons: Sequence[str],
        score: float,
        now: datetime,
    ) -> int:
        row = self._one(
            "INSERT INTO merge_proposals (memory_id, canonical_key, canonical_name, "
            "duplicate_key, duplicate_name, type, reasons, score, status, created_at) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, 'open', %s) RETURNING id",
            (
                self.memory_id,
                canonical_key,
                canonical_name,
                duplicate_key,
                duplicate_name,
                type,
                json.dumps(list(reasons)),
                score,
                to_db(now),
            ),
        )
        return int(row[0])

    def set_proposal_status(self, proposal_id: int, status: str, *, now: datetime) -> None:
        self._run(
            "UPDATE merge_proposals SET status = %s, decided_at = %s "
            "WHERE memory_id = %s AND id = %s",
            (status, to_db(now), self.memory_id, proposal_id),
        )

    def reject_pair(self, key_a: str, key_b: str, *, now: datetime) -> None:
        a, b = sorted((key_a, key_b))
        self._run(
            "INSERT INTO merge_rejections (memory_id, key_a, key_b, rejected_at) "
            "VALUES (%s, %s, %s, %s) ON CONFLICT DO NOTHING",
            (self.memory_id, a, b, to_db(now)),
        )
