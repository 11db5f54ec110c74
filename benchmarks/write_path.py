"""Write-path and read-by-key latency of the memory graph on embedded SQLite.

    .venv/bin/python benchmarks/write_path.py [--n 2000] [--names 500]

Writes N observations (3 people and a hub entity named in every write, 2 relationships each;
people are drawn from a pool so that most writes merge into existing entities), then reads
observations and entities by key, then updates and deletes a share of them. Prints one table
row per operation: count, throughput, p50 and p95 latency.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import turngraph


def _timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _row(name: str, samples: list[float]) -> str:
    qs = statistics.quantiles(samples, n=100)
    total = sum(samples)
    return (
        f"| {name:<22} | {len(samples):>6} | {len(samples) / total:>9.0f} | "
        f"{qs[49] * 1000:>8.2f} | {qs[94] * 1000:>8.2f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000, help="observations to write")
    parser.add_argument("--names", type=int, default=500, help="size of the entity name pool")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    names = [f"Person {i}" for i in range(args.names)]

    with tempfile.TemporaryDirectory() as tmp:
        db = turngraph.open(Path(tmp) / "bench.db")
        mem = db.create_memory("bench")
        writes: list[float] = []
        slugs: list[str] = []
        for i in range(args.n):
            people = rng.sample(names, 3)
            kwargs = {
                "title": f"Meeting {i}",
                "content": f"{people[0]} met {people[1]} and {people[2]} to discuss item {i}. " * 4,
                "category": "meeting",
                "tags": ["bench", f"week-{i % 52}"],
                "entities": [
                    {"name": p, "type": "person", "description": f"{p}, seen in meeting {i}"}
                    for p in people
                ]
                # A hub named in every write, like the user of a conversation: its cost per
                # write must not grow with the number of observations that name it.
                + [{"name": "Hub", "type": "organization", "description": f"Host of meeting {i}"}],
                "relationships": [
                    {"source": people[0], "type": "met", "target": people[1]},
                    {"source": people[0], "type": "met", "target": people[2]},
                ],
            }
            start = time.perf_counter()
            res = mem.add_observation(**kwargs)  # type: ignore[arg-type]
            writes.append(time.perf_counter() - start)
            slugs.append(res.observation.slug)

        reads = [_timed(lambda s=s: mem.get_observation(s)) for s in rng.sample(slugs, 1000)]
        entity_reads = [
            _timed(lambda n=n: mem.get_entity(n)) for n in rng.sample(names, min(500, len(names)))
        ]
        updates = [
            _timed(
                lambda s=s: mem.update_observation(
                    s,
                    content="edited",
                    entities=[{"name": rng.choice(names), "description": "updated description"}],
                )
            )
            for s in rng.sample(slugs, 500)
        ]
        deletes = [_timed(lambda s=s: mem.delete_observation(s)) for s in rng.sample(slugs, 500)]
        info = mem.info()
        db.close()

    print(f"machine: {platform.machine()}, {platform.system()}, Python {platform.python_version()}")
    print(
        f"memory after the run: {info.observations} observations, {info.entities} entities, "
        f"{info.relationships} relationships\n"
    )
    print("| operation              |  count |   ops/s   | p50 (ms) | p95 (ms) |")
    print("|------------------------|-------:|----------:|---------:|---------:|")
    print(_row("add_observation", writes))
    print(_row("get_observation", reads))
    print(_row("get_entity", entity_reads))
    print(_row("update_observation", updates))
    print(_row("delete_observation", deletes))


if __name__ == "__main__":
    main()
