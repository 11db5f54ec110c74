"""Sessions and turns: storing, listing, paging, modes, idempotency and deletion."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import numpy as np
import pytest

import turngraph
from turngraph.extract.base import Extractor, RawExtraction, TurnContext
from turngraph.recall.index import spoken_text, window_vector

from .helpers import check_graph_invariants


def test_remember_without_a_session_creates_one_and_stores_the_exact_turn(
    mem: turngraph.Memory,
) -> None:
    text = "  I work at Acme as Head of Platform.\n(exactly as typed)  "
    r = mem.remember(text, speaker="Alice", observed_at="2024-05-20T09:30:00+02:00")
    assert r.mode == "full"
    assert r.session_id.startswith("session:")
    assert r.turn_id.startswith("turn:")
    assert not r.preview
    assert r.extraction.turn_id == r.turn_id
    session = mem.get_session(r.session_id)
    assert session.turn_count == 1
    (turn,) = mem.list_turns(r.session_id).turns
    assert (turn.id, turn.seq, turn.role, turn.speaker, turn.content) == (
        r.turn_id,
        1,
        "user",
        "Alice",
        text,
    )
    assert turn.observed_at == datetime(2024, 5, 20, 7, 30, tzinfo=UTC)
    # The turn is an observation (category "turn") and the provenance of what it taught.
    obs = mem.get_observation(turn.slug)
    assert obs.category == "turn"
    assert obs.content == text
    assert set(obs.entities) == {"Alice", "Acme"}


def test_an_unknown_session_is_not_found_and_roles_are_checked(mem: turngraph.Memory) -> None:
    with pytest.raises(turngraph.NotFoundError, match="no session"):
        mem.remember("hello", session_id="session:nope")
    with pytest.raises(turngraph.ValidationError, match="role must be one of"):
        mem.remember("hello", role="moderator")
    with pytest.raises(turngraph.ValidationError, match="infer must be one of"):
        mem.remember("hello", infer="everything")
    with pytest.raises(turngraph.ValidationError, match="text is required"):
        mem.remember(None)
    assert mem.info().observations == 0


def test_turns_list_oldest_first_with_cursor_and_offset_paging(mem: turngraph.Memory) -> None:
    session = mem.create_session(metadata={"user": "Alice", "channel": "test"})
    assert session.metadata == {"user": "Alice", "channel": "test"}
    roles = ["user", "assistant", "system", "tool"]
    for i in range(7):
        mem.remember(f"message {i}", session_id=session.id, role=roles[i % 4], infer="none")
    page = mem.list_turns(session.id, limit=3)
    assert [t.content for t in page.turns] == ["message 0", "message 1", "message 2"]
    assert [t.seq for t in page.turns] == [1, 2, 3]
    assert page.has_more
    assert page.next_cursor is not None
    page2 = mem.list_turns(session.id, limit=3, cursor=page.next_cursor)
    assert [t.seq for t in page2.turns] == [4, 5, 6]
    page3 = mem.list_turns(session.id, limit=3, cursor=page2.next_cursor)
    assert [t.seq for t in page3.turns] == [7]
    assert not page3.has_more
    assert page3.next_cursor is None
    by_offset = mem.list_turns(session.id, limit=2, offset=5)
    assert [t.seq for t in by_offset.turns] == [6, 7]
    assert [t.role for t in mem.list_turns(session.id).turns][:4] == roles
    assert len(mem.list_turns(session.id, limit=10_000).turns) == 7  # clamped, not rejected
    with pytest.raises(turngraph.ValidationError, match="cursor"):
        mem.list_turns(session.id, cursor="not-a-cursor")
    with pytest.raises(turngraph.NotFoundError):
        mem.list_turns("session:missing")


def test_the_session_user_is_the_first_person_when_no_speaker_is_given(
    mem: turngraph.Memory,
) -> None:
    session = mem.create_session(metadata={"user": "Dana"})
    r = mem.remember("I live in Lisbon.", session_id=session.id)
    assert [(a.entity_id, a.key, a.value) for a in r.extraction.attributes] == [
        ("entity:person/dana", "location", "Lisbon")
    ]
    anonymous = mem.remember("I live in Porto.")
    assert anonymous.extraction.attributes[0].entity_id == "entity:person/user"


def test_preview_extracts_everything_and_persists_nothing(mem: turngraph.Memory) -> None:
    mem.remember("I work at Acme as Head of Platform.", speaker="Alice")
    before = mem.info()
    r = mem.remember("I just got promoted to CTO", speaker="Alice", infer="preview")
    assert r.preview
    assert r.mode == "preview"
    assert [(c.key, c.old_value, c.new_value) for c in r.extraction.corrections] == [
        ("job_title", "Head of Platform", "CTO")
    ]
    assert mem.info() == before
    history = mem.entity_history("person", "Alice", "job_title")
    assert [v.value for v in history] == ["Head of Platform"]
    with pytest.raises(turngraph.NotFoundError):
        mem.get_session(r.session_id)


def test_none_stores_the_turn_only(mem: turngraph.Memory) -> None:
    r = mem.remember("I work at Acme as Head of Platform.", speaker="Alice", infer="none")
    assert r.extraction.entities == []
    (turn,) = mem.list_turns(r.session_id).turns
    assert turn.extracted == "none"
    assert mem.list_entities() == []


def test_triples_take_caller_facts_and_read_no_text(mem: turngraph.Memory) -> None:
    r = mem.remember(
        "Acme and Alice, in the caller's words",
        speaker="Alice",
        infer="triples",
        triples=[
            {"entity": {"type": "person", "name": "Alice"}, "key": "job_title", "value": "CTO"},
            {
                "entity": {"type": "person", "name": "Alice"},
                "key": "works_at",
                "target": {"type": "organization", "name": "Acme"},
                "memory_category": "knowledge",
            },
        ],
    )
    assert [(a.key, a.value) for a in r.extraction.attributes] == [("job_title", "CTO")]
    assert [(x.subject, x.label, x.object, x.memory_category) for x in r.extraction.relations] == [
        ("entity:person/alice", "works_at", "entity:organization/acme", "knowledge")
    ]
    # No text analysis: "Acme and Alice" in the text named no other entity.
    assert {e.name for e in r.extraction.entities} == {"Alice", "Acme"}
    untexted = mem.remember(
        infer="triples",
        triples=[{"entity": {"type": "person", "name": "Bo"}, "key": "age", "value": 7}],
    )
    (turn,) = mem.list_turns(untexted.session_id).turns
    assert turn.content == "Bo age 7"
    with pytest.raises(turngraph.ValidationError, match="needs a value"):
        mem.remember(infer="triples", triples=[{"entity": {"name": "X"}, "key": "k"}])


def test_types_a_caller_sends_map_to_the_fixed_set(mem: turngraph.Memory) -> None:
    """ "organisation", "location" and "project" were stored as other; synonyms map to their
    type, and a type outside the set is still other."""
    r = mem.remember(
        infer="triples",
        triples=[
            {
                "entity": {"type": "person", "name": "Ines"},
                "key": key,
                "target": {"type": sent, "name": name},
            }
            for key, sent, name in (
                ("works_at", "organisation", "Acme"),
                ("lives_in", "Location", "Lyon"),
                ("works_on", "project", "Project Cedar"),
                ("likes", "gizmo", "Blue Widget"),
            )
        ],
    )
    types = {e.name: e.entity_type for e in r.extraction.entities}
    assert types == {
        "Ines": "person",
        "Acme": "organization",
        "Lyon": "place",
        "Project Cedar": "project",
        "Blue Widget": "other",
    }


def test_replaying_a_remember_returns_the_same_turn_and_duplicates_nothing(
    mem: turngraph.Memory,
) -> None:
    first = mem.remember("I live in Lisbon.", speaker="Alice", idempotency_key="turn-1")
    again = mem.remember("I live in Lisbon.", speaker="Alice", idempotency_key="turn-1")
    assert again.replayed
    assert (again.turn_id, again.session_id) == (first.turn_id, first.session_id)
    assert again.extraction == first.extraction
    assert mem.get_session(first.session_id).turn_count == 1
    assert len(mem.entity_history("person", "Alice", "location")) == 1
    with pytest.raises(turngraph.IdempotencyConflictError):
        mem.remember("I live in Porto.", speaker="Alice", idempotency_key="turn-1")


def test_deleting_a_session_deletes_its_turns_and_prunes_what_only_they_backed(
    mem: turngraph.Memory,
) -> None:
    keep = mem.remember("My sister Emma lives in Lisbon.", speaker="Alice")
    drop = mem.remember("I work at Acme as Head of Platform.", speaker="Alice")
    mem.remember("I just got promoted to CTO", session_id=drop.session_id, speaker="Alice")
    assert mem.delete_session(drop.session_id) == 2
    with pytest.raises(turngraph.NotFoundError):
        mem.get_session(drop.session_id)
    with pytest.raises(turngraph.NotFoundError):
        mem.get_entity("Acme")
    assert mem.entity_history("person", "Alice", "job_title") == []
    assert {e.name for e in mem.list_entities()} == {"Alice", "Emma", "Lisbon"}
    (turn,) = mem.list_turns(keep.session_id).turns
    check_graph_invariants(mem, {turn.slug})


def test_remember_many_stores_each_message_in_order_atomically(mem: turngraph.Memory) -> None:
    batch = mem.remember_many(
        [
            {
                "role": "user",
                "content": "I work at Acme as Head of Platform.",
                "speaker": "Alice",
                "ts": "2024-01-01T10:00:00Z",
            },
            {"role": "assistant", "content": "Congratulations on the role!"},
            {
                "role": "user",
                "content": "I just got promoted to CTO",
                "speaker": "Alice",
                "ts": "2024-03-01T10:00:00Z",
            },
        ]
    )
    assert len(batch.turn_ids) == 3
    assert len(batch.extractions) == 3
    assert [c.new_value for c in batch.extractions[2].corrections] == ["CTO"]
    turns = mem.list_turns(batch.session_id).turns
    assert [t.role for t in turns] == ["user", "assistant", "user"]
    whole = mem.remember_many(
        [
            {"role": "user", "content": "I live in Lisbon.", "speaker": "Bo"},
            {"role": "user", "content": "I love hiking.", "speaker": "Bo"},
        ],
        extract="whole_conversation",
    )
    (merged,) = whole.extractions
    assert merged.turn_id == whole.turn_ids[-1]
    assert {(a.key, a.value) for a in merged.attributes} == {
        ("location", "Lisbon"),
        ("likes", "hiking"),
    }
    before = mem.info()
    with pytest.raises(turngraph.ValidationError, match=r"messages\[1\]"):
        mem.remember_many([{"role": "user", "content": "fine"}, {"role": "bot", "content": "x"}])
    assert mem.info() == before


class _Recording:
    """Extracts as the memory's extractor does and keeps the history and the known names each
    turn was shown."""

    def __init__(self, inner: Extractor) -> None:
        self.inner = inner
        self.name = inner.name
        self.shown: list[tuple[tuple[str, str], ...]] = []
        self.names: list[tuple[str, ...]] = []

    def extract(self, text: str, context: TurnContext) -> RawExtraction:
        self.shown.append(context.history)
        self.names.append(context.known_names)
        return self.inner.extract(text, context)


def test_each_turn_is_extracted_against_the_session_as_it_stands_whatever_else_wrote(
    db: turngraph.Database, mem: turngraph.Memory
) -> None:
    """The last turns a write left in a session are kept (per open database), to extract the
    session's next turn without reading them. Another writer on the same database (here a
    second open, as another process would have) appends, edits and deletes turns between
    remembers: each extraction must still see the session's last turns, and the memory's
    known names, as they stand. Only a change to the session or to the names costs an
    extraction more (the first one saw the old ones); another write elsewhere does not, nor
    one through another memory object of the same open database."""
    recording = _Recording(mem.extractor)
    mem.extractor = recording
    other_db = turngraph.open(db.store.url)
    other = other_db.memory("acme")
    session = mem.create_session().id
    elsewhere = mem.create_session().id

    def remember(text: str, *, again: bool = False) -> str:
        expected = tuple(
            (t.speaker or t.role, t.content) for t in mem.list_turns(session).turns[-4:]
        )
        names = {e.name for kind in ("person", "animal") for e in mem.list_entities(kind)}
        calls = len(recording.shown)
        turn_id = mem.remember(text, session_id=session, speaker="Ann").turn_id
        shown = recording.shown[calls:]
        assert shown[-1] == expected
        assert set(recording.names[-1]) == names
        assert len(shown) == (2 if again else 1)
        return turn_id

    remember("I adopted a kitten last week.")
    remember("She is called Luna.")
    other.remember("Cute! What breed is she?", session_id=session, speaker="Bob")
    remember("A tabby, I think.", again=True)
    db.memory("acme").remember("So cute!", session_id=session, speaker="Dee")
    remember("She is.")
    other.remember("The weather is lovely today.", session_id=elsewhere, speaker="Ann")
    remember("She likes the sun.")
    other.remember("I moved to Oslo.", session_id=elsewhere, speaker="Cy")  # Cy: a new name
    last = remember("Luna sleeps all day.", again=True)
    slug = next(t.slug for t in mem.list_turns(session).turns if t.id == last)
    other.update_observation(slug, content="Luna sleeps on my desk all day.")
    last = remember("My sister Eva wants one too.", again=True)
    other.delete_observation(next(t.slug for t in mem.list_turns(session).turns if t.id == last))
    remember("We might visit the shelter on Saturday.", again=True)
    other.delete_session(session)
    with pytest.raises(turngraph.NotFoundError):
        mem.remember("Anyone there?", session_id=session, speaker="Ann")
    other_db.close()


def test_a_new_memory_given_a_deleted_ones_id_sees_none_of_its_turns(
    db: turngraph.Database,
) -> None:
    """SQLite gives a deleted memory's id to the next memory made. The last turns kept for
    the old memory's session must not stand in for a new session of the same name, even when
    the new memory's write count has come to where the old one's was."""
    recording = _Recording(db.create_memory("scratch").extractor)
    lexical = {"embedder": "none"}  # no index writes of its own: the counts are the test's
    old = db.create_memory("old", retrieval=lexical)
    old.extractor = recording
    old.create_session(session_id="session:chat")
    old.remember("I adopted a kitten called Luna.", session_id="session:chat", speaker="Ann")
    old.remember("She sleeps all day.", session_id="session:chat", speaker="Ann")

    def writes(memory: turngraph.Memory) -> int:
        with db.store.read(memory._id) as tx:
            return tx.write_count()

    reached = writes(old)
    db.delete_memory("old")
    new = db.create_memory("new", retrieval=lexical)
    new.extractor = recording
    new.create_session(session_id="session:chat")
    while writes(new) < reached:
        new.add_observation(title="Note", content=f"note {writes(new)}")
    assert writes(new) == reached
    new.remember("Who is she?", session_id="session:chat", speaker="Bo")
    assert recording.shown[-1] == ()


def test_every_role_records_its_turn_as_the_source_of_what_it_states(
    mem: turngraph.Memory,
) -> None:
    """Provenance holds for assistant, system and tool turns too: a fact they state (here as
    triples, since only a user's words are read for facts about people) cites that turn."""
    for role, value in (("assistant", "Lyon"), ("system", "Paris"), ("tool", "Oslo")):
        r = mem.remember(
            f"{role} says where Ada lives",
            role=role,
            infer="triples",
            triples=[
                {"entity": {"type": "person", "name": "Ada"}, "key": "location", "value": value}
            ],
        )
        newest = mem.entity_history("person", "Ada", "location")[-1]
        assert (newest.value, newest.source_turn) == (value, r.turn_id), role
        detail = mem.get_turn(r.turn_id)
        assert detail.turn.role == role
        assert [a.source_turn for a in detail.attributes] == [r.turn_id]


def test_turn_pages_default_to_100_and_never_exceed_500(mem: turngraph.Memory) -> None:
    session = mem.create_session().id
    for batch in range(3):
        mem.remember_many(
            [{"content": f"line {batch}-{i}"} for i in range(200)],
            session_id=session,
            infer="none",
        )
    first = mem.list_turns(session)
    assert (len(first.turns), first.has_more) == (100, True)
    most = mem.list_turns(session, limit=10_000)
    assert (len(most.turns), most.has_more) == (500, True)
    rest = mem.list_turns(session, limit=500, cursor=most.next_cursor)
    assert (len(rest.turns), rest.has_more) == (100, False)
    assert [t.seq for t in most.turns + rest.turns] == list(range(1, 601))


def test_a_remember_is_one_write_that_leaves_its_vectors_stored_and_nothing_queued(
    db: turngraph.Database, mem: turngraph.Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = mem.remember("We should talk about the move.", speaker="Maya")
    writes: list[int] = []
    write = db.store.write

    def counted(memory_id: int) -> Any:
        writes.append(memory_id)
        return write(memory_id)

    monkeypatch.setattr(db.store, "write", counted)
    said = mem.remember(
        "I moved to Lisbon last spring with my sister Ana.",
        session_id=first.session_id,
        speaker="Maya",
    )
    assert writes == [mem._id]  # the turn, its extraction and every vector: one commit
    assert said.extraction.entities
    assert said.extraction.attributes
    with db.store.read(mem._id) as tx:
        assert tx.index_queue(limit=10) == []
        turns = tx.last_turns(first.session_id, count=2)
        stored = {
            kind: {
                ref: np.frombuffer(data, dtype=np.float32) for ref, data in tx.load_vectors(kind)
            }
            for kind in ("observation", "window", "entity", "attribute")
        }
    assert len(stored["entity"]) >= len(said.extraction.entities)
    assert stored["attribute"] == {}  # found by their words and their entity: no vectors
    # The earlier turn's window now spans the new turn too, derived from the turns' vectors.
    parts = [
        (spoken_text(t.speaker or t.role, t.content), stored["observation"][t.observation_id])
        for t in turns
    ]
    for t in turns:
        assert t.observation_id in stored["observation"]
    assert np.allclose(stored["window"][turns[0].observation_id], window_vector(parts), atol=1e-6)
    assert np.allclose(stored["window"][turns[1].observation_id], window_vector(parts), atol=1e-6)
