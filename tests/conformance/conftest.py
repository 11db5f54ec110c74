"""The conformance suite: the same tests against every storage backend.

Each test takes ``db`` (a fresh, empty database on one backend) or ``mem`` (a memory in it).
Adding a backend means adding a parameter to ``backend`` that opens it; every test then runs
against it unchanged.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

import turngraph
from turngraph.config import Settings

if TYPE_CHECKING:
    from tests.postgres import PostgresForTests

Opener = Callable[..., turngraph.Database]


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Opener]:
    """A function that opens a fresh database on one backend (with optional settings).

    On PostgreSQL every statement the test sends is recorded, and the test fails on one that
    a distribution of the schema by memory id could not route to one shard (see
    tests/shard_routing.py; the documented exceptions aside)."""
    opened: list[turngraph.Database] = []
    databases: list[str] = []  # PostgreSQL databases made for this test
    sent: set[str] = set()
    distributed: frozenset[str] = frozenset()
    if request.param == "postgres":
        distributed = request.getfixturevalue("distributed_tables")
        _record_statements(request.getfixturevalue("monkeypatch"), sent)

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
    if sent:
        _assert_routable(sent, distributed)


@pytest.fixture(scope="session")
def distributed_tables(postgres: PostgresForTests) -> frozenset[str]:
    return postgres.distributed_tables()


def _record_statements(monkeypatch: pytest.MonkeyPatch, sent: set[str]) -> None:
    """Record the text of every statement psycopg sends while the test runs."""
    import psycopg

    execute, executemany = psycopg.Cursor.execute, psycopg.Cursor.executemany

    def text(query: object) -> str:
        if isinstance(query, bytes):
            return query.decode()
        if isinstance(query, str):
            return query
        return str(query.as_string(None))  # type: ignore[attr-defined]

    def recorded_execute(self: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
        sent.add(text(query))
        return execute(self, query, *args, **kwargs)

    def recorded_executemany(self: Any, query: Any, *args: Any, **kwargs: Any) -> Any:
        sent.add(text(query))
        return executemany(self, query, *args, **kwargs)

    monkeypatch.setattr(psycopg.Cursor, "execute", recorded_execute)
    monkeypatch.setattr(psycopg.Cursor, "executemany", recorded_executemany)


@functools.cache
def _migrations() -> frozenset[str]:
    """The PostgreSQL migrations' text: applied once at open, not routed."""
    from turngraph.store.sqlite import load_migrations

    return frozenset(sql for _, sql in load_migrations("postgres"))


def _assert_routable(sent: set[str], distributed: frozenset[str]) -> None:
    from tests.shard_routing import excepted, unroutable

    failing = {
        " ".join(sql.split())[:300]: why
        for sql in sent - _migrations()
        if (why := unroutable(sql, distributed)) and not excepted(sql)
    }
    assert not failing, f"statements a distribution by memory id could not route: {failing}"


@pytest.fixture
def db(backend: Opener) -> turngraph.Database:
    return backend()


@pytest.fixture
def mem(db: turngraph.Database) -> turngraph.Memory:
    return db.create_memory("acme")
