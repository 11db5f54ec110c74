"""An Idempotency-Key holds after a timeout: while the first request's worker still runs (long
after its 503), a retry with the same key is told it is in flight, and once the worker is done
it gets the stored result; the write is stored once. The worker is slowed by a real slow
path: a language-model extractor whose endpoint (a local fake) takes its time."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from turngraph.config import Settings

from ..fakes.openai_server import fake_openai
from .conftest import running

# Long enough that a retry, which answers at once, never itself runs past it on a busy host
# (0.4 s did once, late in a full run of the suite).
TIMEOUT = 1.0
EXTRACTION = {
    "entities": [{"name": "Rome", "type": "place"}],
    "attributes": [],
    "relations": [],
    "actions": [],
    "instructions": [],
    "uncertainties": [],
}


def _slow_completion(release: threading.Event) -> Any:
    def handler(path: str, body: dict[str, Any]) -> dict[str, Any]:
        release.wait(30)
        content = json.dumps(EXTRACTION)
        return {
            "id": "chatcmpl-slow",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", "m"),
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": content, "refusal": None},
                }
            ],
        }

    return handler


def test_a_retry_with_the_same_key_after_a_timeout_never_stores_a_second_copy(
    tmp_path: Path,
) -> None:
    release = threading.Event()
    with fake_openai() as fake:
        fake.handler = _slow_completion(release)
        core = Settings(extractor="llm", llm_base_url=fake.base_url, llm_model="m")
        with running(tmp_path / "i.db", core=core, request_timeout_seconds=TIMEOUT) as srv:
            srv.db.create_memory("slow", retrieval={"embedder": "none"})
            headers = {"Authorization": f"Bearer {srv.admin_key}", "Idempotency-Key": "once"}
            url = f"{srv.url}/api/v1/slow/facts"
            session = srv.db.memory("slow").create_session().id
            body = {"text": "I moved to Rome.", "session_id": session}
            first = httpx.post(url, headers=headers, json=body, timeout=30)
            assert first.status_code == 503, first.text
            assert first.headers["retry-after"] == "1"
            assert "Idempotency-Key" in first.json()["message"]
            # Past twice the timeout, the first worker still waits on the extractor.
            time.sleep(2.5 * TIMEOUT)
            for _ in range(3):
                retry = httpx.post(url, headers=headers, json=body, timeout=30)
                assert retry.status_code == 409, retry.text
                assert "in flight" in retry.json()["message"]
                assert "retry-after" in retry.headers
            assert len(fake.requests) == 1  # no second extraction began
            release.set()
            for _ in range(200):
                done = httpx.post(url, headers=headers, json=body, timeout=30)
                if done.status_code != 409:
                    break
                time.sleep(0.05)
            assert done.status_code == 200, done.text
            assert done.headers["idempotent-replayed"] == "true"
            turns = srv.db.memory("slow").list_turns(session).turns
            assert [t.content for t in turns] == ["I moved to Rome."]
            assert len(fake.requests) == 1
