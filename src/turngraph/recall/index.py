"""Keeping vectors current: embed what the write queued, after its transaction commits.

Triggers queue every inserted or changed observation, entity and attribute; this pass embeds
the queued texts outside any lock and stores each vector only if its text has not changed in
the meantime (otherwise it stays queued for the next pass). A crash between a write and this
pass leaves the rows queued, and the next write of the memory picks them up.
"""

from __future__ import annotations

import numpy as np

from turngraph.recall.embed import Embedder
from turngraph.store.base import Store

BATCH = 64


def refresh_vectors(store: Store, memory_id: int, embedder: Embedder | None) -> int:
    """Embed and store every queued row of one memory; returns how many vectors were written."""
    written = 0
    while True:
        with store.read(memory_id) as tx:
            items = tx.index_queue(limit=BATCH)
        if not items:
            return written
        if embedder is None:  # a lexical-only memory keeps no vectors
            with store.write(memory_id) as wtx:
                for kind, ref, _ in items:
                    wtx.dequeue(kind, ref)
            continue
        vectors = embedder.embed([text or " " for _, _, text in items]).astype(np.float32)
        progress = 0
        with store.write(memory_id) as wtx:
            still = {(k, r): t for k, r, t in wtx.index_queue(limit=BATCH * 4)}
            for (kind, ref, text), vector in zip(items, vectors, strict=True):
                if still.get((kind, ref)) == text:
                    wtx.put_vector(kind, ref, vector.tobytes())
                    wtx.dequeue(kind, ref)
                    progress += 1
        written += progress
        if not progress:  # everything changed under us: the next write's pass takes it
            return written
