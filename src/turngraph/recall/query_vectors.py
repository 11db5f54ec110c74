"""Query vectors: embedded on a small pool of worker threads while the recall that asked runs
its text searches (onnxruntime and SQLite both release the GIL, so the two overlap on two
cores), and kept by text so that a repeated query is not embedded again."""

from __future__ import annotations

import os
import threading
import time
import weakref
from collections import OrderedDict
from concurrent.futures import Future, ThreadPoolExecutor

from turngraph.recall.embed import Embedder, Vectors

CACHED = 2048  # query vectors kept per embedder, least recently used dropped first

_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None
_cache: weakref.WeakKeyDictionary[Embedder, OrderedDict[str, Vectors]] = weakref.WeakKeyDictionary()


def _executor() -> ThreadPoolExecutor:
    global _pool
    with _lock:
        if _pool is None:
            threads = min(8, os.cpu_count() or 2)
            _pool = ThreadPoolExecutor(threads, thread_name_prefix="turngraph-query-embed")
        return _pool


def _cached(embedder: Embedder, text: str) -> Vectors | None:
    with _lock:
        found = _cache.get(embedder)
        if found is None or text not in found:
            return None
        found.move_to_end(text)
        return found[text]


def _keep(embedder: Embedder, text: str, vector: Vectors) -> None:
    with _lock:
        found = _cache.setdefault(embedder, OrderedDict())
        found[text] = vector
        if len(found) > CACHED:
            found.popitem(last=False)


def embed_query(embedder: Embedder, text: str) -> Future[tuple[Vectors, float]]:
    """The vector of ``text`` (and the seconds spent embedding it, 0 when it was cached), on
    its way. The embedder runs single-threaded here (``Embedder.single_threaded``): a query
    is one short text, and a second thread would wait for the core the caller's searches
    are using."""
    done: Future[tuple[Vectors, float]] = Future()
    vector = _cached(embedder, text)
    if vector is not None:
        done.set_result((vector, 0.0))
        return done
    model = embedder.single_threaded()

    def run() -> tuple[Vectors, float]:
        began = time.perf_counter()
        out = model.embed([text])[0]
        out.flags.writeable = False  # shared through the cache
        _keep(embedder, text, out)
        return out, time.perf_counter() - began

    try:
        return _executor().submit(run)
    except RuntimeError:  # the interpreter is exiting (a host's exit handler recalls): inline
        done.set_result(run())
        return done
