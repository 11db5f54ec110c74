"""PostgreSQL with pgvector: what storing a vector costs a small memory beside a large one.

    .venv/bin/python benchmarks/postgres_vector_writes.py [--large 20000] [--small 500]

On a throwaway PostgreSQL (the dev extra's pgserver): one memory of ``--large`` vectors
(384 dimensions, random unit vectors, 500 to a write transaction), then a second memory of
``--small`` vectors written one to a transaction, as the background indexer stores a turn's.
Prints the large memory's build rate and the small memory's time per vector. HNSW indexes
every memory's rows in one graph, so a vector inserted into it costs more as the database
grows, whichever memory it belongs to; a memory searched exactly keeps its vectors out.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from throwaway_postgres import throwaway_postgres

from turngraph.store.postgres import PostgresStore

DIM = 384
BATCH = 500


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--large", type=int, default=20_000)
    parser.add_argument("--small", type=int, default=500)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp, throwaway_postgres(Path(tmp)) as url:
        store = PostgresStore(url)
        now = datetime.now(UTC)
        large = store.create_memory(name="large", visibility="private", retrieval="{}", now=now)
        began = time.perf_counter()
        for start in range(0, args.large, BATCH):
            m = rng.standard_normal((min(BATCH, args.large - start), DIM)).astype(np.float32)
            m /= np.linalg.norm(m, axis=1, keepdims=True)
            with store.write(large.id) as tx:
                for i, v in enumerate(m):
                    tx.put_vector("observation", start + i + 1, v.tobytes())
        built = time.perf_counter() - began
        small = store.create_memory(name="small", visibility="private", retrieval="{}", now=now)
        times = []
        for ref in range(1, args.small + 1):
            v = rng.standard_normal(DIM).astype(np.float32)
            v /= np.linalg.norm(v)
            t0 = time.perf_counter()
            with store.write(small.id) as tx:
                tx.put_vector("observation", ref, v.tobytes())
            times.append((time.perf_counter() - t0) * 1000)
        store.close()
    q = statistics.quantiles(times, n=100)
    print(f"large memory: {args.large:,} vectors in {built:.1f} s ({args.large / built:.0f}/s)")
    print(
        f"small memory beside it: {args.small} vectors, one write each: "
        f"p50 {q[49]:.2f} ms, p95 {q[94]:.2f} ms, mean {statistics.fmean(times):.2f} ms"
    )


if __name__ == "__main__":
    main()
