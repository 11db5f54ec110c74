"""The dense signals of recall: a memory's rows nearest the query embedding.

Where the store searches its own vectors (:class:`~turngraph.store.base.VectorSearch`:
PostgreSQL with pgvector), recall asks it for the nearest rows; elsewhere it searches the
memory's vectors cached in the process (:mod:`turngraph.recall.vectors`).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from turngraph.recall.embed import Vectors
from turngraph.recall.vectors import BINARY_CANDIDATES, VECTORS, top_similar
from turngraph.store.base import ReadTx, Store, VectorSearch


def nearest_rows(store: Store, tx: ReadTx, kind: str, query: Vectors, n: int) -> dict[int, float]:
    """The (about) ``n`` rows of ``kind`` most similar to ``query``, with their cosine
    similarity, unordered."""
    if isinstance(tx, VectorSearch):
        found = tx.nearest_vectors(kind, _bytes(query), limit=n)
        if found is not None:
            return dict(found)
    return top_similar(VECTORS.get(store, tx, kind, len(query)), query, n)


def passage_similarities(
    store: Store, tx: ReadTx, query: Vectors, *, pool: int, window_weight: float
) -> dict[int, float]:
    """The ``pool`` observations most similar to ``query`` by their own vector plus
    ``window_weight`` x that of their conversational window, with that sum."""
    if isinstance(tx, VectorSearch):
        found = tx.nearest_vectors(
            "observation", _bytes(query), limit=pool, add=("window", window_weight)
        )
        if found is not None:
            return dict(found)
    return _cached_similarities(store, tx, query, pool=pool, window_weight=window_weight)


def _cached_similarities(
    store: Store, tx: ReadTx, qvec: Vectors, *, pool: int, window_weight: float
) -> dict[int, float]:
    obs = VECTORS.get(store, tx, "observation", len(qvec))
    if len(obs.refs) == 0:
        return {}
    win = VECTORS.get(store, tx, "window", len(qvec))
    if obs.bits is None:  # small: score every row exactly
        rows: npt.NDArray[np.intp] = np.arange(len(obs.refs))
    else:  # large: the rows near the query by either vector, by sign bits
        rows = obs.nearest_bits(qvec, BINARY_CANDIDATES)
        if win.bits is not None:
            near = win.refs[win.nearest_bits(qvec, BINARY_CANDIDATES)]
            pos = np.searchsorted(obs.refs, near)
            pos = pos[(pos < len(obs.refs))]
            rows = np.union1d(rows, pos[obs.refs[pos] == near[: len(pos)]])
    refs = obs.refs[rows]
    # einsum, not BLAS: a multi-threaded matrix product leaves threads spinning that
    # slow everything after it on a small machine (the next query embedding above all).
    sims: Vectors = np.einsum(
        "ij,j->i", obs.vectors if obs.bits is None else obs.vectors[rows], qvec
    )
    if len(win.refs):
        pos = np.searchsorted(win.refs, refs)
        pos[pos >= len(win.refs)] = 0
        hit = win.refs[pos] == refs
        if obs.bits is None:
            wsims: Vectors = np.einsum("ij,j->i", win.vectors, qvec)[pos]
        else:
            wsims = np.einsum("ij,j->i", win.vectors[pos], qvec)
        sims = (sims + window_weight * np.where(hit, wsims, 0.0)).astype(np.float32)
    n = min(pool, len(sims))
    idx = np.argpartition(-sims, n - 1)[:n]
    return {int(refs[i]): float(sims[i]) for i in idx}


def _bytes(query: Vectors) -> bytes:
    return np.ascontiguousarray(query, dtype="<f4").tobytes()
