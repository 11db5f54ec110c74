"""The PostgreSQL schema, read from its catalog: every memory-scoped table is keyed by memory
id, so it can be distributed and co-located by memory on a sharded PostgreSQL (Citus)."""

from __future__ import annotations

import pytest

psycopg = pytest.importorskip("psycopg")  # the postgres extra; `make test` installs it

# Deployment-wide tables: the memories themselves, principals and their keys (reference
# tables on a cluster), HTTP idempotency records, and the migrations applied.
DEPLOYMENT_WIDE = {"memories", "principals", "api_keys", "http_idempotency", "_migrations"}


def _catalog(url: str, sql: str) -> list[tuple[str, ...]]:
    with psycopg.connect(url) as conn:
        return [tuple(r) for r in conn.execute(sql).fetchall()]


def _primary_keys(url: str) -> dict[str, list[str]]:
    rows = _catalog(
        url,
        "SELECT c.relname, a.attname FROM pg_index i "
        "JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace "
        "JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, pos) ON true "
        "JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum "
        "WHERE i.indisprimary AND n.nspname = current_schema() ORDER BY c.relname, k.pos",
    )
    keys: dict[str, list[str]] = {}
    for table, column in rows:
        keys.setdefault(table, []).append(column)
    return keys


def test_every_memory_scoped_table_is_keyed_by_memory_id_first(postgres_url: str) -> None:
    tables = {
        r[0]
        for r in _catalog(
            postgres_url,
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
        )
    }
    keys = _primary_keys(postgres_url)
    scoped = tables - DEPLOYMENT_WIDE
    assert {"observations", "entities", "turns", "vectors", "index_queue", "grants"} <= scoped
    unkeyed = {t: keys.get(t) for t in sorted(scoped) if keys.get(t, [""])[0] != "memory_id"}
    assert unkeyed == {}, "memory-scoped tables whose primary key does not start with memory_id"


def test_every_reference_between_memory_scoped_tables_carries_the_memory(
    postgres_url: str,
) -> None:
    # Each foreign key as (table, its columns, the table it references).
    references = _catalog(
        postgres_url,
        "SELECT c.conrelid::regclass::text, "
        "array_to_string(ARRAY(SELECT a.attname FROM unnest(c.conkey) AS k(n) "
        "JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n), ','), "
        "c.confrelid::regclass::text FROM pg_constraint c "
        "WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace",
    )
    assert references
    local = [
        (table, columns, parent)
        for table, columns, parent in references
        if table not in DEPLOYMENT_WIDE and parent not in DEPLOYMENT_WIDE
    ]
    assert local  # observations -> entities and the like exist
    crossing = [r for r in local if "memory_id" not in r[1].split(",")]
    assert crossing == []
