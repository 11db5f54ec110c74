"""SQLite rows in and out: the reads and writes of one memory inside one transaction."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

from turngraph.store.base import (
    Counts,
    EntityFold,
    EntityRow,
    FileRow,
    IdempotencyRow,
    LinkRow,
    ObservationRow,
    ProposalRow,
    RelationshipFold,
    RelationshipRow,
)


def to_db(dt: datetime) -> str:
    """Datetimes are stored as fixed-width UTC ISO strings, so text order is time order."""
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f+00:00")


def from_db(text: str) -> datetime:
    return datetime.fromisoformat(text)


def _opt_dt(text: str | None) -> datetime | None:
    return None if text is None else from_db(text)


def _placeholders(n: int) -> str:
    return ",".join("?" * n)


def _chunks(ids: Iterable[int], size: int = 500) -> Iterator[list[int]]:
    batch: list[int] = []
    for i in ids:
        batch.append(i)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


_OBS_COLS = (
    "id, slug, title, content, category, tags, observed_at, confidence, source, "
    "created_at, updated_at"
)
_ENT_COLS = "id, key, name, type, description, retrieval_queries, degree, created_at, updated_at"
_REL_SELECT = (
    "SELECT r.id, r.source_id, s.name, r.type, r.target_id, t.name, r.description, r.weight "
    "FROM relationships r JOIN entities s ON s.id = r.source_id "
    "JOIN entities t ON t.id = r.target_id"
)
_FILE_META = "path, filename, content_type, size, sha256, description, created_by, created_at"
_PROPOSAL_COLS = (
    "id, canonical_key, canonical_name, duplicate_key, duplicate_name, type, reasons, score, "
    "status, created_at, decided_at"
)


def _obs(r: Any) -> ObservationRow:
    return ObservationRow(
        r[0],
        r[1],
        r[2],
        r[3],
        r[4],
        tuple(json.loads(r[5])),
        from_db(r[6]),
        r[7],
        r[8],
        from_db(r[9]),
        from_db(r[10]),
    )


def _ent(r: Any) -> EntityRow:
    return EntityRow(
        r[0], r[1], r[2], r[3], r[4], tuple(json.loads(r[5])), r[6], from_db(r[7]), from_db(r[8])
    )


def _rel(r: Any) -> RelationshipRow:
    return RelationshipRow(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7])


def _proposal(r: Any) -> ProposalRow:
    return ProposalRow(
        r[0],
        r[1],
        r[2],
        r[3],
        r[4],
        r[5],
        tuple(json.loads(r[6])),
        r[7],
        r[8],
        from_db(r[9]),
        _opt_dt(r[10]),
    )


class SQLiteTx:
    """Reads and writes of one memory inside one SQLite transaction."""

    def __init__(self, conn: sqlite3.Connection, memory_id: int) -> None:
        self.conn = conn
        self.memory_id = memory_id

    def _one(self, sql: str, params: Sequence[Any] = ()) -> Any:
        return self.conn.execute(sql, params).fetchone()

    def _all(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return self.conn.execute(sql, params).fetchall()

    # -- reads -----------------------------------------------------------------------------

    def counts(self) -> Counts:
        m = self.memory_id
        return Counts(
            observations=self._one("SELECT count(*) FROM observations WHERE memory_id=?", (m,))[0],
            entities=self._one("SELECT count(*) FROM entities WHERE memory_id=?", (m,))[0],
            relationships=self._one("SELECT count(*) FROM relationships WHERE memory_id=?", (m,))[
                0
            ],
            files=self._one("SELECT count(*) FROM files WHERE memory_id=?", (m,))[0],
        )

    def get_observation(self, slug: str) -> ObservationRow | None:
        r = self._one(
            f"SELECT {_OBS_COLS} FROM observations WHERE memory_id=? AND slug=?",
            (self.memory_id, slug),
        )
        return None if r is None else _obs(r)

    def get_observations(self, ids: Sequence[int]) -> list[ObservationRow]:
        out: dict[int, ObservationRow] = {}
        for batch in _chunks(ids):
            for r in self._all(
                f"SELECT {_OBS_COLS} FROM observations WHERE id IN ({_placeholders(len(batch))})",
                batch,
            ):
                out[r[0]] = _obs(r)
        return [out[i] for i in ids if i in out]

    def slug_taken(self, slug: str) -> bool:
        return (
            self._one(
                "SELECT 1 FROM observations WHERE memory_id=? AND slug=? UNION ALL "
                "SELECT 1 FROM retired_slugs WHERE memory_id=? AND slug=?",
                (self.memory_id, slug, self.memory_id, slug),
            )
            is not None
        )

    def slug_retired(self, slug: str) -> bool:
        return (
            self._one(
                "SELECT 1 FROM retired_slugs WHERE memory_id=? AND slug=?", (self.memory_id, slug)
            )
            is not None
        )

    def observation_links(self, observation_id: int) -> list[LinkRow]:
        return [
            LinkRow(r[0], bool(r[1]))
            for r in self._all(
                "SELECT entity_id, explicit FROM observation_entities WHERE observation_id=? "
                "ORDER BY rowid",
                (observation_id,),
            )
        ]

    def observation_relationship_ids(self, observation_id: int) -> list[int]:
        return [
            r[0]
            for r in self._all(
                "SELECT relationship_id FROM observation_relationships WHERE observation_id=? "
                "ORDER BY rowid",
                (observation_id,),
            )
        ]

    def observation_files(self, observation_id: int) -> list[str]:
        return [
            r[0]
            for r in self._all(
                "SELECT path FROM observation_files WHERE observation_id=? ORDER BY path",
                (observation_id,),
            )
        ]

    def observations_citing_file(self, path: str) -> list[str]:
        return [
            r[0]
            for r in self._all(
                "SELECT o.slug FROM observation_files f "
                "JOIN observations o ON o.id = f.observation_id"
                " WHERE f.memory_id=? AND f.path=? ORDER BY o.slug",
                (self.memory_id, path),
            )
        ]

    def find_entities(self, keys: Iterable[str]) -> dict[str, EntityRow]:
        wanted = list(dict.fromkeys(keys))
        out: dict[str, EntityRow] = {}
        for i in range(0, len(wanted), 500):
            batch = wanted[i : i + 500]
            ph = _placeholders(len(batch))
            for r in self._all(
                f"SELECT {_ENT_COLS} FROM entities WHERE memory_id=? AND key IN ({ph})",
                (self.memory_id, *batch),
            ):
                out[r[1]] = _ent(r)
            missing = [k for k in batch if k not in out]
            if missing:
                for r in self._all(
                    f"SELECT a.key, {', '.join('e.' + c.strip() for c in _ENT_COLS.split(','))} "
                    "FROM entity_aliases a JOIN entities e ON e.id = a.entity_id "
                    f"WHERE a.memory_id=? AND a.key IN ({_placeholders(len(missing))})",
                    (self.memory_id, *missing),
                ):
                    out[r[0]] = _ent(r[1:])
        return out

    def get_entities(self, ids: Iterable[int]) -> dict[int, EntityRow]:
        out: dict[int, EntityRow] = {}
        for batch in _chunks(ids):
            for r in self._all(
                f"SELECT {_ENT_COLS} FROM entities WHERE id IN ({_placeholders(len(batch))})",
                batch,
            ):
                out[r[0]] = _ent(r)
        return out

    def list_entities(self, *, type: str | None, limit: int, offset: int) -> list[EntityRow]:
        if type is None:
            rows = self._all(
                f"SELECT {_ENT_COLS} FROM entities WHERE memory_id=? "
                "ORDER BY degree DESC, key LIMIT ? OFFSET ?",
                (self.memory_id, limit, offset),
            )
        else:
            rows = self._all(
                f"SELECT {_ENT_COLS} FROM entities WHERE memory_id=? AND type=? "
                "ORDER BY degree DESC, key LIMIT ? OFFSET ?",
                (self.memory_id, type, limit, offset),
            )
        return [_ent(r) for r in rows]

    def iter_entities(self) -> Iterator[EntityRow]:
        cur = self.conn.execute(
            f"SELECT {_ENT_COLS} FROM entities WHERE memory_id=? ORDER BY id", (self.memory_id,)
        )
        for r in cur:
            yield _ent(r)

    def entity_aliases(self, entity_id: int) -> list[str]:
        return [
            r[0]
            for r in self._all(
                "SELECT name FROM entity_aliases WHERE entity_id=? ORDER BY key", (entity_id,)
            )
        ]

    def entity_fold(self, entity_id: int) -> EntityFold:
        # Each value is the newest non-null one: an index walk from the newest assertion.
        newest = (
            "SELECT {col} FROM observation_entities WHERE entity_id=? AND explicit=1 "
            "AND {col} IS NOT NULL ORDER BY seq DESC LIMIT 1"
        )
        etype = self._one(newest.format(col="type"), (entity_id,))
        desc = self._one(newest.format(col="description"), (entity_id,))
        queries = self._all(
            "SELECT retrieval_queries FROM observation_entities WHERE entity_id=? AND explicit=1 "
            "AND retrieval_queries != '[]' ORDER BY seq DESC LIMIT 50",
            (entity_id,),
        )
        return EntityFold(
            type=None if etype is None else etype[0],
            description=None if desc is None else desc[0],
            retrieval_queries=tuple(tuple(json.loads(r[0])) for r in queries),
        )

    def entity_observation_slugs(self, entity_id: int, *, limit: int) -> tuple[list[str], int]:
        total = self._one(
            "SELECT count(*) FROM observation_entities WHERE entity_id=?", (entity_id,)
        )[0]
        rows = self._all(
            "SELECT o.slug FROM observation_entities l JOIN observations o "
            "ON o.id = l.observation_id WHERE l.entity_id=? "
            "ORDER BY o.observed_at DESC, o.id DESC LIMIT ?",
            (entity_id, limit),
        )
        return [r[0] for r in rows], total

    def entity_relationships(
        self, entity_id: int, *, limit: int
    ) -> tuple[list[RelationshipRow], int]:
        total = self._one(
            "SELECT count(*) FROM relationships WHERE source_id=? OR target_id=?",
            (entity_id, entity_id),
        )[0]
        rows = self._all(
            f"{_REL_SELECT} WHERE r.source_id=? OR r.target_id=? "
            "ORDER BY r.weight DESC, r.updated_at DESC, r.id LIMIT ?",
            (entity_id, entity_id, limit),
        )
        return [_rel(r) for r in rows], total

    def get_relationships(self, ids: Iterable[int]) -> list[RelationshipRow]:
        id_list = list(ids)
        out: dict[int, RelationshipRow] = {}
        for batch in _chunks(id_list):
            for r in self._all(f"{_REL_SELECT} WHERE r.id IN ({_placeholders(len(batch))})", batch):
                out[r[0]] = _rel(r)
        return [out[i] for i in id_list if i in out]

    def find_relationship(self, source_id: int, type: str, target_id: int) -> int | None:
        r = self._one(
            "SELECT id FROM relationships WHERE source_id=? AND type=? AND target_id=?",
            (source_id, type, target_id),
        )
        return None if r is None else int(r[0])

    def relationship_fold(self, relationship_id: int) -> RelationshipFold:
        newest = (
            "SELECT {col} FROM observation_relationships WHERE relationship_id=? "
            "AND {col} IS NOT NULL ORDER BY seq DESC LIMIT 1"
        )
        desc = self._one(newest.format(col="description"), (relationship_id,))
        weight = self._one(newest.format(col="weight"), (relationship_id,))
        return RelationshipFold(
            description=None if desc is None else desc[0],
            weight=None if weight is None else float(weight[0]),
        )

    def get_file(self, path: str, *, with_data: bool) -> FileRow | None:
        cols = _FILE_META + (", data" if with_data else "")
        r = self._one(
            f"SELECT {cols} FROM files WHERE memory_id=? AND path=?", (self.memory_id, path)
        )
        if r is None:
            return None
        return FileRow(
            r[0],
            r[1],
            r[2],
            r[3],
            r[4],
            r[5],
            r[6],
            from_db(r[7]),
            bytes(r[8]) if with_data else None,
        )

    def list_files(self, *, prefix: str | None) -> list[FileRow]:
        sql = f"SELECT {_FILE_META} FROM files WHERE memory_id=?"
        params: list[Any] = [self.memory_id]
        if prefix:
            sql += " AND substr(path, 1, ?) = ?"
            params += [len(prefix), prefix]
        return [
            FileRow(r[0], r[1], r[2], r[3], r[4], r[5], r[6], from_db(r[7]), None)
            for r in self._all(sql + " ORDER BY path", params)
        ]

    def get_idempotency(self, key: str) -> IdempotencyRow | None:
        r = self._one(
            "SELECT key, operation, fingerprint, slug, result, created_at FROM idempotency "
            "WHERE memory_id=? AND key=?",
            (self.memory_id, key),
        )
        return None if r is None else IdempotencyRow(r[0], r[1], r[2], r[3], r[4], from_db(r[5]))

    def get_proposal(self, proposal_id: int) -> ProposalRow | None:
        r = self._one(
            f"SELECT {_PROPOSAL_COLS} FROM merge_proposals WHERE memory_id=? AND id=?",
            (self.memory_id, proposal_id),
        )
        return None if r is None else _proposal(r)

    def list_proposals(self, *, status: str | None) -> list[ProposalRow]:
        if status is None:
            rows = self._all(
                f"SELECT {_PROPOSAL_COLS} FROM merge_proposals WHERE memory_id=? ORDER BY id",
                (self.memory_id,),
            )
        else:
            rows = self._all(
                f"SELECT {_PROPOSAL_COLS} FROM merge_proposals WHERE memory_id=? AND status=? "
                "ORDER BY id",
                (self.memory_id, status),
            )
        return [_proposal(r) for r in rows]

    def rejected_pairs(self) -> set[tuple[str, str]]:
        return {
            (r[0], r[1])
            for r in self._all(
                "SELECT key_a, key_b FROM merge_rejections WHERE memory_id=?", (self.memory_id,)
            )
        }

    # -- writes ----------------------------------------------------------------------------

    def next_seq(self) -> int:
        return int(
            self._one(
                "UPDATE memories SET seq = seq + 1 WHERE id=? RETURNING seq", (self.memory_id,)
            )[0]
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
        self._set_tags(cur.lastrowid, tags)
        return cur.lastrowid

    def _set_tags(self, observation_id: int, tags: Sequence[str]) -> None:
        self.conn.execute("DELETE FROM observation_tags WHERE observation_id=?", (observation_id,))
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
    ) -> EntityRow:
        cur = self.conn.execute(
            "INSERT INTO entities (memory_id, key, name, type, description, retrieval_queries, "
            "degree, created_at, updated_at) VALUES (?,?,?,?,?,?,0,?,?)",
            (
                self.memory_id,
                key,
                name,
                type,
                description,
                json.dumps(list(retrieval_queries)),
                to_db(now),
                to_db(now),
            ),
        )
        assert cur.lastrowid is not None
        return EntityRow(
            cur.lastrowid, key, name, type, description, tuple(retrieval_queries), 0, now, now
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
            out += [
                r[0]
                for r in self._all(
                    f"SELECT id FROM entities e WHERE id IN ({_placeholders(len(batch))}) AND NOT "
                    "EXISTS (SELECT 1 FROM observation_entities l WHERE l.entity_id = e.id)",
                    batch,
                )
            ]
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
        self, *, source_id: int, type: str, target_id: int, now: datetime
    ) -> int:
        cur = self.conn.execute(
            "INSERT INTO relationships (memory_id, source_id, type, target_id, description, "
            "weight, created_at, updated_at) VALUES (?,?,?,?,'',1.0,?,?)",
            (self.memory_id, source_id, type, target_id, to_db(now), to_db(now)),
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
            out += [
                r[0]
                for r in self._all(
                    f"SELECT id FROM relationships r WHERE id IN ({_placeholders(len(batch))}) AND "
                    "NOT EXISTS (SELECT 1 FROM observation_relationships b "
                    "WHERE b.relationship_id = r.id)",
                    batch,
                )
            ]
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
