"""Slow clients against `turngraph serve`: how many connections they hold, and for how long.

Starts `turngraph serve` (its defaults, SQLite in a temporary folder) as a subprocess, opens
``--clients`` connections from 127.0.0.1 that each send a request's headers one byte every
``--every`` seconds, and samples every few seconds: the connections the server still holds,
its open files, and the time a well-behaved client waits for /api/v1/health meanwhile.
The server's bounds come from its settings (``TURNGRAPH_HEAD_TIMEOUT_SECONDS``,
``TURNGRAPH_CONNECTIONS_PER_CLIENT``), so setting them very high shows the unbounded server.

    python benchmarks/slow_clients.py --clients 500 --every 2 --seconds 70
"""

from __future__ import annotations

import argparse
import os
import select
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import httpx

HEAD = b"GET /api/v1/health HTTP/1.1\r\nHost: slow\r\nX-Padding: " + b"a" * 4000


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def open_files(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=500)
    parser.add_argument("--every", type=float, default=2.0)
    parser.add_argument("--seconds", type=float, default=70.0)
    args = parser.parse_args()

    folder = Path(tempfile.mkdtemp(prefix="tg-slow-"))
    port = free_port()
    server = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "turngraph"),
            "serve",
            "--port",
            str(port),
            "--db",
            "slow.db",
        ],
        cwd=folder,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/api/v1/health"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(url).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise SystemExit("the server did not start")
            time.sleep(0.2)
        baseline_files = open_files(server.pid)

        socks: list[socket.socket] = []
        answers: Counter[str] = Counter()
        for _ in range(args.clients):
            s = socket.create_connection(("127.0.0.1", port))
            s.setblocking(False)
            socks.append(s)
        sent = dict.fromkeys(socks, 0)
        started = time.monotonic()
        print("| seconds | connections held | server open files | health ms (p50 / max) |")
        print("|---|---|---|---|")
        next_sample = 0.0
        while (now := time.monotonic() - started) < args.seconds:
            for s in list(sent):
                try:
                    s.send(HEAD[sent[s] : sent[s] + 1])
                    sent[s] += 1
                except OSError:  # closed by the server (a refusal's reset, or after its answer)
                    answers["reset"] += 1
                    sent.pop(s)
                    s.close()
            readable, _, _ = select.select(list(sent), [], [], 0)
            for s in readable:
                try:
                    data = s.recv(4096)
                except OSError:
                    data = b""
                answers[data[9:12].decode() or "closed"] += 1
                sent.pop(s)
                s.close()
            if now >= next_sample:
                waits = []
                for _ in range(5):
                    t0 = time.perf_counter()
                    httpx.get(url, timeout=30)
                    waits.append((time.perf_counter() - t0) * 1000)
                print(
                    f"| {now:.0f} | {len(sent)} | {open_files(server.pid)} | "
                    f"{statistics.median(waits):.1f} / {max(waits):.1f} |",
                    flush=True,
                )
                next_sample += 5.0
            time.sleep(args.every)
        print(
            f"\n{args.clients} slow clients, answers: {dict(answers)}; the server's open files "
            f"before them: {baseline_files}"
        )
        for s in sent:
            s.close()
    finally:
        server.terminate()
        server.wait(30)


if __name__ == "__main__":
    main()
