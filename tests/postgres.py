"""A real PostgreSQL for the tests, started and stopped by the test session itself.

The `pgserver` wheel (a dev dependency) ships PostgreSQL 16 with pgvector; the server runs
from a temporary folder of its own, listens on a Unix socket only,
and is stopped and deleted when the session ends. Each test gets its own database, copied
from a template that already holds the schema (a copy takes tens of milliseconds; migrating
a database afresh would take longer), and dropped after the test.
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psycopg

from turngraph.store.postgres import PostgresStore

TEMPLATE = "turngraph_template"
UNPRIVILEGED = "turngraph_unprivileged"


class PostgresForTests:
    """One throwaway PostgreSQL server and the databases the tests make on it."""

    def __init__(self, root: Path) -> None:
        import pgserver

        root.mkdir(parents=True, exist_ok=True)
        self.server: Any = pgserver.get_server(root / "pgdata", cleanup_mode="delete")
        self._numbers = itertools.count(1)
        with self._admin() as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {TEMPLATE}")
            conn.execute(f"CREATE DATABASE {TEMPLATE}")
        PostgresStore(self.url(TEMPLATE)).close()  # the schema, migrated once

    def url(self, database: str) -> str:
        return str(self.server.get_uri(database=database))

    def _admin(self) -> psycopg.Connection[Any]:
        return psycopg.connect(self.url("postgres"), autocommit=True)

    def create_database(self) -> str:
        """A fresh database with the schema; its URL."""
        name = f"test_{os.getpid()}_{next(self._numbers)}"
        with self._admin() as conn:
            conn.execute(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE}")
        return self.url(name)

    def create_bare_database(self) -> str:
        """A fresh, empty database (no schema, no extension); its URL."""
        name = f"test_{os.getpid()}_{next(self._numbers)}"
        with self._admin() as conn:
            conn.execute(f"CREATE DATABASE {name} TEMPLATE template0")
        return self.url(name)

    def create_unprivileged_database(self) -> str:
        """A fresh, empty database owned by a role that is no superuser, so it may create
        tables but not the pgvector extension; the URL that connects as that role."""
        name = f"test_{os.getpid()}_{next(self._numbers)}"
        with self._admin() as conn:
            found = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (UNPRIVILEGED,))
            if found.fetchone() is None:
                conn.execute(f"CREATE ROLE {UNPRIVILEGED} LOGIN")
            conn.execute(f"CREATE DATABASE {name} OWNER {UNPRIVILEGED} TEMPLATE template0")
        url = self.url(name)
        parts = urlsplit(url)
        user = (
            f"{UNPRIVILEGED}:{parts.password}@"
            if parts.password is not None
            else f"{UNPRIVILEGED}@"
        )
        return parts._replace(netloc=user + parts.netloc.split("@", 1)[1]).geturl()

    def distributed_tables(self) -> frozenset[str]:
        """The schema's tables a distribution by memory would shard: those that carry
        memory_id, but for the reference tables (tests/shard_routing.py)."""
        from tests.shard_routing import REFERENCE_TABLES
        from turngraph.store.postgres_schema import memory_tables

        with psycopg.connect(self.url(TEMPLATE), autocommit=True) as conn:
            return frozenset(memory_tables(conn)) - REFERENCE_TABLES

    def drop_database(self, url: str) -> None:
        name = url.rsplit("/", 1)[1].split("?", 1)[0]
        with self._admin() as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    def stop(self) -> None:
        self.server.cleanup()
