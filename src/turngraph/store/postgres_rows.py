"""PostgreSQL SQL fragments shared by the read and write transactions.

The tables have the columns SQLite's have, so the row decoders of
:mod:`turngraph.store.sqlite_rows` read both; the joins here are PostgreSQL's own, each scoped
by memory (a row joins only rows of its own memory, which keeps the queries local to one shard
on a cluster distributed by memory id).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from turngraph.store.postgres_schema import Conn

Params = Sequence[Any] | Mapping[str, Any]

REL_SELECT = (
    "SELECT r.id, r.source_id, s.name, r.type, r.target_id, t.name, r.description, r.weight, "
    "r.memory_category, r.valid_from, r.valid_until, s.type, t.type, s.key, t.key "
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
ATTR_FROM = (
    "FROM attributes a JOIN entities e ON e.memory_id = a.memory_id AND e.id = a.entity_id "
    "JOIN observations o ON o.memory_id = a.memory_id AND o.id = a.observation_id "
    "LEFT JOIN turns t ON t.memory_id = a.memory_id AND t.observation_id = a.observation_id"
)
ATTR_SELECT = f"SELECT {ATTR_COLS} {ATTR_FROM}"


class Statements:
    """Statement helpers over one connection inside one transaction, scoped to one memory."""

    def __init__(self, conn: Conn, memory_id: int) -> None:
        self.conn = conn
        self.memory_id = memory_id

    def _one(self, sql: str, params: Params = ()) -> Any:
        return self.conn.execute(sql, params).fetchone()

    def _all(self, sql: str, params: Params = ()) -> list[Any]:
        return self.conn.execute(sql, params).fetchall()

    def _col(self, sql: str, params: Params = ()) -> list[Any]:
        """The first column of every row."""
        return [r[0] for r in self.conn.execute(sql, params).fetchall()]

    def _run(self, sql: str, params: Params = ()) -> int:
        """Run a statement; how many rows it changed."""
        return self.conn.execute(sql, params).rowcount
