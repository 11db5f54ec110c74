"""Recall: ranking invariants, ceilings, filters, and nothing deleted ever coming back."""

from __future__ import annotations

from typing import Any

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import turngraph
from turngraph.config import Settings

from .conftest import Opener
from .helpers import entity, rel


@pytest.fixture
def team(mem: turngraph.Memory) -> turngraph.Memory:
    mem.add_observation(
        title="Falcon kickoff",
        content="Alice leads Project Falcon, the billing migration for Acme Corp.",
        category="meeting",
        tags=["falcon", "acme"],
        observed_at="2024-03-01T10:00:00Z",
        entities=[
            entity("Alice", "Engineering lead for the billing migration"),
            entity("Project Falcon", "Migration of billing to the new ledger", type="project"),
            entity(
                "Acme Corp", "Customer whose billing moves to the new ledger", type="organization"
            ),
        ],
        relationships=[
            rel("Alice", "leads", "Project Falcon"),
            rel("Project Falcon", "serves", "Acme Corp"),
        ],
    )
    mem.add_observation(
        title="Budget review",
        content="The quarterly budget review moved the design system work to next quarter.",
        category="meeting",
        tags=["budget"],
        observed_at="2024-04-15T10:00:00Z",
        entities=[entity("Design system", "Shared UI components for all products", type="project")],
    )
    mem.add_observation(
        title="Hiking note",
        content="Bob went hiking in the Alps and saw ibex near the glacier.",
        category="personal",
        observed_at="2024-05-01T10:00:00Z",
        entities=[entity("Bob", "Colleague on the platform team")],
    )
    return mem


def test_an_exact_entity_name_ranks_first_and_brings_its_subgraph(
    team: turngraph.Memory,
) -> None:
    rc = team.recall("Alice")
    assert rc.entities[0].name == "Alice"
    names = [e.name for e in rc.entities]
    # Recalling a person surfaces the project she leads and, through it, the customer.
    assert "Project Falcon" in names
    assert ("Alice", "leads", "Project Falcon") in {
        (r.source, r.type, r.target) for r in rc.relationships
    }
    assert rc.hits[0].source.slug == "falcon-kickoff"
    assert rc.snippets[0].slug == "falcon-kickoff"


@pytest.mark.parametrize("mode", ["hybrid", "lexical", "dense", "graph"])
def test_every_mode_finds_the_obvious_passage(team: turngraph.Memory, mode: str) -> None:
    query = {"graph": "Bob", "dense": "mountain walk with wild goats"}.get(mode, "glacier hiking")
    rc = team.recall(query, mode=mode)
    assert rc.mode == mode
    assert rc.hits
    assert rc.hits[0].source.slug == "hiking-note"


def test_filters_exclude_what_they_should(team: turngraph.Memory) -> None:
    def slugs(rc: turngraph.RecallResult) -> set[str]:
        return {h.source.slug for h in rc.hits}

    assert slugs(team.recall("review migration budget", category="personal")) <= {"hiking-note"}
    assert slugs(team.recall("billing migration", tags=["budget"])) <= {"budget-review"}
    assert slugs(team.recall("migration", since="2024-04-01T00:00:00Z")) <= {
        "budget-review",
        "hiking-note",
    }
    assert slugs(team.recall("migration", until="2024-03-31T00:00:00Z")) <= {"falcon-kickoff"}
    assert slugs(team.recall("migration", as_of="2024-03-02T00:00:00Z")) <= {"falcon-kickoff"}
    assert slugs(team.recall("hiking", entity="Alice")) <= {"falcon-kickoff"}
    assert team.recall("anything", entity="Nobody").hits == []
    structural = team.recall(category="meeting")
    assert [h.source.slug for h in structural.hits] == ["budget-review", "falcon-kickoff"]
    assert structural.mode == "structural"
    assert {e.name for e in structural.entities} >= {"Alice", "Design system"}


def test_sessions_and_labels_filter_turns(mem: turngraph.Memory) -> None:
    a = mem.remember("We should paint the garage blue.", speaker="Ana", labels=["team=home"])
    b = mem.remember("The garage roof leaks again.", speaker="Ana")
    in_a = mem.recall("garage", session_id=a.session_id)
    assert {h.source.turn_id for h in in_a.hits} == {a.turn_id}
    context = mem.context("garage", session_id=a.session_id).text
    assert "Ana: We should paint the garage blue." in context
    assert "roof" not in context
    labelled = mem.recall("garage", labels=["team=home"])
    assert {h.source.turn_id for h in labelled.hits} == {a.turn_id}
    both = mem.recall("garage")
    assert {h.source.turn_id for h in both.hits} >= {a.turn_id, b.turn_id}
    hit = next(h for h in both.hits if h.source.turn_id == b.turn_id)
    assert (hit.kind, hit.source.session_id, hit.source.seq, hit.source.speaker) == (
        "turn",
        b.session_id,
        1,
        "Ana",
    )


def test_a_named_speaker_brings_what_they_said_not_turns_that_address_them(
    mem: turngraph.Memory,
) -> None:
    session = mem.create_session(metadata={"title": "catch-up"})
    said = [
        ("Caroline", "Melanie! So good to hear from you, Melanie. How are the kids, Melanie?"),
        ("Melanie", "They are great. I finally signed up for a pottery class last week."),
        ("Caroline", "Melanie, that is lovely, Melanie. Pottery sounds relaxing."),
        ("Melanie", "It is. We also took the kids camping by the lake."),
        ("Caroline", "Thanks for sharing, Melanie! Talk soon, Melanie."),
    ]
    ids = mem.remember_many(
        [{"content": text, "speaker": who, "session_id": session.id} for who, text in said]
    ).turn_ids
    rc = mem.recall("What new hobby did Melanie pick up?", k=3, include=("passages",))
    assert {h.source.turn_id for h in rc.hits[:2]} == {ids[1], ids[3]}
    # Unnamed people keep their names in the query: a name is then the only handle.
    other = mem.remember("Oscar the parrot learned to whistle.", speaker="Caroline")
    assert mem.recall("Oscar", k=1).hits[0].source.turn_id == other.turn_id


def test_a_guessed_topic_starts_the_embedding_and_a_wrong_guess_changes_nothing(
    db: turngraph.Database, mem: turngraph.Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    from turngraph.recall import search

    session = mem.create_session()
    mem.remember_many(
        [
            {"content": text, "speaker": who, "session_id": session.id}
            for who, text in [
                ("Caroline", "Melanie, how are the kids?"),
                ("Melanie", "Great. I finally signed up for a pottery class last week."),
                ("Caroline", "Oscar the parrot learned to whistle."),
            ]
        ]
    )
    embedded: list[str] = []
    real = search.embed_query

    def recorded(embedder: Any, text: str) -> Any:
        embedded.append(text)
        return real(embedder, text)

    monkeypatch.setattr(search, "embed_query", recorded)
    question = "What new hobby did Melanie pick up?"
    first = mem.recall(question, k=3)  # reads that Melanie speaks here, and keeps it
    assert embedded == ["What new hobby did pick up?"]
    again = mem.recall(question, k=3)  # guessed before the names are read: one embedding
    assert embedded == ["What new hobby did pick up?"] * 2
    assert [(h.id, h.score) for h in again.hits] == [(h.id, h.score) for h in first.hits]
    # A kept name that is no speaker's (the parrot's): the guess is embedded, found wrong,
    # and the question embedded as it is; the answer is the one without the guess.
    embedded.clear()
    before = mem.recall("What did Oscar learn?", k=3)
    search.SPEAKERS.learn(db.store, mem._id, ["Oscar"])
    after = mem.recall("What did Oscar learn?", k=3)
    assert embedded == ["What did Oscar learn?", "What did learn?", "What did Oscar learn?"]
    assert [(h.id, h.score) for h in after.hits] == [(h.id, h.score) for h in before.hits]


def test_deleted_observations_and_sessions_never_come_back(team: turngraph.Memory) -> None:
    team.delete_observation("hiking-note")
    for mode in ("hybrid", "lexical", "dense", "graph"):
        rc = team.recall("Bob hiking glacier Alps ibex", mode=mode)
        assert "hiking-note" not in {h.source.slug for h in rc.hits}
        assert "Bob" not in {e.name for e in rc.entities}
    r = team.remember("The secret launch code is pineapple.", speaker="Zed")
    assert team.recall("pineapple launch code").hits[0].source.turn_id == r.turn_id
    team.delete_session(r.session_id)
    for mode in ("hybrid", "lexical", "dense"):
        rc = team.recall("pineapple launch code", mode=mode)
        assert r.turn_id not in {h.source.turn_id for h in rc.hits}


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    k=st.integers(1, 80),
    ents=st.one_of(st.none(), st.integers(1, 80)),
    rels=st.one_of(st.none(), st.integers(1, 200)),
    snips=st.one_of(st.none(), st.integers(1, 80)),
)
def test_ceilings_hold_for_any_k(
    big: turngraph.Memory, k: int, ents: int | None, rels: int | None, snips: int | None
) -> None:
    rc = big.recall(
        "project update", k=k, max_entities=ents, max_relationships=rels, max_snippets=snips
    )
    assert len(rc.hits) <= min(k, 50)
    assert len(rc.entities) <= min(ents or 10, 50)
    assert len(rc.relationships) <= min(rels or 20, 100)
    assert len(rc.snippets) <= min(snips or 10, 50)
    assert all(len(s.text) <= 280 for s in rc.snippets)
    assert all(len(h.text) <= 280 for h in rc.hits)
    if len(rc.hits) < min(k, 50) and len(rc.snippets) < min(snips or 10, 50):
        assert not any(t.startswith(("hits", "snippets")) for t in rc.truncated)
    if len(rc.hits) == min(k, 50) < 70:  # 70 notes match: the rest is reported
        assert any(t.startswith("hits") for t in rc.truncated)


@pytest.fixture
def big(db: turngraph.Database) -> turngraph.Memory:
    mem = db.create_memory("big", retrieval={"embedder": "none"})
    for i in range(70):
        mem.add_observation(
            title=f"Project update {i}",
            content=f"Project update {i}: milestone {i} shipped. " + "Details follow. " * 30,
            entities=[
                entity(f"Project {i}", f"Project number {i}", type="project"),
                entity("Hub", "The team every project reports to", type="team"),
            ],
            relationships=[rel(f"Project {i}", "reports_to", "Hub")],
        )
    return mem


def test_cut_results_say_so_and_long_snippets_point_to_their_slug(big: turngraph.Memory) -> None:
    rc = big.recall("project update milestone", k=5, max_entities=3, max_snippets=2)
    # Every ceiling that cut says so, k included: 70 notes matched, 5 came back.
    assert len(rc.hits) == 5
    assert any(t.startswith("hits: 65 more") for t in rc.truncated), rc.truncated
    assert any(t.startswith("entities") for t in rc.truncated)
    assert any(t.startswith("snippets") for t in rc.truncated)
    snippet = rc.snippets[0]
    assert snippet.truncated
    assert snippet.text.endswith("\u2026")
    full = big.get_observation(snippet.slug)
    assert len(full.content) > len(snippet.text)
    assert full.content.startswith(snippet.text[:-1])


def test_a_lexical_only_memory_recalls_without_vectors(big: turngraph.Memory) -> None:
    assert big.embedder is None
    assert big.recall("milestone 7 shipped", mode="lexical").hits[0].source.slug == (
        "project-update-7"
    )
    assert big.recall("milestone 7 shipped", mode="dense").hits == []


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"k": 0}, "k"),
        ({"mode": "vector"}, "mode"),
        ({"max_entities": -1}, "max_entities"),
        ({"since": "soon"}, "since"),
        ({"include": ["facts"]}, "include"),
    ],
)
def test_bad_recall_arguments_are_rejected(
    team: turngraph.Memory, kwargs: dict[str, object], field: str
) -> None:
    with pytest.raises(turngraph.ValidationError) as err:
        team.recall("Alice", **kwargs)  # type: ignore[arg-type]
    assert err.value.field == field


def test_the_vector_cache_patches_to_what_a_full_load_gives(mem: turngraph.Memory) -> None:
    from turngraph.recall import vectors

    def note(i: int, text: str) -> str:
        return mem.add_observation(title=f"n{i}", content=text).observation.slug

    def check() -> None:
        with mem._store.read(mem._id) as tx:  # type: ignore[attr-defined]
            cached = vectors.VECTORS.get(mem._store, tx, "observation", 384)  # type: ignore[attr-defined]
            fresh = vectors.VectorCache._load(tx, "observation", 384, -1).view()
        assert cached.refs.tolist() == fresh.refs.tolist()
        assert np.array_equal(cached.vectors, fresh.vectors)

    slugs = [note(i, f"Note {i} about the harbor.") for i in range(5)]
    check()  # filled by a full load
    slugs += [note(i, f"Note {i} about the lighthouse.") for i in range(5, 9)]
    mem.update_observation(slugs[2], content="Rewritten: the harbor is closed.")
    check()  # patched: four appended, one replaced
    mem.delete_observation(slugs[0])
    check()  # a deletion reloads
    assert mem.recall("harbor closed", mode="dense").hits[0].source.slug == slugs[2]


def test_small_matrices_share_a_budget_and_the_least_recently_searched_go_first(
    db: turngraph.Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    from turngraph.recall import vectors

    # Matrices of at most 3 rows are small; a small one takes 256 rows of room at first.
    room = 256 * 8 + 256 * 384 * 4
    monkeypatch.setattr(vectors, "SMALL_ROWS", 3)
    monkeypatch.setattr(vectors, "SMALL_BUDGET", 2 * room)  # two small matrices fit
    loads: list[int] = []
    load = vectors.VectorCache._load

    def counted(tx: object, kind: str, dim: int, version: int) -> object:
        loads.append(tx.memory_id)  # type: ignore[attr-defined]
        return load(tx, kind, dim, version)  # type: ignore[arg-type]

    monkeypatch.setattr(vectors.VectorCache, "_load", staticmethod(counted))
    memories = {}
    for name, notes in (("a", 2), ("b", 2), ("c", 2), ("large", 5)):
        memories[name] = m = db.create_memory(name)
        for i in range(notes):
            m.add_observation(title=f"{name}{i}", content=f"Note {i} of {name} about the harbor.")

    def search(name: str) -> None:
        m = memories[name]
        with m._store.read(m._id) as tx:  # type: ignore[attr-defined]
            vectors.VECTORS.get(m._store, tx, "observation", 384)  # type: ignore[attr-defined]

    for name in ("large", "a", "b", "a", "c", "a", "b", "large"):
        search(name)
    # c pushed out b (searched before a last), then b pushed out c; the large one stays.
    ids = {m._id: name for name, m in memories.items()}  # type: ignore[attr-defined]
    assert [ids[i] for i in loads] == ["large", "a", "b", "c", "b"]


def test_background_indexing_embeds_what_writes_queued(backend: Opener) -> None:
    from turngraph.recall.index import wait_for_index

    db = backend(Settings(index_in_background=True))
    mem = db.create_memory("bg")
    ids = [
        mem.remember(text, speaker="Ana").turn_id
        for text in ("The harbor opens at dawn.", "We adopted a grey kitten.", "Rain again.")
    ]
    assert wait_for_index(db.store, timeout=30)
    with mem._store.read(mem._id) as tx:  # type: ignore[attr-defined]
        assert tx.index_queue(limit=10) == []
    hit = mem.recall("a new cat joined the family", mode="dense").hits[0]
    assert hit.source.turn_id == ids[1]
