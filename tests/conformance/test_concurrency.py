"""Writes to one memory are serialized, reads never wait, memories don't queue behind each other."""

from __future__ import annotations

import threading
from collections.abc import Callable

import turngraph
from turngraph.recall.index import wait_for_index

from .helpers import entity, rel

JOIN_SECONDS = 120  # a hang fails the test instead of blocking the suite


def _run_threads(targets: list[Callable[[], None]]) -> list[BaseException]:
    errors: list[BaseException] = []

    def wrap(fn: Callable[[], None]) -> Callable[[], None]:
        def run() -> None:
            try:
                fn()
            except BaseException as exc:  # collected and re-raised by the test
                errors.append(exc)

        return run

    threads = [threading.Thread(target=wrap(t)) for t in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(JOIN_SECONDS)
        assert not t.is_alive(), "a thread hung"
    return errors


def test_eight_writers_and_concurrent_readers_lose_nothing(mem: turngraph.Memory) -> None:
    writers, per_writer = 8, 50
    mem.add_observation(title="seed", content="seed", entities=[entity("Hub", type="organization")])
    done = threading.Event()
    reads = [0]

    def writer(w: int) -> Callable[[], None]:
        def run() -> None:
            for i in range(per_writer):
                mem.add_observation(
                    title=f"w{w} n{i}",
                    content=f"writer {w} note {i}",
                    entities=[entity(f"Person {w}-{i % 5}"), entity("Hub", type="organization")],
                    relationships=[rel(f"Person {w}-{i % 5}", "member_of", "Hub")],
                    idempotency_key=f"{w}-{i}",
                )

        return run

    def reader() -> None:
        while not done.is_set():
            hub = mem.get_entity("Hub")
            assert hub.degree <= writers * 5
            mem.list_entities(limit=10)
            reads[0] += 1

    reader_threads = [threading.Thread(target=reader) for _ in range(2)]
    for t in reader_threads:
        t.start()
    try:
        errors = _run_threads([writer(w) for w in range(writers)])
    finally:
        done.set()
        for t in reader_threads:
            t.join(JOIN_SECONDS)
    assert errors == []
    assert reads[0] > 0
    info = mem.info()
    assert info.observations == 1 + writers * per_writer
    assert info.entities == 1 + writers * 5
    assert info.relationships == writers * 5
    assert mem.get_entity("Hub").degree == writers * 5
    slugs = {
        mem.get_observation(f"w{w}-n{i}").content for w in range(writers) for i in range(per_writer)
    }
    assert len(slugs) == writers * per_writer
    # Every writer embedded a batch or left its rows to the background indexer: none is
    # left behind.
    assert wait_for_index(mem._store, timeout=60)  # type: ignore[attr-defined]
    with mem._store.read(mem._id) as tx:  # type: ignore[attr-defined]
        assert tx.index_queue(limit=1) == []
        assert tx.vector_count("observation") == info.observations
        assert tx.vector_count("entity") == info.entities


def test_a_read_completes_while_a_write_transaction_is_open(db: turngraph.Database) -> None:
    mem = db.create_memory("m")
    slug = mem.add_observation(title="kept", content="visible").observation.slug
    store = db.store
    in_write, release = threading.Event(), threading.Event()

    def hold_write() -> None:
        with store.write(mem._id) as tx:
            tx.next_seq()
            in_write.set()
            release.wait(JOIN_SECONDS)

    holder = threading.Thread(target=hold_write)
    holder.start()
    try:
        assert in_write.wait(JOIN_SECONDS)
        result: list[str] = []
        reader = threading.Thread(target=lambda: result.append(mem.get_observation(slug).content))
        reader.start()
        reader.join(JOIN_SECONDS)
        # The reader finished although the writer still holds its transaction open.
        assert not reader.is_alive()
        assert holder.is_alive()
        assert result == ["visible"]
    finally:
        release.set()
        holder.join(JOIN_SECONDS)


def test_a_memory_with_a_write_backlog_does_not_hold_up_another_memory(
    db: turngraph.Database,
) -> None:
    # Lexical-only memories: this is about the write locks, not about embedding time.
    lexical = {"embedder": "none"}
    busy = db.create_memory("busy", retrieval=lexical)
    quiet = db.create_memory("quiet", retrieval=lexical)
    busy_writers, busy_each, quiet_writes = 6, 40, 10
    progress: list[str] = []
    lock = threading.Lock()

    def busy_writer(w: int) -> Callable[[], None]:
        def run() -> None:
            for i in range(busy_each):
                busy.add_observation(title=f"b{w}-{i}", content="x", entities=[entity(f"B{w}")])
                with lock:
                    progress.append("busy")

        return run

    def quiet_writer() -> None:
        for i in range(quiet_writes):
            quiet.add_observation(title=f"q{i}", content="y", entities=[entity("Q")])
            with lock:
                progress.append("quiet")

    errors = _run_threads([*[busy_writer(w) for w in range(busy_writers)], quiet_writer])
    assert errors == []
    # The quiet memory's writes interleave with the busy backlog instead of queueing behind
    # all of it: its last write lands well before the busy memory's last.
    last_quiet = max(i for i, who in enumerate(progress) if who == "quiet")
    assert last_quiet < len(progress) - busy_writers * busy_each // 4
    assert quiet.info().observations == quiet_writes
    assert busy.info().observations == busy_writers * busy_each
