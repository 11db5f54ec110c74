"""Recall knows which facts are current: a value replaced since gives way to the one that
replaced it for questions about the present, is marked in the result, and ``as_of`` still
recalls what held then. Scores are on 0..1, one hit per turn, ``truncated`` only when a
ceiling cut something asked for, entities relevant to the query.

Everything runs through the real pipeline: turns with the default extractor and embedder."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

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


def tell(mem: turngraph.Memory, speaker: str, told: Sequence[tuple[str, str]]) -> None:
    """Remember ``told`` (time, text) as one session of ``speaker``'s turns, in order."""
    session = None
    for at, text in told:
        session = mem.remember(text, speaker=speaker, session_id=session, observed_at=at).session_id


@pytest.fixture
def maya(mem: turngraph.Memory) -> turngraph.Memory:
    tell(mem, "Maya", MAYA)
    return mem


def texts(rc: turngraph.RecallResult) -> list[str]:
    """The turns the hits stand for, in order: a fact hit stands for the turn that stated
    it (each source once, as the snippets list them)."""
    return [s.text for s in rc.snippets]


def turn_of(rc: turngraph.RecallResult, text: str) -> str | None:
    """The turn id of the source whose text is ``text``."""
    return next((s.source.turn_id for s in rc.snippets if s.text == text), None)


@pytest.mark.parametrize("query", ["Where does Maya live now?", "Where does Maya live?"])
def test_a_question_about_now_is_answered_by_the_current_fact_and_its_turn(
    maya: turngraph.Memory, query: str
) -> None:
    history = maya.entity_history("person", "Maya", "location")
    assert [v.value for v in history] == ["Manchester", "Bristol"]  # the extractor saw the move
    rc = maya.recall(query)
    first = rc.hits[0]
    assert (first.kind, first.text, first.superseded_by) == (
        "attribute",
        "Maya location: Bristol",
        None,
    )
    assert first.source.turn_id == turn_of(rc, BRISTOL)
    ranked = texts(rc)
    assert ranked[0] == BRISTOL
    assert ranked.index(BRISTOL) < ranked.index(MANCHESTER)


def test_a_superseded_passage_says_what_replaced_it_and_when(maya: turngraph.Memory) -> None:
    rc = maya.recall("Where does Maya live now?")
    hits = {h.text: h for h in rc.hits}
    old = hits[MANCHESTER]
    assert old.superseded == ["Maya location: Manchester, now Bristol"]
    assert old.superseded_by == turn_of(rc, BRISTOL)
    assert old.superseded_at == datetime(2024, 5, 1, 10, tzinfo=UTC)
    assert all(h.superseded_by is None for h in rc.hits if h.text != MANCHESTER)


def test_as_of_recalls_what_was_current_then_unmarked(maya: turngraph.Memory) -> None:
    rc = maya.recall("Where does Maya live now?", as_of="2024-04-01T00:00:00Z")
    assert BRISTOL not in texts(rc)
    assert rc.hits[0].text == "Maya location: Manchester"
    assert all(h.superseded == [] and h.superseded_by is None for h in rc.hits)
    assert texts(rc)[0] == MANCHESTER


def test_a_question_about_the_past_is_answered_by_the_replaced_value(
    maya: turngraph.Memory,
) -> None:
    rc = maya.recall("Where did Maya live before?")
    first = rc.hits[0]
    assert first.text == "Maya location: Manchester"
    assert first.superseded_by == turn_of(rc, BRISTOL)
    ranked = texts(rc)
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
    assert rc.hits[0].text == "Lisbon trip date: 3-6 June"
    ranked = texts(rc)
    assert ranked.index(new) < ranked.index(old)
    assert {h.text: h for h in rc.hits}[old].superseded == [
        "Lisbon trip date: 12-15 May, now 3-6 June"
    ]
    then = mem.recall("When is the Lisbon trip?", as_of="2024-03-01T00:00:00Z")
    assert then.hits[0].text == "Lisbon trip date: 12-15 May"
    assert new not in texts(then)
    assert all(h.superseded == [] for h in then.hits)


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
    scores = [h.score for h in rc.hits]
    assert scores == sorted(scores, reverse=True)
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
    for k in (1, 2, 5):
        rc = mem.recall("Where does Liam work? cousin whole life Cork Google engineer", k=k)
        assert len(rc.hits) == min(k, 2), [h.text for h in rc.hits]
        passages = [h.source.turn_id for h in rc.hits if h.kind == "turn"]
        facts = {h.source.turn_id for h in rc.hits if h.kind == "attribute"}
        assert len(passages) == len(set(passages))
        assert not facts & set(passages)  # a fact stands for the turn that stated it
    assert [h.text for h in rc.hits] == ["Liam employer: Google", rc.snippets[1].text]


def test_truncated_is_empty_when_no_ceiling_cut_what_was_asked_for(
    maya: turngraph.Memory,
) -> None:
    # Entities not asked for are not cut, and k of all six turns cuts nothing.
    rc = maya.recall("Where does Maya live now?", include=["passages"], max_entities=1)
    assert rc.truncated == []
    # A ceiling that does cut says so, k included.
    rc = maya.recall("Where does Maya live now?", max_entities=1, k=3, max_snippets=1)
    assert [t.split(":")[0] for t in rc.truncated] == ["hits", "entities", "snippets"]


def test_the_entity_list_holds_what_the_query_is_about(maya: turngraph.Memory) -> None:
    names = [e.name for e in maya.recall("When is the Lisbon trip?").entities]
    assert names[0] == "Lisbon"
    # Maya is the best-connected entity of the memory, and the question is not about her.
    assert "Maya" not in names
    about_maya = [e.name for e in maya.recall("Where does Maya live now?").entities]
    assert about_maya[0] == "Maya"
    assert {"Bristol", "Manchester"} <= set(about_maya)
    assert "Lisbon" not in about_maya


def test_a_change_extraction_missed_still_puts_the_newer_telling_first(
    mem: turngraph.Memory,
) -> None:
    """Asked about a state now, the latest turn that speaks of it ranks above an older one,
    even when no fact recorded the change (here the second pet is never named as one); asked
    about it before, the earlier one ranks first."""
    turns = [
        ("2024-01-10T09:00:00Z", "Our cat Biscuit sleeps on my keyboard all day, he is a menace."),
        ("2024-02-02T09:00:00Z", "Work is busy, the quarterly report is due Friday."),
        (
            "2024-06-20T09:00:00Z",
            "Biscuit went to my parents' farm; now it's just Pickle, the cat next door adopted us.",
        ),
    ]
    tell(mem, "Lena", turns)
    ranked = texts(mem.recall("What cat does Lena have?"))
    assert ranked.index(turns[2][1]) < ranked.index(turns[0][1])
    before = texts(mem.recall("What cat did Lena have before?"))  # the earlier telling first
    assert before.index(turns[0][1]) < before.index(turns[2][1])


def test_a_hit_carries_the_day_its_turn_placed_what_happened(mem: turngraph.Memory) -> None:
    """ "We moved in yesterday", told on 14 September: the turn's hit (and the fact it set)
    says the move happened on the 13th; a turn that places nothing, or only a plan, carries
    no such date."""
    told = [
        ("2024-09-14T09:00:00Z", "We moved into the flat in Eccles yesterday! Boxes everywhere."),
        ("2024-09-14T09:05:00Z", "The flat in Eccles has a tiny kitchen but a lovely garden."),
        ("2024-09-14T09:10:00Z", "My sister visits the flat in Eccles on the 20th of September."),
    ]
    tell(mem, "Ada", told)
    rc = mem.recall("When did Ada move into the flat in Eccles?", k=10)
    said = {s.source.slug: s.text for s in rc.snippets}
    dated: dict[str, set[datetime | None]] = {}
    for hit in rc.hits:  # a fact hit stands for the turn that said it
        dated.setdefault(said[hit.source.slug], set()).add(hit.occurred_at)
    assert set(dated) == {text for _, text in told}
    assert dated[told[0][1]] == {datetime(2024, 9, 13, 9, 0, tzinfo=UTC)}
    assert dated[told[1][1]] == {None}  # nothing placed in time
    assert dated[told[2][1]] == {None}  # a plan ahead of the turn, not what happened


def test_a_question_about_a_named_past_time_puts_what_was_told_by_then_first(
    mem: turngraph.Memory,
) -> None:
    """Asked what held in February 2024, a turn told by then ranks above one told after it,
    though the later one matches the question as well."""
    turns = [
        ("2024-02-10T09:00:00Z", "Honestly I can't stand reggaeton, the beat drives me mad."),
        ("2024-03-05T09:00:00Z", "Work is busy, the quarterly report is due Friday."),
        (
            "2024-07-01T09:00:00Z",
            "Funny thing: I love reggaeton now, Bad Bunny is on repeat all day and I think about "
            "reggaeton constantly.",
        ),
    ]
    tell(mem, "Lena", turns)
    ranked = texts(mem.recall("What did Lena think of reggaeton in February 2024?"))
    assert ranked.index(turns[0][1]) < ranked.index(turns[2][1])


def test_a_revised_instruction_answers_now_and_the_first_one_answers_originally(
    mem: turngraph.Memory,
) -> None:
    """Instructions on the same topic replace each other: asked how to answer now, the last
    one is the first hit; asked what was originally asked for, the first of all is, even
    beside an instruction on another topic given later ("Would you number the steps from now
    on?" is asked of the assistant for good)."""
    said = [
        ("2024-01-10T09:00:00Z", "Please keep your answers short, I'm marking tests."),
        (
            "2024-03-02T09:00:00Z",
            "From now on I'd like detailed explanations rather than short ones.",
        ),
        ("2024-05-20T09:00:00Z", "Would you number the steps for me from now on?"),
    ]
    tell(mem, "Ines", said)
    length_now = mem.recall("How long should answers to Ines be?", k=5).hits[0]
    assert length_now.kind == "instruction"
    assert "detailed explanations" in length_now.text
    laid_out = mem.recall("How should instructions for Ines be laid out?", k=5).hits[0]
    assert laid_out.kind == "instruction"
    assert "number the steps" in laid_out.text
    first = mem.recall("How did Ines first ask for answers to be written?", k=5).hits[0]
    assert first.kind == "instruction"
    assert "keep your answers short" in first.text.lower()


def test_a_revision_that_names_two_topics_replaces_the_one_it_names_first(
    mem: turngraph.Memory,
) -> None:
    """ "Keep your replies short: a paragraph or two" is about length (named first), not the
    format its paragraphs name: it replaces the earlier request for detailed answers."""
    said = [
        ("2024-01-10T09:00:00Z", "And I should like full and detailed answers, please."),
        (
            "2024-11-04T09:00:00Z",
            "I should be grateful if from now on you would keep your replies short: a paragraph "
            "or two at the most.",
        ),
    ]
    tell(mem, "Geoffrey", said)
    now = mem.recall("How long should the assistant's replies to Geoffrey be?", k=5).hits[0]
    assert now.kind == "instruction"
    assert "keep your replies short" in now.text


def test_a_fact_keeps_first_place_when_a_newer_turn_speaks_of_someone_elses_change(
    mem: turngraph.Memory,
) -> None:
    """A current fact gives way to a newer turn that says the speaker's own situation changed
    ("new job", "I've started at"); not to one where someone else quit, nor to one whose
    change word is about something else ("blood work ... I've started iron tablets")."""
    said = [
        ("2024-01-10T09:00:00Z", "I work at Acme as a product designer."),
        ("2024-03-02T09:00:00Z", "My manager at work, Stefan, has quit and it's chaos."),
        (
            "2024-04-02T09:00:00Z",
            "I had blood work done and my iron was low, so after talking to my doctor I've "
            "started taking tablets.",
        ),
    ]
    tell(mem, "Lena", said)
    first = mem.recall("Where does Lena work?", k=5).hits[0]
    assert (first.kind, first.text) == ("attribute", "Lena employer: Acme")


def test_a_question_placed_before_an_event_puts_what_was_told_before_it_first(
    mem: turngraph.Memory,
) -> None:
    """ "Before the Polestar" is read as a time: when the Polestar was first spoken of. A turn
    told after it gives way though it matches the question better and names no Polestar."""
    turns = [
        ("2024-01-10T09:00:00Z", "I drive an old Volvo V70, it still runs fine."),
        ("2024-02-03T09:00:00Z", "Work is busy, the quarterly report is due Friday."),
        ("2024-02-09T09:00:00Z", "My daughter Ingrid starts university in Trondheim."),
        ("2024-04-02T09:00:00Z", "Swapped the Volvo. Polestar 2, picked it up today."),
        ("2024-05-11T09:00:00Z", "Ran 10 km this morning, the knee held up fine."),
        (
            "2024-06-20T09:00:00Z",
            "I drive the car to the mountains most weekends, the roads are lovely.",
        ),
    ]
    tell(mem, "Erik", turns)
    ranked = texts(mem.recall("What car did Erik drive before the Polestar?"))
    assert ranked[0] == turns[0][1]


def test_a_question_placed_by_another_fact_is_answered_as_of_when_that_fact_held(
    mem: turngraph.Memory,
) -> None:
    """ "While he worked for Aker Solutions" places the question in the time that fact held;
    what is asked is where he lived, not where he worked."""
    tell(
        mem,
        "Erik",
        [
            ("2024-01-10T09:00:00Z", "I'm Erik, I live in Bergen and work at Aker Solutions."),
            ("2024-05-02T09:00:00Z", "I've accepted an offer from Equinor as a lead engineer."),
            ("2024-07-01T09:00:00Z", "We moved to Stavanger last week."),
        ],
    )
    rc = mem.recall("Where did Erik live while he worked for Aker Solutions?")
    assert rc.hits[0].kind == "attribute"
    assert rc.hits[0].text == "Erik location: Bergen"


def test_a_question_placed_by_something_told_is_answered_as_of_then(
    mem: turngraph.Memory,
) -> None:
    """ "When she climbed at Allez Up" names no fact: the first turn that spoke of it places
    the question, and her location then answers it, not where she lives now."""
    tell(
        mem,
        "Genevieve",
        [
            ("2024-01-10T09:00:00Z", "I live in Mile End and I climb at Allez Up twice a week."),
            ("2024-03-02T09:00:00Z", "Work is busy, the grant report is due on Friday."),
            ("2024-06-20T09:00:00Z", "We moved to Limoilou last week, the flat is lovely."),
        ],
    )
    rc = mem.recall("Where did Genevieve live when she climbed at Allez Up?")
    assert rc.hits[0].text == "Genevieve location: Mile End"


def test_a_fact_that_ended_with_nothing_after_it_is_not_the_answer_about_now(
    mem: turngraph.Memory,
) -> None:
    """ "not allergic to cats at all" ends the allergy; asked what she is allergic to now,
    the ended fact (marked) ranks as the turn that stated it, below the turn that ended it,
    and as of before the ending it is the answer again."""
    told = [
        (
            "2024-01-05T10:00:00Z",
            "A friend offered to host me, but she has two cats and I am allergic to cats.",
        ),
        ("2024-02-01T10:00:00Z", "We are moving to Singapore in June."),
        (
            "2024-07-01T10:00:00Z",
            "Surprising news. It transpires that I am not allergic to cats at all; "
            "the allergist identified dust mites as the cause.",
        ),
    ]
    tell(mem, "Anjali", told)
    rc = mem.recall("What is Anjali allergic to?")
    ended = next(h for h in rc.hits if h.kind == "attribute" and h.text.endswith(": cats"))
    assert ended.superseded_at is not None
    turns = [h.text for h in rc.hits if h.kind != "attribute"]
    assert rc.hits.index(ended) > [h.text for h in rc.hits].index(told[2][1])
    assert told[2][1] in turns
    then = mem.recall("What is Anjali allergic to?", as_of="2024-03-01T00:00:00Z")
    assert then.hits[0].kind == "attribute"
    assert then.hits[0].text.endswith(": cats")


def test_a_context_shows_the_turn_behind_a_fact_that_answers(mem: turngraph.Memory) -> None:
    """ "My dog is called Pixel" sets `pets: dog`; asked for the dog's name, the context gives
    that fact and, among its passages, the turn that stated it, which names Pixel."""
    tell(mem, "Dana", [("2024-01-05T10:00:00Z", "My dog is called Pixel.")])
    rc = mem.recall("dog name")
    assert rc.hits[0].kind == "attribute"
    ctx = mem.context("dog name")
    passages = str(ctx).split("Passages", 1)[-1]
    assert "My dog is called Pixel." in passages
    assert str(ctx).count("My dog is called Pixel.") == 1


def test_a_kind_said_again_without_a_change_keeps_its_fact_first(mem: turngraph.Memory) -> None:
    """ "We now walk the dog twice a day" says nothing changed: asked what pets Dana has,
    `pets: dog` stays first."""
    told = [
        ("2024-01-05T10:00:00Z", "I have a dog called Pixel."),
        ("2024-03-05T10:00:00Z", "We now walk the dog twice a day, he loves it."),
    ]
    tell(mem, "Dana", told)
    first = mem.recall("What pets does Dana have?").hits[0]
    assert (first.kind, first.text) == ("attribute", "Dana pets: dog")
