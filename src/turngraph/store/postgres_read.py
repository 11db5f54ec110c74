"""PostgreSQL reads of one memory: the graph, files, idempotency records and proposals."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from typing import Any

from psycopg import Cursor

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
from turngraph.store.postgres_rows import (
    ENTITIES_BY_ID,
    OBSERVATIONS_BY_ID,
    REL_SELECT,
    observations_in_order,
)
from turngraph.store.postgres_schema import Conn
from turngraph.store.postgres_search import SearchReads
from turngraph.store.postgres_turn_reads import TurnReads
from turngraph.store.postgres_vectors import VectorReads
from turngraph.store.sqlite_rows import (
    _ENT_COLS,
    _FILE_META,
    _OBS_COLS,
    _PROPOSAL_COLS,
    _ent,
    _obs,
    _proposal,
    _rel,
    from_db,
)

_COUNTED = ("observations", "entities", "relationships", "files", "sessions", "turns")
_E_COLS = ", ".join("e." + c.strip() for c in _ENT_COLS.split(","))
# Entities by key (0) and by alias (1): the key asked for, then the entity's columns.
_FIND_ENTITIES = (
    f"SELECT 0, e.key, {_E_COLS} FROM entities e "
    "WHERE e.memory_id = %(m)s AND e.key = ANY(%(keys)s) "
    f"UNION ALL SELECT 1, a.key, {_E_COLS} FROM entity_aliases a JOIN entities e "
    "ON e.memory_id = a.memory_id AND e.id = a.entity_id "
    "WHERE a.memory_id = %(m)s AND a.key = ANY(%(keys)s)"
)


class PostgresReadTx(TurnReads, SearchReads, VectorReads):
    """Reads of one memory inside one PostgreSQL transaction: its own read-only snapshot
    (``snapshot``), or a write's, when the read is nested in one."""

    def __init__(self, conn: Conn, memory_id: int, *, snapshot: bool = False) -> None:
        super().__init__(conn, memory_id)
        self._snapshot = snapshot
        self._version: int | None = None
        self._version_read: Cursor[Any] | None = None
        if snapshot:  # its BEGIN goes with its first statement
            self._opening = ("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",)

    def _open(self) -> None:
        # A snapshot never sees the version move: read once, in the opening round trip
        # (recall asks for it on every search of its cached matrices).
        opening = self._opening
        super()._open()
        if opening and self._snapshot:
            self._version_read = self.conn.execute(
                "SELECT index_version FROM memories WHERE id = %s", (self.memory_id,)
            )

    def index_version(self) -> int:
        if not self._snapshot:
            return super().index_version()
        if self._version is None:
            if self._opening:
                with self.conn.pipeline():
                    self._open()
            if self._version_read is None:
                self._version = super().index_version()
            else:
                row = self._version_read.fetchone()
                self._version = 0 if row is None else int(row[0])
                self._version_read = None
        return self._version

    def counts(self) -> Counts:
        # One row, a column per count: the rows of a UNION ALL may come back in any order
        # (a parallel plan appends them as its workers finish).
        counted = ", ".join(
            f"(SELECT count(*) FROM {table} WHERE memory_id = %(m)s)" for table in _COUNTED
        )
        values = self._one(
            f"SELECT {counted}, (SELECT count(*) FROM merge_proposals "
            "WHERE memory_id = %(m)s AND status = 'open')",
            {"m": self.memory_id},
        )
        return Counts(*(int(v) for v in values))

    def get_observation(self, slug: str) -> ObservationRow | None:
        r = self._one(
            f"SELECT {_OBS_COLS} FROM observations WHERE memory_id = %s AND slug = %s",
            (self.memory_id, slug),
        )
        return None if r is None else _obs(r)

    def get_observations(self, ids: Sequence[int]) -> list[ObservationRow]:
        if not ids:
            return []
        rows = self._all(OBSERVATIONS_BY_ID, {"m": self.memory_id, "o": list(ids)})
        return observations_in_order(rows, ids)

    def slug_taken(self, slug: str) -> bool:
        return (
            self._one(
                "SELECT 1 FROM observations WHERE memory_id = %s AND slug = %s UNION ALL "
                "SELECT 1 FROM retired_slugs WHERE memory_id = %s AND slug = %s",
                (self.memory_id, slug, self.memory_id, slug),
            )
            is not None
        )

    def slugs_starting(self, prefix: str, *, limit: int) -> list[str]:
        return [
            str(s)
            for s in self._col(
                "SELECT slug FROM observations WHERE memory_id = %s AND starts_with(slug, %s) "
                "ORDER BY slug LIMIT %s",
                (self.memory_id, prefix, limit),
            )
        ]

    def slug_retired(self, slug: str) -> bool:
        return (
            self._one(
                "SELECT 1 FROM retired_slugs WHERE memory_id = %s AND slug = %s",
                (self.memory_id, slug),
            )
            is not None
        )

    def observation_links(self, observation_id: int) -> list[LinkRow]:
        return [
            LinkRow(r[0], bool(r[1]))
            for r in self._all(
                "SELECT entity_id, explicit FROM observation_entities "
                "WHERE memory_id = %s AND observation_id = %s ORDER BY pos",
                (self.memory_id, observation_id),
            )
        ]

    def observation_relationship_ids(self, observation_id: int) -> list[int]:
        return self._col(
            "SELECT relationship_id FROM observation_relationships "
            "WHERE memory_id = %s AND observation_id = %s ORDER BY pos",
            (self.memory_id, observation_id),
        )

    def observation_files(self, observation_id: int) -> list[str]:
        return self._col(
            "SELECT path FROM observation_files WHERE memory_id = %s AND observation_id = %s "
            "ORDER BY path",
            (self.memory_id, observation_id),
        )

    def observations_citing_file(self, path: str) -> list[str]:
        return self._col(
            "SELECT o.slug FROM observation_files f JOIN observations o "
            "ON o.memory_id = f.memory_id AND o.id = f.observation_id "
            "WHERE f.memory_id = %s AND f.path = %s ORDER BY o.slug",
            (self.memory_id, path),
        )

    def find_entities(self, keys: Iterable[str]) -> dict[str, EntityRow]:
        wanted = list(dict.fromkeys(keys))
        if not wanted:
            return {}
        # The entities by key and by alias in one statement; a key's own entity comes
        # before an alias of another's.
        out: dict[str, EntityRow] = {}
        aliased: dict[str, EntityRow] = {}
        for r in self._all(_FIND_ENTITIES, {"m": self.memory_id, "keys": wanted}):
            (aliased if r[0] else out)[r[1]] = _ent(r[2:])
        return out | {k: e for k, e in aliased.items() if k not in out}

    def get_entities(self, ids: Iterable[int]) -> dict[int, EntityRow]:
        wanted = list(ids)
        if not wanted:
            return {}
        rows = self._all(ENTITIES_BY_ID, {"m": self.memory_id, "e": wanted})
        return {r[0]: _ent(r) for r in rows}

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
        where = "memory_id = %s"
        params: list[Any] = [self.memory_id]
        if type is not None:
            where += " AND type = %s"
            params = [self.memory_id, type]
        elif exclude:
            where += " AND NOT (type = ANY(%s))"
            params = [self.memory_id, list(exclude)]
        rows = self._all(
            f"SELECT {_ENT_COLS} FROM entities WHERE {where} ORDER BY {order} LIMIT %s OFFSET %s",
            (*params, limit, offset),
        )
        return [_ent(r) for r in rows]

    def iter_entities(self) -> Iterator[EntityRow]:
        last = -1
        while True:  # in pages: a large memory is never held in memory at once
            rows = self._all(
                f"SELECT {_ENT_COLS} FROM entities WHERE memory_id = %s AND id > %s "
                "ORDER BY id LIMIT 1000",
                (self.memory_id, last),
            )
            for r in rows:
                yield _ent(r)
            if len(rows) < 1000:
                return
            last = rows[-1][0]

    def entity_aliases(self, entity_id: int) -> list[str]:
        return self._col(
            "SELECT name FROM entity_aliases WHERE memory_id = %s AND entity_id = %s ORDER BY key",
            (self.memory_id, entity_id),
        )

    def entity_fold(self, entity_id: int) -> EntityFold:
        # One round trip: the newest explicit type and description, and the newest queries.
        newest = (
            "(SELECT {col} FROM observation_entities WHERE memory_id = %(m)s "
            "AND entity_id = %(e)s AND explicit AND {where} ORDER BY seq DESC LIMIT {n})"
        )
        etype, desc, queries = self._one(
            "SELECT "
            + newest.format(col="type", where="type IS NOT NULL", n=1)
            + ", "
            + newest.format(col="description", where="description IS NOT NULL", n=1)
            + ", ARRAY"
            + newest.format(col="retrieval_queries", where="retrieval_queries <> '[]'", n=50),
            {"m": self.memory_id, "e": entity_id},
        )
        return EntityFold(
            type=etype,
            description=desc,
            retrieval_queries=tuple(tuple(json.loads(q)) for q in queries),
        )

    def described_entities(self) -> set[int]:
        return set(
            self._col(
                "SELECT DISTINCT entity_id FROM observation_entities "
                "WHERE memory_id = %s AND explicit AND description IS NOT NULL",
                (self.memory_id,),
            )
        )

    def entity_speakers(self, ids: Sequence[int]) -> dict[int, set[str]]:
        out: dict[int, set[str]] = {}
        if not ids:
            return out
        for entity_id, who in self._all(
            "SELECT DISTINCT l.entity_id, coalesce(t.speaker, t.role) "
            "FROM observation_entities l JOIN turns t "
            "ON t.memory_id = l.memory_id AND t.observation_id = l.observation_id "
            "WHERE l.memory_id = %s AND l.explicit AND l.entity_id = ANY(%s)",
            (self.memory_id, list(ids)),
        ):
            out.setdefault(entity_id, set()).add(str(who))
        return out

    def entity_observation_slugs(self, entity_id: int, *, limit: int) -> tuple[list[str], int]:
        total = self._one(
            "SELECT count(*) FROM observation_entities WHERE memory_id = %s AND entity_id = %s",
            (self.memory_id, entity_id),
        )[0]
        slugs = self._col(
            "SELECT o.slug FROM observation_entities l JOIN observations o "
            "ON o.memory_id = l.memory_id AND o.id = l.observation_id "
            "WHERE l.memory_id = %s AND l.entity_id = %s "
            "ORDER BY o.observed_at DESC, o.id DESC LIMIT %s",
            (self.memory_id, entity_id, limit),
        )
        return slugs, int(total)

    def entity_relationships(
        self, entity_id: int, *, limit: int
    ) -> tuple[list[RelationshipRow], int]:
        m = self.memory_id
        total = self._one(
            "SELECT count(*) FROM relationships WHERE memory_id = %s "
            "AND (source_id = %s OR target_id = %s)",
            (m, entity_id, entity_id),
        )[0]
        return self.neighbour_relationships([entity_id], limit=limit)[entity_id], int(total)

    def get_relationships(self, ids: Iterable[int]) -> list[RelationshipRow]:
        wanted = list(ids)
        if not wanted:
            return []
        found = {
            r[0]: _rel(r)
            for r in self._all(
                f"{REL_SELECT} WHERE r.memory_id = %s AND r.id = ANY(%s)",
                (self.memory_id, wanted),
            )
        }
        return [found[i] for i in wanted if i in found]

    def find_relationship(self, source_id: int, type: str, target_id: int) -> int | None:
        r = self._one(
            "SELECT id FROM relationships WHERE memory_id = %s AND source_id = %s AND type = %s "
            "AND target_id = %s",
            (self.memory_id, source_id, type, target_id),
        )
        return None if r is None else int(r[0])

    def relationship_fold(self, relationship_id: int) -> RelationshipFold:
        newest = (
            "SELECT {col} FROM observation_relationships WHERE memory_id = %s "
            "AND relationship_id = %s AND {col} IS NOT NULL ORDER BY seq DESC LIMIT 1"
        )
        key = (self.memory_id, relationship_id)
        desc = self._one(newest.format(col="description"), key)
        weight = self._one(newest.format(col="weight"), key)
        return RelationshipFold(
            description=None if desc is None else desc[0],
            weight=None if weight is None else float(weight[0]),
        )

    def get_file(self, path: str, *, with_data: bool) -> FileRow | None:
        cols = _FILE_META + (", data" if with_data else "")
        r = self._one(
            f"SELECT {cols} FROM files WHERE memory_id = %s AND path = %s",
            (self.memory_id, path),
        )
        if r is None:
            return None
        data = bytes(r[8]) if with_data else None
        return FileRow(r[0], r[1], r[2], r[3], r[4], r[5], r[6], from_db(r[7]), data)

    def list_files(self, *, prefix: str | None) -> list[FileRow]:
        sql = f"SELECT {_FILE_META} FROM files WHERE memory_id = %s"
        params: list[Any] = [self.memory_id]
        if prefix:
            sql += " AND starts_with(path, %s)"
            params.append(prefix)
        return [
            FileRow(r[0], r[1], r[2], r[3], r[4], r[5], r[6], from_db(r[7]), None)
            for r in self._all(sql + " ORDER BY path", params)
        ]

    def get_idempotency(self, key: str) -> IdempotencyRow | None:
        r = self._one(
            "SELECT key, operation, fingerprint, slug, result, created_at FROM idempotency "
            "WHERE memory_id = %s AND key = %s",
            (self.memory_id, key),
        )
        return None if r is None else IdempotencyRow(r[0], r[1], r[2], r[3], r[4], from_db(r[5]))

    def get_proposal(self, proposal_id: int) -> ProposalRow | None:
        r = self._one(
            f"SELECT {_PROPOSAL_COLS} FROM merge_proposals WHERE memory_id = %s AND id = %s",
            (self.memory_id, proposal_id),
        )
        return None if r is None else _proposal(r)

    def list_proposals(
        self, *, status: str | None, limit: int | None = None, offset: int = 0
    ) -> list[ProposalRow]:
        sql = f"SELECT {_PROPOSAL_COLS} FROM merge_proposals WHERE memory_id = %s"
        params: list[Any] = [self.memory_id]
        if status is not None:
            sql += " AND status = %s"
            params.append(status)
        rows = self._all(sql + " ORDER BY id LIMIT %s OFFSET %s", (*params, limit, offset))
        return [_proposal(r) for r in rows]

    def rejected_pairs(self) -> set[tuple[str, str]]:
        return {
            (r[0], r[1])
            for r in self._all(
                "SELECT key_a, key_b FROM merge_rejections WHERE memory_id = %s",
                (self.memory_id,),
            )
        }

    # -- rows for copying ------------------------------------------------------------------

    def write_seq(self) -> int:
        return int(self._one("SELECT seq FROM memories WHERE id = %s", (self.memory_id,))[0])

    def observation_assertions(self, observation_id: int) -> list[AssertionRow]:
        return [
            AssertionRow(r[0], bool(r[1]), r[2], r[3], tuple(json.loads(r[4] or "[]")), r[5])
            for r in self._all(
                "SELECT entity_id, explicit, type, description, retrieval_queries, seq "
                "FROM observation_entities WHERE memory_id = %s AND observation_id = %s "
                "ORDER BY pos",
                (self.memory_id, observation_id),
            )
        ]

    def observation_backings(self, observation_id: int) -> list[BackingRow]:
        return [
            BackingRow(r[0], r[1], r[2], r[3])
            for r in self._all(
                "SELECT relationship_id, description, weight, seq FROM observation_relationships "
                "WHERE memory_id = %s AND observation_id = %s ORDER BY pos",
                (self.memory_id, observation_id),
            )
        ]

    def alias_rows(self) -> list[tuple[str, str, int]]:
        return [
            (r[0], r[1], r[2])
            for r in self._all(
                "SELECT key, name, entity_id FROM entity_aliases WHERE memory_id = %s ORDER BY key",
                (self.memory_id,),
            )
        ]

    def search_contexts(self) -> dict[int, str]:
        return {
            r[0]: r[1]
            for r in self._all(
                "SELECT id, search_context FROM observations WHERE memory_id = %s "
                "AND search_context <> ''",
                (self.memory_id,),
            )
        }

    def relationship_times(self) -> dict[int, tuple[datetime, datetime]]:
        return {
            r[0]: (from_db(r[1]), from_db(r[2]))
            for r in self._all(
                "SELECT id, created_at, updated_at FROM relationships WHERE memory_id = %s",
                (self.memory_id,),
            )
        }

    def idempotency_rows(self) -> list[IdempotencyRow]:
        return [
            IdempotencyRow(r[0], r[1], r[2], r[3], r[4], from_db(r[5]))
            for r in self._all(
                "SELECT key, operation, fingerprint, slug, result, created_at FROM idempotency "
                "WHERE memory_id = %s ORDER BY key",
                (self.memory_id,),
            )
        ]

    def retired_slugs(self) -> list[tuple[str, datetime]]:
        return [
            (r[0], from_db(r[1]))
            for r in self._all(
                "SELECT slug, deleted_at FROM retired_slugs WHERE memory_id = %s ORDER BY slug",
                (self.memory_id,),
            )
        ]

    def rejections(self) -> list[tuple[str, str, datetime]]:
        return [
            (r[0], r[1], from_db(r[2]))
            for r in self._all(
                "SELECT key_a, key_b, rejected_at FROM merge_rejections WHERE memory_id = %s "
                "ORDER BY key_a, key_b",
                (self.memory_id,),
            )
        ]
