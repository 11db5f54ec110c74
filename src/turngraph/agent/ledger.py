"""Which chat events a webhook has already taken, so that each message is answered once.

A chat platform sends an event again when it is not sure the first delivery arrived: Slack
retries an event whose request was not answered 200 within three seconds (with
``X-Slack-Retry-Num``), and a captured request can be replayed within the signature's
five-minute window; Telegram sends an update again with the same ``update_id``. Each time the
event would store another turn and post another reply.

An adapter *claims* an event's id before it runs the turn: the first claim wins, and every
later delivery of the same id is skipped (acknowledged, not processed), whether the first is
finished or still running. A turn that fails *releases* its claim, so the platform's next retry
runs it again. Claims live in a SQLite file when a path is given, so they survive a restart of
the process, and are forgotten after ``keep_seconds`` (a day by default; platforms retry for
minutes).
"""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

KEEP_SECONDS = 24 * 3600
MAX_ID_CHARS = 256


def _key(event_id: str) -> str:
    # Ids come from request bodies: a lone surrogate would not encode, so escape it.
    return event_id[:MAX_ID_CHARS].encode("utf-8", "backslashreplace").decode("utf-8")


class EventLedger:
    """Event ids already taken, per provider. ``path`` None keeps them in memory only."""

    def __init__(self, path: str | Path | None = None, *, keep_seconds: int = KEEP_SECONDS):
        self.keep_seconds = keep_seconds
        self._lock = threading.Lock()
        self._db = sqlite3.connect(
            ":memory:" if path is None else str(path), check_same_thread=False, isolation_level=None
        )
        self._db.execute("PRAGMA busy_timeout = 5000")
        if path is not None:
            self._db.execute("PRAGMA journal_mode = WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS taken_events ("
            " provider TEXT NOT NULL, event_id TEXT NOT NULL, taken_at REAL NOT NULL,"
            " PRIMARY KEY (provider, event_id)) WITHOUT ROWID"
        )
        self._claims = 0

    def claim(self, provider: str, event_id: str, *, now: float | None = None) -> bool:
        """Take ``event_id``: True the first time, False while an earlier claim stands."""
        at = time.time() if now is None else now
        key = _key(event_id)
        with self._lock:
            self._claims += 1
            if self._claims % 500 == 1:
                self._db.execute(
                    "DELETE FROM taken_events WHERE taken_at < ?", (at - self.keep_seconds,)
                )
            # A claim older than the window is as good as none: take it over.
            self._db.execute(
                "DELETE FROM taken_events WHERE provider = ? AND event_id = ? AND taken_at < ?",
                (provider, key, at - self.keep_seconds),
            )
            cursor = self._db.execute(
                "INSERT OR IGNORE INTO taken_events (provider, event_id, taken_at)"
                " VALUES (?, ?, ?)",
                (provider, key, at),
            )
            return cursor.rowcount == 1

    def release(self, provider: str, event_id: str) -> None:
        """Give a claim back (its turn failed), so that the next delivery runs it."""
        with self._lock:
            self._db.execute(
                "DELETE FROM taken_events WHERE provider = ? AND event_id = ?",
                (provider, _key(event_id)),
            )

    def close(self) -> None:
        with self._lock:
            self._db.close()
