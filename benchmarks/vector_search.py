"""Top-k vector search: numpy over an in-memory matrix against sqlite-vec, at several sizes.

    .venv/bin/pip install sqlean.py sqlite-vec   # not dependencies of turngraph
    .venv/bin/python benchmarks/vector_search.py [--sizes 10000,100000] [--queries 50]

Vectors are unit-normalised random 384-dimensional float32 (the default embedder's size);
search cost does not depend on what they encode. Each method returns the 300 best by cosine
(the size of recall's candidate pool). Reported: per-query p50/p95 and the overlap of each
method's top 300 with the exact answer (random vectors are the hard case for the sign-bit
prefilter; on real MiniLM vectors its overlap is higher, see docs/benchmarks.md). The
standard library ``sqlite3`` of this Python cannot load extensions, so sqlite-vec runs under
``sqlean.py``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import numpy.typing as npt

DIM = 384
POOL = 300
Matrix = npt.NDArray[np.float32]


def unit(rows: int, rng: np.random.Generator) -> Matrix:
    m = rng.standard_normal((rows, DIM)).astype(np.float32)
    m /= np.linalg.norm(m, axis=1, keepdims=True)
    return m


def numpy_exact(matrix: Matrix) -> Callable[[Matrix], set[int]]:
    def search(q: Matrix) -> set[int]:
        sims = matrix @ q
        return {int(i) for i in np.argpartition(-sims, POOL - 1)[:POOL]}

    return search


def numpy_einsum(matrix: Matrix) -> Callable[[Matrix], set[int]]:
    def search(q: Matrix) -> set[int]:
        sims = np.einsum("ij,j->i", matrix, q)
        return {int(i) for i in np.argpartition(-sims, POOL - 1)[:POOL]}

    return search


def numpy_sign_bits(matrix: Matrix, candidates: int = 4000) -> Callable[[Matrix], set[int]]:
    """Recall's path for large memories: Hamming distance of packed sign bits, then the best
    ``candidates`` scored exactly."""
    bits = np.packbits(matrix > 0, axis=1).view(np.uint64)

    def search(q: Matrix) -> set[int]:
        qbits = np.packbits(q > 0).view(np.uint64)
        distance = np.bitwise_count(bits ^ qbits).sum(axis=1, dtype=np.uint16)
        near = np.argpartition(distance, candidates - 1)[:candidates]
        sims = np.einsum("ij,j->i", matrix[near], q)
        return {int(i) for i in near[np.argpartition(-sims, POOL - 1)[:POOL]]}

    return search


def sqlite_vec(matrix: Matrix) -> tuple[Callable[[Matrix], set[int]], Callable[[Matrix], set[int]]]:
    import sqlean  # type: ignore[import-not-found]
    import sqlite_vec  # type: ignore[import-not-found]

    conn = sqlean.connect(":memory:")
    conn.enable_load_extension(True)
    sqlite_vec.load(conn)
    conn.execute(
        f"CREATE VIRTUAL TABLE v USING vec0(embedding float[{DIM}] distance_metric=cosine)"
    )
    conn.execute("CREATE TABLE plain (id INTEGER PRIMARY KEY, embedding BLOB)")
    rows = [(i, matrix[i].tobytes()) for i in range(len(matrix))]
    conn.executemany("INSERT INTO v (rowid, embedding) VALUES (?, ?)", rows)
    conn.executemany("INSERT INTO plain (id, embedding) VALUES (?, ?)", rows)
    conn.commit()

    def knn(q: Matrix) -> set[int]:
        got = conn.execute(
            "SELECT rowid FROM v WHERE embedding MATCH ? AND k = ?", (q.tobytes(), POOL)
        ).fetchall()
        return {r[0] for r in got}

    def scan(q: Matrix) -> set[int]:
        got = conn.execute(
            "SELECT id FROM plain ORDER BY vec_distance_cosine(embedding, ?) LIMIT ?",
            (q.tobytes(), POOL),
        ).fetchall()
        return {r[0] for r in got}

    return knn, scan


def measure(
    name: str, search: Callable[[Matrix], set[int]], queries: Matrix, truth: list[set[int]]
) -> tuple[str, float, float, float]:
    search(queries[0])
    lat, overlap = [], []
    for q, exact in zip(queries, truth, strict=True):
        t0 = time.perf_counter()
        got = search(q)
        lat.append((time.perf_counter() - t0) * 1000)
        overlap.append(len(got & exact) / POOL)
    cuts = statistics.quantiles(lat, n=100)
    return name, cuts[49], cuts[94], statistics.fmean(overlap)


def real(path: Path, memory: str, n: int) -> None:
    import random
    import sys

    import turngraph
    from turngraph.recall.embed import OnnxEmbedder

    sys.path.insert(0, str(Path(__file__).parent))
    from scale import questions

    with turngraph.open(path) as db:
        mem = db.memory(memory)
        with mem._store.read(mem._id) as tx:  # type: ignore[attr-defined]
            rows = tx.load_vectors("observation")
    matrix = np.frombuffer(b"".join(d for _, d in rows), dtype=np.float32).reshape(len(rows), DIM)
    embedder = OnnxEmbedder()
    queries = embedder.embed(questions(random.Random(3), n))
    exact = numpy_exact(matrix)
    truth = [exact(q) for q in queries]
    print("| vectors | method | p50 (ms) | p95 (ms) | top-300 overlap |")
    print("|---:|---|---:|---:|---:|")
    for name, search in (
        ("numpy einsum (one thread)", numpy_einsum(matrix)),
        ("numpy sign bits + exact top 4,000", numpy_sign_bits(matrix)),
    ):
        label, p50, p95, overlap = measure(name, search, queries, truth)
        print(f"| {len(matrix):,} real | {label} | {p50:.2f} | {p95:.2f} | {overlap:.3f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument(
        "--from-db",
        type=Path,
        help="search a turngraph memory's real observation vectors instead (with --memory); "
        "queries are other generated questions embedded by the default embedder",
    )
    parser.add_argument("--memory")
    args = parser.parse_args()
    rng = np.random.default_rng(7)
    if args.from_db:
        real(args.from_db, args.memory, args.queries)
        return
    print("| vectors | method | p50 (ms) | p95 (ms) | top-300 overlap |")
    print("|---:|---|---:|---:|---:|")
    for size in (int(s) for s in args.sizes.split(",")):
        matrix = unit(size, rng)
        queries = unit(args.queries, rng)
        exact = numpy_exact(matrix)
        truth = [exact(q) for q in queries]
        knn, scan = sqlite_vec(matrix)
        for name, search in (
            ("numpy matrix @ query (BLAS)", exact),
            ("numpy einsum (one thread)", numpy_einsum(matrix)),
            ("numpy sign bits + exact top 4,000", numpy_sign_bits(matrix)),
            ("sqlite-vec vec0 knn", knn),
            ("sqlite-vec scan", scan),
        ):
            label, p50, p95, overlap = measure(name, search, queries, truth)
            print(f"| {size:,} | {label} | {p50:.2f} | {p95:.2f} | {overlap:.3f} |", flush=True)


if __name__ == "__main__":
    main()
