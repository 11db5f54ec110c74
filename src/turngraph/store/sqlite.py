"""SQLite backend: one file, WAL mode, a connection per thread.

Readers run in deferred transactions on their own connection, so in WAL mode they see a
consistent snapshot and never wait for a writer. A writer takes the memory's in-process lock
(writes to one memory queue in order) and then SQLite's write lock with ``BEGIN IMMEDIATE``
(held only for the short commit of the rows, so writers of other memories wait milliseconds,
and other processes on the same file are safe too).
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

from turngraph.config import Settings
from turngraph.errors import ConflictError, NotFoundError, StoreError
from turngraph.store.base import MemoryRow
from turngraph.store.sqlite_access import AccessRows
from turngraph.store.sqlite_read import SQLiteReadTx
from turngraph.store.sqlite_rows import from_db, to_db
from turngraph.store.sqlite_write import SQLiteTx


def load_migrations(dialect: str) -> list[tuple[str, str]]:
    """The named migrations of a dialect, in order: ``[(name, sql), ...]``."""
    folder = resources.files("turngraph.store") / "migrations" / dialect
    found = sorted(
        (entry.name.removesuffix(".sql"), entry.read_text("utf-8"))
        for entry in folder.iterdir()
        if entry.name.endswith(".sql")
    )
    return found


class SQLiteStore(AccessRows):
    """A :class:`~turngraph.store.base.Store` on one SQLite file."""

    def __init__(self, path: str | Path, *, settings: Settings | None = None) -> None:
        self.settings = settings or Settings()
        self.path = Path(path)
        self.url = f"sqlite:///{self.path}"
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._guard = threading.Lock()
        self._locks: dict[int, threading.Lock] = {}
        # In-process writers queue on this lock instead of SQLite's busy-wait backoff, which
        # sleeps and can starve a memory whose writer arrives while another memory is busy.
        self._file_lock = threading.Lock()
        self._closed = False
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._migrate(self._conn())
        except sqlite3.Error as exc:
            raise StoreError(
                f"cannot open SQLite database {self.path}: {exc}", path=str(self.path)
            ) from exc

    # -- connections -----------------------------------------------------------------------

    def _conn(self) -> sqlite3.Connection:
        if self._closed:
            raise StoreError("the database is closed", path=str(self.path))
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(
                self.path,
                isolation_level=None,
                check_same_thread=False,
                timeout=self.settings.busy_timeout_ms / 1000,
            )
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(f"PRAGMA synchronous={self.settings.sqlite_synchronous}")
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute(f"PRAGMA busy_timeout={int(self.settings.busy_timeout_ms)}")
            self._local.conn = conn
            with self._guard:
                self._all.append(conn)
        return conn

    def _migrate(self, conn: sqlite3.Connection) -> None:
        conn.execute(
            "CREATE TABLE IF NOT EXISTS _migrations "
            "(name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
        )
        for name, sql in load_migrations("sqlite"):
            conn.execute("BEGIN IMMEDIATE")
            try:
                done = conn.execute("SELECT 1 FROM _migrations WHERE name = ?", (name,)).fetchone()
                if not done:
                    for statement in _split_sql(sql):
                        conn.execute(statement)
                    conn.execute(
                        "INSERT INTO _migrations (name, applied_at) VALUES (?, ?)",
                        (name, to_db(datetime.now(UTC))),
                    )
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise

    def _memory_lock(self, memory_id: int) -> threading.Lock:
        with self._guard:
            lock = self._locks.get(memory_id)
            if lock is None:
                lock = self._locks[memory_id] = threading.Lock()
            return lock

    def close(self) -> None:
        with self._guard:
            self._closed = True
            for conn in self._all:
                with contextlib.suppress(sqlite3.Error):
                    conn.close()
            self._all.clear()

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
        conn = self._conn()
        try:
            cur = conn.execute(
                "INSERT INTO memories (name, visibility, retrieval, created_at, organization) "
                "VALUES (?,?,?,?,?)",
                (name, visibility, retrieval, to_db(now), organization),
            )
        except sqlite3.IntegrityError:
            raise ConflictError(f"memory {name!r} already exists", memory=name) from None
        assert cur.lastrowid is not None
        return MemoryRow(cur.lastrowid, name, visibility, retrieval, now, organization)

    def get_memory(self, name: str) -> MemoryRow | None:
        row = (
            self._conn()
            .execute(
                "SELECT id, name, visibility, retrieval, created_at, organization FROM memories "
                "WHERE name = ?",
                (name,),
            )
            .fetchone()
        )
        return None if row is None else _memory_row(row)

    def list_memories(self) -> list[MemoryRow]:
        rows = (
            self._conn()
            .execute(
                "SELECT id, name, visibility, retrieval, created_at, organization FROM memories "
                "ORDER BY name"
            )
            .fetchall()
        )
        return [_memory_row(r) for r in rows]

    def set_visibility(self, memory_id: int, visibility: str) -> None:
        self._conn().execute(
            "UPDATE memories SET visibility = ? WHERE id = ?", (visibility, memory_id)
        )

    def delete_memory(self, memory_id: int) -> None:
        with self._memory_lock(memory_id), self._file_lock:
            conn = self._conn()
            conn.execute("BEGIN IMMEDIATE")
            try:
                # Children first: keeps the cascade cheap and independent of FK order.
                for table in ("observation_tags", "observation_files"):
                    conn.execute(f"DELETE FROM {table} WHERE memory_id = ?", (memory_id,))
                conn.execute("DELETE FROM memories WHERE id = ?", (memory_id,))
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise

    # -- transactions ----------------------------------------------------------------------

    @contextmanager
    def read(self, memory_id: int) -> Iterator[SQLiteReadTx]:
        conn = self._conn()
        if conn.in_transaction:  # a read nested in this thread's write sees the write
            yield SQLiteReadTx(conn, memory_id)
            return
        try:
            conn.execute("BEGIN")
        except sqlite3.Error as exc:
            raise StoreError(f"cannot start a read: {exc}", memory_id=memory_id) from exc
        try:
            yield SQLiteReadTx(conn, memory_id)
        except sqlite3.Error as exc:
            raise StoreError(f"read failed: {exc}", memory_id=memory_id) from exc
        finally:
            conn.execute("COMMIT")

    @contextmanager
    def write(self, memory_id: int) -> Iterator[SQLiteTx]:
        """A write transaction on one memory: serialized, atomic, NotFoundError if it is gone."""
        with self._memory_lock(memory_id), self._file_lock:
            conn = self._conn()
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise StoreError(f"cannot start a write: {exc}", memory_id=memory_id) from exc
            try:
                if (
                    conn.execute("SELECT 1 FROM memories WHERE id = ?", (memory_id,)).fetchone()
                    is None
                ):
                    raise NotFoundError(
                        "this memory no longer exists: it was deleted", memory_id=memory_id
                    )
                yield SQLiteTx(conn, memory_id)
            except sqlite3.Error as exc:
                conn.execute("ROLLBACK")
                raise StoreError(f"write failed: {exc}", memory_id=memory_id) from exc
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            try:
                conn.execute("COMMIT")
            except sqlite3.Error as exc:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise StoreError(f"commit failed: {exc}", memory_id=memory_id) from exc


def _memory_row(r: Sequence[Any]) -> MemoryRow:
    return MemoryRow(r[0], r[1], r[2], r[3], from_db(r[4]), r[5])


def _split_sql(script: str) -> list[str]:
    """Split a migration into complete statements (trigger bodies hold their own ';')."""
    statements: list[str] = []
    current = ""
    for line in script.splitlines(keepends=True):
        if not current and line.strip().startswith("--"):
            continue
        current += line
        if sqlite3.complete_statement(current):
            statements.append(current.strip())
            current = ""
    if current.strip():
        statements.append(current.strip())
    return statements
