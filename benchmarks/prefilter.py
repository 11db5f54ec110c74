"""The sign-bit prefilter of recall's cached matrices at a million vectors.

    .venv/bin/python benchmarks/prefilter.py [--rows 1000000] [--queries 10]

Builds a matrix of random unit vectors of 384 dimensions as the vector cache holds a large
memory (float32 rows and their sign bits, a word per row over every vector) and times
``Matrix.nearest_bits`` (the 4,000 candidates by Hamming distance) and ``Matrix.similar``
(those candidates scored exactly, the best 300 kept), after two warm-up queries.
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np

from turngraph.recall.vectors import BINARY_CANDIDATES, Matrix, _packed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=10)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((args.rows, 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    matrix = Matrix(
        np.arange(args.rows, dtype=np.int64), vectors, np.ascontiguousarray(_packed(vectors).T)
    )
    queries = rng.standard_normal((args.queries + 2, 384)).astype(np.float32)
    print(f"machine: {platform.machine()}, Python {platform.python_version()}")
    print(f"{args.rows:,} vectors of 384 dimensions, {args.queries} queries\n")
    print("| call | ms a query |")
    print("|---|---:|")
    for name, call in (
        ("nearest_bits", lambda q: matrix.nearest_bits(q, BINARY_CANDIDATES)),
        ("similar (300)", lambda q: matrix.similar(q, 300)),
    ):
        for q in queries[:2]:
            call(q)
        began = time.perf_counter()
        for q in queries[2:]:
            call(q)
        print(f"| {name} | {(time.perf_counter() - began) / args.queries * 1000:.1f} |")


if __name__ == "__main__":
    main()
