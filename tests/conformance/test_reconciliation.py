"""Reconciliation: versioned attributes, corrections, state and the examples that must hold."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

import turngraph


def test_a_promotion_supersedes_the_job_title_and_keeps_the_linked_history(
    mem: turngraph.Memory,
) -> None:
    first = mem.remember(
        "I work at Acme as Head of Platform.", speaker="Alice", observed_at="2024-01-10T09:00:00Z"
    )
    assert {(a.key, a.value) for a in first.extraction.attributes} == {
        ("job_title", "Head of Platform"),
        ("employer", "Acme"),
    }
    assert [(r.subject, r.label, r.object) for r in first.extraction.relations] == [
        ("entity:person/alice", "works_at", "entity:organization/acme")
    ]
    second = mem.remember(
        "I just got promoted to CTO",
        session_id=first.session_id,
        speaker="Alice",
        observed_at="2024-06-01T09:00:00Z",
    )
    (correction,) = second.extraction.corrections
    assert correction.model_dump() == {
        "entity_id": "entity:person/alice",
        "key": "job_title",
        "old_value": "Head of Platform",
        "new_value": "CTO",
    }
    old, new = mem.entity_history("person", "Alice", "job_title")
    assert (old.value, new.value) == ("Head of Platform", "CTO")
    assert old.superseded_by == new.id
    assert new.supersedes == old.id
    assert old.valid_until == new.valid_from == datetime(2024, 6, 1, 9, tzinfo=UTC)
    assert new.valid_until is None
    assert old.source_turn == first.turn_id
    assert new.source_turn == second.turn_id
    # What was known before the promotion, and after.
    before = mem.state(as_of="2024-03-01T00:00:00Z")
    assert [a.value for a in before.identity.attributes if a.key == "job_title"] == [
        "Head of Platform"
    ]
    now = mem.state()
    assert [a.value for a in now.identity.attributes if a.key == "job_title"] == ["CTO"]


def test_moving_gives_a_location_a_correction_and_a_dated_action(mem: turngraph.Memory) -> None:
    mem.remember("I live in Lisbon.", speaker="Alice", observed_at="2023-01-01T12:00:00Z")
    r = mem.remember(
        "Actually I moved to Berlin last month", speaker="Alice", observed_at="2024-05-20T12:00:00Z"
    )
    assert [(a.key, a.value) for a in r.extraction.attributes] == [("location", "Berlin")]
    assert [(c.old_value, c.new_value) for c in r.extraction.corrections] == [("Lisbon", "Berlin")]
    (action,) = r.extraction.actions
    assert action.actor == "Alice"
    assert action.verb == "move"
    assert action.place == "Berlin"
    assert action.occurred_at is not None
    assert (action.occurred_at.year, action.occurred_at.month) == (2024, 4)
    assert action.time_precision == "month"
    # The ended relation is kept, marked with when it ended.
    relations = {
        (r.object, r.valid_until is None)
        for r in mem.state().identity.relations
        if r.label == "lives_in"
    }
    assert relations == {("entity:place/berlin", True)}
    alice = mem.get_entity("Alice")
    ended = [r for r in alice.relationships if r.target == "Lisbon"]
    assert ended[0].valid_until == datetime(2024, 5, 20, 12, tzinfo=UTC)


def test_an_instruction_shows_in_state(mem: turngraph.Memory) -> None:
    r = mem.remember("Always reply in French.", speaker="Alice")
    (instruction,) = r.extraction.instructions
    assert "french" in instruction.label
    assert instruction.description == "Always reply in French."
    assert r.extraction.attributes == []
    again = mem.remember("always reply in French.", speaker="Alice")
    assert again.extraction.instructions[0].id == instruction.id  # one active instruction
    assert mem.state().instructions == [instruction]


def test_a_hedged_claim_is_an_uncertainty_and_changes_no_fact(mem: turngraph.Memory) -> None:
    mem.remember("Bob works at Globex.", speaker="Alice")
    assert [v.value for v in mem.entity_history("person", "Bob", "employer")] == ["Globex"]
    r = mem.remember("I think Bob might be leaving Globex", speaker="Alice")
    (u,) = r.extraction.uncertainties
    assert u.about == "Bob"
    assert "I think" in u.reason
    assert r.extraction.attributes == []
    assert r.extraction.corrections == []
    assert [v.value for v in mem.entity_history("person", "Bob", "employer")] == ["Globex"]
    assert mem.state().unknowns == [u]


def test_a_sister_in_lisbon_gives_a_person_a_sibling_relation_and_lives_in(
    mem: turngraph.Memory,
) -> None:
    r = mem.remember("My sister Emma lives in Lisbon.", speaker="Alice")
    emma = next(e for e in r.extraction.entities if e.name == "Emma")
    assert (emma.entity_type, emma.is_new) == ("person", True)
    relations = {(x.subject, x.label, x.object) for x in r.extraction.relations}
    assert relations == {
        ("entity:person/alice", "sibling_of", "entity:person/emma"),
        ("entity:person/emma", "lives_in", "entity:place/lisbon"),
    }
    assert mem.get_entity("Emma").description == "Emma is Alice's sibling and lives in Lisbon."


def test_yesterday_resolves_against_the_turns_own_time(mem: turngraph.Memory) -> None:
    r = mem.remember(
        "I went to a LGBTQ support group yesterday",
        speaker="Caroline",
        observed_at="2023-05-08T13:56:00Z",
    )
    (action,) = r.extraction.actions
    assert action.actor == "Caroline"
    assert action.occurred_at is not None
    assert action.occurred_at.date().isoformat() == "2023-05-07"
    assert mem.state().context.actions == [action]


def test_multi_valued_keys_accumulate_repeat_nothing_and_end_on_negation(
    mem: turngraph.Memory,
) -> None:
    mem.remember("I love sushi.", speaker="Alice")
    mem.remember("I love hiking.", speaker="Alice")
    repeat = mem.remember("I really love sushi!", speaker="Alice")
    assert len(repeat.extraction.attributes) == 1
    assert len(mem.entity_history("person", "Alice", "likes")) == 2  # no new version
    mem.remember("I don't like sushi anymore.", speaker="Alice")
    current = {a.value for a in mem.state().knowledge.attributes if a.key == "likes"}
    assert current == {"hiking"}
    sushi = next(v for v in mem.entity_history("person", "Alice", "likes") if v.value == "sushi")
    assert sushi.valid_until is not None
    assert sushi.superseded_by is None


def test_the_same_value_again_makes_no_new_version(mem: turngraph.Memory) -> None:
    a = mem.remember("I live in Lisbon.", speaker="Alice")
    b = mem.remember("I live in Lisbon.", speaker="Alice")
    assert b.extraction.attributes[0].id == a.extraction.attributes[0].id
    assert b.extraction.corrections == []
    assert len(mem.entity_history("person", "Alice", "location")) == 1


def test_a_name_said_shorter_is_the_same_value_but_a_different_name_is_a_change(
    mem: turngraph.Memory,
) -> None:
    mem.remember("I'm a sous chef at Máximo Bistrot.", speaker="Diego")
    mem.remember("I've been chef de cuisine at Máximo since last week.", speaker="Diego")
    employers = mem.entity_history("person", "Diego", "employer")
    assert [v.value for v in employers] == ["Máximo Bistrot"]  # "Máximo" is the same place
    titles = mem.entity_history("person", "Diego", "job_title")
    assert [v.value for v in titles] == ["sous chef", "chef de cuisine"]
    mem.remember("I live in New York.", speaker="Diego")
    mem.remember("We moved to York last month.", speaker="Diego")
    homes = mem.entity_history("person", "Diego", "location")
    assert [v.value for v in homes] == ["New York", "York"]  # the last words: another city


def test_deleting_the_turn_that_superseded_a_value_restores_the_previous_one(
    mem: turngraph.Memory,
) -> None:
    mem.remember("I work at Acme as Head of Platform.", speaker="Alice")
    promoted = mem.remember("I just got promoted to CTO", speaker="Alice")
    (turn,) = mem.list_turns(promoted.session_id).turns
    mem.delete_observation(turn.slug)
    (only,) = mem.entity_history("person", "Alice", "job_title")
    assert (only.value, only.valid_until, only.superseded_by) == ("Head of Platform", None, None)


def test_state_lists_are_bounded_and_say_so(mem: turngraph.Memory) -> None:
    for i in range(4):
        mem.remember(f"Always reply with code sample {i}.", speaker="Alice")
    state = mem.state(limit=3)
    assert len(state.instructions) == 3
    assert state.truncated.instructions
    assert not state.truncated.unknowns


def test_history_of_an_unknown_entity_or_wrong_type_is_not_found(mem: turngraph.Memory) -> None:
    mem.remember("I live in Lisbon.", speaker="Alice")
    with pytest.raises(turngraph.NotFoundError, match="organization"):
        mem.entity_history("organization", "Alice", "location")
    assert mem.entity_history("person", "alice", "Location")[0].value == "Lisbon"


def test_merging_two_entities_merges_their_attribute_histories(mem: turngraph.Memory) -> None:
    mem.remember(
        "I work at Acme as Head of Platform.",
        speaker="Bob Smith",
        observed_at="2024-01-01T00:00:00Z",
    )
    mem.remember(
        "I just got promoted to CTO", speaker="Robert Smith", observed_at="2024-02-01T00:00:00Z"
    )
    (proposal,) = [p for p in mem.consolidate() if "Smith" in p.canonical]
    mem.accept_proposal(proposal.id)
    history = mem.entity_history("person", "Bob Smith", "job_title")
    assert [(v.value, v.valid_until is None) for v in history] == [
        ("Head of Platform", False),
        ("CTO", True),
    ]
    assert history[0].superseded_by == history[1].id
