"""The conformance suite: the same tests against every storage backend.

Each test takes ``db`` (a fresh, empty database on one backend) or ``mem`` (a memory in it).
Adding a backend means adding a parameter to ``backend`` that opens it; every test then runs
against it unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import turngraph
from turngraph.config import Settings

Opener = Callable[..., turngraph.Database]


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Opener]:
    """A function that opens a fresh database on one backend (with optional settings)."""
    opened: list[turngraph.Database] = []
    databases: list[str] = []  # PostgreSQL databases made for this test

    def open_db(settings: Settings | None = None) -> turngraph.Database:
        if request.param == "sqlite":
            db = turngraph.open(tmp_path / f"conformance-{len(opened)}.db", settings=settings)
        elif request.param == "postgres":  # a fresh database from the session's server
            url = request.getfixturevalue("postgres").create_database()
            databases.append(url)
            db = turngraph.open(url, settings=settings)
        else:  # pragma: no cover - new backends plug in here
            raise AssertionError(f"unknown backend {request.param}")
        opened.append(db)
        return db

    yield open_db
    for db in opened:
        db.close()
    for url in databases:
        request.getfixturevalue("postgres").drop_database(url)


@pytest.fixture
def db(backend: Opener) -> turngraph.Database:
    return backend()


@pytest.fixture
def mem(db: turngraph.Database) -> turngraph.Memory:
    return db.create_memory("acme")
