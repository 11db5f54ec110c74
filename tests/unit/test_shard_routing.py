"""The shard-routing check the PostgreSQL conformance runs apply to every statement: it must
tell a statement pinned to one memory from one that is not, or it proves nothing."""

from __future__ import annotations

import pytest

from tests.shard_routing import excepted, unroutable

TABLES = frozenset({"observations", "turns", "vectors", "vector_stats"})


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT id FROM observations WHERE memory_id = %s AND slug = %s",
        "SELECT o.id FROM observations o JOIN turns t ON t.memory_id = o.memory_id "
        "AND t.observation_id = o.id WHERE o.memory_id = %(m)s",
        "UPDATE vector_stats SET vectors = vectors + 1 WHERE memory_id = %s AND kind = %s",
        "INSERT INTO vectors (memory_id, kind, ref, data) VALUES (%s, %s, %s, %b)",
        "DELETE FROM turns WHERE memory_id = 7 AND id = ANY(%s)",
        "SELECT id FROM observations o WHERE memory_id = %s AND EXISTS "
        "(SELECT 1 FROM turns t WHERE t.memory_id = o.memory_id AND t.observation_id = o.id)",
        "WITH w AS (SELECT unnest(%s::text[]) AS word) SELECT count(*) FROM w",
        "SELECT relname FROM pg_class WHERE relname = 'vectors'",
        "CREATE INDEX IF NOT EXISTS x ON vectors (kind)",  # DDL is propagated, not routed
    ],
)
def test_a_statement_pinned_to_one_memory_is_routable(sql: str) -> None:
    assert unroutable(sql, TABLES) is None


@pytest.mark.parametrize(
    ("sql", "table"),
    [
        ("SELECT id FROM observations WHERE slug = %s", "observations"),
        ("SELECT id FROM observations WHERE memory_id = %s OR slug = %s", "observations"),
        (
            "SELECT o.id FROM observations o JOIN turns t ON t.observation_id = o.id "
            "WHERE o.memory_id = %s",
            "turns",
        ),
        ("INSERT INTO vectors (kind, ref) VALUES (%s, %s)", "vectors"),
        ("UPDATE vector_stats SET vectors = 0 WHERE memory_id = ANY(%s)", "vector_stats"),
        (
            "SELECT id FROM observations WHERE memory_id = %s AND id IN "
            "(SELECT observation_id FROM turns WHERE session_id = %s)",
            "turns",
        ),
    ],
)
def test_a_statement_that_reaches_across_memories_is_named(sql: str, table: str) -> None:
    why = unroutable(sql, TABLES)
    assert why is not None
    assert table in why


def test_only_the_documented_statements_are_excepted() -> None:
    assert excepted("SELECT memory_id, kind FROM vector_stats WHERE vectors > %s") is not None
    assert excepted("SELECT id FROM observations WHERE slug = %s") is None
