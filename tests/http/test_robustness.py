"""Through the server: writes to one memory are serialized, reads run beside them, a slow
request times out cleanly, and nothing is half-written."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from .conftest import Running, running


def test_concurrent_writes_queue_and_reads_run_beside_them(server: Running) -> None:
    server.db.create_memory("busy")
    url = f"{server.url}/api/v1/busy"
    auth = {"Authorization": f"Bearer {server.admin_key}"}
    session = httpx.post(f"{url}/sessions", headers=auth).json()["id"]

    def write(i: int) -> int:
        body = {"text": f"Message number {i} about the harbor project.", "session_id": session}
        return httpx.post(f"{url}/facts", headers=auth, json=body, timeout=30).status_code

    def read(_: int) -> int:
        body = {"query": "harbor project"}
        return httpx.post(f"{url}/query", headers=auth, json=body, timeout=30).status_code

    with ThreadPoolExecutor(16) as pool:
        writes = pool.map(write, range(40))
        reads = pool.map(read, range(40))
        assert set(writes) == {200}
        assert set(reads) == {200}
    turns = httpx.get(f"{url}/sessions/{session}/turns", headers=auth).json()["turns"]
    assert [t["seq"] for t in turns] == list(range(1, 41))
    assert {t["content"] for t in turns} == {
        f"Message number {i} about the harbor project." for i in range(40)
    }


def test_a_request_past_the_timeout_gets_503_and_the_write_lands_whole(tmp_path: Path) -> None:
    # 2 s: the request must reach its write (blocked on the lock below) before the timeout;
    # at 0.5 s a loaded machine sometimes timed it out before it began, and nothing landed.
    with running(tmp_path / "t.db", request_timeout_seconds=2) as srv:
        srv.db.create_memory("slow")
        memory = srv.db.memory("slow")
        taken, release = threading.Event(), threading.Event()

        def hold() -> None:  # another writer holds the memory's write lock for a while
            with memory._store.write(memory._id):  # type: ignore[attr-defined]
                taken.set()
                release.wait(10)

        holder = threading.Thread(target=hold)
        holder.start()
        taken.wait(5)
        auth = {"Authorization": f"Bearer {srv.admin_key}"}
        r = httpx.post(
            f"{srv.url}/api/v1/slow/facts", headers=auth, json={"text": "Late note."}, timeout=10
        )
        release.set()
        holder.join()
        assert r.status_code == 503
        assert "longer than 2 s" in r.json()["message"]
        # Without an Idempotency-Key a retry could store the write twice: none is invited.
        assert "retry-after" not in r.headers
        assert "Idempotency-Key" in r.json()["message"]
        # The write itself was not cut in half: it lands whole once the lock frees.
        for _ in range(300):
            found = memory.recall("Late note", include=("passages",)).hits
            if found:
                break
            threading.Event().wait(0.05)
        assert [h.text for h in found] == ["Late note."]
