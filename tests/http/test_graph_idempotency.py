"""One idempotency semantics for both APIs: a key is claimed per memory and principal,
replays the stored answer, is refused (409, IdempotencyConflictError) with another body or
while the first request is in flight, and is released by a write that fails. The client
sends a key on every write and, after a timeout, sends it again: the turn is stored once and
the caller gets the first write's result, never a failure for a write that landed."""

from __future__ import annotations

import threading
from pathlib import Path

import httpx

from turngraph.client import Client
from turngraph.config import Settings

from ..fakes.openai_server import fake_openai
from .conftest import Running, running
from .test_idempotency_timeout import TIMEOUT, _slow_completion

NOTE = {"title": "Kickoff", "content": "Alice leads Falcon."}


def _post(server: Running, key: str, path: str, body: object, *, who: str = "") -> httpx.Response:
    token = server.keys[who] if who else server.admin_key
    return httpx.post(
        f"{server.url}{path}",
        headers={"Authorization": f"Bearer {token}", "Idempotency-Key": key},
        json=body,
    )


def test_graph_api_keys_replay_the_first_answer_and_refuse_another_body(
    server: Running,
) -> None:
    server.db.create_memory("idem", retrieval={"embedder": "none"})
    server.principal("writer")
    server.grant("writer", "idem", "read_write")
    path = "/v1/memories/idem/observations"
    first = _post(server, "k", path, NOTE)
    assert first.status_code == 201, first.text
    again = _post(server, "k", path, NOTE)
    assert again.status_code == 201
    assert again.headers["idempotent-replayed"] == "true"
    assert again.json() == {**first.json(), "replayed": True}
    clash = _post(server, "k", path, {**NOTE, "title": "Changed"})
    assert clash.status_code == 409
    assert clash.json()["error"] == "IdempotencyConflictError"
    assert clash.json()["idempotency_key"] == "k"
    # The key is recorded with the memory too: another principal's different write under it
    # is refused, and the same write collapses onto the first.
    theirs = _post(server, "k", path, {**NOTE, "title": "Theirs"}, who="writer")
    assert theirs.status_code == 409
    assert theirs.json()["error"] == "IdempotencyConflictError"
    same = _post(server, "k", path, NOTE, who="writer")
    assert same.status_code == 201
    assert same.json()["observation"]["slug"] == first.json()["observation"]["slug"]
    assert server.db.memory("idem").info().observations == 1


def test_a_failed_write_releases_its_key(server: Running) -> None:
    server.db.create_memory("idem-fail", retrieval={"embedder": "none"})
    path = "/v1/memories/idem-fail/observations"
    bad = _post(server, "f", path, {"title": "", "content": "x"})
    assert bad.status_code == 400, bad.text
    good = _post(server, "f", path, NOTE)
    assert good.status_code == 201, good.text


def test_both_apis_share_one_key_space_for_a_principal(server: Running) -> None:
    server.db.create_memory("idem-both", retrieval={"embedder": "none"})
    facts = _post(server, "shared", "/api/v1/idem-both/facts", {"text": "hi", "infer": "none"})
    assert facts.status_code == 200, facts.text
    turns = _post(server, "shared", "/v1/memories/idem-both/turns", {"text": "hi"})
    assert turns.status_code == 409
    assert turns.json()["error"] == "IdempotencyConflictError"


def test_a_client_write_that_times_out_returns_the_first_writes_result_and_lands_once(
    tmp_path: Path,
) -> None:
    release = threading.Event()
    with fake_openai() as fake:
        fake.handler = _slow_completion(release)
        core = Settings(extractor="llm", llm_base_url=fake.base_url, llm_model="m")
        with running(tmp_path / "c.db", core=core, request_timeout_seconds=TIMEOUT) as srv:
            srv.db.create_memory("slow", retrieval={"embedder": "none"})
            session = srv.db.memory("slow").create_session().id
            # The extractor answers well after the server's timeout: the first send gets 503,
            # the next ones 409 in flight, the last the first write's stored result.
            timer = threading.Timer(4 * TIMEOUT, release.set)
            timer.start()
            try:
                with Client(srv.url, srv.admin_key) as client:
                    result = client.memory("slow").remember("I moved to Rome.", session_id=session)
            finally:
                timer.cancel()
                release.set()
            assert result.replayed
            assert [e.name for e in result.extraction.entities] == ["Rome"]
            turns = srv.db.memory("slow").list_turns(session).turns
            assert [t.content for t in turns] == ["I moved to Rome."]
            assert result.turn_id == turns[0].id
            assert len(fake.requests) == 1
