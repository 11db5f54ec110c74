"""Ingest throughput of remember() with the default extractor on embedded SQLite (LoCoMo).

    .venv/bin/python benchmarks/ingest.py [FILE_OR_DIR ...] [--embed] [--runs N] [--postgres]
                                                      (default: the folder $LOCOMO)

Each conversation goes into its own memory; each LoCoMo session becomes a session, each turn a
remember() with the turn's speaker and the session's date (plus a second per turn, to keep
order). Prints turns per second (turns over the sum of their remember() times) and per-turn
p50 / p95 / max latency, overall and per file, what extraction found, and turns per second
of the calling thread's CPU time: when that is close to the wall-clock figure, the turns
waited for nothing, and a slower run means a slower processor (a shared host's speed moves).
With ``--runs N`` everything is ingested N times, each into a fresh database, and the median
run is printed beside every run's turns per second. ``--postgres``: each run on a throwaway
PostgreSQL instead (the dev extra's pgserver).

``--against-model``: instead, for each file, ``remember_many`` of each session (default
embedder, every vector stored before it returns) against embedding the same turns' texts once
with the same embedder object, alternating, ``--runs`` times; prints both and their ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import turngraph
from turngraph.config import Settings
from turngraph.models import EXTRACTION_KINDS
from turngraph.recall.index import spoken_text, wait_for_index

sys.path.insert(0, str(Path(__file__).parent))
from throwaway_postgres import throwaway_postgres

# A folder of LoCoMo conversation files (see docs/benchmarks.md, "The data").
DEFAULT_DATA = Path(os.environ.get("LOCOMO", "locomo"))


def session_time(text: str) -> datetime:
    """LoCoMo dates look like '1:56 pm on 8 May, 2023'."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def sessions(conversation: dict[str, Any]) -> list[tuple[int, datetime, list[dict[str, Any]]]]:
    out = []
    for key, turns in conversation.items():
        m = re.fullmatch(r"session_(\d+)", key)
        if m and isinstance(turns, list) and turns:
            n = int(m.group(1))
            out.append((n, session_time(conversation[f"session_{n}_date_time"]), turns))
    return sorted(out, key=lambda s: s[0])


def files(args: list[str]) -> list[Path]:
    paths = [Path(a) for a in args] or [DEFAULT_DATA]
    out: list[Path] = []
    for p in paths:
        if not p.exists():
            sys.exit(f"{p}: no such file or folder (give LoCoMo files, or set $LOCOMO)")
        out += sorted(p.glob("*.json")) if p.is_dir() else [p]
    return out


class Run:
    """One ingest of every file into a fresh database: per-turn latencies by file, what
    extraction found, and (with embedding) how long after each remember its vectors landed."""

    def __init__(self, found: list[Path], *, embed: bool, postgres: bool = False) -> None:
        self.rows: list[tuple[str, list[float]]] = []
        self.facts = dict.fromkeys(EXTRACTION_KINDS, 0)
        self.searchable: list[float] = []
        self.cpu = 0.0  # the calling thread's CPU seconds inside remember()
        with tempfile.TemporaryDirectory() as tmp, ExitStack() as stack:
            settings = Settings(index_in_background=True) if embed else Settings()
            where: str | Path = Path(tmp) / "ingest.db"
            if postgres:
                where = stack.enter_context(throwaway_postgres(Path(tmp)))
            db = turngraph.open(where, settings=settings)
            for path in found:
                self.rows.append((path.name, self._file(db, path, embed=embed)))
            db.close()

    def _file(self, db: turngraph.Database, path: Path, *, embed: bool) -> list[float]:
        data = json.loads(path.read_text("utf-8"))
        conversation = data.get("conversation", data)
        # Embedding is measured by the recall benchmarks; this one counts extraction and the
        # write (full-text indexing included), so the memories keep no vectors. With --embed,
        # the vectors are made after each remember returns, and the time until they are
        # stored is measured separately.
        mem = db.create_memory(
            re.sub(r"[^A-Za-z0-9_.-]", "-", path.stem),
            retrieval=None if embed else {"embedder": "none"},
        )
        latencies: list[float] = []
        for _, start, turns in sessions(conversation):
            session = mem.create_session(metadata={"source": path.name})
            for i, turn in enumerate(turns):
                began, began_cpu = time.perf_counter(), time.thread_time()
                r = mem.remember(
                    turn["text"],
                    session_id=session.id,
                    speaker=turn["speaker"],
                    observed_at=start + timedelta(seconds=i),
                )
                returned = time.perf_counter()
                self.cpu += time.thread_time() - began_cpu
                latencies.append(returned - began)
                if embed:
                    wait_for_index(db.store, timeout=60)
                    self.searchable.append(time.perf_counter() - returned)
                for name in self.facts:
                    self.facts[name] += len(getattr(r.extraction, name))
        return latencies

    @property
    def latencies(self) -> list[float]:
        return [x for _, lat in self.rows for x in lat]

    @property
    def rate(self) -> float:
        return len(self.latencies) / sum(self.latencies)


def against_model(found: list[Path], runs: int, *, postgres: bool) -> None:
    """Ingest with every vector stored, against the model's own time for the turns' texts."""
    print("| file | turns | embedding the texts (s) | remember_many, vectors stored (s) | ratio |")
    print("|---|---:|---:|---:|---:|")
    totals = [0.0, 0.0]
    for path in found:
        data = json.loads(path.read_text("utf-8"))
        said = sessions(data.get("conversation", data))
        texts = [spoken_text(t["speaker"], t["text"]) for _, _, turns in said for t in turns]
        model, ingest = [], []
        for run in range(runs):
            with tempfile.TemporaryDirectory() as tmp, ExitStack() as stack:
                where: str | Path = Path(tmp) / "ingest.db"
                if postgres:
                    where = stack.enter_context(throwaway_postgres(Path(tmp)))
                db = turngraph.open(where)
                mem = db.create_memory(f"m{run}")
                embedder = mem.embedder
                assert embedder is not None
                began = time.perf_counter()
                embedder.embed(texts)
                model.append(time.perf_counter() - began)
                began = time.perf_counter()
                for _, start, turns in said:
                    mem.remember_many(
                        [
                            {
                                "role": "user",
                                "speaker": t["speaker"],
                                "content": t["text"],
                                "ts": (start + timedelta(seconds=i)).isoformat(),
                            }
                            for i, t in enumerate(turns)
                        ]
                    )
                wait_for_index(db.store, timeout=600)
                ingest.append(time.perf_counter() - began)
                db.close()
        m, i = statistics.median(model), statistics.median(ingest)
        totals[0] += m
        totals[1] += i
        print(f"| {path.name} | {len(texts)} | {m:.2f} | {i:.2f} | {i / m:.2f} |")
    print(f"| all | | {totals[0]:.2f} | {totals[1]:.2f} | {totals[1] / totals[0]:.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*")
    parser.add_argument(
        "--embed",
        action="store_true",
        help="memories with the default embedder, indexed in the background as the server "
        "does; after each turn, wait until its vectors are stored and report that time too",
    )
    parser.add_argument(
        "--runs",
        type=int,
        default=1,
        help="ingest everything this many times, each into a fresh database; print each run's "
        "turns/s and the table of the median run (a shared machine's speed moves by a third "
        "within minutes)",
    )
    parser.add_argument(
        "--postgres", action="store_true", help="each run on a throwaway PostgreSQL"
    )
    parser.add_argument(
        "--against-model",
        action="store_true",
        help="remember_many with every vector stored against embedding the turns' texts once",
    )
    args = parser.parse_args()
    if args.runs < 1:
        sys.exit("--runs must be at least 1")
    found = files(args.paths)
    if not found:
        sys.exit("no LoCoMo files found")
    print(
        f"machine: {platform.machine()}, {platform.system()}, Python {platform.python_version()}\n"
    )
    if args.against_model:
        against_model(found, args.runs, postgres=args.postgres)
        return
    runs = sorted(
        (Run(found, embed=args.embed, postgres=args.postgres) for _ in range(args.runs)),
        key=lambda r: r.rate,
    )
    run = runs[(len(runs) - 1) // 2]  # the median run (the lower middle one of an even count)

    def line(name: str, lat: list[float]) -> str:
        q = statistics.quantiles(lat, n=100)
        return (
            f"| {name:<16} | {len(lat):>6} | {len(lat) / sum(lat):>9.0f} | "
            f"{q[49] * 1000:>8.2f} | {q[94] * 1000:>8.2f} | {max(lat) * 1000:>8.2f} |"
        )

    if len(runs) > 1:
        print(
            f"runs (turns/s, slowest first): {', '.join(f'{r.rate:.0f}' for r in runs)}; "
            f"the median run below\n"
        )
    print("| file             |  turns |  turns/s  | p50 (ms) | p95 (ms) | max (ms) |")
    print("|------------------|-------:|----------:|---------:|---------:|---------:|")
    for name, lat in run.rows:
        print(line(name, lat))
    print(line("all", run.latencies))
    print("\nextracted: " + ", ".join(f"{v} {k}" for k, v in run.facts.items()))
    print(f"calling thread's CPU time: {len(run.latencies) / run.cpu:.0f} turns/s")
    if run.searchable:
        q = statistics.quantiles(run.searchable, n=100)
        print(
            f"vectors stored after remember returned (background indexer): p50 "
            f"{q[49] * 1000:.1f} ms, p95 {q[94] * 1000:.1f} ms, "
            f"max {max(run.searchable) * 1000:.1f} ms"
        )


if __name__ == "__main__":
    main()
