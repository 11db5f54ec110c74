"""PostgreSQL writes of one memory: files, sessions and turns, attributes and turn facts,
and what keeps recall current (the search context, vectors, the index queue)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import datetime

from turngraph.store.base import AttributeRow, FactRow, FileRow
from turngraph.store.postgres_read import PostgresReadTx
from turngraph.store.postgres_vectors import (
    HNSW_MAX_DIMENSION,
    INDEX_LOCK,
    MARK_BATCH,
    VectorBytes,
    create_dimension_index,
)
from turngraph.store.sqlite_rows import to_db


class MoreWrites(PostgresReadTx):
    """Mixed into :class:`~turngraph.store.postgres_write.PostgresTx`."""

    # -- files ---------------------------------------------------------------------------------

    def put_file(self, row: FileRow) -> None:
        assert row.data is not None
        self._run(
            "INSERT INTO files (memory_id, path, filename, content_type, size, sha256, "
            "description, created_by, created_at, data) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
            "ON CONFLICT (memory_id, path) DO UPDATE SET filename = excluded.filename, "
            "content_type = excluded.content_type, size = excluded.size, "
            "sha256 = excluded.sha256, description = excluded.description, "
            "created_by = excluded.created_by, created_at = excluded.created_at, "
            "data = excluded.data",
            (
                self.memory_id,
                row.path,
                row.filename,
                row.content_type,
                row.size,
                row.sha256,
                row.description,
                row.created_by,
                to_db(row.created_at),
                row.data,
            ),
        )

    def delete_file(self, path: str) -> None:
        self._run("DELETE FROM files WHERE memory_id = %s AND path = %s", (self.memory_id, path))

    # -- sessions and turns --------------------------------------------------------------------

    def insert_session(self, session_id: str, *, metadata: str, now: datetime) -> None:
        self._run(
            "INSERT INTO sessions (memory_id, id, metadata, created_at) VALUES (%s, %s, %s, %s)",
            (self.memory_id, session_id, metadata, to_db(now)),
        )

    def next_turn_seq(self, session_id: str) -> int:
        row = self._one(
            "UPDATE sessions SET turn_count = turn_count + 1 WHERE memory_id = %s AND id = %s "
            "RETURNING turn_count",
            (self.memory_id, session_id),
        )
        return int(row[0])

    def insert_turn(
        self,
        *,
        turn_id: str,
        session_id: str,
        seq: int,
        role: str,
        speaker: str | None,
        observation_id: int,
        extracted: str,
        labels: Sequence[str],
        now: datetime,
    ) -> None:
        self._run(
            "INSERT INTO turns (memory_id, id, session_id, seq, role, speaker, observation_id, "
            "extracted, labels, created_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            (
                self.memory_id,
                turn_id,
                session_id,
                seq,
                role,
                speaker,
                observation_id,
                extracted,
                json.dumps(list(labels)),
                to_db(now),
            ),
        )

    def set_turn_extracted(self, turn_id: str, extracted: str) -> None:
        self._run(
            "UPDATE turns SET extracted = %s WHERE memory_id = %s AND id = %s",
            (extracted, self.memory_id, turn_id),
        )

    def delete_session(self, session_id: str) -> None:
        self._run(
            "DELETE FROM sessions WHERE memory_id = %s AND id = %s", (self.memory_id, session_id)
        )

    # -- attributes and turn facts -------------------------------------------------------------

    def insert_attribute(self, row: AttributeRow) -> None:
        # search_text: what text search reads of an attribute (its entity's name, key, value).
        self._run(
            "INSERT INTO attributes (memory_id, id, entity_id, key, value, memory_category, "
            "observation_id, valid_from, valid_until, supersedes, superseded_by, created_at, "
            "search_text) SELECT %(m)s, %(id)s, %(entity)s, %(key)s, %(value)s, %(category)s, "
            "%(observation)s, %(valid_from)s, %(valid_until)s, %(supersedes)s, "
            "%(superseded_by)s, %(created_at)s, "
            "e.name || ' ' || replace(%(key)s, '_', ' ') || ' ' || %(value)s "
            "FROM entities e WHERE e.memory_id = %(m)s AND e.id = %(entity)s",
            {
                "m": self.memory_id,
                "id": row.id,
                "entity": row.entity_id,
                "key": row.key,
                "value": row.value,
                "category": row.memory_category,
                "observation": row.observation_id,
                "valid_from": to_db(row.valid_from),
                "valid_until": None if row.valid_until is None else to_db(row.valid_until),
                "supersedes": row.supersedes,
                "superseded_by": row.superseded_by,
                "created_at": to_db(row.created_at),
            },
        )

    def set_attribute_links(
        self,
        attribute_id: str,
        *,
        valid_until: datetime | None,
        supersedes: str | None,
        superseded_by: str | None,
    ) -> None:
        self._run(
            "UPDATE attributes SET valid_until = %s, supersedes = %s, superseded_by = %s "
            "WHERE memory_id = %s AND id = %s",
            (
                None if valid_until is None else to_db(valid_until),
                supersedes,
                superseded_by,
                self.memory_id,
                attribute_id,
            ),
        )

    def delete_attributes(self, ids: Iterable[str]) -> None:
        wanted = list(ids)
        if wanted:
            self._run(
                "DELETE FROM attributes WHERE memory_id = %s AND id = ANY(%s)",
                (self.memory_id, wanted),
            )

    def move_attributes(self, from_entity_id: int, to_entity_id: int) -> None:
        self._run(
            "UPDATE attributes SET entity_id = %s WHERE memory_id = %s AND entity_id = %s",
            (to_entity_id, self.memory_id, from_entity_id),
        )

    def set_entity_category(self, entity_id: int, category: str) -> None:
        self._run(
            "UPDATE entities SET memory_category = %s WHERE memory_id = %s AND id = %s",
            (category, self.memory_id, entity_id),
        )

    def set_relationship_validity(
        self,
        relationship_id: int,
        *,
        memory_category: str | None,
        valid_from: datetime | None,
        valid_until: datetime | None,
    ) -> None:
        self._run(
            "UPDATE relationships SET memory_category = coalesce(%s, memory_category), "
            "valid_from = coalesce(%s::timestamptz, valid_from), valid_until = %s "
            "WHERE memory_id = %s AND id = %s",
            (
                memory_category,
                None if valid_from is None else to_db(valid_from),
                None if valid_until is None else to_db(valid_until),
                self.memory_id,
                relationship_id,
            ),
        )

    def insert_fact(self, row: FactRow) -> None:
        self._run(
            "INSERT INTO turn_facts (memory_id, id, kind, observation_id, memory_category, "
            "data, dedup, happened_at, active) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
            (
                self.memory_id,
                row.id,
                row.kind,
                row.observation_id,
                row.memory_category,
                row.data,
                row.dedup,
                to_db(row.happened_at),
                row.active,
            ),
        )

    def deactivate_fact(self, fact_id: str) -> None:
        self._run(
            "UPDATE turn_facts SET active = false WHERE memory_id = %s AND id = %s",
            (self.memory_id, fact_id),
        )

    # -- recall --------------------------------------------------------------------------------

    def set_search_context(self, observation_id: int, context: str) -> None:
        self._run(
            "UPDATE observations SET search_context = %s WHERE memory_id = %s AND id = %s",
            (context, self.memory_id, observation_id),
        )

    def put_vector(self, kind: str, ref: int, data: bytes) -> None:
        self.put_vectors([(kind, ref, data)])

    def put_vectors(
        self, vectors: Sequence[tuple[str, int, bytes]], *, dequeue: bool = False
    ) -> None:
        # One statement for the batch (a vector stored again in it: its last bytes), its
        # queue entries with ``dequeue``, and with pgvector the counts that say whether the
        # kind is indexed. Each vector is stamped with the index version the batch moves the
        # memory to; with pgvector, its embedding is stored beside its bytes
        # (postgres_vectors).
        latest = {(kind, ref): data for kind, ref, data in vectors}
        if not latest:
            return
        kinds = [kind for kind, _ in latest]
        params: dict[str, object] = {
            "m": self.memory_id,
            "kinds": kinds,
            "refs": [ref for _, ref in latest],
            "data": list(latest.values()),
        }
        gone = (
            ", gone AS (DELETE FROM index_queue WHERE memory_id = %(m)s AND (kind, ref) IN "
            "(SELECT * FROM unnest(%(kinds)s::text[], %(refs)s::bigint[]))) "
            if dequeue
            else " "
        )
        moved = (
            "moved AS (UPDATE memories SET index_version = index_version + 1 "
            "WHERE id = %(m)s RETURNING index_version)"
        )
        if not self.vector_index.enabled:
            self._run(
                f"WITH {moved}{gone}"
                "INSERT INTO vectors (memory_id, kind, ref, data, stamp) "
                "SELECT %(m)s, r.kind, r.ref, r.data, moved.index_version FROM moved, "
                "unnest(%(kinds)s::text[], %(refs)s::bigint[], %(data)s::bytea[]) "
                "AS r(kind, ref, data) ON CONFLICT (memory_id, kind, ref) DO UPDATE SET "
                "data = excluded.data, stamp = excluded.stamp",
                params,
            )
            return
        index = self.vector_index
        for dim in {len(data) // 4 for data in latest.values()} - index.dimensions:
            if 0 < dim <= HNSW_MAX_DIMENSION:
                # The first vector of this dimension in the database: its index, built once
                # (the lock keeps two processes from building it at the same time).
                self._one("SELECT pg_advisory_xact_lock(%s, %s)", INDEX_LOCK)
                create_dimension_index(self.conn, dim)
                index.dimensions.add(dim)
        # Indexed once the memory holds more vectors of the kind than are searched exactly
        # (the counts as they were before this statement); a write that finds older ones
        # still outside the index brings a batch of them in.
        stats = {
            str(kind): (bool(big), bool(waiting))
            for kind, big, waiting in self._all(
                "WITH counted AS (SELECT kind, vectors >= %(exact)s AS big, unindexed > 0 "
                "AS waiting FROM vector_stats WHERE memory_id = %(m)s "
                "AND kind = ANY(%(kinds)s)), "
                f"{moved}{gone}, put AS ("
                "INSERT INTO vectors (memory_id, kind, ref, data, stamp, embedding, indexed) "
                "SELECT %(m)s, r.kind, r.ref, r.data, moved.index_version, r.e, "
                "coalesce(c.big, false) FROM moved CROSS JOIN "
                "unnest(%(kinds)s::text[], %(refs)s::bigint[], %(data)s::bytea[], "
                "%(e)b::vector[]) AS r(kind, ref, data, e) LEFT JOIN counted c "
                "ON c.kind = r.kind "
                "ON CONFLICT (memory_id, kind, ref) DO UPDATE SET data = excluded.data, "
                "stamp = excluded.stamp, embedding = excluded.embedding, "
                "indexed = vectors.indexed OR excluded.indexed) "
                "SELECT kind, big, waiting FROM counted",
                {
                    **params,
                    "exact": index.exact_below,
                    # Binary vectors (postgres_vectors.VectorBytes); an empty one has none.
                    "e": [VectorBytes(data) if data else None for data in latest.values()],
                },
            )
        }
        for kind, (big, waiting) in sorted(stats.items()):
            if big and waiting:
                # The batch is read once (an array), then each of its rows found by its key.
                self._run(
                    "UPDATE vectors SET indexed = true WHERE memory_id = %(m)s "
                    "AND kind = %(kind)s AND ref = ANY(ARRAY(SELECT ref FROM vectors "
                    "WHERE memory_id = %(m)s AND kind = %(kind)s AND NOT indexed "
                    "LIMIT %(n)s))",
                    {"m": self.memory_id, "kind": kind, "n": MARK_BATCH},
                )

    def enqueue(self, kind: str, ref: int) -> None:
        self._run(
            "INSERT INTO index_queue (memory_id, kind, ref) VALUES (%s, %s, %s) "
            "ON CONFLICT DO NOTHING",
            (self.memory_id, kind, ref),
        )

    def dequeue_many(self, keys: Sequence[tuple[str, int]]) -> None:
        if not keys:
            return
        self._run(
            "DELETE FROM index_queue WHERE memory_id = %s AND (kind, ref) IN "
            "(SELECT * FROM unnest(%s::text[], %s::bigint[]))",
            (self.memory_id, [kind for kind, _ in keys], [ref for _, ref in keys]),
        )
