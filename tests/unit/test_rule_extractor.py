"""The rule extractor on single messages: what it must catch and what it must leave alone.

Breadth lives in the labelled suite (``test_extraction_suite.py``); these pin the rules that
the rest of the pipeline leans on: time with its precision, normalization of casual text,
clauses, negation, hedges, instructions, and bounded work on hostile input.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from turngraph.bench.extraction import items_of
from turngraph.extract.base import RawExtraction, TurnContext
from turngraph.extract.keys import canonical_key
from turngraph.extract.normalize import normalize
from turngraph.extract.rules import RuleExtractor
from turngraph.extract.timeref import resolve_time

REF = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)  # a Monday


def run(
    text: str,
    speaker: str = "Alice",
    role: str = "user",
    history: tuple[tuple[str, str], ...] = (),
) -> RawExtraction:
    ctx = TurnContext(speaker=speaker, role=role, observed_at=REF, history=history)
    return RuleExtractor().extract(text, ctx)


def attrs(r: RawExtraction) -> set[tuple[str, str, str]]:
    return {(a.entity, a.key, a.value) for a in r.attributes if not a.negated}


def ended(r: RawExtraction) -> set[tuple[str, str, str]]:
    return {(a.entity, a.key, a.value) for a in r.attributes if a.negated}


def rels(r: RawExtraction) -> set[tuple[str, str, str]]:
    return {(x.subject, x.label, x.object) for x in r.relations}


@pytest.mark.parametrize(
    ("text", "future", "expected", "precision"),
    [
        ("yesterday", False, "2023-05-07", "day"),
        ("the day before yesterday", False, "2023-05-06", "day"),
        ("last Friday", False, "2023-05-05", "day"),
        ("on Monday", False, "2023-05-01", "day"),
        ("on Friday", True, "2023-05-12", "day"),
        ("next Tuesday", True, "2023-05-09", "day"),
        ("two weeks ago", False, "2023-04-24", "week"),
        ("in two weeks", True, "2023-05-22", "week"),
        ("3 days ago", False, "2023-05-05", "day"),
        ("last month", False, "2023-04-08", "month"),
        ("next month", True, "2023-06-08", "month"),
        ("last year", False, "2022-05-08", "year"),
        ("last weekend", False, "2023-05-06", "week"),
        ("this weekend", True, "2023-05-13", "week"),
        ("the week before", False, "2023-05-01", "week"),
        ("this summer", True, "2023-06-01", "season"),
        ("last summer", False, "2022-06-01", "season"),
        ("on May 5th", False, "2023-05-05", "day"),
        ("on 5 June", False, "2022-06-05", "day"),
        ("on 5 June", True, "2023-06-05", "day"),
        ("8 March, 2021", False, "2021-03-08", "day"),
        ("in March", False, "2023-03-01", "month"),
        ("in 2019", False, "2019-01-01", "year"),
        ("in the summer of 2021", False, "2021-06-01", "season"),
        ("in spring 2022", False, "2022-03-01", "season"),
        ("at Easter 2024", False, "2024-03-31", "day"),
        ("at Easter 2019", False, "2019-04-21", "day"),
        ("on Christmas Eve 2021", False, "2021-12-24", "day"),
        ("last Christmas", False, "2022-12-25", "day"),
        ("next Easter", True, "2024-03-31", "day"),
    ],
)
def test_time_expressions_resolve_with_the_precision_they_were_said_at(
    text: str, future: bool, expected: str, precision: str
) -> None:
    found = resolve_time(f"I did it {text}", REF, future=future)
    assert found is not None
    assert (found.when.date().isoformat(), found.precision) == (expected, precision)


def test_a_clause_without_a_time_resolves_to_nothing() -> None:
    assert resolve_time("I like green tea", REF) is None
    assert resolve_time("At Christmas we drive to my sister", REF) is None  # which one?


def test_casual_spelling_is_normalized_before_matching() -> None:
    assert normalize("im 27 and i dont eat meat lol") == "I'm 27 and I don't eat meat."
    assert normalize("gonna move to berlin 🎉 so excited") == "going to move to berlin . so excited"
    assert normalize("my favourite colour is blue") == "my favorite color is blue"


def test_keys_are_canonical_whatever_the_spelling() -> None:
    assert canonical_key("Favourite Colour") == "favorite_color"
    assert canonical_key("favorite color") == "favorite_color"
    assert canonical_key("allergic to") == "allergies"
    assert canonical_key("job") == "job_title"
    assert canonical_key("works_at") == "works_at"


def test_identity_facts_about_the_speaker_in_casual_form() -> None:
    r = run("My name is Alice Moreau. I'm 34 years old and my email is alice@example.com.")
    assert {
        ("Alice", "name", "Alice Moreau"),
        ("Alice", "age", "34"),
        ("Alice", "email", "alice@example.com"),
    } <= attrs(r)
    assert attrs(run("i'm 27")) == {("Alice", "age", "27")}
    assert attrs(run("got promoted to sous chef!!")) == {("Alice", "job_title", "sous chef")}
    r = run("I'm a software engineer at Google.")
    assert attrs(r) == {
        ("Alice", "job_title", "software engineer"),
        ("Alice", "employer", "Google"),
    }
    assert rels(r) == {("Alice", "works_at", "Google")}
    assert attrs(run("I just got married!")) == {("Alice", "relationship_status", "married")}


def test_negation_governs_its_own_clause() -> None:
    r = run("I'm not a doctor, I'm a nurse practitioner")
    assert attrs(r) == {("Alice", "job_title", "nurse practitioner")}
    assert ended(r) == {("Alice", "job_title", "doctor")}
    assert ended(run("I don't work at Deloitte anymore")) == {("Alice", "employer", "Deloitte")}
    assert ended(run("I don't like sushi anymore.")) == {("Alice", "likes", "sushi")}
    assert attrs(run("I don't like olives.")) == {("Alice", "dislikes", "olives")}


def test_third_parties_shared_subjects_and_pronouns() -> None:
    r = run("my brother Felix is a pilot for Lufthansa and lives in Frankfurt")
    assert {
        ("Felix", "job_title", "pilot"),
        ("Felix", "employer", "Lufthansa"),
        ("Felix", "location", "Frankfurt"),
    } <= attrs(r)
    assert rels(r) >= {("Alice", "sibling_of", "Felix"), ("Felix", "works_at", "Lufthansa")}
    r = run("my sister Emma just moved. she lives in Oslo now")
    assert ("Emma", "location", "Oslo") in attrs(r)
    r = run("I have two cats, Luna and Oliver")
    assert rels(r) == {("Alice", "has_pet", "Luna"), ("Alice", "has_pet", "Oliver")}
    assert {(e.name, e.type) for e in r.entities} >= {("Luna", "animal"), ("Oliver", "animal")}
    assert rels(run("I manage the Platform Team.")) == {("Alice", "manages", "Platform Team")}


def test_actions_carry_actor_verb_object_place_and_time() -> None:
    (action,) = run("I went to a LGBTQ support group yesterday.", speaker="Caroline").actions
    assert (action.actor, action.verb) == ("Caroline", "go")
    assert "support group" in f"{action.object} {action.place}"
    assert action.occurred_at is not None
    assert (action.occurred_at.date().isoformat(), action.precision) == ("2023-05-07", "day")
    (plan,) = run("next Tuesday I'm meeting Jake for coffee").actions
    assert (plan.verb, plan.object) == ("meet", "Jake for coffee")
    assert plan.occurred_at is not None
    assert plan.occurred_at.date().isoformat() == "2023-05-09"
    # Light verbs with no object, and objects that are unresolved pronouns, make no action.
    assert run("I was so tired.").actions == ()
    assert run("I felt great and talked a lot.").actions == ()
    assert run("I finally did it!").actions == ()


def test_hedges_and_questions_make_no_facts() -> None:
    hedged = run("I think my sister Emma might be moving to Oslo.")
    assert [u.about for u in hedged.uncertainties] == ["Emma"]
    assert ("Emma", "location", "Oslo") not in attrs(hedged)
    asked = run("Is Bob still at Globex?")
    assert (asked.attributes, asked.relations, asked.actions) == ((), (), ())
    assert run("Can you show me one of Oscar?").uncertainties == ()


def test_instructions_wherever_they_stand_and_never_for_oneself() -> None:
    assert run("Please keep your answers short").instructions
    assert run("Whenever I ask for code, use Python").instructions
    assert run("my name is Siobhan but please call me Shiv").instructions
    call = run("from now on call me Sam")
    assert call.instructions
    assert ("Alice", "preferred_name", "Sam") in attrs(call)
    for chatter in (
        "Keep it up!",
        "Never give up.",
        "Check out this photo.",
        "Take care!",
        "I always go for a run in the morning",
        'translate this into french: "see you tomorrow"',
    ):
        assert run(chatter).instructions == (), chatter
    assert run("Always reply in French.", role="assistant").instructions == ()


def test_a_correction_restates_what_the_speaker_said_before() -> None:
    history = (("Alice", "I live in Lyon"),)
    r = run("sorry, I meant Lille, not Lyon", history=history)
    assert ("Alice", "location", "Lille") in attrs(r)
    assert ("Alice", "location", "Lyon") not in attrs(r)
    r = run("oops, 33. typo", history=(("Alice", "im 32"),))
    assert attrs(r) == {("Alice", "age", "33")}


def test_greetings_and_sentence_capitals_are_not_entities() -> None:
    r = run("Hey Caroline! Seeing your art made my day. Thanks, Caroline!", speaker="Mel")
    assert r.entities == ()
    r = run("Painting is my therapy. I visited London with Oliver.", speaker="Mel")
    assert {(e.name, e.type) for e in r.entities} >= {("London", "place"), ("Oliver", "person")}
    assert "Painting" not in {e.name for e in r.entities}


@pytest.mark.parametrize(
    "unit",
    [
        "A",
        "A-",
        "a-",
        "A.",
        "Aa-School ",
        "I ",
        "Aa Bb ",
        "my sister ",
        "not ",
        "I'm a ",
        "1 ",
        "at Google and ",
        "x,",
        "x, ",
    ],
)
def test_hostile_text_of_100_kb_is_extracted_without_blowing_up(unit: str) -> None:
    # Work is linear in the text (every pattern is anchored or bounded); the benchmark
    # measures the time. Here: it finishes, and what it returns stays bounded.
    r = run(unit * (100_000 // len(unit)))
    assert len(r.attributes) + len(r.actions) + len(r.entities) < 20_000


@pytest.mark.parametrize(
    ("when", "said"),
    [
        (datetime(9999, 12, 31, 23, 0, tzinfo=UTC), "I'm flying to Paris next Tuesday"),
        (datetime(1, 1, 1, 1, 0, tzinfo=UTC), "we moved to Oslo 3 years ago"),
    ],
)
def test_a_relative_time_past_the_calendars_edge_is_no_time(when: datetime, said: str) -> None:
    r = RuleExtractor().extract(said, TurnContext(speaker="Ana", role="user", observed_at=when))
    assert r.actions  # the event is still read, only without a date
    assert all(a.occurred_at is None for a in r.actions)


@pytest.mark.parametrize(
    "text",
    [
        "Bit of news: I've started seeing someone, Rafael, we met at climbing.",
        "The interview went well and I have joined St. John's College of Nursing as a tutor.",
        "maybe ill switch to a vegan diet next year, not sure yet",
        "Just moved to lisbon, still surrounded by boxes",
    ],
)
def test_how_a_turn_was_typed_does_not_change_what_it_says(text: str) -> None:
    """Curly apostrophes, doubled spaces and a capital where a phone puts one give the same
    items as the plain spelling."""

    def said(r: RawExtraction) -> set[str]:
        return {i.key().casefold() for i in items_of(r) if i.kind not in ("entity", "instruction")}

    plain = said(run(text))
    assert plain
    if "'" in text:
        assert said(run(text.replace("'", "\u2019"))) == plain
    assert said(run(text.replace(" ", "  "))) == plain
    assert said(run(text[0].lower() + text[1:])) == plain
