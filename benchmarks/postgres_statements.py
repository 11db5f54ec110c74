"""PostgreSQL: where the time of remember() and recall() goes, statement by statement.

    .venv/bin/python benchmarks/postgres_statements.py CONVERSATION.json
        [--turns 600] [--neighbour OTHER.json] [--db postgresql://...] [--recalls N]

On a throwaway PostgreSQL (the dev extra's pgserver), or the empty database ``--db`` names:
first a neighbour memory built from ``--neighbour`` (remember_many per session, then
``ANALYZE``: a database in use, whose statistics know its memories), then a new memory fed
the first ``--turns`` turns of the conversation one remember() at a time (default embedder,
embedding inline). Prints remember() p50 / p95 and the statements ranked by their time per
turn, each statement timed around psycopg's ``Connection.execute``. With ``--recalls N``,
then the same for the conversation's first N questions (categories 1-4) asked of
``recall(k=10)``, by recall.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from contextlib import ExitStack
from datetime import timedelta
from pathlib import Path
from typing import Any

import psycopg

sys.path.insert(0, str(Path(__file__).parent))
from throwaway_postgres import throwaway_postgres

import turngraph
from turngraph.bench.locomo import _sessions, _turn_text
from turngraph.recall.index import wait_for_index


def turns(path: Path) -> list[tuple[Any, dict[str, Any]]]:
    data = json.loads(path.read_text("utf-8"))
    return [
        (when + timedelta(seconds=i), turn)
        for when, session in _sessions(data.get("conversation", data))
        for i, turn in enumerate(session)
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("conversation", type=Path)
    parser.add_argument("--turns", type=int, default=600)
    parser.add_argument("--neighbour", type=Path, help="a conversation for the other memory")
    parser.add_argument("--db", help="an empty PostgreSQL database instead of a throwaway one")
    parser.add_argument("--recalls", type=int, default=0, help="then time this many recalls")
    args = parser.parse_args()
    if args.recalls == 1 or args.turns < 2:
        parser.error("--turns and --recalls take at least 2 (their p50 and p95 are printed)")
    with tempfile.TemporaryDirectory() as tmp, ExitStack() as stack:
        url = args.db or stack.enter_context(throwaway_postgres(Path(tmp)))
        db = turngraph.open(url)
        if args.neighbour:
            other = db.create_memory("neighbour")
            by_time = turns(args.neighbour)
            other.remember_many(
                [
                    {
                        "role": "user",
                        "content": _turn_text(t),
                        "speaker": t["speaker"],
                        "ts": when.isoformat(),
                    }
                    for when, t in by_time
                ]
            )
            with psycopg.connect(url, autocommit=True) as conn:
                conn.execute("ANALYZE")
        spent: dict[str, list[float]] = defaultdict(list)
        execute = psycopg.Connection.execute

        def timed(self: psycopg.Connection[Any], query: Any, *a: Any, **k: Any) -> Any:
            began = time.perf_counter()
            try:
                return execute(self, query, *a, **k)
            finally:
                spent[re.sub(r"\s+", " ", str(query))[:90]].append(time.perf_counter() - began)

        psycopg.Connection.execute = timed  # type: ignore[method-assign]
        mem = db.create_memory("measured")
        session = mem.create_session().id
        took = []
        chosen = turns(args.conversation)[: args.turns]
        for when, turn in chosen:
            began = time.perf_counter()
            mem.remember(
                _turn_text(turn), session_id=session, speaker=turn["speaker"], observed_at=when
            )
            took.append((time.perf_counter() - began) * 1000)
        report(spent, took, "turn", "remember")
        if args.recalls:
            # The indexer's statements for what the writes queued are not a recall's.
            wait_for_index(db.store, timeout=600)
            data = json.loads(args.conversation.read_text("utf-8"))
            asked = [q["question"] for q in data.get("qa", []) if q.get("category") in (1, 2, 3, 4)]
            for question in asked[:10]:  # warm: the vector matrices and the query cache
                mem.recall(f"{question} (warming)", k=10)
            spent.clear()
            took = []
            for question in asked[: args.recalls]:
                began = time.perf_counter()
                mem.recall(question, k=10)
                took.append((time.perf_counter() - began) * 1000)
            print()
            report(spent, took, "recall", "recall")
        psycopg.Connection.execute = execute  # type: ignore[method-assign]
        db.close()


def report(spent: dict[str, list[float]], took: list[float], unit: str, call: str) -> None:
    n = len(took)
    if n < 2:
        print(f"{n} {unit}s: too few to report")
        return
    cuts = statistics.quantiles(took, n=100)
    total = sum(sum(v) for v in spent.values())
    print(f"{n} {unit}s: {call} p50 {cuts[49]:.1f} ms, p95 {cuts[94]:.1f} ms")
    print(
        f"statements: {sum(len(v) for v in spent.values()) / n:.1f} a {unit}, "
        f"{total / n * 1000:.1f} ms a {unit}\n"
    )
    print(f"| ms a {unit} | runs a {unit} | statement |")
    print("|---:|---:|---|")
    for text, times in sorted(spent.items(), key=lambda kv: -sum(kv[1]))[:40]:
        print(f"| {sum(times) / n * 1000:.2f} | {len(times) / n:.1f} | `{text}` |")


if __name__ == "__main__":
    main()
