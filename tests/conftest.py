"""Shared fixtures: every SQLite database is a real file in a temporary folder; PostgreSQL is a
real server the session starts for itself (tests/postgres.py)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import turngraph

if TYPE_CHECKING:
    from tests.postgres import PostgresForTests

# `make test` sets it: there a missing PostgreSQL fails the suites instead of skipping them.
REQUIRED = os.environ.get("TURNGRAPH_TEST_POSTGRES") == "required"

# The tests whose outcome a loaded machine could change: they drive a browser, start servers
# or processes and stop them, race threads, or wait on a clock. They are marked ``live``, and
# scripts/repeat_live.py runs them many times with every core kept busy. A module path takes
# all its tests; a node id one test (every parametrisation). Left out: the exit test that runs
# its program fifty times itself, and the fuzzers, which wait on nothing.
LIVE = (
    "tests/browser/",
    "tests/http/test_docs_offline.py",
    "tests/http/test_serve.py",
    "tests/http/test_slow_clients.py",
    "tests/http/test_idempotency_timeout.py",
    "tests/http/test_chat.py",
    "tests/http/test_resources.py",
    "tests/http/test_graph_idempotency.py::test_a_client_write_that_times_out",
    "tests/http/test_memory_api.py::test_a_duplicate_in_flight_is_409",
    "tests/http/test_hostile_text.py::test_a_recall_on_another_memory_is_not_held_up",
    "tests/http/test_mcp.py::test_stdio_",
    "tests/integration/test_exit.py::test_serve_exits_0_on_sigterm_under_load",
    "tests/integration/test_export_import.py::test_an_import_killed_half_way",
    "tests/integration/test_first_start_race.py",
    "tests/integration/test_indexing.py",
    "tests/integration/test_wal_checkpoint.py",
    "tests/integration/test_crash.py",
    "tests/integration/test_postgres_servers.py",
    "tests/integration/test_postgres_processes.py",
    "tests/integration/test_postgres_urls.py::test_serve_takes_a_postgresql_url",
    "tests/integration/test_postgres_urls.py::test_a_full_pool_is_a_clear_error",
    "tests/conformance/test_concurrency.py",
    "tests/store/test_read_snapshot.py",
    "tests/agent/test_runner.py",
    "tests/agent/test_webhooks.py::test_a_slack_message_is_answered_once",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.nodeid.startswith(LIVE):
            item.add_marker(pytest.mark.live)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "turngraph.db"


@pytest.fixture
def sqlite_db(db_path: Path) -> Iterator[turngraph.Database]:
    db = turngraph.open(db_path)
    yield db
    db.close()


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresForTests]:
    """A real PostgreSQL server for the whole session (see tests/postgres.py)."""
    try:
        import pgserver  # noqa: F401
        import psycopg  # noqa: F401
    except ImportError:
        if REQUIRED:
            raise
        pytest.skip("PostgreSQL tests need the dev extra (pgserver, psycopg)")
    from tests.postgres import PostgresForTests

    # Not under pytest's temporary folder: pytest removes old sessions' folders when a new
    # session starts, which would pull the data folder from under a server still running.
    root = Path(tempfile.mkdtemp(prefix="turngraph-postgres-"))
    try:
        server = PostgresForTests(root)
        yield server
        server.stop()
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def postgres_url(postgres: PostgresForTests) -> Iterator[str]:
    """A fresh PostgreSQL database holding the schema and nothing else; dropped after."""
    url = postgres.create_database()
    yield url
    postgres.drop_database(url)


@pytest.fixture
def bare_postgres_url(postgres: PostgresForTests) -> Iterator[str]:
    """A fresh PostgreSQL database with nothing in it, not even the pgvector extension
    (its server has pgvector installed: whoever opens it decides); dropped after."""
    url = postgres.create_bare_database()
    yield url
    postgres.drop_database(url)


@pytest.fixture
def postgres_url_without_pgvector(postgres: PostgresForTests) -> Iterator[str]:
    """A fresh, empty PostgreSQL database whose user may not create the pgvector extension
    (no superuser), so turngraph runs there without it; dropped after."""
    url = postgres.create_unprivileged_database()
    yield url
    postgres.drop_database(url)
