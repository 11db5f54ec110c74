"""Keeping vectors current: embed what the write queued, after its transaction commits.

Triggers queue every inserted or changed observation and entity (attributes have no vectors:
they are found by their words and through their entity), and a turn's write queues its window
and the previous turn's; this pass embeds the queued texts outside any lock
(each text once; a window is derived from its turns' vectors, never embedded) and stores each
vector only if its text has not changed in the meantime (otherwise it stays queued for the
next pass). A writer embeds at most one batch
itself and leaves the rest to the store's background indexer, so no write waits for rows that
other writers queued. A crash between a write and this pass leaves the rows queued; opening
the database hands them to the background indexer.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import threading
import weakref

import numpy as np

from turngraph.errors import TurngraphError
from turngraph.recall.embed import Embedder, Vectors
from turngraph.store.base import QueuedRow, Store

BATCH = 64
log = logging.getLogger("turngraph.index")


_GUARD = threading.Lock()
_BUSY: dict[tuple[int, int], threading.Lock] = {}


def refresh_vectors(
    store: Store,
    memory_id: int,
    embedder: Embedder | None,
    *,
    batches: int | None = None,
    stop: threading.Event | None = None,
) -> int:
    """Embed and store queued rows of one memory; returns how many vectors were written.

    One thread at a time drains a memory's queue: a writer that finds another already at it
    returns at once, and the one at it takes what the others queued in its next batch (so
    concurrent writers share batches instead of embedding the same rows twice). With
    ``batches`` it stops after that many batches of :data:`BATCH` rows (a write's bounded
    share); without, it drains the queue and looks once more before it stops, so nothing
    queued meanwhile is left behind. Once ``stop`` is set it stops before its next batch
    (what is left stays queued).
    """
    return _refresh(store, memory_id, embedder, batches, stop)[0]


def _refresh(
    store: Store,
    memory_id: int,
    embedder: Embedder | None,
    batches: int | None,
    stop: threading.Event | None = None,
) -> tuple[int, bool | None]:
    """:func:`refresh_vectors`, and whether rows are left in the queue after a bounded
    refresh (None: not known)."""
    with _GUARD:
        busy = _BUSY.setdefault((id(store), memory_id), threading.Lock())
    written = 0
    left: bool | None = None
    while busy.acquire(blocking=False):
        try:
            done, left = _drain(store, memory_id, embedder, batches, stop)
            written += done
        finally:
            busy.release()
        if batches is not None or (stop is not None and stop.is_set()):
            break
        with store.read(memory_id) as tx:
            if not tx.index_queue(limit=1):
                break
    return written, left


def refresh_after_write(store: Store, memory_id: int, embedder: Embedder | None) -> None:
    """A writer's share of indexing: one batch, then the background indexer takes the rest
    (rows other writers queued, or a large write's remainder)."""
    _, left = _refresh(store, memory_id, embedder, batches=1)
    if left is None:  # another thread was at it, or the batch did not see the whole queue
        with store.read(memory_id) as tx:
            left = bool(tx.index_queue(limit=1))
    if left:
        schedule(store, memory_id, embedder)


def _drain(
    store: Store,
    memory_id: int,
    embedder: Embedder | None,
    batches: int | None,
    stop: threading.Event | None = None,
) -> tuple[int, bool | None]:
    """Embed and store up to ``batches`` batches (all, without): the vectors written, and
    whether rows were left queued (None: not known). The write of a batch reads the queue
    again, so that it sees what is left once the batch is dequeued; rows other writers queue
    after it are theirs to hand on (each writer looks at the queue after its own share)."""
    written = 0
    left: bool | None = None
    while batches is None or batches > 0:
        if stop is not None and stop.is_set():
            return written, None
        if batches is not None:
            batches -= 1
        with store.read(memory_id) as tx:
            items = [(q.kind, q.ref, embed_text(q)) for q in tx.index_queue(limit=BATCH)]
            windows = [ref for kind, ref, _ in items if kind == "window"]
            around = tx.window_turns(windows) if windows and embedder is not None else {}
        if not items:
            return written, False
        if embedder is None:  # a lexical-only memory keeps no vectors
            with store.write(memory_id) as wtx:
                wtx.dequeue_many([(kind, ref) for kind, ref, _ in items])
            left = None
            continue
        vectors = _vectors(embedder, items, around)
        with store.write(memory_id) as wtx:
            queued = wtx.index_queue(limit=BATCH * 4)
            still = {(q.kind, q.ref): embed_text(q) for q in queued}
            done = [(kind, ref) for kind, ref, text in items if still.get((kind, ref)) == text]
            # A window whose turn is gone has no vector: it only leaves the queue.
            wtx.put_vectors(
                [(k, r, vectors[k, r].tobytes()) for k, r in done if (k, r) in vectors],
                dequeue=True,
            )
            wtx.dequeue_many([key for key in done if key not in vectors])
        progress = len(done)
        written += progress
        left = len(still) > progress if len(queued) < BATCH * 4 else None
        # Nothing done (everything changed under us: the next pass takes it), or nothing left.
        if not progress or not left:
            return written, left
    return written, left


def _vectors(
    embedder: Embedder,
    items: list[tuple[str, int, str]],
    around: dict[int, list[tuple[int, str, str, bytes | None]]],
) -> dict[tuple[str, int], Vectors]:
    """The vectors of a batch of queued rows. Every text is embedded once; a turn's window is
    not embedded at all but derived from the vectors of its turns (see :func:`window_vector`),
    those this batch embeds or those stored; a turn of a window with neither is embedded
    here too."""
    texts = [(kind, ref, text) for kind, ref, text in items if kind != "window"]
    turn_text = {ref: text for kind, ref, text in texts if kind == "observation"}
    for turns in around.values():
        for obs_id, speaker, content, data in turns:
            if data is None and obs_id not in turn_text:
                text = turn_text[obs_id] = spoken_text(speaker, content)
                texts.append(("observation", obs_id, text))
    out: dict[tuple[str, int], Vectors] = {}
    if texts:  # a batch of windows alone needs no model call
        embedded = embedder.embed([text or " " for _, _, text in texts]).astype(np.float32)
        out = {(kind, ref): vector for (kind, ref, _), vector in zip(texts, embedded, strict=True)}
    for ref, turns in around.items():
        parts = []
        for obs_id, speaker, content, data in turns:
            found = out.get(("observation", obs_id))
            if found is None and data is not None:
                found = np.frombuffer(data, dtype=np.float32)
            if found is not None:
                parts.append((spoken_text(speaker, content), found))
        if parts:
            out[("window", ref)] = window_vector(parts)
    return out


def embed_text(row: QueuedRow) -> str:
    """The text a queued row's vector embeds: a turn as its speaker says it, a note with its
    title, an entity by name, description and the queries it answers, a window by the search
    context its turn was given."""
    if row.kind == "observation":
        if row.speaker is not None:
            return spoken_text(row.speaker, row.content)
        return f"{row.title}\n{row.content}"
    if row.kind == "entity":
        text = f"{row.name}: {row.content}"
        return f"{text} {' '.join(row.queries)}" if row.queries else text
    return row.content  # window


def spoken_text(speaker: str, content: str) -> str:
    """A turn's text to embed: who said it (the speaker, else the role) and what."""
    return f"{speaker}: {content}"


def window_vector(turns: list[tuple[str, Vectors]]) -> Vectors:
    """A window's vector from its turns' vectors: their mean weighted by each turn's length in
    words, normalized. That approximates embedding the window's text whole (the model
    mean-pools over tokens) without running the model over any text a second time."""
    total = np.zeros_like(turns[0][1])
    for text, vector in turns:
        total += max(len(text.split()), 1) * vector
    norm = float(np.linalg.norm(total))
    out: Vectors = (total / norm if norm else total).astype(np.float32)
    return out


# How long closing a store (or the interpreter's exit) waits for the batch the indexer is
# embedding: a batch is at most BATCH texts, seconds at worst with the default model.
STOP_SECONDS = 60.0


class _Worker:
    """One thread per store that drains the queues of the memories it is told of.

    It is a daemon thread (a host that never closes its database must still be able to
    exit), so it must be stopped before the interpreter finalizes: a daemon thread inside
    onnxruntime or the tokenizer when finalization begins is killed by a forced unwind
    through C++ and Rust frames, which aborts the whole process (SIGABRT, exit 134).
    :meth:`stop` lets the batch in progress finish, then ends the thread; what is left
    stays queued in the store, and the next open hands it to a new indexer."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.pending: dict[int, Embedder | None] = {}
        self.running = False
        self.stopping = threading.Event()
        self.cond = threading.Condition()
        self.thread = threading.Thread(target=self.run, name="turngraph-indexer", daemon=True)
        self.thread.start()

    def submit(self, memory_id: int, embedder: Embedder | None) -> None:
        with self.cond:
            self.pending[memory_id] = embedder
            self.cond.notify()

    def run(self) -> None:
        # Below the request threads in the scheduler's eyes (Linux sets niceness per thread).
        with contextlib.suppress(AttributeError, OSError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
        while True:
            with self.cond:
                while not self.pending and not self.stopping.is_set():
                    self.cond.wait()
                if self.stopping.is_set():
                    self.pending.clear()
                    self.cond.notify_all()
                    return
                memory_id, embedder = self.pending.popitem()
                self.running = True
            try:
                if embedder is not None:
                    embedder = embedder.single_threaded()
                refresh_vectors(self.store, memory_id, embedder, stop=self.stopping)
            except TurngraphError as exc:  # closed or deleted meanwhile: rows stay queued
                log.debug("background indexing of memory %s stopped: %s", memory_id, exc)
            except Exception:
                log.exception("background indexing of memory %s failed", memory_id)
            finally:
                with self.cond:
                    self.running = False
                    self.cond.notify_all()

    def wait(self, timeout: float) -> bool:
        with self.cond:
            return self.cond.wait_for(lambda: not self.pending and not self.running, timeout)

    def stop(self, timeout: float) -> bool:
        """End the thread after the batch in progress; False if it is still running after
        ``timeout`` seconds."""
        with self.cond:
            self.stopping.set()
            self.cond.notify_all()
        if self.thread is not threading.current_thread():
            self.thread.join(timeout)
        if self.thread.is_alive():
            log.warning("the background indexer did not stop within %g s", timeout)
            return False
        return True


_WORKERS: dict[int, _Worker] = {}
# Stores whose indexer was stopped (closed, or the interpreter exiting): a write that
# queues rows after that leaves them queued instead of starting a new thread.
_STOPPED: weakref.WeakSet[Store] = weakref.WeakSet()
_EXITING = False


def schedule(store: Store, memory_id: int, embedder: Embedder | None) -> None:
    """Have the store's background indexer drain this memory's queue soon."""
    with _GUARD:
        if _EXITING or store in _STOPPED:
            return
        worker = _WORKERS.get(id(store))
        if worker is None or worker.store is not store:
            worker = _WORKERS[id(store)] = _Worker(store)
    worker.submit(memory_id, embedder)


def stop_indexer(store: Store, timeout: float = STOP_SECONDS) -> bool:
    """Stop the store's background indexer and wait for it (the batch in progress finishes;
    the rest stays queued). :meth:`turngraph.Database.close` calls it before the store
    closes. False if the thread is still running after ``timeout`` seconds."""
    with _GUARD:
        _STOPPED.add(store)
        worker = _WORKERS.get(id(store))
        if worker is None or worker.store is not store:
            return True
        del _WORKERS[id(store)]
    return worker.stop(timeout)


@atexit.register
def _stop_all() -> None:
    """At interpreter exit, after the host's other threads have been joined and before
    finalization: stop every background indexer, so no thread is inside native inference
    when the interpreter tears down."""
    global _EXITING
    with _GUARD:
        _EXITING = True
        workers = list(_WORKERS.values())
        _WORKERS.clear()
    for worker in workers:
        worker.stop(STOP_SECONDS)


def wait_for_index(store: Store, timeout: float = 30.0) -> bool:
    """Block until the store's background indexer has nothing left to do (True) or the
    timeout passes (False). Immediate when nothing runs in the background."""
    with _GUARD:
        worker = _WORKERS.get(id(store))
    return worker is None or worker.store is not store or worker.wait(timeout)
