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
