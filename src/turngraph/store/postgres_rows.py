"""PostgreSQL SQL fragments shared by the read and write transactions.

The tables have the columns SQLite's have, so the row decoders of
:mod:`turngraph.store.sqlite_rows` read both; the joins here are PostgreSQL's own, each scoped
by memory (a row joins only rows of its own memory, which keeps the queries local to one shard
on a cluster distributed by memory id).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import psycopg
from psycopg import Cursor
from psycopg.adapt import Dumper

from turngraph.store.postgres_schema import Conn
from turngraph.store.rows import ObservationRow
from turngraph.store.sqlite_rows import _ENT_COLS, _OBS_COLS, _obs

Params = Sequence[Any] | Mapping[str, Any]


class IntArray(list[int]):
    """A list of ints sent as one ``bigint[]`` literal. psycopg adapts a plain list element
    by element, choosing each one's type: 1.2 ms for the 600 ids of a recall's candidates,
    against 0.03 ms to write the literal (each ``int()`` keeps it well formed)."""


class _IntArrayDumper(Dumper):
    oid = psycopg.adapters.types["int8"].array_oid

    def dump(self, obj: IntArray) -> bytes:
        return ("{" + ",".join(str(int(v)) for v in obj) + "}").encode()


psycopg.adapters.register_dumper(IntArray, _IntArrayDumper)


def _arrays(params: Params) -> Params:
    """``params`` with each non-empty list of ints (``bool`` is not one) as an IntArray."""

    def fast(value: Any) -> Any:
        if type(value) is list and value and all(type(v) is int for v in value):
            return IntArray(value)
        return value

    if isinstance(params, Mapping):
        return {key: fast(value) for key, value in params.items()}
    return [fast(value) for value in params]


REL_COLS = (
    "r.id, r.source_id, s.name, r.type, r.target_id, t.name, r.description, r.weight, "
    "r.memory_category, r.valid_from, r.valid_until, s.type, t.type, s.key, t.key"
)
REL_SELECT = (
    f"SELECT {REL_COLS} "
    "FROM relationships r "
    "JOIN entities s ON s.memory_id = r.memory_id AND s.id = r.source_id "
    "JOIN entities t ON t.memory_id = r.memory_id AND t.id = r.target_id"
)
TURN_SELECT = (
    "SELECT t.id, t.session_id, t.seq, t.role, t.speaker, t.extracted, t.labels, t.created_at, "
    "o.id, o.slug, o.content, o.observed_at FROM turns t "
    "JOIN observations o ON o.memory_id = t.memory_id AND o.id = t.observation_id"
)
ATTR_COLS = (
    "a.id, a.entity_id, a.key, a.value, a.memory_category, a.observation_id, "
    "a.valid_from, a.valid_until, a.supersedes, a.superseded_by, a.created_at, e.name, e.type, "
    "e.key, t.id, o.slug"
)
# What an attribute row joins (ATTR_COLS reads them), after ``attributes a``.
ATTR_JOINS = (
    "JOIN entities e ON e.memory_id = a.memory_id AND e.id = a.entity_id "
    "JOIN observations o ON o.memory_id = a.memory_id AND o.id = a.observation_id "
    "LEFT JOIN turns t ON t.memory_id = a.memory_id AND t.observation_id = a.observation_id"
)
ATTR_FROM = f"FROM attributes a {ATTR_JOINS}"
# A memory's observations (ids in %(o)s) and entities (ids in %(e)s) by id.
OBSERVATIONS_BY_ID = (
    f"SELECT {_OBS_COLS} FROM observations WHERE memory_id = %(m)s AND id = ANY(%(o)s)"
)
ENTITIES_BY_ID = f"SELECT {_ENT_COLS} FROM entities WHERE memory_id = %(m)s AND id = ANY(%(e)s)"


def observations_in_order(rows: Sequence[Any], ids: Sequence[int]) -> list[ObservationRow]:
    """The rows of :data:`OBSERVATIONS_BY_ID` in the order of ``ids``, those that exist."""
    found = {r[0]: _obs(r) for r in rows}
    return [found[i] for i in ids if i in found]


ATTR_SELECT = f"SELECT {ATTR_COLS} {ATTR_FROM}"


class Statements:
    """Statement helpers over one connection inside one transaction, scoped to one memory."""

    # Whether the transaction is a read's own snapshot (PostgresReadTx), whose reads of
    # counts and versions can be kept for its length; never a write's.
    _snapshot = False

    def __init__(self, conn: Conn, memory_id: int) -> None:
        self.conn = conn
        self.memory_id = memory_id

    # Statements that open the transaction, sent with its first statement in one round trip
    # (a read's BEGIN): a transaction that runs none never sends them.
    _opening: tuple[str, ...] = ()

    # Every statement's lists of ints go as bigint[] literals (IntArray).

    def _execute(self, sql: str, params: Params = ()) -> Cursor[Any]:
        if not self._opening:
            return self.conn.execute(sql, _arrays(params))
        with self.conn.pipeline():
            self._open()
            return self.conn.execute(sql, _arrays(params))

    def _send(self, sql: str, params: Params = ()) -> Cursor[Any]:
        """Run a statement without the opening (within a pipeline: queue it)."""
        return self.conn.execute(sql, _arrays(params))

    def _open(self) -> None:
        """Send the opening statements now (pipelined when called within a pipeline)."""
        opening, self._opening = self._opening, ()
        for statement in opening:
            self.conn.execute(statement)

    def _together(
        self,
        statements: Sequence[tuple[str, Params]],
        *,
        before: Sequence[str] = (),
        after: Sequence[str] = (),
    ) -> list[list[Any]]:
        """The rows of each of ``statements``, sent together in one round trip (with the
        transaction's opening, and the settings ``before`` and ``after`` them)."""
        if not statements:
            return []
        with self.conn.pipeline():
            self._open()
            for setting in before:
                self.conn.execute(setting)
            sent = [self._send(sql, params) for sql, params in statements]
            for setting in after:
                self.conn.execute(setting)
        return [cur.fetchall() for cur in sent]

    def _one(self, sql: str, params: Params = ()) -> Any:
        return self._execute(sql, params).fetchone()

    def _all(self, sql: str, params: Params = ()) -> list[Any]:
        return self._execute(sql, params).fetchall()

    def _col(self, sql: str, params: Params = ()) -> list[Any]:
        """The first column of every row."""
        return [r[0] for r in self._execute(sql, params).fetchall()]

    def _run(self, sql: str, params: Params = ()) -> int:
        """Run a statement; how many rows it changed."""
        return self._execute(sql, params).rowcount
