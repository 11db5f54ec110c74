"""PostgreSQL: the store refreshes the planner's statistics as a memory grows (a memory
reaching a power of two write transactions from 64 on), on a thread of its own, and vacuums
the tables."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest

from .conftest import NOW, insert_note

pytest.importorskip("psycopg")  # the postgres extra; `make test` installs it

from turngraph.store import postgres_stats
from turngraph.store.base import TextSearch
from turngraph.store.postgres import PostgresStore
from turngraph.store.postgres_stats import ANALYZE_FROM


@pytest.fixture
def pg_store(postgres_url: str) -> Iterator[PostgresStore]:
    """A PostgreSQL store of the test's own, with its own statistics refresh."""
    opened = PostgresStore(postgres_url)
    yield opened
    opened.close()


@pytest.fixture
def acme(pg_store: PostgresStore) -> int:
    """The id of a new memory in ``pg_store``."""
    return pg_store.create_memory(name="acme", visibility="private", retrieval="{}", now=NOW).id


def _stamp(store: PostgresStore, table: str, column: str) -> object:
    """When ``table`` was last vacuumed or analyzed (``column``) other than by autovacuum."""
    with store.read(0) as tx:
        row = tx._one(f"SELECT {column} FROM pg_stat_user_tables WHERE relname = %s", (table,))
    return None if row is None else row[0]


def _analyzed(store: PostgresStore, table: str, *, vacuumed: bool = False) -> bool:
    return _stamp(store, table, "last_vacuum" if vacuumed else "last_analyze") is not None


def _wait_for(done: Callable[[], bool], what: str, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def _add_notes(store: PostgresStore, memory_id: int, n: int, first: int) -> None:
    with store.write(memory_id) as tx:  # one write transaction, n observations
        for i in range(first, first + n):
            insert_note(tx, f"n{i}", f"note number {i}")


def test_the_memory_scoped_tables_are_vacuumed_and_analyzed_when_a_memory_reaches_64_writes(
    pg_store: PostgresStore, acme: int
) -> None:
    for _ in range(ANALYZE_FROM - 1):
        with pg_store.write(acme):
            pass
    time.sleep(0.5)  # a refresh asked for too early would have run by now
    assert not _analyzed(pg_store, "turns")
    with pg_store.write(acme):
        pass
    _wait_for(
        lambda: _analyzed(pg_store, "turns") and _analyzed(pg_store, "vectors"),
        "no ANALYZE after the 64th write",
    )
    # Vacuumed too: the text entries' index-only scans need the visibility map. The
    # vectors are not (their HNSW index would be walked and repaired).
    assert _analyzed(pg_store, "text_postings", vacuumed=True)
    assert not _analyzed(pg_store, "vectors", vacuumed=True)
    assert not _analyzed(pg_store, "principals")  # not memory-scoped: left to autovacuum


def test_one_write_that_adds_64_observations_asks_for_a_refresh_too(
    pg_store: PostgresStore, acme: int
) -> None:
    # An import writes a whole session in one transaction: the write count alone would not
    # reach 64 for a long time.
    _add_notes(pg_store, acme, ANALYZE_FROM - 1, first=0)
    time.sleep(0.5)
    assert not _analyzed(pg_store, "text_postings", vacuumed=True)
    _add_notes(pg_store, acme, 1, first=ANALYZE_FROM - 1)
    _wait_for(
        lambda: _analyzed(pg_store, "text_postings", vacuumed=True),
        "no VACUUM after the 64th observation",
    )


def test_a_refresh_asked_for_too_soon_after_the_last_runs_once_the_gap_has_passed(
    pg_store: PostgresStore, acme: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(postgres_stats, "ANALYZE_GAP_SECONDS", 1.5)
    _add_notes(pg_store, acme, ANALYZE_FROM, first=0)
    _wait_for(lambda: _analyzed(pg_store, "text_postings", vacuumed=True), "no first VACUUM")
    first = _stamp(pg_store, "text_postings", "last_vacuum")
    _add_notes(pg_store, acme, ANALYZE_FROM, first=ANALYZE_FROM)  # 128: within the gap
    _wait_for(
        lambda: _stamp(pg_store, "text_postings", "last_vacuum") != first,
        "the refresh asked for within the gap never ran",
    )


def test_a_text_search_repeated_on_a_connection_is_planned_once_generically(
    pg_store: PostgresStore, acme: int
) -> None:
    _add_notes(pg_store, acme, 5, 0)
    search = TextSearch("observation", ("note", "number"), limit=5)
    with pg_store.read(acme) as tx:  # one connection for all the runs
        first = tx.search_text(search)
        for _ in range(11):
            assert tx.search_text(search) == first
        # Other statements of the transaction are planned as before, for their values.
        assert tx._one("SHOW plan_cache_mode")[0] == "auto"
        plans = tx._all(
            "SELECT generic_plans, custom_plans FROM pg_prepared_statements "
            "WHERE statement LIKE %s",
            ("%text_postings%",),
        )
    # Prepared from its fifth run; PostgreSQL's default would plan each of the next
    # five runs for its values (about 1 ms each for a text search) before deciding.
    assert plans
    assert all(generic >= 1 and custom == 0 for generic, custom in plans), plans
