"""SQLite writes of one memory inside one write transaction."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Sequence
from datetime import datetime

from turngraph.store.base import AttributeRow, EntityRow, FactRow, FileRow, IdempotencyRow
from turngraph.store.sqlite_read import SQLiteReadTx
from turngraph.store.sqlite_rows import _chunks, _placeholders, to_db


class SQLiteTx(SQLiteReadTx):
    """Reads and writes of one memory inside one SQLite write transaction."""

    def __init__(self, conn: sqlite3.Connection, memory_id: int, *, writes: int) -> None:
        super().__init__(conn, memory_id)
        self.writes = writes

    # -- writes ----------------------------------------------------------------------------

    def next_seq(self) -> int:
        return int(
            self._one(
                "UPDATE memories SET seq = seq + 1 WHERE id=? RETURNING seq", (self.memory_id,)
            )[0]
        )

    def raise_seq(self, at_least: int) -> None:
        self.conn.execute(
            "UPDATE memories SET seq = max(seq, ?) WHERE id=?", (at_least, self.memory_id)
        )

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
        cur = self.conn.execute(
            "INSERT INTO observations (memory_id, slug, title, content, category, tags, "
            "observed_at, confidence, source, created_at, updated_at) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?)",
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
            ),
        )
        assert cur.lastrowid is not None
        self.conn.execute(
            "INSERT INTO fts_observations (rowid, mem, title, content, context) VALUES (?,?,?,?,?)",
            (cur.lastrowid, f"m{self.memory_id}", title, content, search_context),
        )
        if tags:  # a new observation has no tag rows to replace
            self._insert_tags(cur.lastrowid, tags)
        return cur.lastrowid

    def _set_tags(self, observation_id: int, tags: Sequence[str]) -> None:
        self.conn.execute("DELETE FROM observation_tags WHERE observation_id=?", (observation_id,))
        self._insert_tags(observation_id, tags)

    def _insert_tags(self, observation_id: int, tags: Sequence[str]) -> None:
        self.conn.executemany(
            "INSERT INTO observation_tags (observation_id, memory_id, tag) VALUES (?,?,?)",
            [(observation_id, self.memory_id, t) for t in tags],
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
        self.conn.execute(
            "UPDATE observations SET title=?, content=?, category=?, tags=?, observed_at=?, "
            "confidence=?, source=?, updated_at=? WHERE id=?",
            (
                title,
                content,
                category,
                json.dumps(list(tags)),
                to_db(observed_at),
                confidence,
                source,
                to_db(now),
                observation_id,
            ),
        )
        self._set_tags(observation_id, tags)

    def delete_observation(self, observation_id: int) -> None:
        self.conn.execute("DELETE FROM observations WHERE id=?", (observation_id,))

    def retire_slug(self, slug: str, *, now: datetime) -> None:
        self.conn.execute(
            "INSERT OR IGNORE INTO retired_slugs (memory_id, slug, deleted_at) VALUES (?,?,?)",
            (self.memory_id, slug, to_db(now)),
        )

    def set_observation_files(self, observation_id: int, paths: Sequence[str]) -> None:
        self.conn.execute("DELETE FROM observation_files WHERE observation_id=?", (observation_id,))
        self.conn.executemany(
            "INSERT INTO observation_files (observation_id, memory_id, path) VALUES (?,?,?)",
            [(observation_id, self.memory_id, p) for p in paths],
        )

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
        cur = self.conn.execute(
            "INSERT INTO entities (memory_id, key, name, type, description, retrieval_queries, "
            "degree, created_at, updated_at, memory_category) VALUES (?,?,?,?,?,?,0,?,?,?)",
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
        assert cur.lastrowid is not None
        return EntityRow(
            cur.lastrowid,
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
        self.conn.execute(
            "UPDATE entities SET type=?, description=?, retrieval_queries=?, updated_at=? "
            "WHERE id=?",
            (type, description, json.dumps(list(retrieval_queries)), to_db(now), entity_id),
        )

    def delete_entities(self, ids: Iterable[int]) -> None:
        for batch in _chunks(ids):
            self.conn.execute(
                f"DELETE FROM entities WHERE id IN ({_placeholders(len(batch))})", batch
            )

    def add_alias(self, *, key: str, name: str, entity_id: int) -> None:
        self.conn.execute(
            "INSERT INTO entity_aliases (memory_id, key, name, entity_id) VALUES (?,?,?,?) "
            "ON CONFLICT (memory_id, key) DO UPDATE SET entity_id=excluded.entity_id, "
            "name=excluded.name",
            (self.memory_id, key, name, entity_id),
        )

    def move_aliases(self, from_entity_id: int, to_entity_id: int) -> None:
        self.conn.execute(
            "UPDATE entity_aliases SET entity_id=? WHERE entity_id=?",
            (to_entity_id, from_entity_id),
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
        self.conn.execute(
            "INSERT INTO observation_entities (observation_id, entity_id, explicit, type, "
            "description, retrieval_queries, seq) VALUES (?,?,?,?,?,?,?) "
            "ON CONFLICT (observation_id, entity_id) DO UPDATE SET explicit=excluded.explicit, "
            "type=excluded.type, description=excluded.description, "
            "retrieval_queries=excluded.retrieval_queries, seq=excluded.seq",
            (
                observation_id,
                entity_id,
                int(explicit),
                type,
                description,
                json.dumps(list(retrieval_queries)),
                seq,
            ),
        )

    def delete_link(self, observation_id: int, entity_id: int) -> None:
        self.conn.execute(
            "DELETE FROM observation_entities WHERE observation_id=? AND entity_id=?",
            (observation_id, entity_id),
        )

    def move_links(self, from_entity_id: int, to_entity_id: int) -> int:
        # Where an observation already links both, keep one row: an explicit assertion beats an
        # implicit link, and the newer explicit one wins.
        moved = 0
        rows = self._all(
            "SELECT observation_id, explicit, type, description, retrieval_queries, seq "
            "FROM observation_entities WHERE entity_id=?",
            (from_entity_id,),
        )
        for obs_id, explicit, etype, desc, rq, seq in rows:
            existing = self._one(
                "SELECT explicit, seq FROM observation_entities WHERE observation_id=? "
                "AND entity_id=?",
                (obs_id, to_entity_id),
            )
            if existing is None or (explicit and (not existing[0] or seq > existing[1])):
                self.conn.execute(
                    "INSERT OR REPLACE INTO observation_entities (observation_id, entity_id, "
                    "explicit, type, description, retrieval_queries, seq) VALUES (?,?,?,?,?,?,?)",
                    (obs_id, to_entity_id, explicit, etype, desc, rq, seq),
                )
            moved += 1
        self.conn.execute("DELETE FROM observation_entities WHERE entity_id=?", (from_entity_id,))
        return moved

    def unlinked_entities(self, candidates: Iterable[int]) -> list[int]:
        out: list[int] = []
        for batch in _chunks(candidates):
            out += self._col(
                f"SELECT id FROM entities e WHERE id IN ({_placeholders(len(batch))}) AND NOT "
                "EXISTS (SELECT 1 FROM observation_entities l WHERE l.entity_id = e.id)",
                batch,
            )
        return out

    def recompute_degrees(self, ids: Iterable[int]) -> None:
        for batch in _chunks(ids):
            self.conn.execute(
                "UPDATE entities SET degree = "
                "(SELECT count(*) FROM relationships r WHERE r.source_id = entities.id) + "
                "(SELECT count(*) FROM relationships r WHERE r.target_id = entities.id) "
                f"WHERE id IN ({_placeholders(len(batch))})",
                batch,
            )

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
        cur = self.conn.execute(
            "INSERT INTO relationships (memory_id, source_id, type, target_id, description, "
            "weight, created_at, updated_at, memory_category, valid_from) "
            "VALUES (?,?,?,?,'',1.0,?,?,?,?)",
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
        assert cur.lastrowid is not None
        return cur.lastrowid

    def update_relationship(
        self, relationship_id: int, *, description: str, weight: float, now: datetime
    ) -> None:
        self.conn.execute(
            "UPDATE relationships SET description=?, weight=?, updated_at=? WHERE id=?",
            (description, weight, to_db(now), relationship_id),
        )

    def repoint_relationship(self, relationship_id: int, *, source_id: int, target_id: int) -> None:
        self.conn.execute(
            "UPDATE relationships SET source_id=?, target_id=? WHERE id=?",
            (source_id, target_id, relationship_id),
        )

    def delete_relationships(self, ids: Iterable[int]) -> None:
        for batch in _chunks(ids):
            self.conn.execute(
                f"DELETE FROM relationships WHERE id IN ({_placeholders(len(batch))})", batch
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
        self.conn.execute(
            "INSERT INTO observation_relationships (observation_id, relationship_id, "
            "description, weight, seq) VALUES (?,?,?,?,?) "
            "ON CONFLICT (observation_id, relationship_id) DO UPDATE SET "
            "description=excluded.description, weight=excluded.weight, seq=excluded.seq",
            (observation_id, relationship_id, description, weight, seq),
        )

    def delete_backing(self, observation_id: int, relationship_id: int) -> None:
        self.conn.execute(
            "DELETE FROM observation_relationships WHERE observation_id=? AND relationship_id=?",
            (observation_id, relationship_id),
        )

    def move_backings(self, from_relationship_id: int, to_relationship_id: int) -> None:
        rows = self._all(
            "SELECT observation_id, description, weight, seq FROM observation_relationships "
            "WHERE relationship_id=?",
            (from_relationship_id,),
        )
        for obs_id, desc, weight, seq in rows:
            existing = self._one(
                "SELECT seq FROM observation_relationships WHERE observation_id=? AND "
                "relationship_id=?",
                (obs_id, to_relationship_id),
            )
            if existing is None or seq > existing[0]:
                self.put_backing(
                    obs_id, to_relationship_id, description=desc, weight=weight, seq=seq
                )
        self.conn.execute(
            "DELETE FROM observation_relationships WHERE relationship_id=?", (from_relationship_id,)
        )

    def unbacked_relationships(self, candidates: Iterable[int]) -> list[int]:
        out: list[int] = []
        for batch in _chunks(candidates):
            out += self._col(
                f"SELECT id FROM relationships r WHERE id IN ({_placeholders(len(batch))}) AND "
                "NOT EXISTS (SELECT 1 FROM observation_relationships b "
                "WHERE b.relationship_id = r.id)",
                batch,
            )
        return out

    def put_file(self, row: FileRow) -> None:
        assert row.data is not None
        self.conn.execute(
            "INSERT INTO files (memory_id, path, filename, content_type, size, sha256, "
            "description, created_by, created_at, data) VALUES (?,?,?,?,?,?,?,?,?,?) "
            "ON CONFLICT (memory_id, path) DO UPDATE SET filename=excluded.filename, "
            "content_type=excluded.content_type, size=excluded.size, sha256=excluded.sha256, "
            "description=excluded.description, created_by=excluded.created_by, "
            "created_at=excluded.created_at, data=excluded.data",
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
        self.conn.execute("DELETE FROM files WHERE memory_id=? AND path=?", (self.memory_id, path))

    def put_idempotency(self, row: IdempotencyRow) -> None:
        self.conn.execute(
            "INSERT INTO idempotency (memory_id, key, operation, fingerprint, slug, result, "
            "created_at) VALUES (?,?,?,?,?,?,?)",
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
        self.conn.execute(
            "DELETE FROM idempotency WHERE memory_id=? AND slug=?", (self.memory_id, slug)
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
        cur = self.conn.execute(
            "INSERT INTO merge_proposals (memory_id, canonical_key, canonical_name, "
            "duplicate_key, duplicate_name, type, reasons, score, status, created_at) "
            "VALUES (?,?,?,?,?,?,?,?,'open',?)",
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
        assert cur.lastrowid is not None
        return cur.lastrowid

    def set_proposal_status(self, proposal_id: int, status: str, *, now: datetime) -> None:
        self.conn.execute(
            "UPDATE merge_proposals SET status=?, decided_at=? WHERE id=?",
            (status, to_db(now), proposal_id),
        )

    def reject_pair(self, key_a: str, key_b: str, *, now: datetime) -> None:
        a, b = sorted((key_a, key_b))
        self.conn.execute(
            "INSERT OR IGNORE INTO merge_rejections (memory_id, key_a, key_b, rejected_at) "
            "VALUES (?,?,?,?)",
            (self.memory_id, a, b, to_db(now)),
        )

    # -- sessions and turns --------------------------------------------------------------------

    def insert_session(self, session_id: str, *, metadata: str, now: datetime) -> None:
        self.conn.execute(
            "INSERT INTO sessions (memory_id, id, metadata, created_at) VALUES (?,?,?,?)",
            (self.memory_id, session_id, metadata, to_db(now)),
        )

    def next_turn_seq(self, session_id: str) -> int:
        row = self.conn.execute(
            "UPDATE sessions SET turn_count = turn_count + 1 WHERE memory_id=? AND id=? "
            "RETURNING turn_count",
            (self.memory_id, session_id),
        ).fetchone()
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
        self.conn.execute(
            "INSERT INTO turns (memory_id, id, session_id, seq, role, speaker, observation_id, "
            "extracted, labels, created_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
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
        self.conn.execute(
            "UPDATE turns SET extracted=? WHERE memory_id=? AND id=?",
            (extracted, self.memory_id, turn_id),
        )

    def delete_session(self, session_id: str) -> None:
        self.conn.execute(
            "DELETE FROM sessions WHERE memory_id=? AND id=?", (self.memory_id, session_id)
        )

    # -- attributes and turn facts -------------------------------------------------------------

    def insert_attribute(self, row: AttributeRow) -> None:
        self.conn.execute(
            "INSERT INTO attributes (memory_id, id, entity_id, key, value, memory_category, "
            "observation_id, valid_from, valid_until, supersedes, superseded_by, created_at) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                self.memory_id,
                row.id,
                row.entity_id,
                row.key,
                row.value,
                row.memory_category,
                row.observation_id,
                to_db(row.valid_from),
                None if row.valid_until is None else to_db(row.valid_until),
                row.supersedes,
                row.superseded_by,
                to_db(row.created_at),
            ),
        )

    def set_attribute_links(
        self,
        attribute_id: str,
        *,
        valid_until: datetime | None,
        supersedes: str | None,
        superseded_by: str | None,
    ) -> None:
        self.conn.execute(
            "UPDATE attributes SET valid_until=?, supersedes=?, superseded_by=? "
            "WHERE memory_id=? AND id=?",
            (
                None if valid_until is None else to_db(valid_until),
                supersedes,
                superseded_by,
                self.memory_id,
                attribute_id,
            ),
        )

    def delete_attributes(self, ids: Iterable[str]) -> None:
        for batch in _chunks(ids):
            self.conn.execute(
                f"DELETE FROM attributes WHERE memory_id = ? AND id IN "
                f"({_placeholders(len(batch))})",
                (self.memory_id, *batch),
            )

    def move_attributes(self, from_entity_id: int, to_entity_id: int) -> None:
        self.conn.execute(
            "UPDATE attributes SET entity_id=? WHERE entity_id=?", (to_entity_id, from_entity_id)
        )

    def set_entity_category(self, entity_id: int, category: str) -> None:
        self.conn.execute("UPDATE entities SET memory_category=? WHERE id=?", (category, entity_id))

    def set_relationship_validity(
        self,
        relationship_id: int,
        *,
        memory_category: str | None,
        valid_from: datetime | None,
        valid_until: datetime | None,
    ) -> None:
        self.conn.execute(
            "UPDATE relationships SET memory_category=coalesce(?, memory_category), "
            "valid_from=coalesce(?, valid_from), valid_until=? WHERE id=?",
            (
                memory_category,
                None if valid_from is None else to_db(valid_from),
                None if valid_until is None else to_db(valid_until),
                relationship_id,
            ),
        )

    def insert_fact(self, row: FactRow) -> None:
        self.conn.execute(
            "INSERT INTO turn_facts (memory_id, id, kind, observation_id, memory_category, data, "
            "dedup, happened_at, active) VALUES (?,?,?,?,?,?,?,?,?)",
            (
                self.memory_id,
                row.id,
                row.kind,
                row.observation_id,
                row.memory_category,
                row.data,
                row.dedup,
                to_db(row.happened_at),
                int(row.active),
            ),
        )

    def deactivate_fact(self, fact_id: str) -> None:
        self.conn.execute(
            "UPDATE turn_facts SET active=0 WHERE memory_id=? AND id=?", (self.memory_id, fact_id)
        )

    # -- recall --------------------------------------------------------------------------------

    def set_search_context(self, observation_id: int, context: str) -> None:
        self.conn.execute(
            "UPDATE fts_observations SET context=? WHERE rowid=?", (context, observation_id)
        )

    def put_vector(self, kind: str, ref: int, data: bytes) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO vectors (kind, ref, memory_id, data, stamp) VALUES "
            "(?, ?, ?, ?, (SELECT index_version + 1 FROM memories WHERE id = ?))",
            (kind, ref, self.memory_id, data, self.memory_id),
        )

    def enqueue(self, kind: str, ref: int) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO index_queue (kind, ref, memory_id) VALUES (?,?,?)",
            (kind, ref, self.memory_id),
        )

    def put_vectors(
        self, vectors: Sequence[tuple[str, int, bytes]], *, dequeue: bool = False
    ) -> None:
        for kind, ref, data in vectors:
            self.put_vector(kind, ref, data)
        if dequeue:
            self.dequeue_many([(kind, ref) for kind, ref, _ in vectors])

    def dequeue_many(self, keys: Sequence[tuple[str, int]]) -> None:
        self.conn.executemany("DELETE FROM index_queue WHERE kind=? AND ref=?", keys)
