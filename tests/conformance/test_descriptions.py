"""Generated entity descriptions are rebuilt from current facts and read as sentences; a
description a person wrote is never overwritten. Turns go through the default extractor."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import turngraph

from .helpers import entity


def say(mem: turngraph.Memory, *turns: tuple[str, str]) -> None:
    for i, (speaker, text) in enumerate(turns):
        mem.remember(text, speaker=speaker, observed_at=f"2024-0{i + 1}-01T10:00:00Z")


def described(mem: turngraph.Memory, name: str) -> str:
    return mem.get_entity(name).description


def test_a_promotion_rewrites_the_generated_description(mem: turngraph.Memory) -> None:
    say(mem, ("Alice", "I'm Head of Platform at Acme."), ("Alice", "I got promoted to CTO!"))
    assert [v.value for v in mem.entity_history("person", "Alice", "job_title")] == [
        "Head of Platform",
        "CTO",
    ]
    text = described(mem, "Alice")
    assert "CTO" in text
    assert "Head of Platform" not in text


def test_generated_descriptions_read_as_sentences(mem: turngraph.Memory) -> None:
    say(mem, ("Dana", "My sister Ines lives in Leeds."), ("Dana", "I work at Acme."))
    assert described(mem, "Ines") == "Ines is Dana's sibling and lives in Leeds."
    assert described(mem, "Acme") == "Acme: Dana works there."
    for e in mem.list_entities(limit=50):
        assert " them" not in e.description
        assert f"({e.type})" not in e.description
        assert e.description.endswith(".")


def test_a_move_leaves_the_old_place_out_of_both_descriptions(mem: turngraph.Memory) -> None:
    say(mem, ("Maya", "I live in Manchester."), ("Maya", "We moved to Bristol!"))
    assert "Manchester" not in described(mem, "Maya")
    assert "Bristol" in described(mem, "Maya")
    assert "Maya" not in described(mem, "Manchester")
    assert described(mem, "Bristol") == "Bristol: Maya lives there."


def test_a_description_a_person_wrote_is_never_overwritten(mem: turngraph.Memory) -> None:
    mem.add_observation(
        title="Contacts",
        content="Alice is our main contact at Acme.",
        entities=[entity("Alice", "Our main contact at Acme; signs off the pilot")],
    )
    mem.remember(
        "Lisbon trip is on",
        infer="triples",
        triples=[
            {
                "entity": {"type": "event", "name": "Lisbon trip", "description": "Team offsite"},
                "key": "date",
                "value": "12 May",
            }
        ],
    )
    say(mem, ("Alice", "I'm Head of Platform at Acme."), ("Alice", "I got promoted to CTO!"))
    mem.remember("The Lisbon trip moved to 3 June.", speaker="Alice")
    assert described(mem, "Alice") == "Our main contact at Acme; signs off the pilot"
    assert described(mem, "Lisbon trip") == "Team offsite"


def test_deleting_the_written_description_brings_back_a_generated_one(
    mem: turngraph.Memory,
) -> None:
    written = mem.add_observation(
        title="Contacts",
        content="Alice is our main contact.",
        entities=[entity("Alice", "Our main contact")],
    )
    say(mem, ("Alice", "I'm Head of Platform at Acme."))
    mem.delete_observation(written.observation.slug)
    assert described(mem, "Alice") == "Alice works at Acme and works as a Head of Platform."


def test_descriptions_generated_before_the_upgrade_stop_counting_as_written(
    tmp_path: Path,
) -> None:
    # An upgrade of an SQLite file made by an earlier version (PostgreSQL never stored them).
    path = tmp_path / "old.db"
    db = turngraph.open(path)
    mem = db.create_memory("old")
    mem.remember("My sister Ines lives in Leeds.", speaker="Dana")
    db.close()
    # What earlier versions stored: the generated text as the turn's assertion.
    with sqlite3.connect(path) as conn:
        conn.execute(
            "UPDATE observation_entities SET description = 'Ines (person): Dana sibling of them' "
            "WHERE entity_id = (SELECT id FROM entities WHERE name = 'Ines')"
        )
        conn.execute("DELETE FROM _migrations WHERE name = '0010_generated_descriptions'")
    reopened = turngraph.open(path)
    try:
        mem = reopened.memory("old")
        mem.remember("Ines moved to York.", speaker="Dana")
        assert described(mem, "Ines") == "Ines is Dana's sibling and lives in York."
    finally:
        reopened.close()
