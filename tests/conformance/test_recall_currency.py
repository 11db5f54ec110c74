"""Recall knows which facts are current: a value replaced since gives way to the one that
replaced it for questions about the present, is marked in the result, and ``as_of`` still
recalls what held then. Scores are on 0..1, one hit per turn, ``truncated`` only when a
ceiling cut something asked for, entities relevant to the query.

Everything runs through the real pipeline: turns with the default extractor and embedder."""

from __future__ import annotations

import pytest

import turngraph

MAYA = [
    ("2024-01-05T10:00:00Z", "Hi! I'm Maya, I live in Manchester with my partner Sam."),
    ("2024-01-05T10:01:00Z", "I work at Acme as a designer, and my sister Ines lives in Leeds."),
    ("2024-02-01T10:00:00Z", "We're planning a trip to Lisbon, probably in May."),
    ("2024-03-01T10:00:00Z", "Manchester has been rainy all week, I love living here though."),
    ("2024-05-01T10:00:00Z", "Big news: we moved to Bristol!"),
    ("2024-05-03T10:00:00Z", "The new flat is lovely."),
]
MANCHESTER, BRISTOL = MAYA[0][1], MAYA[4][1]


@pytest.fixture
def maya(mem: turngraph.Memory) -> turngraph.Memory:
    session = None
    for at, text in MAYA:
        session = mem.remember(text, speaker="Maya", session_id=session, observed_at=at).session_id
    return mem


def texts(rc: turngraph.RecallResult) -> list[str]:
    return [h.text for h in rc.hits if h.kind == "turn"]


@pytest.mark.parametrize("query", ["Where does Maya live now?", "Where does Maya live?"])
def test_a_question_about_now_ranks_the_turn_that_set_the_current_value_first(
    maya: turngraph.Memory, query: str
) -> None:
    history = maya.entity_history("person", "Maya", "location")
    assert [v.value for v in history] == ["Manchester", "Bristol"]  # the extractor saw the move
    ranked = texts(maya.recall(query))
    assert ranked.index(BRISTOL) < ranked.index(MANCHESTER)
    assert ranked[0] == BRISTOL


def test_a_superseded_passage_is_marked_with_what_replaced_it(maya: turngraph.Memory) -> None:
    hits = {h.text: h for h in maya.recall("Where does Maya live now?").hits}
    assert hits[MANCHESTER].superseded == ["Maya location: Manchester, now Bristol"]
    assert hits[BRISTOL].superseded == []


def test_as_of_recalls_what_was_current_then_unmarked(maya: turngraph.Memory) -> None:
    rc = maya.recall("Where does Maya live now?", as_of="2024-04-01T00:00:00Z")
    assert BRISTOL not in texts(rc)
    hits = {h.text: h for h in rc.hits}
    assert hits[MANCHESTER].superseded == []
    assert texts(rc)[0] == MANCHESTER


def test_a_question_about_the_past_keeps_the_old_value_above_the_new(
    maya: turngraph.Memory,
) -> None:
    ranked = texts(maya.recall("Where did Maya live before?"))
    assert ranked.index(MANCHESTER) < ranked.index(BRISTOL)


def test_the_rescheduled_date_outranks_the_superseded_one(mem: turngraph.Memory) -> None:
    trip = {"type": "event", "name": "Lisbon trip"}
    old = "The Lisbon trip is 12-15 May, flights booked."
    new = "Change of plan: the Lisbon trip is now 3-6 June."
    session = None
    for at, text, when in [
        ("2024-02-01T10:00:00Z", old, "12-15 May"),
        ("2024-02-02T10:00:00Z", "Lisbon in May will be warm, pack light.", None),
        ("2024-03-10T10:00:00Z", new, "3-6 June"),
    ]:
        triples = [{"entity": trip, "key": "date", "value": when}] if when else None
        session = mem.remember(
            text,
            speaker="Maya",
            session_id=session,
            observed_at=at,
            infer="triples" if triples else "full",
            triples=triples,
        ).session_id
    rc = mem.recall("When is the Lisbon trip?")
    ranked = texts(rc)
    assert ranked.index(new) < ranked.index(old)
    assert {h.text: h for h in rc.hits}[old].superseded == [
        "Lisbon trip date: 12-15 May, now 3-6 June"
    ]
    then = mem.recall("When is the Lisbon trip?", as_of="2024-03-01T00:00:00Z")
    assert new not in texts(then)
    assert {h.text: h for h in then.hits}[old].superseded == []


@pytest.mark.parametrize(
    "query", ["Where does Maya live now?", "When is the Lisbon trip?", "zebra crossing"]
)
def test_scores_are_between_zero_and_one_and_order_the_hits(
    maya: turngraph.Memory, query: str
) -> None:
    rc = maya.recall(query)
    assert rc.hits
    assert rc.entities
    for score in [h.score for h in rc.hits] + [e.score for e in rc.entities]:
        assert 0.0 <= score <= 1.0
    passages = [h.score for h in rc.hits if h.kind != "attribute"]
    assert passages == sorted(passages, reverse=True)
    facts = [h.score for h in rc.hits if h.kind == "attribute"]
    assert all(f <= passages[-1] for f in facts)
    structural = maya.recall(None)
    assert all(0.0 <= x.score <= 1.0 for x in [*structural.hits, *structural.entities])


def test_a_turn_never_appears_twice_among_the_hits(mem: turngraph.Memory) -> None:
    session = mem.remember(
        "I live in Cork and I work at Google as an engineer.", speaker="Liam"
    ).session_id
    mem.remember(
        "Cork, Google, engineer: my cousin's whole life is Cork and Google engineers.",
        speaker="Liam",
        session_id=session,
    )
    rc = mem.recall("cousin whole life Cork Google engineer", k=1)
    turns = [h.source.turn_id for h in rc.hits]
    assert len(turns) == len(set(turns)), [h.text for h in rc.hits]
    assert len(rc.hits) == 2  # the best passage, then one fact from the other turn


def test_truncated_is_empty_when_no_ceiling_cut_what_was_asked_for(
    maya: turngraph.Memory,
) -> None:
    # Returning k of many candidates is what k asks for; entities not asked for are not cut.
    assert maya.recall("Where does Maya live now?", k=2).truncated == []
    rc = maya.recall("Where does Maya live now?", include=["passages"], max_entities=1)
    assert rc.truncated == []
    # A ceiling that does cut says so.
    rc = maya.recall("Where does Maya live now?", max_entities=1, k=3, max_snippets=1)
    assert [t.split(":")[0] for t in rc.truncated] == ["entities", "snippets"]


def test_the_entity_list_holds_what_the_query_is_about(maya: turngraph.Memory) -> None:
    names = [e.name for e in maya.recall("When is the Lisbon trip?").entities]
    assert names[0] == "Lisbon"
    # Maya is the best-connected entity of the memory, and the question is not about her.
    assert "Maya" not in names
    about_maya = [e.name for e in maya.recall("Where does Maya live now?").entities]
    assert about_maya[0] == "Maya"
    assert {"Bristol", "Manchester"} <= set(about_maya)
    assert "Lisbon" not in about_maya
