"""SQLite reads of one memory inside one transaction, and the row encoding both sides share."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from typing import Any

from turngraph.store.base import (
    AssertionRow,
    BackingRow,
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
from turngraph.store.sqlite_rows import (
    _ENT_COLS,
    _FILE_META,
    _OBS_COLS,
    _PROPOSAL_COLS,
    _REL_SELECT,
    _chunks,
    _ent,
    _obs,
    _placeholders,
    _proposal,
    _rel,
    from_db,
)
from turngraph.store.sqlite_search import SearchReads
from turngraph.store.sqlite_turn_reads import TurnReads


class SQLiteReadTx(TurnReads, SearchReads):
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
            sessions=self._one("SELECT count(*) FROM sessions WHERE memory_id=?", (m,))[0],
            turns=self._one("SELECT count(*) FROM turns WHERE memory_id=?", (m,))[0],
            open_proposals=self._one(
                "SELECT count(*) FROM merge_proposals WHERE memory_id=? AND status='open'", (m,)
            )[0],
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

    def slugs_starting(self, prefix: str, *, limit: int) -> list[str]:
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        rows = self._all(
            "SELECT slug FROM observations WHERE memory_id=? AND slug LIKE ? ESCAPE '\\' "
            "ORDER BY slug LIMIT ?",
            (self.memory_id, escaped + "%", limit),
        )
        return [str(r[0]) for r in rows]

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

    def list_entities(
        self,
        *,
        type: str | None,
        limit: int,
        offset: int,
        by_name: bool = False,
        exclude: Sequence[str] = (),
    ) -> list[EntityRow]:
        order = "type, key" if by_name else "degree DESC, key"
        if type is None:
            skip = f" AND type NOT IN ({', '.join('?' * len(exclude))})" if exclude else ""
            rows = self._all(
                f"SELECT {_ENT_COLS} FROM entities WHERE memory_id=?{skip} "
                f"ORDER BY {order} LIMIT ? OFFSET ?",
                (self.memory_id, *exclude, limit, offset),
            )
        else:
            rows = self._all(
                f"SELECT {_ENT_COLS} FROM entities WHERE memory_id=? AND type=? "
                f"ORDER BY {order} LIMIT ? OFFSET ?",
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
        etype, desc = self._one(_NEWEST_TYPE_AND_DESCRIPTION, (entity_id, entity_id))
        queries = self._all(
            "SELECT retrieval_queries FROM observation_entities WHERE entity_id=? AND explicit=1 "
            "AND retrieval_queries != '[]' ORDER BY seq DESC LIMIT 50",
            (entity_id,),
        )
        return EntityFold(
            type=etype,
            description=desc,
            retrieval_queries=tuple(tuple(json.loads(r[0])) for r in queries),
        )

    def described_entities(self) -> set[int]:
        """Entities that some live observation describes in words (not a generated text)."""
        return set(
            self._col(
                "SELECT DISTINCT l.entity_id FROM observation_entities l "
                "JOIN entities e ON e.id = l.entity_id "
                "WHERE e.memory_id=? AND l.explicit=1 AND l.description IS NOT NULL",
                (self.memory_id,),
            )
        )

    def entity_speakers(self, ids: Sequence[int]) -> dict[int, set[str]]:
        """Who said the turns that name each entity (speaker, else role)."""
        out: dict[int, set[str]] = {}
        for batch in _chunks(ids):
            for entity_id, who in self._all(
                "SELECT DISTINCT l.entity_id, coalesce(t.speaker, t.role) "
                "FROM observation_entities l JOIN turns t ON t.observation_id = l.observation_id "
                f"WHERE l.explicit=1 AND l.entity_id IN ({_placeholders(len(batch))})",
                batch,
            ):
                out.setdefault(entity_id, set()).add(str(who))
        return out

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
        return self.neighbour_relationships([entity_id], limit=limit)[entity_id], total

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

    def list_proposals(
        self, *, status: str | None, limit: int | None = None, offset: int = 0
    ) -> list[ProposalRow]:
        sql = f"SELECT {_PROPOSAL_COLS} FROM merge_proposals WHERE memory_id=?"
        params: list[Any] = [self.memory_id]
        if status is not None:
            sql += " AND status=?"
            params.append(status)
        sql += " ORDER BY id LIMIT ? OFFSET ?"
        rows = self._all(sql, (*params, -1 if limit is None else limit, offset))
        return [_proposal(r) for r in rows]

    def rejected_pairs(self) -> set[tuple[str, str]]:
        return {
            (r[0], r[1])
            for r in self._all(
                "SELECT key_a, key_b FROM merge_rejections WHERE memory_id=?", (self.memory_id,)
            )
        }

    # -- rows for copying ------------------------------------------------------------------

    def write_seq(self) -> int:
        return int(self._one("SELECT seq FROM memories WHERE id=?", (self.memory_id,))[0])

    def observation_assertions(self, observation_id: int) -> list[AssertionRow]:
        return [
            AssertionRow(r[0], bool(r[1]), r[2], r[3], tuple(json.loads(r[4] or "[]")), r[5])
            for r in self._all(
                "SELECT entity_id, explicit, type, description, retrieval_queries, seq "
                "FROM observation_entities WHERE observation_id=? ORDER BY rowid",
                (observation_id,),
            )
        ]

    def observation_backings(self, observation_id: int) -> list[BackingRow]:
        return [
            BackingRow(r[0], r[1], r[2], r[3])
            for r in self._all(
                "SELECT relationship_id, description, weight, seq FROM observation_relationships "
                "WHERE observation_id=? ORDER BY rowid",
                (observation_id,),
            )
        ]

    def alias_rows(self) -> list[tuple[str, str, int]]:
        return [
            (r[0], r[1], r[2])
            for r in self._all(
                "SELECT key, name, entity_id FROM entity_aliases WHERE memory_id=? ORDER BY key",
                (self.memory_id,),
            )
        ]

    def search_contexts(self) -> dict[int, str]:
        return {
            r[0]: r[1]
            for r in self._all(
                "SELECT o.id, f.context FROM observations o JOIN fts_observations f "
                "ON f.rowid = o.id WHERE o.memory_id=? AND f.context != ''",
                (self.memory_id,),
            )
        }

    def relationship_times(self) -> dict[int, tuple[datetime, datetime]]:
        return {
            r[0]: (from_db(r[1]), from_db(r[2]))
            for r in self._all(
                "SELECT id, created_at, updated_at FROM relationships WHERE memory_id = ?",
                (self.memory_id,),
            )
        }

    def idempotency_rows(self) -> list[IdempotencyRow]:
        return [
            IdempotencyRow(r[0], r[1], r[2], r[3], r[4], from_db(r[5]))
            for r in self._all(
                "SELECT key, operation, fingerprint, slug, result, created_at FROM idempotency "
                "WHERE memory_id=? ORDER BY key",
                (self.memory_id,),
            )
        ]

    def retired_slugs(self) -> list[tuple[str, datetime]]:
        return [
            (r[0], from_db(r[1]))
            for r in self._all(
                "SELECT slug, deleted_at FROM retired_slugs WHERE memory_id=? ORDER BY slug",
                (self.memory_id,),
            )
        ]

    def rejections(self) -> list[tuple[str, str, datetime]]:
        return [
            (r[0], r[1], from_db(r[2]))
            for r in self._all(
                "SELECT key_a, key_b, rejected_at FROM merge_rejections WHERE memory_id=? "
                "ORDER BY key_a, key_b",
                (self.memory_id,),
            )
        ]


_NEWEST = (
    "(SELECT {col} FROM observation_entities WHERE entity_id=? AND explicit=1 "
    "AND {col} IS NOT NULL ORDER BY seq DESC LIMIT 1)"
)
_NEWEST_TYPE_AND_DESCRIPTION = (
    f"SELECT {_NEWEST.format(col='type')}, {_NEWEST.format(col='description')}"
)
