"""PostgreSQL backend: many memories in one database, shared by many processes and machines.

psycopg 3 with a connection pool (psycopg_pool). A thread leases a connection for one
transaction and hands it back; a read nested in this thread's write reuses the write's
connection, so it sees the write. The pool checks a connection before a lease
(:meth:`PostgresStore._usable`) with a round trip only when it has been idle for a while or
its socket has something to read: a server that ends a connection (a restart,
``pg_terminate_backend``) says so on the socket before it closes it, so a connection handed
back a moment ago with a quiet socket is good, and a busy server saves a round trip a
transaction.

Reads run in ``REPEATABLE READ READ ONLY`` transactions: one consistent snapshot that never
waits for a writer (MVCC). A write takes the memory's in-process lock (this process's writers
queue in order without holding a connection each), then a transaction-level advisory lock
keyed by the memory (``pg_advisory_xact_lock``), which serializes the writes to one memory
across every process and machine on the database and is released by the commit or rollback.
Writes to different memories never wait for each other.

Every memory-scoped table is keyed by memory id and every query names the memory (see the
migrations in ``migrations/postgres``), so the schema distributes by memory on a sharded
PostgreSQL. Text search uses the rows' own ``tsvector`` columns (English stemming, ranked by
BM25 as SQLite's FTS5 ranks). Vectors are stored as float32 bytes beside their rows, like
SQLite's; where the pgvector extension is available they are also stored as ``vector`` and
searched in the database through an HNSW index per dimension, and elsewhere by the core's
cached matrices (:mod:`turngraph.store.postgres_vectors`, docs/scaling.md).
"""

from __future__ import annotations

import contextlib
import select
import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from functools import partial
from typing import Any

import psycopg
from psycopg import errors as pg_errors
from psycopg.pq import TransactionStatus
from psycopg_pool import ConnectionPool, PoolTimeout

from turngraph.config import Settings
from turngraph.errors import ConflictError, NotFoundError, StoreError
from turngraph.store.base import MemoryRow
from turngraph.store.postgres_access import AccessRows
from turngraph.store.postgres_read import PostgresReadTx
from turngraph.store.postgres_schema import (
    LOCK_SPACE,
    Conn,
    apply_schema,
    check_url,
    describe_url,
)
from turngraph.store.postgres_stats import StatisticsRefresh
from turngraph.store.postgres_vectors import open_vector_index, send_vectors_binary, vector_type
from turngraph.store.postgres_write import PostgresTx
from turngraph.store.sqlite_rows import from_db, to_db

_MEMORY_COLS = "id, name, visibility, retrieval, created_at, organization"
# A connection idle in the pool longer than this is checked with a round trip before a lease.
RECHECK_IDLE_SECONDS = 5.0


class PostgresStore(AccessRows):
    """A :class:`~turngraph.store.base.Store` on one PostgreSQL database."""

    def __init__(self, url: str, *, settings: Settings | None = None) -> None:
        self.settings = settings or Settings()
        check_url(url)
        # What the store is called in messages and reprs: the URL without its password.
        self.url = self._where = describe_url(url)
        self._held = threading.local()
        # When each connection went back to the pool (for _usable).
        self._returned: weakref.WeakKeyDictionary[Conn, float] = weakref.WeakKeyDictionary()
        self._guard = threading.Lock()
        self._locks: dict[int, threading.Lock] = {}
        timeout = self.settings.postgres_connect_timeout_seconds
        try:
            with psycopg.connect(url, autocommit=True, connect_timeout=max(1, int(timeout))) as c:
                apply_schema(c)
                self._vectors = open_vector_index(
                    c,
                    allowed=self.settings.postgres_vector_index,
                    where=self._where,
                    exact_below=self.settings.postgres_exact_vectors_below,
                )
                vectors = vector_type(c) if self._vectors.enabled else None
        except psycopg.Error as exc:
            raise StoreError(
                f"cannot open PostgreSQL database {self._where}: {_reason(exc)}",
                url=self._where,
            ) from exc
        self._pool: ConnectionPool[Conn] = ConnectionPool(
            url,
            kwargs={"autocommit": True, "connect_timeout": max(1, int(timeout))},
            min_size=1,
            max_size=self.settings.postgres_pool_size,
            timeout=self.settings.postgres_pool_timeout_seconds,
            check=self._usable,
            # Vectors travel to pgvector in its binary form where the database has it.
            configure=None if vectors is None else partial(send_vectors_binary, info=vectors),
            name="turngraph",
            open=True,
        )
        self._statistics = StatisticsRefresh(self._lease)

    # -- connections -----------------------------------------------------------------------

    @contextmanager
    def _lease(self) -> Iterator[Conn]:
        """A connection for this thread until the block ends, then back to the pool."""
        held: Conn | None = getattr(self._held, "conn", None)
        if held is not None:
            yield held
            return
        try:
            conn = self._pool.getconn()
        except PoolTimeout as exc:
            raise StoreError(
                f"no database connection free within "
                f"{self.settings.postgres_pool_timeout_seconds:g} s: all "
                f"{self.settings.postgres_pool_size} of the pool are in use (or "
                f"{self._where} is unreachable)",
                url=self._where,
            ) from exc
        except psycopg.Error as exc:
            raise StoreError(f"cannot reach {self._where}: {_reason(exc)}") from exc
        self._held.conn = conn
        try:
            yield conn
        finally:
            self._held.conn = None
            if conn.info.transaction_status != TransactionStatus.IDLE:
                with contextlib.suppress(psycopg.Error):
                    conn.rollback()
            self._returned[conn] = time.monotonic()
            self._pool.putconn(conn)

    def _usable(self, conn: Conn) -> None:
        """The pool's check before a lease: raises if ``conn`` is broken. A round trip
        (psycopg_pool's own check) only for a connection idle longer than
        RECHECK_IDLE_SECONDS or whose socket has something to read; an idle connection's
        socket is quiet unless the server ended it."""
        returned = self._returned.get(conn)
        if (
            returned is not None
            and time.monotonic() - returned < RECHECK_IDLE_SECONDS
            and not conn.closed
            and _quiet(conn.fileno())
        ):
            return
        ConnectionPool.check_connection(conn)

    def _memory_lock(self, memory_id: int) -> threading.Lock:
        with self._guard:
            lock = self._locks.get(memory_id)
            if lock is None:
                lock = self._locks[memory_id] = threading.Lock()
            return lock

    @contextmanager
    def _tx(self) -> Iterator[Conn]:
        """One read-write transaction outside any memory (memories, principals, keys)."""
        with self._lease() as conn:
            try:
                conn.execute("BEGIN")
                yield conn
                conn.execute("COMMIT")
            except (pg_errors.UniqueViolation, pg_errors.ForeignKeyViolation):
                _rollback(conn)
                raise
            except psycopg.Error as exc:
                _rollback(conn)
                raise StoreError(f"write failed: {_reason(exc)}") from exc
            except BaseException:
                _rollback(conn)
                raise

    def close(self) -> None:
        self._statistics.close()
        self._pool.close()

    # -- memories --------------------------------------------------------------------------

    def create_memory(
        self,
        *,
        name: str,
        visibility: str,
        retrieval: str,
        now: datetime,
        organization: str = "default",
    ) -> MemoryRow:
        try:
            with self._tx() as conn:
                row = conn.execute(
                    "INSERT INTO memories (name, visibility, retrieval, created_at, organization) "
                    "VALUES (%s, %s, %s, %s, %s) RETURNING id",
                    (name, visibility, retrieval, to_db(now), organization),
                ).fetchone()
        except pg_errors.UniqueViolation:
            raise ConflictError(f"memory {name!r} already exists", memory=name) from None
        assert row is not None
        return MemoryRow(int(row[0]), name, visibility, retrieval, now, organization)

    def get_memory(self, name: str, *, organization: str = "default") -> MemoryRow | None:
        with self._statement() as conn:
            row = conn.execute(
                f"SELECT {_MEMORY_COLS} FROM memories WHERE organization = %s AND name = %s",
                (organization, name),
            ).fetchone()
        return None if row is None else _memory_row(row)

    def reach_memory(
        self, principal_id: str, organization: str, name: str
    ) -> tuple[MemoryRow, str | None] | None:
        cols = ", ".join(f"m.{c}" for c in _MEMORY_COLS.split(", "))
        with self._statement() as conn:
            row = conn.execute(
                f"SELECT {cols}, g.tier FROM memories m LEFT JOIN grants g "
                "ON g.memory_id = m.id AND g.principal_id = %(p)s WHERE m.name = %(n)s "
                "AND (m.organization = %(o)s OR g.tier IS NOT NULL) "
                "ORDER BY m.organization <> %(o)s, m.organization LIMIT 1",
                {"p": principal_id, "n": name, "o": organization},
            ).fetchone()
        return None if row is None else (_memory_row(row[:6]), row[6])

    def list_memories(self) -> list[MemoryRow]:
        with self._statement() as conn:
            rows = conn.execute(
                f"SELECT {_MEMORY_COLS} FROM memories ORDER BY name, organization"
            ).fetchall()
        return [_memory_row(r) for r in rows]

    def set_visibility(self, memory_id: int, visibility: str) -> None:
        with self._tx() as conn:
            conn.execute(
                "UPDATE memories SET visibility = %s WHERE id = %s", (visibility, memory_id)
            )

    def delete_memory(self, memory_id: int) -> None:
        with self._memory_lock(memory_id), self._tx() as conn:
            conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", (LOCK_SPACE, memory_id))
            conn.execute("DELETE FROM memories WHERE id = %s", (memory_id,))

    @contextmanager
    def _statement(self) -> Iterator[Conn]:
        """A connection for statements outside a transaction block (each commits alone)."""
        with self._lease() as conn:
            try:
                yield conn
            except psycopg.Error as exc:
                raise StoreError(f"query failed: {_reason(exc)}") from exc

    # -- transactions ----------------------------------------------------------------------

    @contextmanager
    def read(self, memory_id: int) -> Iterator[PostgresReadTx]:
        with self._lease() as conn:
            if conn.info.transaction_status == TransactionStatus.INTRANS:
                yield self._reads(conn, memory_id, snapshot=False)  # nested in a write
                return
            try:  # its BEGIN goes with its first statement (PostgresReadTx)
                yield self._reads(conn, memory_id, snapshot=True)
            except psycopg.Error as exc:
                raise StoreError(f"read failed: {_reason(exc)}", memory_id=memory_id) from exc
            finally:
                _rollback(conn)

    def _reads(self, conn: Conn, memory_id: int, *, snapshot: bool) -> PostgresReadTx:
        tx = PostgresReadTx(conn, memory_id, snapshot=snapshot)
        tx.vector_index = self._vectors
        return tx

    @contextmanager
    def write(self, memory_id: int) -> Iterator[PostgresTx]:
        """A write transaction on one memory: serialized across processes by the memory's
        advisory lock, atomic, NotFoundError if the memory is gone."""
        with self._memory_lock(memory_id), self._lease() as conn:
            try:
                # Three statements, one round trip: nothing is read until the write count.
                with conn.pipeline():
                    conn.execute("BEGIN")
                    conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", (LOCK_SPACE, memory_id))
                    found = conn.execute(
                        "UPDATE memories SET writes = writes + 1 WHERE id = %s RETURNING writes",
                        (memory_id,),
                    ).fetchone()
                if found is None:
                    raise NotFoundError(
                        "this memory no longer exists: it was deleted", memory_id=memory_id
                    )
            except psycopg.Error as exc:
                _rollback(conn)
                raise StoreError(
                    f"cannot start a write: {_reason(exc)}", memory_id=memory_id
                ) from exc
            except BaseException:
                _rollback(conn)
                raise
            try:
                tx = PostgresTx(conn, memory_id, writes=int(found[0]))
                tx.vector_index = self._vectors
                yield tx
            except psycopg.Error as exc:
                _rollback(conn)
                raise StoreError(f"write failed: {_reason(exc)}", memory_id=memory_id) from exc
            except BaseException:
                _rollback(conn)
                raise
            try:
                conn.execute("COMMIT")
            except psycopg.Error as exc:
                _rollback(conn)
                raise StoreError(f"commit failed: {_reason(exc)}", memory_id=memory_id) from exc
        # Past the memory lock and the connection: fresh planner statistics as it grows.
        self._statistics.after_write(tx.writes, memory_id=memory_id, added=tx.observations_added)


def _quiet(fd: int) -> bool:
    """Whether the socket has nothing (no data, no end) waiting, asked without waiting;
    False where that cannot be asked (no ``poll``), so the caller checks the slow way."""
    if not hasattr(select, "poll"):
        return False
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLERR | select.POLLHUP)
    return not poller.poll(0)


def _rollback(conn: Conn) -> None:
    if conn.info.transaction_status != TransactionStatus.IDLE:
        with contextlib.suppress(psycopg.Error):
            conn.execute("ROLLBACK")


def _reason(exc: psycopg.Error) -> str:
    """The first line of a driver error, without the password a URL may carry."""
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def _memory_row(r: tuple[Any, ...]) -> MemoryRow:
    return MemoryRow(int(r[0]), str(r[1]), str(r[2]), str(r[3]), from_db(r[4]), str(r[5]))
