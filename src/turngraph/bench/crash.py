"""Crash test: kill a real server and a real embedded writer with SIGKILL during writes.

Each round starts the writer (``turngraph serve`` answered by an HTTP client, or a Python
process calling the library), lets it write for a random moment and kills it with SIGKILL.
A write counts as acknowledged once the server answered 2xx or the library call returned
(the writer prints its title only then). At the end every acknowledged write must be in the
database and :func:`turngraph.core.maintenance.check_database` must find nothing wrong.

Used by ``tests/integration/test_crash.py`` (a few kills) and ``benchmarks/crash.py``.
"""

from __future__ import annotations

import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

import httpx

import turngraph
from turngraph.core.maintenance import check_database

MEMORY = "crash"


@dataclass
class CrashReport:
    writer: str
    kills: int = 0
    acknowledged: int = 0
    found: int = 0
    lost: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    # Each killed process's exit status: anything but -SIGKILL means it ended on its own
    # before the kill, and that round tested nothing.
    exits: list[int] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        killed = all(code == -signal.SIGKILL for code in self.exits)
        return not self.lost and not self.problems and self.found == self.acknowledged and killed


def prepare(path: Path) -> str:
    """The database with the crash memory (lexical, so start-up is quick); an admin key."""
    with turngraph.open(path) as db:
        if db.access.is_empty():
            db.access.create_principal("admin", admin=True, kind="human")
        _, key = db.access.create_key("admin")
        try:
            db.memory(MEMORY)
        except turngraph.NotFoundError:
            db.create_memory(MEMORY, retrieval={"embedder": "none"})
    return key


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _env() -> dict[str, str]:
    env = dict(os.environ)
    src = str(Path(turngraph.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join([src, env.get("PYTHONPATH", "")]).strip(os.pathsep)
    return env


def _kill(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGKILL)
    process.wait(30)


def _found(path: Path, titles: list[str]) -> set[str]:
    with closing(sqlite3.connect(path)) as conn:
        stored = {r[0] for r in conn.execute("SELECT content FROM observations")}
    return {t for t in titles if t in stored}


def _finish(report: CrashReport, path: Path, acknowledged: list[str]) -> CrashReport:
    report.acknowledged = len(acknowledged)
    found = _found(path, acknowledged)
    report.found = len(found)
    report.lost = [t for t in acknowledged if t not in found]
    report.problems = check_database(path).problems
    return report


def kill_servers(path: Path, *, kills: int, seed: int = 0, max_seconds: float = 2.0) -> CrashReport:
    """Start ``turngraph serve`` on ``path``, write through both APIs, SIGKILL it; ``kills``
    times."""
    key = prepare(path)
    rng = random.Random(seed)
    report = CrashReport("server")
    acknowledged: list[str] = []
    headers = {"Authorization": f"Bearer {key}"}
    for round_ in range(kills):
        port = _free_port()
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "turngraph.cli",
                "serve",
                "--db",
                str(path),
                "--port",
                str(port),
            ],
            env=_env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            _wait_until_up(base, server)
            killer = threading.Timer(rng.uniform(0.2, max_seconds), _kill, (server,))
            killer.start()
            with httpx.Client(base_url=base, headers=headers, timeout=30) as http:
                i = 0
                while server.poll() is None:
                    text = f"round {round_} write {i}: I visited Town{i} with Maya."
                    try:
                        if i % 2:
                            r = http.post(f"/api/v1/{MEMORY}/facts", json={"text": text})
                        else:
                            body = {"title": f"r{round_} w{i}", "content": text}
                            r = http.post(f"/v1/memories/{MEMORY}/observations", json=body)
                    except httpx.HTTPError:
                        break  # killed mid-request: not acknowledged
                    if r.status_code < 300:
                        acknowledged.append(text)
                    i += 1
            killer.join()
        finally:
            _kill(server)
        report.exits.append(server.returncode)
        report.kills += 1
    return _finish(report, path, acknowledged)


def _wait_until_up(base: str, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the server exited with {server.returncode} before it was up")
        try:
            if httpx.get(f"{base}/api/v1/health", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.05)
    raise RuntimeError("the server did not start within 60 s")


_WRITER = """
import sys, turngraph
db = turngraph.open(sys.argv[1])
mem = db.memory(sys.argv[2])
i = 0
while True:
    text = f"embedded {sys.argv[3]} write {i}: I visited Town{i} with Maya."
    if i % 2:
        mem.remember(text)
    else:
        mem.add_observation(title=f"e{sys.argv[3]} w{i}", content=text)
    print(text, flush=True)
    i += 1
"""


def kill_embedded(
    path: Path, *, kills: int, seed: int = 0, max_seconds: float = 2.0
) -> CrashReport:
    """Run a Python process writing through the library to ``path``, SIGKILL it; ``kills``
    times."""
    prepare(path)
    rng = random.Random(seed)
    report = CrashReport("embedded")
    acknowledged: list[str] = []
    for round_ in range(kills):
        writer = subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(path), MEMORY, str(round_)],
            env=_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert writer.stdout is not None
        first = writer.stdout.readline()  # the writer is up and writing
        if first:
            acknowledged.append(first.decode().rstrip("\n"))
        time.sleep(rng.uniform(0.1, max_seconds))
        _kill(writer)
        report.exits.append(writer.returncode)
        rest = writer.stdout.read().decode()
        # Only whole lines: a line cut by the kill was never fully printed, so not reported.
        acknowledged += rest.split("\n")[:-1]
        report.kills += 1
    return _finish(report, path, acknowledged)
