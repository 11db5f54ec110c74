"""Resources stay flat under bursts: open files and memory return to their level.

The server's worker threads exit after an idle timeout and new ones start with the next
burst; whatever a thread opened must not outlive it. The idle timeout of the thread pool is
shortened here so that many burst-and-idle cycles fit in a few seconds.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from anyio._backends._asyncio import WorkerThread

from turngraph.store.sqlite import IDLE_CONNECTIONS

from .conftest import Running, running

BURSTS = 10
CONCURRENCY = 16
IDLE_TIMEOUT = 0.3


def open_files() -> int:
    return len(os.listdir("/proc/self/fd"))


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.fixture
def short_idle_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Running]:
    monkeypatch.setattr(WorkerThread, "MAX_IDLE_TIME", IDLE_TIMEOUT)
    with running(tmp_path / "turngraph.db") as srv:
        srv.db.create_memory("burst", retrieval={"embedder": "none"})
        yield srv


def burst(srv: Running, n: int) -> None:
    headers = {"Authorization": f"Bearer {srv.admin_key}"}
    base = f"{srv.url}/api/v1/burst"

    def one(i: int) -> int:
        with httpx.Client(timeout=30) as http:
            if i % 2:
                r = http.post(
                    f"{base}/facts", json={"text": f"I live in Town{n}x{i}."}, headers=headers
                )
            else:
                r = http.post(
                    f"{base}/query", json={"query": f"where do I live {i}"}, headers=headers
                )
            return r.status_code

    with ThreadPoolExecutor(CONCURRENCY) as pool:
        statuses = list(pool.map(one, range(CONCURRENCY)))
    assert statuses == [200] * CONCURRENCY


def test_open_files_and_memory_return_to_their_level_after_bursts(
    short_idle_server: Running,
) -> None:
    srv = short_idle_server
    before = open_files()
    files: list[int] = []
    rss: list[int] = []
    for n in range(BURSTS):
        burst(srv, n)
        time.sleep(IDLE_TIMEOUT * 3)  # longer than the pool's idle timeout: its threads exit
        files.append(open_files())
        rss.append(rss_bytes())
    # What stays open between bursts is the pool's idle connections (a database file and its
    # log each) and a few for the server itself; a leak adds a connection per dead thread.
    print(
        f"open files: {before} before, {files} after each burst; RSS MB: {[r >> 20 for r in rss]}"
    )
    assert max(files) <= before + 2 * IDLE_CONNECTIONS + 6, (before, files)
    # Memory: the first half warms up (imports, caches); the second stays at that level.
    half = BURSTS // 2
    assert max(rss[half:]) - max(rss[:half]) < 16 * 2**20, rss
