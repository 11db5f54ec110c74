"""Indexing after a write is bounded, and rows left queued are embedded at start.

The embedder is an OpenAI-compatible embeddings endpoint (a local fake over real HTTP) that
can hold requests at a gate, which shows who embeds what: a write that had to embed the
whole backlog itself would wait at the gate.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import turngraph
from turngraph.config import Settings
from turngraph.recall.index import BATCH, wait_for_index

from ..fakes.openai_server import FakeOpenAI, fake_openai

DIM = 26
BACKLOG = 4 * BATCH
RETRIEVAL = {"embedder": "openai:test-embed", "dimension": DIM}


def letters(text: str) -> list[float]:
    counts = [1.0] + [0.0] * (DIM - 1)
    for ch in text.lower():
        if "a" <= ch <= "z":
            counts[ord(ch) - 97] += 1.0
    return counts


@contextmanager
def gated_embeddings(
    free: int, hold: Callable[[list[str]], bool] | None = None
) -> Iterator[tuple[FakeOpenAI, threading.Event]]:
    """An embeddings endpoint that answers ``free`` requests at once and holds the rest until
    the gate opens; with ``hold``, it holds the requests whose texts ``hold`` picks instead."""
    gate = threading.Event()
    served = 0
    lock = threading.Lock()

    def embed(path: str, body: dict[str, Any]) -> dict[str, Any]:
        nonlocal served
        with lock:
            served += 1
            mine = served
        if (mine > free) if hold is None else hold(body["input"]):
            gate.wait(60)
        data = [
            {"object": "embedding", "index": i, "embedding": letters(t)}
            for i, t in enumerate(body["input"])
        ]
        return {"object": "list", "model": body["model"], "data": data}

    with fake_openai() as fake:
        fake.handler = embed
        try:
            yield fake, gate
        finally:
            gate.set()


def settings_for(fake: FakeOpenAI) -> Settings:
    return Settings(embeddings_base_url=fake.base_url, embeddings_api_key="sk-e")


def leave_backlog(path: Path) -> None:
    """A memory with BACKLOG observations, every one queued for embedding again, as a process
    killed between its writes and their indexing leaves them."""
    with (
        gated_embeddings(free=10**6) as (fake, _),
        turngraph.open(path, settings=settings_for(fake)) as db,
    ):
        mem = db.create_memory("m", retrieval=RETRIEVAL)
        for i in range(BACKLOG):
            mem.add_observation(title=f"note {i}", content=f"note number {i} about tea")
        assert wait_for_index(db.store, timeout=60)
    with closing(sqlite3.connect(path)) as conn, conn:
        conn.execute(
            "INSERT OR REPLACE INTO index_queue (kind, ref, memory_id) "
            "SELECT 'observation', id, memory_id FROM observations"
        )


def queued(db: turngraph.Database) -> int:
    mem = db.memory("m")
    with db.store.read(mem._id) as tx:
        return len(tx.index_queue(limit=10 * BACKLOG))


def test_a_write_returns_without_embedding_the_backlog_of_others(tmp_path: Path) -> None:
    path = tmp_path / "backlog.db"
    leave_backlog(path)
    with (
        # Only the backlog's texts wait at the gate: the write's own (its turn, and what its
        # extraction wrote) are answered.
        gated_embeddings(free=0, hold=lambda texts: any("note number" in t for t in texts)) as (
            fake,
            gate,
        ),
        turngraph.open(path, settings=settings_for(fake)) as db,
    ):
        mem = db.memory("m")
        done = threading.Event()

        def write() -> None:
            mem.remember("I moved to Lisbon last spring.")
            done.set()

        writer = threading.Thread(target=write, daemon=True)
        writer.start()
        # The gate stays shut: a write that embedded the backlog itself never returns.
        assert done.wait(30), "the write waited on embedding rows it did not write"
        gate.set()
        assert wait_for_index(db.store, timeout=60)
        assert queued(db) == 0
        writer.join()


def test_a_write_larger_than_a_batch_leaves_its_remainder_to_the_background(
    tmp_path: Path,
) -> None:
    with (
        gated_embeddings(free=10**6) as (fake, _),
        turngraph.open(tmp_path / "big.db", settings=settings_for(fake)) as db,
    ):
        mem = db.create_memory("m", retrieval=RETRIEVAL)
        # One write queues more rows than a writer embeds itself (a batch): the writer sees
        # the rest in its batch's write and hands them to the background indexer.
        mem.remember_many(
            [{"role": "user", "content": f"note number {i} about tea"} for i in range(BATCH)],
            infer="none",
        )
        assert wait_for_index(db.store, timeout=60)
        assert queued(db) == 0
        assert mem.info().observations == BATCH


def test_rows_queued_before_a_crash_are_embedded_at_start(tmp_path: Path) -> None:
    path = tmp_path / "crashed.db"
    leave_backlog(path)
    with gated_embeddings(free=10**6) as (fake, _):
        with turngraph.open(path, settings=settings_for(fake)) as db:
            assert wait_for_index(db.store, timeout=60)
            assert queued(db) == 0  # without any write to the memory
        sizes = sum(len(r["body"]["input"]) for r in fake.requests)
        assert sizes >= BACKLOG


def test_a_lexical_only_memory_queues_nothing_to_embed(tmp_path: Path) -> None:
    path = tmp_path / "lexical.db"
    db = turngraph.open(path)
    try:
        words = db.create_memory("words", retrieval={"embedder": "none"})
        session = words.create_session()
        words.remember("My sister Emma lives in Oslo.", session_id=session.id, speaker="Ana")
        words.remember("She moved there in May.", session_id=session.id, speaker="Ana")
        words.add_observation(title="Note", content="Emma works at Equinor.")
        assert words.recall("where does Emma live").hits  # full-text recall still finds it
    finally:
        db.close()
    with closing(sqlite3.connect(path)) as conn:
        assert conn.execute("SELECT count(*) FROM index_queue").fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM vectors").fetchone() == (0,)


def test_a_turn_is_embedded_once_and_its_window_comes_from_its_turns_vectors(
    tmp_path: Path,
) -> None:
    path = tmp_path / "windows.db"
    said = [
        ("Ana", "I adopted a cat"),
        ("Ben", "lovely"),
        ("Ana", "she sleeps all day"),
        ("Ben", "cats do that"),
    ]
    with (
        gated_embeddings(free=10**6) as (fake, _),
        turngraph.open(path, settings=settings_for(fake)) as db,
    ):
        mem = db.create_memory("m", retrieval=RETRIEVAL)
        first = mem.remember_many(
            [{"role": "user", "speaker": s, "content": c} for s, c in said[:3]], infer="none"
        )
        # A turn after the batch widens the window of the batch's last turn.
        mem.remember(said[3][1], speaker=said[3][0], session_id=first.session_id, infer="none")
        assert wait_for_index(db.store, timeout=60)
        inputs = [text for r in fake.requests for text in r["body"]["input"]]
    inputs.remove("dimension check")  # the embedder's trial when the memory was created
    assert sorted(inputs) == sorted(f"{s}: {c}" for s, c in said)  # each once, no window
    with closing(sqlite3.connect(path)) as conn:
        turns = conn.execute("SELECT observation_id FROM turns ORDER BY seq").fetchall()
        stored = {
            (kind, ref): np.frombuffer(data, dtype=np.float32)
            for kind, ref, data in conn.execute("SELECT kind, ref, data FROM vectors")
        }
    ids = [r[0] for r in turns]
    for i, ref in enumerate(ids):
        around = range(max(i - 1, 0), min(i + 2, len(said)))
        total = sum(
            len(f"{said[j][0]}: {said[j][1]}".split()) * stored[("observation", ids[j])]
            for j in around
        )
        expected = total / np.linalg.norm(total)
        assert np.allclose(stored[("window", ref)], expected, atol=1e-5), i


def test_a_repeated_query_is_embedded_once(tmp_path: Path) -> None:
    with (
        gated_embeddings(free=10**6) as (fake, _),
        turngraph.open(tmp_path / "queries.db", settings=settings_for(fake)) as db,
    ):
        mem = db.create_memory("m", retrieval=RETRIEVAL)
        mem.remember("I adopted a cat called Miso", speaker="Ana", infer="none")
        assert wait_for_index(db.store, timeout=60)
        before = len(fake.requests)
        first = mem.recall("what pet does she have?")
        again = mem.recall("what pet does she have?")
        asked = [text for r in fake.requests[before:] for text in r["body"]["input"]]
    assert asked == ["what pet does she have?"]
    assert [h.id for h in first.hits] == [h.id for h in again.hits]


def test_close_ends_the_background_indexer_and_leaves_the_rest_queued(tmp_path: Path) -> None:
    path = tmp_path / "closing.db"
    leave_backlog(path)
    with gated_embeddings(free=0) as (fake, gate):
        db = turngraph.open(path, settings=settings_for(fake))  # the indexer starts on it
        deadline = time.monotonic() + 30
        while not fake.requests and time.monotonic() < deadline:
            time.sleep(0.01)  # the indexer's first batch has reached the endpoint's gate
        closer = threading.Thread(target=db.close)
        closer.start()
        closer.join(0.5)
        assert closer.is_alive(), "close did not wait for the batch being embedded"
        gate.set()
        closer.join(30)
        assert not closer.is_alive()
        assert not [t for t in threading.enumerate() if t.name == "turngraph-indexer"]
        # The batch in progress was stored; nothing after it was embedded.
        assert len(fake.requests) == 1
    with closing(sqlite3.connect(path)) as conn:
        (left,) = conn.execute("SELECT count(*) FROM index_queue").fetchone()
    assert left == BACKLOG - BATCH
    with (
        gated_embeddings(free=10**6) as (fake, _),
        turngraph.open(path, settings=settings_for(fake)) as db,
    ):
        assert wait_for_index(db.store, timeout=60)
        assert queued(db) == 0


def test_a_turn_is_stored_when_its_extraction_cannot_be_embedded_inside_the_write(
    tmp_path: Path,
) -> None:
    """The turn's own text is embedded before its write; if the endpoint then fails for the
    entities and attributes its extraction wrote, the write still commits the turn and its
    vector, and leaves those rows queued for the indexer."""
    said = "I moved to Lisbon last spring."
    with gated_embeddings(free=10**6) as (fake, _):
        answer = fake.handler
        assert answer is not None

        def embed(path: str, body: dict[str, Any]) -> dict[str, Any]:
            texts = body["input"]
            if texts in (["dimension check"], [f"Maya: {said}"]):
                return answer(path, body)
            return {"object": "list", "model": body["model"], "data": []}  # nothing embedded

        fake.handler = embed
        with turngraph.open(tmp_path / "failing.db", settings=settings_for(fake)) as db:
            mem = db.create_memory("m", retrieval=RETRIEVAL)
            with pytest.raises(turngraph.TurngraphError, match="embeddings endpoint"):
                mem.remember(said, speaker="Maya")  # the indexer after the commit fails too
            [session] = mem.list_sessions().sessions
            with db.store.read(mem._id) as tx:
                [turn] = tx.last_turns(session.id, count=5)
                assert turn.content == said
                assert [ref for ref, _ in tx.load_vectors("observation")] == [turn.observation_id]
                kinds = {q.kind for q in tx.index_queue(limit=10)}
            assert kinds <= {"entity", "attribute"}
            assert kinds
