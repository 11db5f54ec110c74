"""The SQLite store checkpoints its write-ahead log from a thread of its own, not in commits."""

from __future__ import annotations

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
