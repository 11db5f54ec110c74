"""A throwaway PostgreSQL for the benchmarks: pgserver's PostgreSQL 16 (the dev extra) in a
folder of the caller's, on a Unix socket, deleted when the block ends.

Its ``shared_buffers`` is 1 GB, not PostgreSQL's default 128 MB: a recall over a large memory
reads the HNSW index and the text entries, which at 100,000 notes take 500 MB, and with the
default most of their pages come from the operating system's cache one system call at a time
(docs/scaling.md). The setting needs a restart, so the server starts twice."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SHARED_BUFFERS = "1GB"


@contextmanager
def throwaway_postgres(
    folder: Path, database: str = "bench", *, shared_buffers: str = SHARED_BUFFERS
) -> Iterator[str]:
    """The URL of an empty database on a PostgreSQL server started in ``folder``."""
    import pgserver  # type: ignore[import-not-found]
    import psycopg

    first = pgserver.get_server(folder / "pgdata", cleanup_mode="stop")
    with psycopg.connect(first.get_uri(), autocommit=True) as conn:
        conn.execute(f"ALTER SYSTEM SET shared_buffers = '{shared_buffers}'")
    first.cleanup()  # stopped: the next start reads the setting
    server = pgserver.get_server(folder / "pgdata", cleanup_mode="delete")
    try:
        with psycopg.connect(server.get_uri(), autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {database}")
            conn.execute(f"CREATE DATABASE {database}")
        yield str(server.get_uri(database=database))
    finally:
        server.cleanup()
