"""SQLite reads of one memory inside one transaction, and the row encoding both sides share."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

from turngraph.store.base import (
    AttributeRow,
    Counts,
    EntityFold,
    EntityRow,
    FactRow,
    FileRow,
    IdempotencyRow,
    LinkRow,
    ObservationFilter,
    ObservationRow,
    ProposalRow,
    RelationshipFold,
    RelationshipRow,
    SessionRow,
    TurnRow,
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
_ENT_COLS = (
    "id, key, name, type, description, retrieval_queries, degree, created_at, updated_at, "
    "memory_category"
)
_REL_SELECT = (
    "SELECT r.id, r.source_id, s.name, r.type, r.target_id, t.name, r.description, r.weight, "
    "r.memory_category, r.valid_from, r.valid_until, s.type, t.type, s.key, t.key "
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
        r[0],
        r[1],
        r[2],
        r[3],
        r[4],
        tuple(json.loads(r[5])),
        r[6],
        from_db(r[7]),
        from_db(r[8]),
        r[9],
    )


def _rel(r: Any) -> RelationshipRow:
    return RelationshipRow(
        r[0],
        r[1],
        r[2],
        r[3],
        r[4],
        r[5],
        r[6],
        r[7],
        r[8],
        _opt_dt(r[9]),
        _opt_dt(r[10]),
        r[11],
        r[12],
        r[13],
        r[14],
    )


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


class SQLiteReadTx:
    """Reads of one memory inside one SQLite transaction."""

    def __init__(self, conn: sqlite3.Connection, memory_id: int) -> None:
        self.conn = conn
        self.memory_id = memory_id

    def _one(self, sql: str, params: Sequence[Any] = ()) -> Any:
        return self.conn.execute(sql, params).fetchone()

    def _all(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return self.conn.execute(sql, params).fetchall()

    def _col(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """The first column of every row."""
        return [r[0] for r in self.conn.execute(sql, params)]

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
        return self._col(
            "SELECT relationship_id FROM observation_relationships WHERE observation_id=? "
            "ORDER BY rowid",
            (observation_id,),
        )

    def observation_files(self, observation_id: int) -> list[str]:
        return self._col(
            "SELECT path FROM observation_files WHERE observation_id=? ORDER BY path",
            (observation_id,),
        )

    def observations_citing_file(self, path: str) -> list[str]:
        return self._col(
            "SELECT o.slug FROM observation_files f "
            "JOIN observations o ON o.id = f.observation_id"
            " WHERE f.memory_id=? AND f.path=? ORDER BY o.slug",
            (self.memory_id, path),
        )

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
        return self._col(
            "SELECT name FROM entity_aliases WHERE entity_id=? ORDER BY key", (entity_id,)
        )

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

    # -- sessions and turns --------------------------------------------------------------------

    def get_session(self, session_id: str) -> SessionRow | None:
        r = self._one(
            "SELECT id, metadata, turn_count, created_at FROM sessions WHERE memory_id=? AND id=?",
            (self.memory_id, session_id),
        )
        return None if r is None else SessionRow(r[0], r[1], r[2], from_db(r[3]))

    def list_turns(
        self, session_id: str, *, after_seq: int, offset: int, limit: int
    ) -> list[TurnRow]:
        rows = self._all(
            f"{_TURN_SELECT} WHERE t.memory_id=? AND t.session_id=? AND t.seq > ? "
            "ORDER BY t.seq LIMIT ? OFFSET ?",
            (self.memory_id, session_id, after_seq, limit, offset),
        )
        return [_turn(r) for r in rows]

    def get_turn_by_observation(self, observation_id: int) -> TurnRow | None:
        r = self._one(f"{_TURN_SELECT} WHERE t.observation_id=?", (observation_id,))
        return None if r is None else _turn(r)

    def session_observation_ids(self, session_id: str) -> list[int]:
        return self._col(
            "SELECT observation_id FROM turns WHERE memory_id=? AND session_id=? ORDER BY seq",
            (self.memory_id, session_id),
        )

    # -- attributes and turn facts -------------------------------------------------------------

    def attribute_history(self, entity_id: int, key: str) -> list[AttributeRow]:
        rows = self._all(
            f"{_ATTR_SELECT} WHERE a.entity_id=? AND a.key=? ORDER BY a.valid_from, a.created_at",
            (entity_id, key),
        )
        return [_attr(r) for r in rows]

    def current_attributes(self, entity_id: int, key: str) -> list[AttributeRow]:
        rows = self._all(
            f"{_ATTR_SELECT} WHERE a.entity_id=? AND a.key=? AND a.valid_until IS NULL "
            "ORDER BY a.valid_from, a.created_at",
            (entity_id, key),
        )
        return [_attr(r) for r in rows]

    def attribute_chains(self, observation_id: int) -> list[tuple[int, str]]:
        return [
            (r[0], r[1])
            for r in self._all(
                "SELECT DISTINCT entity_id, key FROM attributes WHERE observation_id=?",
                (observation_id,),
            )
        ]

    def attribute_keys(self, entity_id: int) -> list[str]:
        return self._col(
            "SELECT DISTINCT key FROM attributes WHERE entity_id=? ORDER BY key", (entity_id,)
        )

    def state_entities(
        self, *, category: str, as_of: datetime | None, limit: int
    ) -> list[EntityRow]:
        sql = f"SELECT {_ENT_COLS} FROM entities e WHERE memory_id=? AND memory_category=?"
        params: list[Any] = [self.memory_id, category]
        if as_of is not None:
            sql += (
                " AND EXISTS (SELECT 1 FROM observation_entities l JOIN observations o "
                "ON o.id = l.observation_id WHERE l.entity_id = e.id AND o.observed_at <= ?)"
            )
            params.append(to_db(as_of))
        rows = self._all(sql + " ORDER BY type, key LIMIT ?", (*params, limit))
        return [_ent(r) for r in rows]

    def state_attributes(
        self, *, category: str, as_of: datetime | None, limit: int
    ) -> list[AttributeRow]:
        if as_of is None:
            where, params = "a.valid_until IS NULL", []
        else:
            at = to_db(as_of)
            where, params = (
                "a.valid_from <= ? AND (a.valid_until IS NULL OR a.valid_until > ?)",
                [
                    at,
                    at,
                ],
            )
        rows = self._all(
            f"{_ATTR_SELECT} WHERE a.memory_id=? AND a.memory_category=? AND {where} "
            "ORDER BY e.key, a.key, a.valid_from LIMIT ?",
            (self.memory_id, category, *params, limit),
        )
        return [_attr(r) for r in rows]

    def state_relations(
        self, *, category: str, as_of: datetime | None, limit: int
    ) -> list[RelationshipRow]:
        if as_of is None:
            where, params = "r.valid_until IS NULL", []
        else:
            at = to_db(as_of)
            where = (
                "(r.valid_from IS NULL OR r.valid_from <= ?) "
                "AND (r.valid_until IS NULL OR r.valid_until > ?)"
            )
            params = [at, at]
        rows = self._all(
            f"{_REL_SELECT} WHERE r.memory_id=? AND r.memory_category=? AND {where} "
            "ORDER BY s.key, r.type, t.key LIMIT ?",
            (self.memory_id, category, *params, limit),
        )
        return [_rel(r) for r in rows]

    def list_facts(
        self, *, kind: str, category: str | None, as_of: datetime | None, limit: int
    ) -> list[FactRow]:
        sql = f"SELECT {_FACT_COLS} FROM turn_facts WHERE memory_id=? AND kind=? AND active=1"
        params: list[Any] = [self.memory_id, kind]
        if category is not None:
            sql += " AND memory_category=?"
            params.append(category)
        if as_of is not None:
            sql += " AND happened_at <= ?"
            params.append(to_db(as_of))
        rows = self._all(sql + " ORDER BY happened_at, id LIMIT ?", (*params, limit))
        return [_fact(r) for r in rows]

    def find_active_fact(self, kind: str, dedup: str) -> FactRow | None:
        r = self._one(
            f"SELECT {_FACT_COLS} FROM turn_facts WHERE memory_id=? AND kind=? AND dedup=? "
            "AND active=1",
            (self.memory_id, kind, dedup),
        )
        return None if r is None else _fact(r)

    # -- recall --------------------------------------------------------------------------------

    def index_version(self) -> int:
        row = self._one("SELECT index_version FROM memories WHERE id=?", (self.memory_id,))
        return 0 if row is None else int(row[0])

    def load_vectors(self, kind: str) -> list[tuple[int, bytes]]:
        return [
            (r[0], bytes(r[1]))
            for r in self._all(
                "SELECT ref, data FROM vectors WHERE memory_id=? AND kind=? ORDER BY ref",
                (self.memory_id, kind),
            )
        ]

    def index_queue(self, *, limit: int) -> list[tuple[str, int, str]]:
        rows = self._all(
            "SELECT q.kind, q.ref, CASE q.kind "
            "WHEN 'observation' THEN (SELECT coalesce(t.speaker, t.role) || ': ' || o.content "
            "  FROM observations o JOIN turns t ON t.observation_id = o.id WHERE o.id = q.ref) "
            "WHEN 'entity' THEN (SELECT name || ': ' || description || CASE "
            "  WHEN retrieval_queries = '[]' THEN '' ELSE ' ' || (SELECT group_concat(value, ' ') "
            "  FROM json_each(retrieval_queries)) END FROM entities WHERE id = q.ref) "
            "WHEN 'window' THEN (SELECT context FROM fts_observations WHERE rowid = q.ref) "
            "ELSE (SELECT text FROM fts_attributes WHERE rowid = q.ref) END, "
            "(SELECT title || char(10) || content FROM observations WHERE id = q.ref "
            "  AND q.kind = 'observation') "
            "FROM index_queue q WHERE q.memory_id=? ORDER BY q.kind, q.ref LIMIT ?",
            (self.memory_id, limit),
        )
        return [(r[0], r[1], r[2] if r[2] is not None else (r[3] or "")) for r in rows]

    def search_text(
        self, table: str, query: str, *, limit: int, weights: Sequence[float] | None = None
    ) -> list[tuple[int, float]]:
        """Best matches of an FTS5 query in one memory: (rowid, score), higher is better.
        ``weights`` are bm25 column weights (the memory column first, always 0)."""
        columns = _SEARCH_TABLES[table]  # KeyError for anything else
        if weights is not None:
            columns = ", ".join(f"{float(w)}" for w in (0.0, *weights[1:]))
        score = f"bm25({table}, {columns})"
        rows = self._all(
            f"SELECT rowid, {score} FROM {table} WHERE {table} MATCH ? ORDER BY {score} LIMIT ?",
            (f'mem : "m{self.memory_id}" AND ({query})', limit),
        )
        return [(r[0], -float(r[1])) for r in rows]

    def term_frequencies(self, table: str, columns: str, terms: Sequence[str]) -> list[int]:
        """How many of this memory's rows of ``table`` match each term (no scoring)."""
        if table not in _SEARCH_TABLES:
            raise ValueError(table)
        mem = f'mem : "m{self.memory_id}"'
        return [
            int(
                self._one(
                    f"SELECT count(*) FROM {table} WHERE {table} MATCH ?",
                    (f'{mem} AND {{{columns}}} : "' + term.replace('"', '""') + '"',),
                )[0]
            )
            for term in terms
        ]

    def text_rows(self, table: str) -> int:
        if table not in _SEARCH_TABLES:
            raise ValueError(table)
        return int(
            self._one(
                f"SELECT count(*) FROM {table} WHERE {table} MATCH ?",
                (f'mem : "m{self.memory_id}"',),
            )[0]
        )

    def turns_for_observations(self, ids: Sequence[int]) -> dict[int, TurnRow]:
        out: dict[int, TurnRow] = {}
        for batch in _chunks(ids):
            for r in self._all(
                f"{_TURN_SELECT} WHERE t.observation_id IN ({_placeholders(len(batch))})", batch
            ):
                row = _turn(r)
                out[row.observation_id] = row
        return out

    def turn_keys(self, ids: Sequence[int]) -> dict[int, tuple[str, str | None]]:
        out: dict[int, tuple[str, str | None]] = {}
        for batch in _chunks(ids):
            for obs_id, session_id, speaker in self._all(
                "SELECT observation_id, session_id, speaker FROM turns "
                f"WHERE observation_id IN ({_placeholders(len(batch))})",
                batch,
            ):
                out[obs_id] = (session_id, speaker)
        return out

    def links_for_observations(self, ids: Sequence[int]) -> dict[int, list[int]]:
        out: dict[int, list[int]] = {}
        for batch in _chunks(ids):
            for obs_id, entity_id in self._all(
                "SELECT observation_id, entity_id FROM observation_entities "
                f"WHERE observation_id IN ({_placeholders(len(batch))})",
                batch,
            ):
                out.setdefault(obs_id, []).append(entity_id)
        return out

    def observations_for_entities(self, ids: Sequence[int], *, limit: int) -> dict[int, list[int]]:
        out: dict[int, list[int]] = {}
        for entity_id in ids:
            out[entity_id] = self._col(
                "SELECT l.observation_id FROM observation_entities l JOIN observations o "
                "ON o.id = l.observation_id WHERE l.entity_id=? "
                "ORDER BY o.observed_at DESC LIMIT ?",
                (entity_id, limit),
            )
        return out

    def relationships_among(self, ids: Sequence[int], *, limit: int) -> list[RelationshipRow]:
        if not ids:
            return []
        ph = _placeholders(len(ids))
        rows = self._all(
            f"{_REL_SELECT} WHERE r.source_id IN ({ph}) AND r.target_id IN ({ph}) "
            "ORDER BY r.valid_until IS NOT NULL, r.weight DESC, r.id LIMIT ?",
            (*ids, *ids, limit),
        )
        return [_rel(r) for r in rows]

    def attributes_by_rowid(self, rowids: Sequence[int]) -> dict[int, AttributeRow]:
        out: dict[int, AttributeRow] = {}
        for batch in _chunks(rowids):
            for r in self._all(
                f"{_ATTR_SELECT.replace('SELECT ', 'SELECT a.rowid, ', 1)} "
                f"WHERE a.rowid IN ({_placeholders(len(batch))})",
                batch,
            ):
                out[r[0]] = _attr(r[1:])
        return out

    def filter_observations(self, query: ObservationFilter, *, limit: int) -> list[int]:
        sql = "SELECT o.id FROM observations o"
        where = ["o.memory_id = ?"]
        params: list[Any] = [self.memory_id]
        if query.session_id is not None or query.labels:
            sql += " JOIN turns t ON t.observation_id = o.id"
        if query.ids is not None:
            if not query.ids:
                return []
            where.append(f"o.id IN ({_placeholders(len(query.ids))})")
            params += list(query.ids)
        if query.category is not None:
            where.append("o.category = ?")
            params.append(query.category)
        for tag in query.tags:
            where.append(
                "EXISTS (SELECT 1 FROM observation_tags g WHERE g.observation_id = o.id "
                "AND g.tag = ?)"
            )
            params.append(tag)
        if query.since is not None:
            where.append("o.observed_at >= ?")
            params.append(to_db(query.since))
        if query.until is not None:
            where.append("o.observed_at <= ?")
            params.append(to_db(query.until))
        if query.session_id is not None:
            where.append("t.session_id = ?")
            params.append(query.session_id)
        for label in query.labels:
            where.append("EXISTS (SELECT 1 FROM json_each(t.labels) j WHERE j.value = ?)")
            params.append(label)
        if query.entity_id is not None:
            where.append(
                "EXISTS (SELECT 1 FROM observation_entities l WHERE l.observation_id = o.id "
                "AND l.entity_id = ?)"
            )
            params.append(query.entity_id)
        sql += " WHERE " + " AND ".join(where) + " ORDER BY o.observed_at DESC, o.id DESC LIMIT ?"
        return self._col(sql, (*params, limit))


_TURN_SELECT = (
    "SELECT t.id, t.session_id, t.seq, t.role, t.speaker, t.extracted, t.labels, t.created_at, "
    "o.id, o.slug, o.content, o.observed_at FROM turns t JOIN observations o "
    "ON o.id = t.observation_id"
)
_ATTR_SELECT = (
    "SELECT a.id, a.entity_id, a.key, a.value, a.memory_category, a.observation_id, "
    "a.valid_from, a.valid_until, a.supersedes, a.superseded_by, a.created_at, e.name, e.type, "
    "e.key, t.id, o.slug FROM attributes a JOIN entities e ON e.id = a.entity_id "
    "JOIN observations o ON o.id = a.observation_id "
    "LEFT JOIN turns t ON t.observation_id = a.observation_id"
)
_FACT_COLS = "id, kind, observation_id, memory_category, data, dedup, happened_at, active"


def _turn(r: Any) -> TurnRow:
    return TurnRow(
        r[0],
        r[1],
        r[2],
        r[3],
        r[4],
        r[5],
        tuple(json.loads(r[6])),
        from_db(r[7]),
        r[8],
        r[9],
        r[10],
        from_db(r[11]),
    )


def _attr(r: Any) -> AttributeRow:
    return AttributeRow(
        r[0],
        r[1],
        r[2],
        r[3],
        r[4],
        r[5],
        from_db(r[6]),
        _opt_dt(r[7]),
        r[8],
        r[9],
        from_db(r[10]),
        r[11],
        r[12],
        r[13],
        r[14],
        r[15],
    )


def _fact(r: Any) -> FactRow:
    return FactRow(r[0], r[1], r[2], r[3], r[4], r[5], from_db(r[6]), bool(r[7]))


# bm25 column weights per full-text table; the first column (the memory token) counts 0.
_SEARCH_TABLES = {
    "fts_observations": "0.0, 1.0, 1.0, 1.0",
    "fts_entities": "0.0, 1.0, 1.0, 1.0",
    "fts_attributes": "0.0, 1.0",
}
