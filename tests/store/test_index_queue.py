"""The index queue through the storage protocol: a backend queues every row whose vector is
missing or stale and hands back the stored fields; the core builds the text to embed."""

from __future__ import annotations

from datetime import timedelta

from turngraph.recall.index import embed_text
from turngraph.store.base import Store, TextSearch, WriteTx

from .conftest import NOW, current_attribute, insert_note


def _turn(tx: WriteTx, seq: int, speaker: str | None, content: str) -> int:
    oid = insert_note(tx, f"t{seq}", content, title=f"turn {seq}")
    tx.insert_turn(
        turn_id=f"turn-{seq}",
        session_id="s1",
        seq=seq,
        role="user",
        speaker=speaker,
        observation_id=oid,
        extracted="",
        labels=(),
        now=NOW,
    )
    return oid


def _texts(store: Store, memory_id: int) -> dict[tuple[str, int], str]:
    with store.read(memory_id) as tx:
        return {(q.kind, q.ref): embed_text(q) for q in tx.index_queue(limit=100)}


def test_every_written_row_is_queued_with_the_fields_its_text_is_built_from(
    store: Store, memory_id: int
) -> None:
    with store.write(memory_id) as tx:
        note = insert_note(tx, "n", "green tea at noon", title="Tea")
        tx.insert_session("s1", metadata="{}", now=NOW)
        said = _turn(tx, 1, "Ana", "I moved to Porto")
        unnamed = _turn(tx, 2, None, "welcome to Porto")
        ana = tx.insert_entity(
            key="ana",
            name="Ana",
            type="person",
            description="a friend",
            retrieval_queries=("who moved", "where Ana lives"),
            now=NOW,
        )
        plain = tx.insert_entity(
            key="porto", name="Porto", type="place", description="", retrieval_queries=(), now=NOW
        )
        tx.insert_attribute(current_attribute(ana.id, "home_city", "Porto", said))
        tx.set_search_context(said, "I moved to Porto welcome to Porto")
        tx.enqueue("window", said)
    texts = _texts(store, memory_id)
    assert texts["observation", note] == "Tea\ngreen tea at noon"
    assert texts["observation", said] == "Ana: I moved to Porto"
    assert texts["observation", unnamed] == "user: welcome to Porto"  # the role stands in
    assert texts["entity", ana.id] == "Ana: a friend who moved where Ana lives"
    assert texts["entity", plain.id] == "Porto: "
    assert texts["window", said] == "I moved to Porto welcome to Porto"
    # An attribute is found by its words and through its entity: nothing to embed.
    assert not [kind for kind, _ in texts if kind == "attribute"]


def test_a_change_queues_the_row_again_and_dequeue_clears_it(store: Store, memory_id: int) -> None:
    with store.write(memory_id) as tx:
        oid = insert_note(tx, "n", "green tea", title="Tea")
        tx.dequeue_many([(q.kind, q.ref) for q in tx.index_queue(limit=100)])
    assert _texts(store, memory_id) == {}
    with store.write(memory_id) as tx:
        tx.update_observation(
            oid,
            title="Tea",
            content="black tea",
            category="knowledge",
            tags=(),
            observed_at=NOW,
            confidence=None,
            source=None,
            now=NOW,
        )
    assert _texts(store, memory_id) == {("observation", oid): "Tea\nblack tea"}


def test_the_index_version_moves_with_stored_vectors(store: Store, memory_id: int) -> None:
    with store.read(memory_id) as tx:
        before = tx.index_version()
    with store.write(memory_id) as tx:
        oid = insert_note(tx, "n", "green tea", title="Tea")
        tx.put_vector("observation", oid, b"\x00\x00\x80?")
    with store.read(memory_id) as tx:
        after = tx.index_version()
        vectors = tx.load_vectors("observation", since=before)
    assert after > before
    assert vectors == [(oid, b"\x00\x00\x80?")]


def test_a_deleted_row_leaves_the_queue_its_vectors_and_the_text_search(
    store: Store, memory_id: int
) -> None:
    with store.write(memory_id) as tx:
        oid = insert_note(tx, "n", "green tea", title="Tea")
        tx.put_vector("observation", oid, b"\x00\x00\x80?")
    with store.read(memory_id) as tx:
        before = tx.index_version()
    with store.write(memory_id) as tx:
        tx.delete_observation(oid)
    with store.read(memory_id) as tx:
        assert tx.index_queue(limit=10) == []
        assert tx.load_vectors("observation") == []
        assert tx.index_version() > before  # caches of vectors see the change
        assert tx.search_text(TextSearch("observation", ("tea",), limit=10)) == []
        assert tx.text_rows("observation") == 0


def test_a_memory_without_an_embedder_queues_nothing(store: Store) -> None:
    lexical = store.create_memory(
        name="lexical", visibility="private", retrieval='{"embedder": "none"}', now=NOW
    ).id
    with store.write(lexical) as tx:
        insert_note(tx, "n", "green tea", title="Tea")
        tx.insert_entity(
            key="tea", name="Tea", type="thing", description="", retrieval_queries=(), now=NOW
        )
    with store.read(lexical) as tx:
        assert tx.index_queue(limit=10) == []
        assert len(tx.search_text(TextSearch("observation", ("tea",), limit=10))) == 1


def test_vectors_and_dequeues_in_a_batch_store_each_row_and_clear_only_those_named(
    store: Store, memory_id: int
) -> None:
    # The indexer's batch: vectors of two kinds (one key given twice: its last bytes win),
    # then the rows taken off the queue; a row not named stays queued.
    with store.write(memory_id) as tx:
        ids = [insert_note(tx, f"n{i}", f"note {i}", title=f"N{i}") for i in range(3)]
        tx.put_vectors(
            [
                ("observation", ids[0], b"\x00\x00\x80?"),
                ("entity", 7, b"\x00\x00\x00@"),
                ("observation", ids[1], b"\x00\x00@@"),
                ("observation", ids[0], b"\x00\x00\x80@"),
            ]
        )
        tx.dequeue_many([("observation", ids[0]), ("observation", ids[1])])
    with store.read(memory_id) as tx:
        assert tx.load_vectors("observation") == [
            (ids[0], b"\x00\x00\x80@"),
            (ids[1], b"\x00\x00@@"),
        ]
        assert tx.load_vectors("entity") == [(7, b"\x00\x00\x00@")]
        assert [(q.kind, q.ref) for q in tx.index_queue(limit=10)] == [("observation", ids[2])]


def test_vectors_put_with_dequeue_take_their_own_rows_off_the_queue(
    store: Store, memory_id: int
) -> None:
    with store.write(memory_id) as tx:
        ids = [insert_note(tx, f"n{i}", f"note {i}", title=f"N{i}") for i in range(2)]
        tx.put_vectors([("observation", ids[0], b"\x00\x00\x80?")], dequeue=True)
        assert [(q.kind, q.ref) for q in tx.index_queue(limit=10)] == [("observation", ids[1])]
    with store.read(memory_id) as tx:
        assert tx.load_vectors("observation") == [(ids[0], b"\x00\x00\x80?")]


def test_a_write_finds_in_the_queue_only_the_entities_it_stamped(
    store: Store, memory_id: int
) -> None:
    later = NOW + timedelta(seconds=1)
    with store.write(memory_id) as tx:  # an earlier write's rows, left queued
        insert_note(tx, "n", "green tea", title="Tea")
        old = tx.insert_entity(
            key="ana", name="Ana", type="person", description="", retrieval_queries=(), now=NOW
        )
    with store.write(memory_id) as tx:
        mine = tx.insert_entity(
            key="ben", name="Ben", type="person", description="", retrieval_queries=(), now=later
        )
        said = insert_note(tx, "m", "Ben lives in Porto", title="Ben")
        tx.insert_attribute(current_attribute(mine.id, "home_city", "Porto", said, at=later))
        own = tx.index_queue(limit=10, written_at=later)
        assert [(q.kind, embed_text(q)) for q in own] == [("entity", "Ben: ")]
        assert ("entity", old.id) in {(q.kind, q.ref) for q in tx.index_queue(limit=10)}
        # An entity changed again by this write is its own too.
        tx.update_entity(
            old.id, type="person", description="a friend", retrieval_queries=(), now=later
        )
        assert ("entity", old.id) in {
            (q.kind, q.ref) for q in tx.index_queue(limit=10, written_at=later)
        }
