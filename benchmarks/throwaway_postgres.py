"""A throwaway PostgreSQL for the benchmarks: pgserver's PostgreSQL 16 (the dev extra) in a
folder of the caller's, on a Unix socket, deleted when the block ends."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def throwaway_postgres(folder: Path, database: str = "bench") -> Iterator[str]:
    """The URL of an empty database on a PostgreSQL server started in ``folder``."""
    import pgserver  # type: ignore[import-not-found]
    import psycopg

    server = pgserver.get_server(folder / "pgdata", cleanup_mode="delete")
    try:
        with psycopg.connect(server.get_uri(), autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {database}")
            conn.execute(f"CREATE DATABASE {database}")
        yield str(server.get_uri(database=database))
    finally:
        server.cleanup()
