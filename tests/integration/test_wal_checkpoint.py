"""The SQLite store checkpoints its write-ahead log from a thread of its own, not in commits."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

import turngraph
from turngraph.store import sqlite as sqlite_store


def test_the_log_reaches_the_database_file_without_a_commit_doing_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite_store, "CHECKPOINT_BYTES", 1)  # any log is worth copying
    path = tmp_path / "m.db"
    db = turngraph.open(path)
    try:
        memory = db.create_memory("acme", retrieval={"embedder": "none"})
        session = memory.create_session()
        store = db.store
        assert isinstance(store, sqlite_store.SQLiteStore)
        with store._lease() as conn:  # commits never checkpoint on their own
            assert conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0
        before = path.stat().st_size
        for i in range(sqlite_store.CHECKPOINT_EVERY):
            memory.remember(f"I moved to city number {i} this spring", session_id=session.id)
        deadline = time.monotonic() + 30
        while path.stat().st_size <= before and time.monotonic() < deadline:
            time.sleep(0.05)
        assert path.stat().st_size > before  # the turns' pages were copied into the file
    finally:
        db.close()
    assert not store._checkpointer._thread.is_alive()  # closing the store stops its thread
    reopened = turngraph.open(path)
    try:
        turns = reopened.memory("acme").list_turns(session.id).turns
        assert len(turns) == sqlite_store.CHECKPOINT_EVERY
    finally:
        reopened.close()


def test_the_log_stays_bounded_while_readers_never_pause(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Readers overlapping without a gap leave SQLite no moment to write the log from its
    start again; past its limit the checkpointer empties it anyway."""
    monkeypatch.setattr(sqlite_store, "CHECKPOINT_BYTES", 100_000)
    monkeypatch.setattr(sqlite_store, "WAL_LIMIT_BYTES", 1_000_000, raising=False)
    path = tmp_path / "busy.db"
    wal = Path(f"{path}-wal")
    db = turngraph.open(path)
    stop = threading.Event()
    peak = 0

    def read() -> None:
        store = db.store
        row = store.get_memory("busy")
        assert row is not None
        while not stop.is_set():
            with store.read(row.id) as tx:  # a snapshot held a little while
                tx.counts()
                time.sleep(0.02)

    def watch() -> None:
        nonlocal peak
        while not stop.is_set():
            peak = max(peak, wal.stat().st_size if wal.exists() else 0)
            time.sleep(0.005)

    try:
        memory = db.create_memory("busy", retrieval={"embedder": "none"})
        session = memory.create_session()
        threads = [threading.Thread(target=read) for _ in range(3)]
        threads.append(threading.Thread(target=watch))
        for i, thread in enumerate(threads):
            thread.start()
            time.sleep(0.007 * i)  # staggered: some snapshot is always open
        for i in range(600):
            memory.remember(
                f"Turn {i}: Priya moved the launch review to room {i} and asked Tomas "
                f"to bring the budget sheet for project number {i * 7}.",
                session_id=session.id,
            )
        stop.set()
        for thread in threads:
            thread.join()
        assert db.store._checkpointer.truncations > 0
        assert peak < 4_000_000, f"the log reached {peak:,} bytes"
        assert memory.info().observations == 600
    finally:
        stop.set()
        db.close()
