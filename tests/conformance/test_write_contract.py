"""The write contract: what a write must carry, and that a rejected write leaves nothing."""

from __future__ import annotations

from typing import Any

import pytest

import turngraph
from turngraph.config import Limits, Settings

from .conftest import Opener
from .helpers import counts, entity, rel


@pytest.mark.parametrize("description", [None, "", "   \n\t"])
def test_an_entity_without_a_description_is_rejected_naming_the_entity_and_field(
    mem: turngraph.Memory, description: str | None
) -> None:
    ents: list[dict[str, Any]] = [entity("Alice"), {"name": "Acme Corp", "type": "organization"}]
    if description is not None:
        ents[1]["description"] = description
    with pytest.raises(turngraph.ValidationError) as err:
        mem.add_observation(title="Kickoff", content="text", entities=ents)
    assert err.value.field == "entities[1].description"
    assert err.value.entity == "Acme Corp"
    assert "Acme Corp" in str(err.value)
    assert "description" in str(err.value)
    assert counts(mem) == (0, 0, 0, 0)


def test_a_relationship_to_an_entity_neither_written_nor_stored_is_rejected(
    mem: turngraph.Memory,
) -> None:
    with pytest.raises(turngraph.ValidationError) as err:
        mem.add_observation(
            title="Kickoff",
            content="Alice works at Acme.",
            entities=[entity("Alice")],
            relationships=[rel("Alice", "works_at", "Acme Corp")],
        )
    assert err.value.field == "relationships[0].target"
    assert "Acme Corp" in str(err.value)
    assert counts(mem) == (0, 0, 0, 0)


def test_a_relationship_may_point_at_an_entity_already_in_the_memory(
    mem: turngraph.Memory,
) -> None:
    mem.add_observation(title="Acme", content="Acme.", entities=[entity("Acme Corp")])
    res = mem.add_observation(
        title="Alice",
        content="Alice joined Acme.",
        entities=[entity("Alice")],
        relationships=[rel("alice", "works at", "ACME CORP")],
    )
    assert [(r.source, r.type, r.target) for r in res.observation.relationships] == [
        ("Alice", "works_at", "Acme Corp")
    ]
    assert res.observation.entities == ["Alice", "Acme Corp"]
    assert mem.get_entity("Acme Corp").degree == 1


def test_a_write_that_fails_midway_rolls_back_everything(mem: turngraph.Memory) -> None:
    # "Robert Smith" becomes an alias of "Bob Smith"; a relationship between the two names
    # is only found to be a self-loop after the observation row was inserted.
    mem.add_observation(title="a", content="a", entities=[entity("Bob Smith")])
    mem.add_observation(title="b", content="b", entities=[entity("Smith, Bob")])
    (proposal,) = mem.consolidate()
    mem.accept_proposal(proposal.id)
    before = counts(mem)
    with pytest.raises(turngraph.ValidationError, match="two different entities"):
        mem.add_observation(
            title="c",
            content="c",
            entities=[entity("Carol")],
            relationships=[rel("Bob Smith", "knows", "Smith, Bob")],
        )
    assert counts(mem) == before
    with pytest.raises(turngraph.NotFoundError):
        mem.get_entity("Carol")


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"title": 5}, "title"),
        ({"title": "  "}, "title"),
        ({"content": ["not", "text"]}, "content"),
        ({"content": ""}, "content"),
        ({"title": "bad\x00title"}, "title"),
        ({"content": "lone \ud800 surrogate"}, "content"),
        ({"tags": "acme"}, "tags"),
        ({"tags": ["ok", 3]}, "tags[1]"),
        ({"confidence": 1.5}, "confidence"),
        ({"confidence": "high"}, "confidence"),
        ({"observed_at": "yesterday"}, "observed_at"),
        ({"entities": {"name": "Alice"}}, "entities"),
        ({"entities": ["Alice"]}, "entities[0]"),
        ({"entities": [{"name": "Alice", "description": "x", "age": 3}]}, "entities[0]"),
        ({"entities": [{"name": "  ...  ", "description": "x"}]}, "entities[0].name"),
        (
            {"entities": [{"name": "A", "type": "no/slashes", "description": "x"}]},
            "entities[0].type",
        ),
        ({"relationships": [{"source": "A", "target": "B"}]}, "relationships[0].type"),
        (
            {"entities": [entity("A")], "relationships": [rel("A", "likes", " a ")]},
            "relationships[0]",
        ),
        (
            {
                "entities": [entity("A"), entity("B")],
                "relationships": [rel("A", "x", "B", weight=-1)],
            },
            "relationships[0].weight",
        ),
        ({"idempotency_key": ""}, "idempotency_key"),
    ],
)
def test_bad_input_is_rejected_with_the_field_named_and_nothing_written(
    mem: turngraph.Memory, kwargs: dict[str, Any], field: str
) -> None:
    request: dict[str, Any] = {"title": "Note", "content": "Body", **kwargs}
    with pytest.raises(turngraph.ValidationError) as err:
        mem.add_observation(**request)
    assert err.value.field == field
    assert counts(mem) == (0, 0, 0, 0)


def test_hostile_strings_are_stored_verbatim(mem: turngraph.Memory) -> None:
    content = "'); DROP TABLE observations; --\n<script>alert(1)</script>\n  trailing  "
    res = mem.add_observation(
        title="Robert'); DROP TABLE entities;--",
        content=content,
        entities=[entity('O\'Brien "The Hammer"', description="%s %d {0} ${x} \\x00")],
    )
    stored = mem.get_observation(res.observation.slug)
    assert stored.content == content
    assert stored.title == "Robert'); DROP TABLE entities;--"
    assert mem.get_entity('o\'brien "the hammer"').description == "%s %d {0} ${x} \\x00"


def test_content_over_the_soft_cap_is_accepted_with_a_warning(mem: turngraph.Memory) -> None:
    long = "word " * 500  # 2,500 characters
    res = mem.add_observation(title="Long", content=long)
    assert mem.get_observation(res.observation.slug).content == long
    (warning,) = res.warnings
    assert "2,500 characters" in warning
    assert "split" in warning
    assert "appendix" in warning


def test_content_over_the_hard_limit_is_rejected_saying_so(backend: Opener) -> None:
    mem = backend(Settings(limits=Limits(content_hard_chars=5_000))).create_memory("m")
    with pytest.raises(turngraph.TooLargeError) as err:
        mem.add_observation(title="Huge", content="x" * 5_001)
    assert "5,001 characters" in str(err.value)
    assert "5,000" in str(err.value)
    assert err.value.field == "content"
    assert counts(mem) == (0, 0, 0, 0)


def test_too_many_entities_in_one_write_is_rejected(backend: Opener) -> None:
    mem = backend(Settings(limits=Limits(entities_per_write=3))).create_memory("m")
    with pytest.raises(turngraph.TooLargeError, match="limit per write is 3"):
        mem.add_observation(
            title="t", content="c", entities=[entity(n) for n in ("A", "B", "C", "D")]
        )
