"""One entity per name, merging writes, and the neighborhoods that writes return."""

from __future__ import annotations

import pytest

import turngraph
from turngraph.config import Limits, Settings

from .conftest import Opener
from .helpers import entity, rel


@pytest.mark.parametrize(
    "variant",
    [" acme  corp", "ACME CORP", "Acme Corp.", '"Acme Corp"', "Ａｃｍｅ Corp", "(acme corp)"],
)
def test_names_that_differ_in_case_spacing_width_or_punctuation_are_one_entity(
    mem: turngraph.Memory, variant: str
) -> None:
    mem.add_observation(
        title="one", content="x", entities=[entity("Acme Corp", type="organization")]
    )
    res = mem.add_observation(
        title="two", content="y", entities=[entity(variant, type="organization")]
    )
    (touched,) = res.entities
    assert touched.name == "Acme Corp"
    assert not touched.is_new
    assert [e.name for e in mem.list_entities()] == ["Acme Corp"]
    assert mem.get_entity(variant).observations == ["two", "one"]


def test_repeated_writes_merge_newer_description_wins_and_retrieval_queries_union(
    mem: turngraph.Memory,
) -> None:
    mem.add_observation(
        title="one",
        content="x",
        entities=[
            entity(
                "Acme", "A customer", type="organization", retrieval_queries=["who buys from us?"]
            )
        ],
    )
    mem.add_observation(
        title="two",
        content="y",
        entities=[
            {
                "name": "acme",
                "description": "Our biggest customer",
                "retrieval_queries": ["who is our biggest customer?", "who buys from us?"],
            }
        ],
    )
    acme = mem.get_entity("Acme")
    assert acme.description == "Our biggest customer"
    assert acme.type == "organization"  # an omitted type keeps the known one
    assert sorted(acme.retrieval_queries) == ["who buys from us?", "who is our biggest customer?"]
    assert len(mem.list_entities()) == 1


def test_a_write_returns_each_touched_entity_with_its_neighborhood(mem: turngraph.Memory) -> None:
    mem.add_observation(
        title="org",
        content="x",
        entities=[entity("Acme", type="organization"), entity("Bob")],
        relationships=[rel("Bob", "works_at", "Acme", description="sales lead")],
    )
    res = mem.add_observation(
        title="alice",
        content="Alice joined Acme.",
        entities=[entity("Alice")],
        relationships=[rel("Alice", "works_at", "Acme")],
    )
    by_name = {e.name: e for e in res.entities}
    assert set(by_name) == {"Alice", "Acme"}
    assert by_name["Alice"].is_new
    assert not by_name["Acme"].is_new
    acme_edges = {(r.source, r.type, r.target) for r in by_name["Acme"].relationships}
    assert acme_edges == {("Bob", "works_at", "Acme"), ("Alice", "works_at", "Acme")}
    assert by_name["Acme"].degree == 2
    assert not by_name["Acme"].truncated


def test_a_neighborhood_is_bounded_and_says_when_it_was_cut(backend: Opener) -> None:
    mem = backend(Settings(limits=Limits(neighborhood_relationships=3))).create_memory("m")
    people = [f"Person {i}" for i in range(5)]
    mem.add_observation(
        title="staff",
        content="x",
        entities=[entity("Acme", type="organization"), *[entity(p) for p in people]],
        relationships=[rel(p, "works_at", "Acme") for p in people],
    )
    res = mem.add_observation(
        title="again", content="y", entities=[entity("Acme", type="organization")]
    )
    (acme,) = res.entities
    assert acme.degree == 5
    assert len(acme.relationships) == 3
    assert acme.truncated
    assert acme.note is not None
    assert "3 of 5" in acme.note


def test_get_entity_of_an_unknown_name_is_not_found(mem: turngraph.Memory) -> None:
    with pytest.raises(turngraph.NotFoundError) as err:
        mem.get_entity("Nobody")
    assert err.value.entity == "Nobody"


def test_list_entities_filters_by_type_and_orders_by_degree(mem: turngraph.Memory) -> None:
    mem.add_observation(
        title="t",
        content="c",
        entities=[entity("Acme", type="organization"), entity("Alice"), entity("Bob")],
        relationships=[rel("Alice", "works_at", "Acme"), rel("Bob", "works_at", "Acme")],
    )
    assert mem.list_entities()[0].name == "Acme"
    assert [e.name for e in mem.list_entities("person")] == ["Alice", "Bob"]
    assert [e.name for e in mem.list_entities("Organization")] == ["Acme"]
    with pytest.raises(turngraph.ValidationError):
        mem.list_entities(limit=0)
