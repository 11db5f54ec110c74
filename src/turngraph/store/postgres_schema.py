"""The PostgreSQL URL, the named migrations, and the SQL fragments the transactions share.

Migrations are the files of ``migrations/postgres`` in name order, each applied once in its
own transaction and recorded in ``_migrations``; a session advisory lock makes the processes
that open one database at the same time apply each migration exactly once. A migration whose
first line is :data:`NEEDS_VECTOR` is applied only where the pgvector extension can be
created; until then it is left for a later open.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import psycopg
from psycopg.rows import TupleRow

from turngraph.errors import ValidationError

Conn = psycopg.Connection[TupleRow]

# The first line of a migration that needs pgvector.
NEEDS_VECTOR = "-- turngraph: needs pgvector"
# The advisory lock (first key, second key) that serializes migrations across processes.
MIGRATION_LOCK = (0x7467, 0)

SCHEMES = ("postgresql", "postgres")


def check_url(url: str) -> None:
    """Raise ValidationError naming what is wrong with a PostgreSQL URL."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise ValidationError(f"invalid PostgreSQL URL: {exc}", field="url") from None
    if parts.scheme not in SCHEMES:
        raise ValidationError(
            f"a PostgreSQL URL starts with postgresql://, not {parts.scheme}://", field="url"
        )
    if port == 0:
        raise ValidationError("invalid PostgreSQL URL: port 0", field="url")
    try:
        psycopg.conninfo.conninfo_to_dict(url)
    except psycopg.ProgrammingError as exc:
        raise ValidationError(f"invalid PostgreSQL URL: {exc}", field="url") from None


def describe_url(url: str) -> str:
    """The URL without its password, for messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return parts._replace(netloc=netloc).geturl()


def apply_schema(conn: Conn) -> bool:
    """Apply the migrations ``_migrations`` does not record yet; True when pgvector's
    migration is applied (vectors are also stored as pgvector values)."""
    from turngraph.store.sqlite import load_migrations

    conn.execute("SELECT pg_advisory_lock(%s, %s)", MIGRATION_LOCK)
    try:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS _migrations "
            "(name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
        )
        done = {str(r[0]) for r in conn.execute("SELECT name FROM _migrations")}
        vectors = True
        for name, sql in load_migrations("postgres"):
            if name in done:
                continue
            if sql.startswith(NEEDS_VECTOR) and not _create_vector_extension(conn):
                vectors = False
                continue
            with conn.transaction():
                conn.execute(sql)
                conn.execute("INSERT INTO _migrations (name) VALUES (%s)", (name,))
        return vectors
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s, %s)", MIGRATION_LOCK)


def _create_vector_extension(conn: Conn) -> bool:
    """Whether pgvector is installed in the database, creating it if the server has it."""
    if conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone():
        return True
    if not conn.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'").fetchone():
        return False
    try:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    except psycopg.Error:  # not allowed to create it: stay on the fallback
        return False
    return True


def as_int(value: Any) -> int:
    return int(value)
