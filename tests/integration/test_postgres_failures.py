"""A PostgreSQL server that drops the connections: a write cut off mid-transaction is a clear
StoreError with nothing of it kept, and the next requests find fresh connections."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

import turngraph
from turngraph.errors import StoreError

psycopg = pytest.importorskip("psycopg")  # the postgres extra; `make test` installs it


def _drop_connections(url: str, pid: int | None = None) -> int:
    """Terminate the server processes serving ``url``'s database (only ``pid`` if given),
    each waited for until it is gone."""
    with psycopg.connect(url, autocommit=True) as admin:
        return len(
            admin.execute(
                "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid() "
                "AND (%s::int IS NULL OR pid = %s::int)",
                (pid, pid),
            ).fetchall()
        )


def test_a_write_cut_off_mid_transaction_keeps_nothing_and_the_next_one_works(
    postgres_url: str,
) -> None:
    with turngraph.open(postgres_url) as db:
        mem = db.create_memory("acme")
        mem.remember("I live in Porto.", speaker="Ana")

        def cut_off() -> None:
            with db.store.write(mem._id) as tx:
                tx.insert_session("cut", metadata="{}", now=datetime.now(UTC))
                backend = tx.conn.execute("SELECT pg_backend_pid()").fetchone()[0]  # type: ignore[attr-defined]
                assert _drop_connections(postgres_url, backend) == 1
                tx.insert_session("after", metadata="{}", now=datetime.now(UTC))

        with pytest.raises(StoreError) as caught:
            cut_off()
        assert "write failed" in str(caught.value)
        # Every connection the pool holds is gone too; the next calls get fresh ones.
        _drop_connections(postgres_url)
        assert [s.id for s in mem.list_sessions().sessions] == [
            mem.recall("Porto").hits[0].source.session_id
        ]
        mem.remember("Now I live in Lisbon.", speaker="Ana")
        assert mem.info().turns == 2
