"""A memory's vectors in numpy, cached: one matrix per kind, patched as the memory's index
moves, searched exactly when small and from packed sign bits when large.

The matrices of at most :data:`SMALL_ROWS` rows (a conversation's, or any memory a backend
leaves to the process because an exact search here beats its own) share a budget of
:data:`SMALL_BUDGET` bytes per store, the least recently searched dropped first and read
again when next asked for: a server holding thousands of small memories keeps the ones in
use. A larger matrix stays until its store closes (it is what its memory's recall needs, and
reading it again would cost more than keeping it)."""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from turngraph.recall.embed import Vectors
from turngraph.store.base import CACHED_ROWS_MAX, ReadTx, Store

BINARY_ABOVE = 20_000  # vectors of one kind past which search starts from sign bits
BINARY_CANDIDATES = 4_000  # rows scored exactly after the sign-bit prefilter
SMALL_ROWS = CACHED_ROWS_MAX  # matrices of at most this many rows share SMALL_BUDGET
SMALL_BUDGET = 256 << 20  # bytes of small matrices kept per store
LOADING_LOCKS = 64  # buffers are read and patched under one of these, picked by key


@dataclass(frozen=True, slots=True)
class Matrix:
    """One kind of vectors of a memory: row refs, the float32 matrix and, for large ones,
    the sign bits of every vector packed 64 to a word (for the Hamming prefilter), one row
    per word: ``bits[w]`` holds word ``w`` of every vector, contiguous, so the prefilter
    reads each word of all rows in one pass."""

    refs: npt.NDArray[np.int64]
    vectors: Vectors
    bits: npt.NDArray[np.uint64] | None

    def similar(self, query: Vectors, n: int) -> tuple[npt.NDArray[np.intp], Vectors]:
        """Row positions and cosine similarities of (about) the ``n`` rows most similar to
        ``query``, unordered. Large matrices are searched by Hamming distance of the sign
        bits first and only the best BINARY_CANDIDATES rows are scored exactly, without
        BLAS threads (whose spinning would slow the query embedding that follows)."""
        rows = len(self.refs)
        if rows == 0:
            return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.float32)
        if self.bits is None:
            sims: Vectors = np.einsum("ij,j->i", self.vectors, query)
            idx = np.arange(rows) if n >= rows else np.argpartition(-sims, n - 1)[:n]
            return idx, sims[idx]
        candidates = self.nearest_bits(query, BINARY_CANDIDATES)
        exact: Vectors = np.einsum("ij,j->i", self.vectors[candidates], query)
        keep = np.argpartition(-exact, n - 1)[:n] if n < len(candidates) else slice(None)
        return candidates[keep], exact[keep]

    def nearest_bits(self, query: Vectors, n: int) -> npt.NDArray[np.intp]:
        """Positions of the ``n`` rows whose sign bits differ least from the query's, in row
        order (of those at the cut-off distance, the first ones)."""
        assert self.bits is not None
        rows = self.bits.shape[1]
        if n >= rows:
            return np.arange(rows)
        qbits = np.packbits(query > 0).view(np.uint64)
        # Word by word over contiguous columns, into reused buffers (new ones cost page
        # faults): eight times faster than one (rows, words) pass at a million rows.
        held = _take_scratch(rows)
        try:
            distance, word, count = (a[:rows] for a in held)
            distance[:] = 0
            for w, q in enumerate(qbits):
                np.bitwise_xor(self.bits[w], q, out=word)
                np.bitwise_count(word, out=count)
                np.add(distance, count, out=distance)
            # The cut-off from the distances' histogram (at most 64 x words + 1 values): every
            # row below it, and the first rows at it, without sorting or partitioning the rows.
            cut = int(np.searchsorted(np.cumsum(np.bincount(distance)), n))
            below = np.flatnonzero(distance < cut)
            at = np.flatnonzero(distance == cut)[: n - len(below)]
        finally:
            _give_scratch(held)
        out: npt.NDArray[np.intp] = np.sort(np.concatenate([below, at]))
        return out


Scratch = tuple[npt.NDArray[np.uint16], npt.NDArray[np.uint64], npt.NDArray[np.uint8]]
_SPARE: list[Scratch] = []  # the prefilter's buffers between uses, at most SPARE_SCRATCH
_SPARE_LOCK = threading.Lock()
SPARE_SCRATCH = 4


def _take_scratch(rows: int) -> Scratch:
    """Buffers for the prefilter's distances of ``rows`` rows (about 11 bytes a row): a
    spare one large enough, else new ones."""
    with _SPARE_LOCK:
        for i, held in enumerate(_SPARE):
            if len(held[0]) >= rows:
                return _SPARE.pop(i)
    return (
        np.empty(rows, dtype=np.uint16),
        np.empty(rows, dtype=np.uint64),
        np.empty(rows, dtype=np.uint8),
    )


def _give_scratch(held: Scratch) -> None:
    with _SPARE_LOCK:
        if len(_SPARE) < SPARE_SCRATCH:
            _SPARE.append(held)
        else:  # keep the largest
            smallest = min(range(len(_SPARE)), key=lambda i: len(_SPARE[i][0]))
            if len(_SPARE[smallest][0]) < len(held[0]):
                _SPARE[smallest] = held


@dataclass
class _Buffer:
    """A growable matrix of one kind of vectors: rows [:n] are live, sorted by ref."""

    version: int
    n: int
    refs: npt.NDArray[np.int64]
    vectors: Vectors
    bits: npt.NDArray[np.uint64] | None

    def view(self) -> Matrix:
        bits = None if self.bits is None else self.bits[:, : self.n]
        return Matrix(self.refs[: self.n], self.vectors[: self.n], bits)

    def small_bytes(self) -> int:
        """The bytes this buffer counts against SMALL_BUDGET (none when it is large)."""
        if self.n > SMALL_ROWS:
            return 0
        bits = 0 if self.bits is None else self.bits.nbytes
        return self.refs.nbytes + self.vectors.nbytes + bits


@dataclass
class _Kept:
    """One store's buffers, least recently searched first, and the bytes of the small ones."""

    buffers: OrderedDict[tuple[int, str], _Buffer] = field(default_factory=OrderedDict)
    small_bytes: int = 0

    def trim(self, keep: tuple[int, str]) -> None:
        """Drop the least recently searched small buffers (never ``keep``) until the small
        ones fit SMALL_BUDGET."""
        for key in list(self.buffers):
            if self.small_bytes <= SMALL_BUDGET:
                return
            size = self.buffers[key].small_bytes()
            if key != keep and size:
                del self.buffers[key]
                self.small_bytes -= size


def _packed(matrix: Vectors) -> npt.NDArray[np.uint64]:
    out: npt.NDArray[np.uint64] = np.packbits(matrix > 0, axis=1).view(np.uint64)
    return out


class VectorCache:
    """A memory's vectors as one matrix per kind. When the memory's index version moves, only
    the vectors written since are read and patched in (appended, merged in order when
    concurrent writers wrote them out of order, or replaced in place); a deletion reloads the
    kind whole."""

    def __init__(self) -> None:
        # The books (which buffers, their order and bytes) under one lock, held briefly;
        # reading and patching a buffer under one of a few locks picked by its key, so the
        # database reads of one memory never hold up the recalls of another.
        self._lock = threading.Lock()
        self._loading = [threading.Lock() for _ in range(LOADING_LOCKS)]
        # By store object, held weakly: a closed store's entries go with it, so a new store
        # (which may reuse its id() and its memory ids) never reads them.
        self._data: weakref.WeakKeyDictionary[Store, _Kept] = weakref.WeakKeyDictionary()

    def get(self, store: Store, tx: ReadTx, kind: str, dim: int) -> Matrix:
        version = tx.index_version()
        key = (tx.memory_id, kind)
        current = self._current(store, key, version)
        if current is not None:
            return current
        with self._loading[hash(key) % LOADING_LOCKS]:
            current = self._current(store, key, version)  # brought up to date meanwhile?
            if current is not None:
                return current
            with self._lock:
                found = self._data.setdefault(store, _Kept()).buffers.get(key)
                counted = 0 if found is None else found.small_bytes()
                since = -1 if found is None else found.version
                if found is not None:
                    found.version = -1  # changing: no reader takes it until it is done
            if found is None or not self._patch(found, tx, kind, dim, since, version):
                found = self._load(tx, kind, dim, version)
            with self._lock:
                kept = self._data.setdefault(store, _Kept())
                if key not in kept.buffers:  # dropped from the budget while it was read
                    counted = 0
                kept.buffers[key] = found
                kept.buffers.move_to_end(key)
                kept.small_bytes += found.small_bytes() - counted
                kept.trim(keep=key)
                return found.view()

    def _current(self, store: Store, key: tuple[int, str], version: int) -> Matrix | None:
        """The kept buffer of ``key`` if it is at ``version`` (now the most recently used)."""
        with self._lock:
            kept = self._data.get(store)
            found = None if kept is None else kept.buffers.get(key)
            if kept is None or found is None or found.version != version:
                return None
            kept.buffers.move_to_end(key)
            return found.view()

    @staticmethod
    def _load(tx: ReadTx, kind: str, dim: int, version: int) -> _Buffer:
        rows = tx.load_vectors(kind)
        n = len(rows)
        cap = max(256, n + n // 4)
        refs = np.zeros(cap, dtype=np.int64)
        vectors = np.zeros((cap, dim), dtype=np.float32)
        if rows:
            refs[:n] = [r for r, _ in rows]
            vectors[:n] = np.frombuffer(b"".join(d for _, d in rows), dtype=np.float32).reshape(
                n, dim
            )
        bits = None
        if n > BINARY_ABOVE and dim % 64 == 0:
            bits = np.zeros((dim // 64, cap), dtype=np.uint64)
            bits[:, :n] = _packed(vectors[:n]).T
        return _Buffer(version, n, refs, vectors, bits)

    @staticmethod
    def _patch(buf: _Buffer, tx: ReadTx, kind: str, dim: int, since: int, version: int) -> bool:
        """Bring ``buf`` (at ``since``) to ``version`` with the vectors written in between;
        False when only a full load will do (something was deleted, or the matrix crosses
        the size where sign bits start)."""
        rows = tx.load_vectors(kind, since=since)
        new_refs = np.array([r for r, _ in rows], dtype=np.int64)
        data = (
            np.frombuffer(b"".join(d for _, d in rows), dtype=np.float32).reshape(len(rows), dim)
            if rows
            else np.zeros((0, dim), dtype=np.float32)
        )
        live = buf.refs[: buf.n]
        pos = np.searchsorted(live, new_refs)
        pos[pos >= buf.n] = 0
        known = (live[pos] == new_refs) if buf.n else np.zeros(len(new_refs), dtype=bool)
        added = new_refs[~known]
        if tx.vector_count(kind) != buf.n + len(added):
            return False  # something was deleted
        if buf.bits is None and buf.n + len(added) > BINARY_ABOVE and dim % 64 == 0:
            return False  # crossing the size where sign bits start
        if known.any():
            buf.vectors[pos[known]] = data[known]
            if buf.bits is not None:
                buf.bits[:, pos[known]] = _packed(data[known]).T
        if len(added):
            _insert(buf, added, data[~known], dim)
        buf.version = version
        return True


def _insert(buf: _Buffer, refs: npt.NDArray[np.int64], vectors: Vectors, dim: int) -> None:
    """Add rows of refs ``buf`` does not hold, keeping its rows sorted by ref. Refs above
    every held one (the usual case) are appended in place; others (written out of order by
    concurrent writers) are merged into new arrays, so a reader's view is never shifted."""
    order = np.argsort(refs, kind="stable")
    refs, vectors = refs[order], vectors[order]
    bits = None if buf.bits is None else _packed(vectors).T
    n, end = buf.n, buf.n + len(refs)
    room = len(buf.refs)
    if n and refs[0] < buf.refs[n - 1]:
        cap = room if end <= room else max(room * 2, end)
        at = np.searchsorted(buf.refs[:n], refs) + np.arange(len(refs))
        old = np.ones(end, dtype=bool)
        old[at] = False
        merged_refs = np.zeros(cap, dtype=np.int64)
        merged_refs[at] = refs
        merged_refs[:end][old] = buf.refs[:n]
        merged = np.zeros((cap, dim), dtype=np.float32)
        merged[at] = vectors
        merged[:end][old] = buf.vectors[:n]
        if buf.bits is not None and bits is not None:
            merged_bits = np.zeros((dim // 64, cap), dtype=np.uint64)
            merged_bits[:, at] = bits
            merged_bits[:, :end][:, old] = buf.bits[:, :n]
            buf.bits = merged_bits
        buf.refs, buf.vectors, buf.n = merged_refs, merged, end
        return
    if end > room:
        grow = max(room * 2, end)
        buf.refs = np.resize(buf.refs, grow)
        buf.vectors = np.resize(buf.vectors, (grow, dim))
        if buf.bits is not None:
            grown = np.zeros((dim // 64, grow), dtype=np.uint64)
            grown[:, :n] = buf.bits[:, :n]
            buf.bits = grown
    buf.refs[n:end] = refs
    buf.vectors[n:end] = vectors
    if buf.bits is not None and bits is not None:
        buf.bits[:, n:end] = bits
    buf.n = end


VECTORS = VectorCache()


class RowCount:
    """A memory's number of searchable observations, cached until its index moves."""

    def __init__(self) -> None:
        self._data: weakref.WeakKeyDictionary[Store, dict[int, tuple[int, int]]] = (
            weakref.WeakKeyDictionary()
        )

    def get(self, store: Store, tx: ReadTx) -> int:
        version = tx.index_version()
        data = self._data.setdefault(store, {})
        found = data.get(tx.memory_id)
        if found is None or found[0] != version:
            found = data[tx.memory_id] = (version, tx.text_rows("observation"))
        return found[1]


TEXT_ROWS = RowCount()


def top_similar(m: Matrix, query: Vectors, n: int) -> dict[int, float]:
    idx, sims = m.similar(query, n)
    return {int(m.refs[i]): float(v) for i, v in zip(idx, sims, strict=True)}
