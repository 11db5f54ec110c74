"""PostgreSQL: the store refreshes the planner's statistics as a memory grows (a memory
reaching a power of two write transactions from 64 on), on a thread of its own, and vacuums
the tables."""

from __future__ import annotations

import time

import pytest

from .conftest import NOW

pytest.importorskip("psycopg")  # the postgres extra; `make test` installs it

from turngraph.store.postgres import PostgresStore
from turngraph.store.postgres_stats import ANALYZE_FROM


def _analyzed(store: PostgresStore, table: str, *, vacuumed: bool = False) -> bool:
    column = "last_vacuum" if vacuumed else "last_analyze"
    with store.read(0) as tx:
        row = tx._one(f"SELECT {column} FROM pg_stat_user_tables WHERE relname = %s", (table,))
    return row is not None and row[0] is not None


def test_the_memory_scoped_tables_are_vacuumed_and_analyzed_when_a_memory_reaches_64_writes(
    postgres_url: str,
) -> None:
    store = PostgresStore(postgres_url)
    try:
        memory = store.create_memory(name="acme", visibility="private", retrieval="{}", now=NOW)
        for _ in range(ANALYZE_FROM - 1):
            with store.write(memory.id):
                pass
        time.sleep(0.5)  # a refresh asked for too early would have run by now
        assert not _analyzed(store, "turns")
        with store.write(memory.id):
            pass
        deadline = time.monotonic() + 10
        while not (_analyzed(store, "turns") and _analyzed(store, "vectors")):
            assert time.monotonic() < deadline, "no ANALYZE after the 64th write"
            time.sleep(0.05)
        # Vacuumed too: the text entries' index-only scans need the visibility map.
        assert _analyzed(store, "text_postings", vacuumed=True)
        assert not _analyzed(store, "principals")  # not memory-scoped: left to autovacuum
    finally:
        store.close()
