"""SQLite backend: one file, WAL mode, a small pool of connections owned by the store.

A thread leases a connection for one transaction (or one statement) and hands it back, so
the number of open connections is bounded by the work in progress plus a few kept idle, not
by how many threads have ever called in (a server's worker threads come and go).

Readers run in deferred transactions on their own connection, so in WAL mode they see a
consistent snapshot and never wait for a writer. A writer takes the memory's in-process lock
(writes to one memory queue in order) and then SQLite's write lock with ``BEGIN IMMEDIATE``
(held only for the short commit of the rows, so writers of other memories wait milliseconds,
and other processes on the same file are safe too).

Committed pages go to the write-ahead log; copying them into the database file (a checkpoint)
is work SQLite would do inside whichever commit crosses its threshold, a stall of many
milliseconds every few hundred turns. Here a thread of the store's own does it instead, once
the log has grown past :data:`CHECKPOINT_BYTES`, in ``PASSIVE`` mode (it never waits for, nor
blocks, a reader or a writer).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
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


# The first line of a migration that rebuilds a table (SQLite changes a table's constraints
# only by creating the new table, copying the rows, dropping the old one and renaming).
TABLE_REBUILD = "-- turngraph: table rebuild"


def apply_migrations(conn: sqlite3.Connection, migrations: Sequence[tuple[str, str]]) -> None:
    """Apply, in order, each of ``migrations`` (``[(name, sql), ...]``) that ``_migrations``
    does not record yet, each in its own ``BEGIN IMMEDIATE`` transaction with foreign keys
    enforced (two processes opening one file apply each migration once).

    A migration that starts with :data:`TABLE_REBUILD` runs with foreign keys off (dropping
    the old table must not cascade to the rows that reference it) and with
    ``legacy_alter_table`` on (renaming the new table must leave the triggers and foreign keys
    that name the table as written; SQLite would otherwise refuse the rename while they name
    a table that is, for that moment, gone). Before it commits, ``PRAGMA foreign_key_check``
    must find no row without its parent, or nothing of it is kept. Both settings are restored
    afterwards, whatever happens.
    """
    conn.execute(
        "CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
    )
    for name, sql in migrations:
        rebuild = sql.startswith(TABLE_REBUILD)
        if rebuild:  # both are no-ops inside a transaction: set before it begins
            conn.execute("PRAGMA foreign_keys=OFF")
            conn.execute("PRAGMA legacy_alter_table=ON")
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                done = conn.execute("SELECT 1 FROM _migrations WHERE name = ?", (name,)).fetchone()
                if not done:
                    for statement in _split_sql(sql):
                        conn.execute(statement)
                    if rebuild:
                        _check_foreign_keys(conn, name)
                    conn.execute(
                        "INSERT INTO _migrations (name, applied_at) VALUES (?, ?)",
                        (name, to_db(datetime.now(UTC))),
                    )
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        finally:
            if rebuild:
                conn.execute("PRAGMA legacy_alter_table=OFF")
                conn.execute("PRAGMA foreign_keys=ON")


def _check_foreign_keys(conn: sqlite3.Connection, migration: str) -> None:
    broken = conn.execute("PRAGMA foreign_key_check").fetchall()
    if broken:
        table, rowid, parent = broken[0][0], broken[0][1], broken[0][2]
        raise StoreError(
            f"migration {migration} would leave {len(broken)} row(s) without their parent "
            f"(first: {table} row {rowid} -> {parent}); nothing of it was applied",
            migration=migration,
        )


# Connections kept open between leases: enough for a burst of readers to start without
# opening files, few enough that idle memory and descriptors stay flat.
IDLE_CONNECTIONS = 8


# The log size past which the checkpointer copies it into the database file: SQLite's own
# default threshold (1,000 pages of 4 KiB).
CHECKPOINT_BYTES = 4_096_000
# The log size past which the checkpointer also empties it. A copy that leaves the log in
# place lets SQLite write from its start again only at a moment no reader still uses it;
# under sustained writes beside concurrent readers that moment never comes, and the log grew
# to 1.6 GB beside a 166 MB database. Past this size the writer that notices it holds the
# other writers back, waits for the readers of older snapshots (reads take milliseconds),
# copies the rest and truncates the log to nothing.
WAL_LIMIT_BYTES = 64_000_000
TRUNCATE_WAIT_MS = 2_000
# Commits between two wakes of the checkpointing thread.
CHECKPOINT_EVERY = 16


class _Checkpointer:
    """Keeps the write-ahead log small without a commit paying for it in the common case.
    Writers call :meth:`committed` after each commit, under the store's file lock, and it
    looks at the log's size. Past :data:`CHECKPOINT_BYTES`, every :data:`CHECKPOINT_EVERY`
    commits, a daemon thread of its own checkpoints in ``PASSIVE`` mode, on a
    connection leased from the store's pool (no connection, and no open file, of its own).
    Past :data:`WAL_LIMIT_BYTES` the writer that noticed truncates the log itself, on its own
    connection and still holding the file lock, so this process's other writers queue behind
    it: the bound holds however late the thread is scheduled on a loaded machine (left to the
    thread, the log once grew four times past the limit before it ran)."""

    def __init__(
        self, path: Path, lease: Callable[[], AbstractContextManager[sqlite3.Connection]]
    ) -> None:
        self._lease = lease
        self._wal = Path(f"{path}-wal")
        self._wake = threading.Event()
        self._stopping = False
        self._commits = 0
        self._retry = 0  # the commit from which a failed truncation is tried again
        self._failures = 0  # truncations failed in a row
        self.truncations = 0
        self._thread = threading.Thread(target=self._run, name="turngraph-checkpoint", daemon=True)
        self._thread.start()

    def committed(self, conn: sqlite3.Connection) -> None:
        """After a commit on ``conn``, under the store's file lock (one writer at a time)."""
        self._commits += 1
        try:
            size = os.stat(self._wal).st_size  # microseconds, against a commit's milliseconds
        except OSError:
            return
        if size >= WAL_LIMIT_BYTES and not conn.in_transaction and self._commits >= self._retry:
            # A failure (a read longer than the wait, the file busy) is retried after 1, 2,
            # 4 ... up to CHECKPOINT_EVERY commits: a reader that holds its snapshot for
            # long does not hold the writers 2 s at every commit.
            truncated = False
            with contextlib.suppress(sqlite3.Error):
                truncated = self._truncate(conn)
            self._failures = 0 if truncated else self._failures + 1
            if self._failures:
                self._retry = self._commits + min(2 ** (self._failures - 1), CHECKPOINT_EVERY)
        elif size >= CHECKPOINT_BYTES and self._commits % CHECKPOINT_EVERY == 0:
            self._wake.set()

    def _truncate(self, conn: sqlite3.Connection) -> bool:
        # Waits for the readers of older snapshots: give up after 2 s (a long read).
        previous = conn.execute("PRAGMA busy_timeout").fetchone()[0]
        conn.execute(f"PRAGMA busy_timeout={TRUNCATE_WAIT_MS}")
        try:
            busy = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
        finally:
            conn.execute(f"PRAGMA busy_timeout={int(previous)}")
        done: bool = busy == 0
        self.truncations += done
        return done

    def _run(self) -> None:
        while True:
            self._wake.wait()
            self._wake.clear()
            if self._stopping:
                return
            # A failure (the store closing, a busy file) is retried at the next wake.
            with contextlib.suppress(OSError, sqlite3.Error, StoreError), self._lease() as conn:
                conn.execute("PRAGMA wal_checkpoint(PASSIVE)")

    def close(self) -> None:
        self._stopping = True
        self._wake.set()
        self._thread.join()


class SQLiteStore(AccessRows):
    """A :class:`~turngraph.store.base.Store` on one SQLite file."""

    def __init__(self, path: str | Path, *, settings: Settings | None = None) -> None:
        self.settings = settings or Settings()
        self.path = Path(path)
        self.url = f"sqlite:///{self.path}"
        # The connection this thread has leased (nested calls reuse it: a read inside a
        # write sees the write) and the connections waiting for the next lease.
        self._held = threading.local()
        self._idle: list[sqlite3.Connection] = []
        self._guard = threading.Lock()
        self._locks: dict[int, threading.Lock] = {}
        # In-process writers queue on this lock instead of SQLite's busy-wait backoff, which
        # sleeps and can starve a memory whose writer arrives while another memory is busy.
        self._file_lock = threading.Lock()
        self._closed = False
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self._lease() as conn:
                apply_migrations(conn, load_migrations("sqlite"))
        except sqlite3.Error as exc:
            raise StoreError(
                f"cannot open SQLite database {self.path}: {exc}", path=str(self.path)
            ) from exc
        self._checkpointer = _Checkpointer(self.path, self._lease)

    # -- connections -----------------------------------------------------------------------

    @contextmanager
    def _lease(self) -> Iterator[sqlite3.Connection]:
        """A connection for this thread until the block ends, then back to the pool (or
        closed when :data:`IDLE_CONNECTIONS` already wait there)."""
        held: sqlite3.Connection | None = getattr(self._held, "conn", None)
        if held is not None:
            yield held
            return
        conn = self._checkout()
        self._held.conn = conn
        try:
            yield conn
        finally:
            self._held.conn = None
            self._checkin(conn)

    def _checkout(self) -> sqlite3.Connection:
        with self._guard:
            if self._closed:
                raise StoreError("the database is closed", path=str(self.path))
            if self._idle:
                return self._idle.pop()
        conn = sqlite3.connect(
            self.path,
            isolation_level=None,
            check_same_thread=False,
            timeout=self.settings.busy_timeout_ms / 1000,
        )
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(f"PRAGMA synchronous={self.settings.sqlite_synchronous}")
            conn.execute("PRAGMA foreign_keys=ON")
            # 8 MB of page cache (SQLite's default is 2 MB): a turn's write touches the full-text
            # index pages, and at 2 MB they fall out between turns (ingest: 490 -> 530 turns/s).
            # At most a few connections stay open, so this bounds the cache at tens of MB.
            conn.execute("PRAGMA cache_size=-8000")
            conn.execute("PRAGMA wal_autocheckpoint=0")  # the checkpointer's job
            conn.execute(f"PRAGMA busy_timeout={int(self.settings.busy_timeout_ms)}")
        except BaseException:
            conn.close()
            raise
        return conn

    def _checkin(self, conn: sqlite3.Connection) -> None:
        if conn.in_transaction:  # never hand on an open transaction
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
        with self._guard:
            if not self._closed and len(self._idle) < IDLE_CONNECTIONS:
                self._idle.append(conn)
                return
        with contextlib.suppress(sqlite3.Error):
            conn.close()

    def _memory_lock(self, memory_id: int) -> threading.Lock:
        with self._guard:
            lock = self._locks.get(memory_id)
            if lock is None:
                lock = self._locks[memory_id] = threading.Lock()
            return lock

    def close(self) -> None:
        with self._guard:
            if self._closed:
                return
            self._closed = True
            idle, self._idle = self._idle, []
        self._checkpointer.close()
        # Leased connections close when their holder hands them back.
        for conn in idle:
            with contextlib.suppress(sqlite3.Error):
                conn.close()

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
        with self._lease() as conn:
            try:
                with self._file_lock:
                    cur = conn.execute(
                        "INSERT INTO memories (name, visibility, retrieval, created_at, "
                        "organization) VALUES (?,?,?,?,?)",
                        (name, visibility, retrieval, to_db(now), organization),
                    )
            except sqlite3.IntegrityError:
                raise ConflictError(f"memory {name!r} already exists", memory=name) from None
            except sqlite3.Error as exc:  # another process holds the write lock too long
                raise StoreError(f"cannot create memory {name!r}: {exc}", memory=name) from exc
        assert cur.lastrowid is not None
        return MemoryRow(cur.lastrowid, name, visibility, retrieval, now, organization)

    def get_memory(self, name: str, *, organization: str = "default") -> MemoryRow | None:
        with self._lease() as conn:
            row = conn.execute(
                "SELECT id, name, visibility, retrieval, created_at, organization FROM memories "
                "WHERE organization = ? AND name = ?",
                (organization, name),
            ).fetchone()
        return None if row is None else _memory_row(row)

    def reach_memory(
        self, principal_id: str, organization: str, name: str
    ) -> tuple[MemoryRow, str | None] | None:
        with self._lease() as conn:
            row = conn.execute(
                "SELECT m.id, m.name, m.visibility, m.retrieval, m.created_at, m.organization, "
                "g.tier FROM memories m LEFT JOIN grants g ON g.memory_id = m.id "
                "AND g.principal_id = ? WHERE m.name = ? AND (m.organization = ? "
                "OR g.tier IS NOT NULL) ORDER BY m.organization <> ?, m.organization LIMIT 1",
                (principal_id, name, organization, organization),
            ).fetchone()
        return None if row is None else (_memory_row(row[:6]), row[6])

    def list_memories(self) -> list[MemoryRow]:
        with self._lease() as conn:
            rows = conn.execute(
                "SELECT id, name, visibility, retrieval, created_at, organization FROM memories "
                "ORDER BY name, organization"
            ).fetchall()
        return [_memory_row(r) for r in rows]

    def set_visibility(self, memory_id: int, visibility: str) -> None:
        try:
            with self._file_lock, self._lease() as conn:
                conn.execute(
                    "UPDATE memories SET visibility = ? WHERE id = ?", (visibility, memory_id)
                )
        except sqlite3.Error as exc:
            raise StoreError(f"cannot change visibility: {exc}", memory_id=memory_id) from exc

    def delete_memory(self, memory_id: int) -> None:
        with self._memory_lock(memory_id), self._file_lock, self._lease() as conn:
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise StoreError(f"cannot delete memory: {exc}", memory_id=memory_id) from exc
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
        with self._lease() as conn:
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
        with self._memory_lock(memory_id), self._file_lock, self._lease() as conn:
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise StoreError(f"cannot start a write: {exc}", memory_id=memory_id) from exc
            try:
                found = conn.execute(
                    "UPDATE memories SET writes = writes + 1 WHERE id = ? RETURNING writes",
                    (memory_id,),
                ).fetchone()
                if found is None:
                    raise NotFoundError(
                        "this memory no longer exists: it was deleted", memory_id=memory_id
                    )
                yield SQLiteTx(conn, memory_id, writes=int(found[0]))
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
            self._checkpointer.committed(conn)


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
