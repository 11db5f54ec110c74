"""The rule extractor on single messages: what it must catch and what it must leave alone."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from turngraph.extract.base import RawExtraction, TurnContext
from turngraph.extract.rules import RuleExtractor
from turngraph.extract.timeref import resolve_time

REF = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)  # a Monday


def run(text: str, speaker: str = "Alice", role: str = "user") -> RawExtraction:
    return RuleExtractor().extract(text, TurnContext(speaker=speaker, role=role, observed_at=REF))


def attrs(r: RawExtraction) -> set[tuple[str, str, str]]:
    return {(a.entity, a.key, a.value) for a in r.attributes}


def rels(r: RawExtraction) -> set[tuple[str, str, str]]:
    return {(x.subject, x.label, x.object) for x in r.relations}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("yesterday", "2023-05-07"),
        ("the day before yesterday", "2023-05-06"),
        ("last Friday", "2023-05-05"),
        ("on Monday", "2023-05-01"),
        ("two weeks ago", "2023-04-24"),
        ("3 days ago", "2023-05-05"),
        ("a few days ago", "2023-05-05"),
        ("last month", "2023-04-08"),
        ("last year", "2022-05-08"),
        ("last weekend", "2023-05-06"),
        ("on May 5th", "2023-05-05"),
        ("on 5 June", "2022-06-05"),
        ("8 March, 2021", "2021-03-08"),
        ("2020-02-29", "2020-02-29"),
        ("in 2019", "2019-01-01"),
    ],
)
def test_time_expressions_resolve_against_the_turn(text: str, expected: str) -> None:
    found = resolve_time(f"I did it {text}", REF)
    assert found is not None
    assert found[0].date().isoformat() == expected


def test_a_clause_without_a_time_resolves_to_nothing() -> None:
    assert resolve_time("I like green tea", REF) is None


def test_identity_facts_about_the_speaker() -> None:
    r = run("My name is Alice Moreau. I'm 34 years old and my email is alice@example.com.")
    assert {
        ("Alice", "name", "Alice Moreau"),
        ("Alice", "age", "34"),
        ("Alice", "email", "alice@example.com"),
    } <= attrs(r)
    r = run("I'm a software engineer at Google.")
    assert attrs(r) == {
        ("Alice", "job_title", "software engineer"),
        ("Alice", "employer", "Google"),
    }
    assert rels(r) == {("Alice", "works_at", "Google")}
    assert {(e.name, e.type) for e in r.entities} >= {("Google", "organization")}
    assert attrs(run("I just got married!")) == {("Alice", "relationship_status", "married")}
    assert attrs(run("My birthday is on March 3rd.")) == {("Alice", "birthday", "March 3rd")}
    assert attrs(run("My phone number is +1 415 555 0100.")) == {
        ("Alice", "phone", "+1 415 555 0100")
    }


def test_preferences_pets_and_hobbies() -> None:
    assert attrs(run("I love hiking and I have a dog named Max.")) == {
        ("Alice", "likes", "hiking"),
        ("Alice", "pets", "dog Max"),
    }
    assert attrs(run("I can't stand olives.")) == set()  # negated form: no fact
    assert attrs(run("I hate traffic.")) == {("Alice", "dislikes", "traffic")}
    assert attrs(run("My hobbies are pottery and chess.")) == {
        ("Alice", "hobbies", "pottery"),
        ("Alice", "hobbies", "chess"),
    }
    r = run("I don't like sushi anymore.")
    assert [(a.key, a.value, a.negated) for a in r.attributes] == [("likes", "sushi", True)]
    assert attrs(run("I speak French and Spanish.")) == {
        ("Alice", "languages", "French"),
        ("Alice", "languages", "Spanish"),
    }


def test_family_work_and_place_relations() -> None:
    assert rels(run("My brother Tom works at Initech.")) == {
        ("Alice", "sibling_of", "Tom"),
        ("Tom", "works_at", "Initech"),
    }
    assert rels(run("My daughter Zoe and my husband Mark went to Paris.")) >= {
        ("Alice", "parent_of", "Zoe"),
        ("Alice", "married_to", "Mark"),
    }
    assert rels(run("My mom Ruth lives in Boston.")) == {
        ("Ruth", "parent_of", "Alice"),
        ("Ruth", "lives_in", "Boston"),
    }
    assert rels(run("I manage the Platform Team.")) == {("Alice", "manages", "Platform Team")}
    assert rels(run("Sam reports to me.")) == {("Alice", "manages", "Sam")}
    assert rels(run("My best friend Priya Shah moved to Toronto.")) >= {
        ("Alice", "friend_of", "Priya Shah")
    }
    assert rels(run("I'm a member of the Chess Club.")) == {("Alice", "member_of", "Chess Club")}


def test_instructions_are_aimed_at_the_agent_not_at_a_friend() -> None:
    assert [i.description for i in run("Always reply in French.").instructions] == [
        "Always reply in French."
    ]
    assert run("Never mention competitors by name.").instructions
    assert run("I want you to keep answers short.").instructions
    assert run("Use metric units.").instructions
    call = run("Call me Sam.")
    assert call.instructions
    assert attrs(call) == {("Alice", "preferred_name", "Sam")}
    for chatter in ("Keep it up!", "Never give up.", "Check out this photo.", "Take care!"):
        assert run(chatter).instructions == (), chatter
    assert run("Always reply in French.", role="assistant").instructions == ()


def test_hedged_questioned_and_negated_claims_are_uncertain_not_facts() -> None:
    hedged = run("I think Bob might be leaving Globex.")
    assert [u.about for u in hedged.uncertainties] == ["Bob"]
    assert hedged.attributes == ()
    assert hedged.relations == ()
    asked = run("Is Bob still at Globex?")
    assert [u.about for u in asked.uncertainties] == ["Bob"]
    negated = run("I'm not married.")
    assert [u.about for u in negated.uncertainties] == ["Alice"]
    assert negated.attributes == ()
    maybe_me = run("Maybe I will move to Rome.")
    assert maybe_me.attributes == ()
    assert run("Can you show me one of Oscar?").uncertainties == ()
    assert run("I believe in you!").uncertainties == ()


def test_actions_carry_actor_verb_object_and_time() -> None:
    (action,) = run("I went to a LGBTQ support group yesterday.", speaker="Caroline").actions
    assert (action.actor, action.verb, action.object) == (
        "Caroline",
        "went",
        "a LGBTQ support group",
    )
    assert action.occurred_at is not None
    assert action.occurred_at.date().isoformat() == "2023-05-07"
    (undated,) = run("Emma painted a sunset.").actions
    assert (undated.actor, undated.occurred_at) == ("Emma", None)
    assert run("I was so tired.").actions == ()


def test_greetings_and_sentence_capitals_are_not_entities() -> None:
    r = run("Hey Caroline! Seeing your art made my day. Thanks, Caroline!", speaker="Mel")
    assert r.entities == ()
    r = run("Painting is my therapy. I visited London with Oliver.", speaker="Mel")
    assert {(e.name, e.type) for e in r.entities} >= {("London", "place"), ("Oliver", "person")}
    assert "Painting" not in {e.name for e in r.entities}
