"""Recall's cached matrices over a backend's stored vectors: patched as the memory grows
(in or out of the order of refs), they hold what a full load holds, sign bits included,
and the sign-bit prefilter picks the rows nearest the query by Hamming distance."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import numpy.typing as npt
import pytest

from turngraph.recall import vectors
from turngraph.store.base import Store

from .conftest import unit_vectors

DIM = 384
Matrix = npt.NDArray[np.float32]


def _unit(rng: np.random.Generator, n: int) -> Matrix:
    return unit_vectors(rng, n, DIM)


def test_sign_bits_patched_as_a_memory_grows_match_a_full_load_and_find_the_nearest(
    store: Store, memory_id: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vectors, "BINARY_ABOVE", 100)  # sign bits from 101 vectors
    loads: list[int] = []
    load = vectors.VectorCache._load

    def counted(tx: object, kind: str, dim: int, version: int) -> object:
        loads.append(version)
        return load(tx, kind, dim, version)  # type: ignore[arg-type]

    monkeypatch.setattr(vectors.VectorCache, "_load", staticmethod(counted))
    cache = vectors.VectorCache()
    rng = np.random.default_rng(1)
    rows = _unit(rng, 700)  # row i is ref i + 1

    def put(refs: Iterable[int]) -> None:
        with store.write(memory_id) as tx:
            for ref in refs:
                tx.put_vector("observation", ref, rows[ref - 1].tobytes())

    def cached() -> vectors.Matrix:
        with store.read(memory_id) as tx:
            return cache.get(store, tx, "observation", DIM)

    put(range(1, 301))
    assert cached().bits is not None  # loaded with room for 375 rows
    put(range(331, 361))
    assert len(cached().refs) == 330  # appended
    # Concurrent writers store vectors out of order: refs below the largest held are
    # merged in order, here past the buffers' room.
    put([*range(301, 331), *range(361, 421)])
    before = cached()
    assert before.refs.tolist() == list(range(1, 421))
    put(range(441, 701))
    put(range(421, 441))  # merged again, within the room
    assert before.refs.tolist() == list(range(1, 421))  # a reader's view never shifts
    rows[5] = _unit(rng, 1)[0]
    put([6])
    found = cached()  # patched: new bytes for a row already held, replaced in place
    assert len(loads) == 1  # patched five times, never reloaded
    with store.read(memory_id) as tx:
        fresh = load(tx, "observation", DIM, -1).view()
    assert found.refs.tolist() == fresh.refs.tolist() == list(range(1, 701))
    assert np.array_equal(found.vectors, fresh.vectors)
    assert found.bits is not None
    assert fresh.bits is not None
    assert np.array_equal(found.bits, fresh.bits)
    for query in _unit(rng, 5):
        picked = found.nearest_bits(query, 50)
        assert picked.tolist() == sorted(set(picked.tolist()))
        assert len(picked) == 50
        hamming = ((rows > 0) != (query > 0)).sum(axis=1)
        assert sorted(hamming[picked]) == sorted(hamming)[:50]
