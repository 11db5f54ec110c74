"""Reads and writes over the graph API through turngraph.Client: the per-request cost of the
routes and client calls, one call at a time (no concurrency), on a small memory.

    PYTHONPATH=src .venv/bin/python benchmarks/graph_api_reads.py [--calls 300]

Starts the server on 127.0.0.1 in a thread over a fresh SQLite file, remembers 200 turns,
then times ``--calls`` calls of each operation (after 20 untimed ones) and prints p50 and p90
per operation in milliseconds.
"""

from __future__ import annotations

import argparse
import platform
import socket
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import uvicorn

import turngraph
from turngraph.server import ServerSettings, create_app


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.db"
        db = turngraph.open(path)
        db.access.create_principal("admin", admin=True, kind="human")
        _, key = db.access.create_key("admin")
        mem = db.create_memory("bench", retrieval={"embedder": "none"})
        first = mem.remember("I work at Acme as VP of sales.", speaker="Dana")
        for i in range(199):
            mem.remember(f"Dana met Eli about the plan number {i}.", session_id=first.session_id)
        port = _port()
        app = create_app(ServerSettings(db=str(path), port=port), db=db)
        server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        while not server.started:
            time.sleep(0.02)
        with turngraph.Client(f"http://127.0.0.1:{port}", key) as client:
            remote = client.memory("bench")
            calls: dict[str, Callable[[], Any]] = {
                "get_session": lambda: remote.get_session(first.session_id),
                "entity_state": lambda: remote.entity_state("person", "Dana"),
                "list_entities": lambda: remote.list_entities(limit=20),
                "list_turns": lambda: remote.list_turns(first.session_id, limit=20),
                "get_turn": lambda: remote.get_turn(first.turn_id),
                "recall": lambda: remote.recall("Dana plan", k=5),
                "remember": lambda: remote.remember("Eli likes tea.", session_id=first.session_id),
            }
            print(f"machine: {platform.machine()}, Python {sys.version.split()[0]}")
            print(f"{args.calls} calls each, one at a time\n")
            print("| operation | p50 (ms) | p90 (ms) |\n|---|---:|---:|")
            for name, call in calls.items():
                for _ in range(20):
                    call()
                times = []
                for _ in range(args.calls):
                    began = time.perf_counter()
                    call()
                    times.append((time.perf_counter() - began) * 1000)
                times.sort()
                p90 = times[int(len(times) * 0.9)]
                print(f"| {name} | {statistics.median(times):.2f} | {p90:.2f} |")
        server.should_exit = True
        thread.join(10)
        db.close()


if __name__ == "__main__":
    main()
