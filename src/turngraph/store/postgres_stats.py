"""Planner statistics refreshed as a memory grows.

PostgreSQL plans from table-wide statistics. A memory that grew since the tables were last
analyzed can look nearly empty to the planner while its neighbours in the statistics fill
them; the planner then reads it by ``memory_id`` alone inside nested loops, and a lookup that
probes a few rows by key scans the memory once per row instead (the neighbours of a turn's
window took 4.5 ms a turn on a 150-turn memory that way, 1.2 ms analyzed, and the cost grows
with the square of the memory's size). Autovacuum analyzes a table only once a tenth of it
changed, so a new memory beside large ones can grow far before that.

The same holds for the visibility map. A text search reads a word's entries in
``text_postings`` by an index-only scan, which must visit the table for every entry on a page
not yet marked all-visible. Autovacuum marks pages only once a fifth of a table is new, so
the newest entries (those most searched) are the slow ones: a word of 7,400 entries on 100,000
notes took 15-36 ms in a recall with a third of the pages unmarked and 6-12 ms with none.

So a store vacuums and analyzes the memory-scoped tables itself, on a thread of its own, when
a memory's write count (``memories.writes``) reaches a power of two from :data:`ANALYZE_FROM`
on: a memory's statistics are then never off by more than about a factor of two, at a cost that
grows with the logarithm of its writes. At most one runs at a time per store, and none within
:data:`ANALYZE_GAP_SECONDS` of the last; a growing memory asks again at its next power of two.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager

import psycopg
from psycopg import sql

from turngraph.errors import StoreError
from turngraph.store.postgres_schema import Conn

log = logging.getLogger("turngraph")

ANALYZE_FROM = 64  # the first write count that asks for fresh statistics
ANALYZE_GAP_SECONDS = 30.0  # the least time between two runs of one store


class StatisticsRefresh:
    """Runs ``VACUUM (ANALYZE)`` on the memory-scoped tables when :meth:`after_write` says a memory
    reached a power of two writes; ``lease`` gives a pooled connection."""

    def __init__(self, lease: Callable[[], AbstractContextManager[Conn]]) -> None:
        self._lease = lease
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._last = -math.inf

    def after_write(self, writes: int) -> None:
        """A memory's write committed; ``writes`` is its write count after it."""
        if writes < ANALYZE_FROM or writes & (writes - 1):
            return
        with self._lock:
            now = time.monotonic()
            busy = self._thread is not None and self._thread.is_alive()
            if busy or now - self._last < ANALYZE_GAP_SECONDS:
                return
            self._last = now
            self._thread = threading.Thread(
                target=self._analyze, name="turngraph-analyze", daemon=True
            )
            self._thread.start()

    def _analyze(self) -> None:
        try:
            with self._lease() as conn:
                tables = [
                    str(r[0])
                    for r in conn.execute(
                        "SELECT c.relname FROM pg_attribute a "
                        "JOIN pg_class c ON c.oid = a.attrelid "
                        "JOIN pg_namespace n ON n.oid = c.relnamespace "
                        "WHERE a.attname = 'memory_id' AND NOT a.attisdropped "
                        "AND c.relkind = 'r' AND n.nspname = current_schema() ORDER BY 1"
                    ).fetchall()
                ]
                if tables:
                    conn.execute(
                        sql.SQL("VACUUM (ANALYZE, SKIP_LOCKED) {}").format(
                            sql.SQL(", ").join(sql.Identifier(t) for t in tables)
                        )
                    )
        except (psycopg.Error, StoreError) as exc:
            # The store closing, or the database gone: statistics are an optimization.
            log.debug("turngraph: planner statistics not refreshed: %s", exc)

    def close(self, timeout: float = 10.0) -> None:
        """Wait for a run in progress (before the store's connections close)."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
