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

So a store analyzes the memory-scoped tables itself (and vacuums those recall reads by
index-only scans: :data:`VACUUMED`), on a thread of its own, when a memory's write count
(``memories.writes``) reaches a power of two from :data:`ANALYZE_FROM` on: a memory's
statistics are then never off by more than about a factor of two, at a cost that grows with
the logarithm of its writes. A memory that grows by a few large writes (an import:
``remember_many`` of a whole session is one write) asks too when the observations this
process added to it reach a power of two from :data:`ANALYZE_FROM`. At most one runs at a time
per store, and none within :data:`ANALYZE_GAP_SECONDS` of the last: one asked for then runs
once the gap has passed, so the end of an import is refreshed without waiting for the next
power of two.
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
from turngraph.store.postgres_schema import Conn, memory_tables

log = logging.getLogger("turngraph")

ANALYZE_FROM = 64  # the first write count that asks for fresh statistics
ANALYZE_GAP_SECONDS = 30.0  # the least time between two runs of one store
# The tables recall reads by index-only scans, which the refresh vacuums too. The others are
# only analyzed: vacuuming `vectors` would have pgvector walk and repair its whole HNSW graph
# for the rows that marking and rewriting vectors leave dead, holding off an index build.
VACUUMED = ("observation_entities", "relationships", "text_postings")


class StatisticsRefresh:
    """Runs ``ANALYZE`` on the memory-scoped tables (``VACUUM (ANALYZE)`` on those of
    :data:`VACUUMED`) when :meth:`after_write` says a memory reached a power of two writes or
    added observations; ``lease`` gives a pooled connection."""

    def __init__(self, lease: Callable[[], AbstractContextManager[Conn]]) -> None:
        self._lease = lease
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._timer: threading.Timer | None = None
        self._last = -math.inf
        self._added: dict[int, int] = {}  # observations this process added, by memory
        self._closed = False

    def after_write(self, writes: int, *, memory_id: int = 0, added: int = 0) -> None:
        """A memory's write committed: ``writes`` is its write count after it, ``added`` the
        observations it added."""
        due = writes >= ANALYZE_FROM and not writes & (writes - 1)
        if added:
            with self._lock:
                before = self._added.get(memory_id, 0)
                self._added[memory_id] = after = before + added
            # A power of two from ANALYZE_FROM lies in (before, after].
            due = due or (after >= ANALYZE_FROM and after.bit_length() > before.bit_length())
        if due:
            self._ask()

    def _ask(self) -> None:
        with self._lock:
            if self._closed:
                return
            busy = self._thread is not None and self._thread.is_alive()
            wait = self._last + ANALYZE_GAP_SECONDS - time.monotonic()
            if busy or wait > 0:
                if self._timer is None:  # once, when the gap (or a whole one) has passed
                    delay = wait if wait > 0 else ANALYZE_GAP_SECONDS
                    self._timer = threading.Timer(delay, self._deferred)
                    self._timer.daemon = True
                    self._timer.start()
                return
            self._last = time.monotonic()
            self._thread = threading.Thread(
                target=self._analyze, name="turngraph-analyze", daemon=True
            )
            self._thread.start()

    def _deferred(self) -> None:
        with self._lock:
            self._timer = None
        self._ask()

    def _analyze(self) -> None:
        try:
            with self._lease() as conn:
                tables = memory_tables(conn)
                vacuumed = [t for t in tables if t in VACUUMED]
                analyzed = [t for t in tables if t not in VACUUMED]
                for command, names in (
                    ("VACUUM (ANALYZE, SKIP_LOCKED) {}", vacuumed),
                    ("ANALYZE {}", analyzed),
                ):
                    if names:
                        conn.execute(
                            sql.SQL(command).format(
                                sql.SQL(", ").join(sql.Identifier(t) for t in names)
                            )
                        )
        except (psycopg.Error, StoreError) as exc:
            # The store closing, or the database gone: statistics are an optimization.
            log.debug("turngraph: planner statistics not refreshed: %s", exc)

    def close(self, timeout: float = 10.0) -> None:
        """Wait for a run in progress (before the store's connections close); none starts
        after this."""
        with self._lock:
            self._closed = True
            if self._timer is not None:
                self._timer.cancel()
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
