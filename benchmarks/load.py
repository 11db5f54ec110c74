"""Concurrent agents against one server on 127.0.0.1: throughput, latency and errors.

    .venv/bin/python benchmarks/load.py [--clients 50] [--seconds 60] [--think 5.0]
        [--postgres] [--servers 1] [--compare ROUNDS]

Starts ``turngraph serve`` on a fresh database in a temporary folder (SQLite, or with
``--postgres`` a throwaway PostgreSQL; ``--servers 2`` starts two servers on it, each client
talking to one of them in turn), gives each client its
own key (read_write on one shared memory), and runs every client as an agent does: each turn
it remembers the user's message, recalls with it, remembers the reply, then waits ``--think``
seconds (a person typing) before the next turn. Every request goes through the memory API
over real HTTP. Prints requests per second, p50/p99 per operation and every error; "recall, in
the server" is the time each recall took inside the server (``queryMs`` of its response), so
the rest of a recall's time is HTTP, authentication and waiting for the server's threads.
On SQLite it also samples the write-ahead log's size twice a second and prints its peak
(``--think 0`` for sustained writes beside concurrent reads).

``--compare N``: SQLite, PostgreSQL and two servers on one PostgreSQL, one after the other,
N times over (each on a fresh database, with the same clients and load), then every setup's
recall p99 by round, their median and its ratio to SQLite's median: the setups measured in
one invocation, so that a host's speed, which moves within the hour, moves them alike.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import httpx

import turngraph

sys.path.insert(0, str(Path(__file__).parent))
from throwaway_postgres import throwaway_postgres

TOPICS = [
    ("billing migration", "Acme"),
    ("hiring plan", "Globex"),
    ("security review", "Initech"),
    ("mobile release", "Umbrella"),
    ("pricing change", "Hooli"),
    ("vendor contract", "Vandelay"),
]
NAMES = ["Ana", "Ben", "Chen", "Dara", "Eli", "Fatima", "Gus", "Hana", "Ivan", "Jade"]


def utterance(rng: random.Random) -> str:
    topic, org = rng.choice(TOPICS)
    who = rng.choice(NAMES)
    return rng.choice(
        [
            f"{who} from {org} asked about the {topic} again.",
            f"Can you remind me what {who} said about the {topic}?",
            f"I met {who} at {org} today; the {topic} is slipping a week.",
            f"What is blocking the {topic} at {org}?",
        ]
    )


async def agent(
    i: int,
    base: str,
    key: str,
    until: float,
    think: float,
    lat: dict[str, list[float]],
    errors: list[str],
) -> None:
    rng = random.Random(i)
    headers = {"Authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(base_url=base, headers=headers, timeout=30) as http:
        session = (await http.post("/api/v1/load/sessions")).json()["id"]
        await asyncio.sleep(rng.random() * think)  # spread the first turns
        while time.monotonic() < until:
            text = utterance(rng)
            for op, path, body in (
                ("remember", "/api/v1/load/facts", {"text": text, "session_id": session}),
                ("recall", "/api/v1/load/query", {"query": text, "k": 8}),
                (
                    "remember",
                    "/api/v1/load/facts",
                    {"text": f"Noted: {text}", "session_id": session, "role": "assistant"},
                ),
            ):
                t0 = time.perf_counter()
                try:
                    r = await http.post(path, json=body)
                    if op == "recall" and r.status_code == 200:
                        lat["recall, in the server"].append(r.json()["queryMs"])
                    if r.status_code >= 400:
                        errors.append(f"{op}: {r.status_code} {r.text[:120]}")
                except httpx.HTTPError as exc:
                    errors.append(f"{op}: {type(exc).__name__} {exc}")
                lat[op].append((time.perf_counter() - t0) * 1000)
            await asyncio.sleep(think)


def pct(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100)[q - 1] if len(values) > 1 else float("nan")


async def run(
    bases: list[str], keys: list[str], seconds: float, think: float
) -> tuple[dict[str, list[float]], list[str], float]:
    lat: dict[str, list[float]] = {"remember": [], "recall": [], "recall, in the server": []}
    errors: list[str] = []
    began = time.monotonic()
    until = began + seconds
    await asyncio.gather(
        *(agent(i, bases[i % len(bases)], k, until, think, lat, errors) for i, k in enumerate(keys))
    )
    return lat, errors, time.monotonic() - began


class WalSampler:
    """The size of ``{path}-wal`` twice a second while the load runs (None: not SQLite)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.peak = self.last = self.database = 0
        self.per_minute: list[int] = []
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        if path is not None:
            self._thread.start()

    def _run(self) -> None:
        assert self.path is not None
        wal = Path(f"{self.path}-wal")
        started = time.monotonic()
        while not self._done.wait(0.5):
            size = wal.stat().st_size if wal.exists() else 0
            self.peak, self.last = max(self.peak, size), size
            minute = int((time.monotonic() - started) // 60)
            while len(self.per_minute) <= minute:
                self.per_minute.append(0)
            self.per_minute[minute] = max(self.per_minute[minute], size)
        self.database = self.path.stat().st_size

    def stop(self) -> None:
        self._done.set()
        if self.path is not None:
            self._thread.join()


@dataclass
class Outcome:
    """One run of the clients against one setup."""

    setup: str
    lat: dict[str, list[float]]
    errors: list[str]
    took: float
    wal: WalSampler


def load(args: argparse.Namespace, *, postgres: bool, servers: int) -> Outcome:
    """A fresh database (SQLite, or a throwaway PostgreSQL), ``servers`` servers on it, and
    the clients against them for ``args.seconds``."""
    with tempfile.TemporaryDirectory() as tmp, ExitStack() as stack:
        path = (
            stack.enter_context(throwaway_postgres(Path(tmp)))
            if postgres
            else str(Path(tmp) / "load.db")
        )
        with turngraph.open(path) as db:
            db.create_memory("load")
            row = db.store.get_memory("load")
            assert row is not None
            db.access.create_principal("admin", admin=True)
            keys = []
            for i in range(args.clients):
                db.access.create_principal(f"agent-{i}")
                db.access.grant(f"agent-{i}", row, "read_write")
                keys.append(db.access.create_key(f"agent-{i}")[1])
        procs = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "turngraph.cli",
                    "serve",
                    "--db",
                    path,
                    "--port",
                    str(args.port + n),
                ],
                stdout=subprocess.DEVNULL,
                env={**os.environ},
            )
            for n in range(servers)
        ]
        bases = [f"http://127.0.0.1:{args.port + n}" for n in range(servers)]
        try:
            for base in bases:
                for _ in range(1200):
                    try:
                        if httpx.get(f"{base}/api/v1/health").status_code == 200:
                            break
                    except httpx.TransportError:
                        time.sleep(0.05)
            # The clients' own collector would otherwise stop all 50 of them for 20-70 ms at
            # a full pass over this process's heap, and count it as the server's latency.
            gc.collect()
            gc.freeze()
            wal = WalSampler(None if postgres else Path(path))
            lat, errors, took = asyncio.run(run(bases, keys, args.seconds, args.think))
            wal.stop()
        finally:
            for proc in procs:
                proc.terminate()
                proc.wait(10)
            gc.unfreeze()
    backend = "PostgreSQL" if postgres else "SQLite"
    setup = backend if servers == 1 else f"{backend}, {servers} servers"
    return Outcome(setup, lat, errors, took, wal)


def report(out: Outcome, args: argparse.Namespace) -> None:
    lat, took, wal = out.lat, out.took, out.wal
    total = len(lat["remember"]) + len(lat["recall"])
    print(
        f"{args.clients} clients, {args.seconds:g} s, think {args.think:g} s between turns, "
        f"{out.setup}\n"
    )
    print("| operation | requests | per second | p50 (ms) | p99 (ms) |")
    print("|---|---:|---:|---:|---:|")
    for op, values in lat.items():
        print(
            f"| {op} | {len(values)} | {len(values) / took:.1f} | {pct(values, 50):.1f} | "
            f"{pct(values, 99):.1f} |"
        )
    print(f"| all | {total} | {total / took:.1f} | | |")
    if wal.path is not None:
        print(
            f"\nwrite-ahead log: peak {wal.peak / 1e6:.1f} MB, at the end {wal.last / 1e6:.1f} MB, "
            f"beside a database of {wal.database / 1e6:.1f} MB; peak per minute (MB): "
            + ", ".join(f"{v / 1e6:.0f}" for v in wal.per_minute)
        )
    print(f"\nerrors: {len(out.errors)}")
    for e in out.errors[:20]:
        print("  " + e)
    print(flush=True)


def compare(outcomes: list[Outcome]) -> None:
    """Each setup's recall p99 per round, their median, and its ratio to SQLite's."""
    setups = list(dict.fromkeys(o.setup for o in outcomes))
    p99 = {s: [pct(o.lat["recall"], 99) for o in outcomes if o.setup == s] for s in setups}
    base = statistics.median(p99["SQLite"])
    print("| setup | recall p99 by round (ms) | median (ms) | ratio to SQLite | errors |")
    print("|---|---|---:|---:|---:|")
    for s in setups:
        errors = sum(len(o.errors) for o in outcomes if o.setup == s)
        median = statistics.median(p99[s])
        print(
            f"| {s} | {', '.join(f'{v:.1f}' for v in p99[s])} | {median:.1f} | "
            f"{median / base:.2f} | {errors} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--think", type=float, default=5.0)
    parser.add_argument("--port", type=int, default=8799)
    parser.add_argument("--postgres", action="store_true", help="a throwaway PostgreSQL")
    parser.add_argument("--servers", type=int, default=1, help="servers on the one database")
    parser.add_argument(
        "--compare",
        type=int,
        metavar="ROUNDS",
        default=0,
        help="instead: SQLite, PostgreSQL and two servers on PostgreSQL, one after the other, "
        "ROUNDS times; prints each run and every setup's recall p99 beside SQLite's",
    )
    args = parser.parse_args()
    machine = f"{platform.machine()}, {os.cpu_count()} CPUs"
    print(f"machine: {machine}, Python {platform.python_version()}\n")
    if not args.compare:
        report(load(args, postgres=args.postgres, servers=args.servers), args)
        return
    outcomes = []
    for _ in range(args.compare):
        for postgres, servers in ((False, 1), (True, 1), (True, 2)):
            outcomes.append(load(args, postgres=postgres, servers=servers))
            report(outcomes[-1], args)
    compare(outcomes)


if __name__ == "__main__":
    main()
