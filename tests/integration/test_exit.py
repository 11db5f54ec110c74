"""A host process exits cleanly: an embedded program that still has background indexing in
flight when it ends exits 0 (with or without ``close()``), and ``turngraph serve`` stopped by
SIGTERM under load exits 0."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import textwrap
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from ..http.conftest import free_port
from ..http.test_serve import server_process

# Four threads write, one write queues more than a writer embeds itself (the rest goes to
# the background indexer), one recall, then the program ends with the indexer still busy.
PROGRAM = textwrap.dedent(
    """
    import sys, threading
    import turngraph
    from turngraph.recall.index import wait_for_index

    db = turngraph.open(sys.argv[1])
    mem = db.memory("m", create=True)

    def write(t):
        for i in range(8):
            mem.add_observation(title=f"note {t}-{i}", content=f"Alice wrote {i} on thread {t}")

    threads = [threading.Thread(target=write, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    mem.remember_many(
        [{"role": "user", "content": f"I told Bob about the pilot, part {i} of many"}
         for i in range(200)],
        infer="none",
    )
    mem.recall("what did Alice write?")
    print("busy" if not wait_for_index(db.store, timeout=0) else "idle")
    if sys.argv[2] == "close":
        db.close()
    """
)

RUNS = 50


def run_once(folder: Path, i: int) -> subprocess.CompletedProcess[str]:
    how = "close" if i % 2 else "leave"
    return subprocess.run(
        [sys.executable, "-c", PROGRAM, str(folder / f"exit{i}.db"), how],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.slow
def test_an_embedded_program_exits_0_with_indexing_in_flight(tmp_path: Path) -> None:
    with ThreadPoolExecutor(2) as pool:
        done = list(pool.map(lambda i: run_once(tmp_path, i), range(RUNS)))
    failed = [(d.returncode, d.stderr[-2000:]) for d in done if d.returncode != 0]
    assert not failed, f"{len(failed)} of {RUNS} runs failed; first: {failed[0]}"
    # The runs exercised what they are for: the indexer was still at work at the end.
    busy = sum(d.stdout.strip() == "busy" for d in done)
    assert busy >= RUNS * 0.8, [d.stdout for d in done]


def test_serve_exits_0_on_sigterm_under_load(tmp_path: Path) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with server_process(tmp_path / "t.db", port) as (proc, lines):
        key = re.search(r"^\s+(tg_\S+)$", "".join(lines), re.M)
        assert key is not None, lines
        auth = {"Authorization": f"Bearer {key.group(1)}"}
        stop = threading.Event()
        answered: list[int] = []

        def load(n: int) -> None:
            with httpx.Client(base_url=base, headers=auth, timeout=30) as client:
                i = 0
                while not stop.is_set():
                    i += 1
                    try:
                        r = client.post(
                            "/api/v1/default/facts",
                            json={"text": f"Client {n} says the pilot moved to week {i}."},
                        )
                        answered.append(r.status_code)
                        client.post("/api/v1/default/query", json={"query": f"week {i}"})
                    except httpx.TransportError:
                        return

        clients = [threading.Thread(target=load, args=(n,)) for n in range(8)]
        for c in clients:
            c.start()
        deadline = time.monotonic() + 30
        while len(answered) < 20 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(answered) >= 20, answered
        assert set(answered) <= {200, 201}, answered
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(60)
        finally:
            stop.set()
            for c in clients:
                c.join(30)
        assert code == 0, proc.stdout.read() if proc.stdout else code
