"""The PostgreSQL URL, the named migrations, and the SQL fragments the transactions share.

Migrations are the files of ``migrations/postgres`` in name order, each applied once in its
own transaction and recorded in ``_migrations``; a session advisory lock makes the processes
that open one database at the same time apply each migration exactly once.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import psycopg
from psycopg.rows import TupleRow

from turngraph.errors import ValidationError

Conn = psycopg.Connection[TupleRow]

# The first key of every advisory lock turngraph takes ('tg'); the second is the memory id
# for a memory's writes.
LOCK_SPACE = 0x7467
# The advisory lock (first key, second key) that serializes migrations across processes.
MIGRATION_LOCK = (LOCK_SPACE, 0)

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


def apply_schema(conn: Conn) -> None:
    """Apply the migrations ``_migrations`` does not record yet."""
    from turngraph.store.sqlite import load_migrations

    conn.execute("SELECT pg_advisory_lock(%s, %s)", MIGRATION_LOCK)
    try:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS _migrations "
            "(name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
        )
        done = {str(r[0]) for r in conn.execute("SELECT name FROM _migrations")}
        for name, sql in load_migrations("postgres"):
            if name in done:
                continue
            with conn.transaction():
                conn.execute(sql)
                conn.execute("INSERT INTO _migrations (name) VALUES (%s)", (name,))
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s, %s)", MIGRATION_LOCK)


def memory_tables(conn: Conn) -> list[str]:
    """The schema's tables that carry memory_id, by name: a memory's rows, table by table."""
    return [
        str(r[0])
        for r in conn.execute(
            "SELECT c.relname FROM pg_attribute a "
            "JOIN pg_class c ON c.oid = a.attrelid "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE a.attname = 'memory_id' AND NOT a.attisdropped "
            "AND c.relkind = 'r' AND n.nspname = current_schema() ORDER BY 1"
        ).fetchall()
    ]
