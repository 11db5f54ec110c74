"""Slugs, merging updates, review hints, pruning deletes and idempotent writes."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

import turngraph

from .helpers import check_graph_invariants, counts, entity, rel


def test_slugs_come_from_the_title_are_unique_and_survive_title_edits(
    mem: turngraph.Memory,
) -> None:
    first = mem.add_observation(title="Kickoff with Acme!", content="one")
    second = mem.add_observation(title="Kickoff  with ACME", content="two")
    assert first.observation.slug == "kickoff-with-acme"
    assert second.observation.slug == "kickoff-with-acme-2"
    edited = mem.update_observation("kickoff-with-acme", title="Renamed meeting")
    assert edited.observation.slug == "kickoff-with-acme"
    assert edited.observation.title == "Renamed meeting"
    again = mem.update_observation(first.observation.slug, content="still reachable")
    assert mem.get_observation("kickoff-with-acme").content == "still reachable"
    assert again.observation.title == "Renamed meeting"


def test_a_deleted_slug_is_never_reused_and_reads_say_it_was_deleted(
    mem: turngraph.Memory,
) -> None:
    mem.add_observation(title="Plan", content="v1")
    mem.delete_observation("plan")
    with pytest.raises(turngraph.NotFoundError, match="was deleted"):
        mem.get_observation("plan")
    assert mem.add_observation(title="Plan", content="v2").observation.slug == "plan-2"
    with pytest.raises(turngraph.NotFoundError, match="no observation"):
        mem.update_observation("never-existed", content="x")


def test_observation_fields_round_trip(mem: turngraph.Memory) -> None:
    res = mem.add_observation(
        title="Call",
        content="Body",
        category="Meeting",
        tags=["Acme", "acme", " pilot "],
        observed_at="2024-05-20T14:00:00+02:00",
        confidence=0.8,
        source="https://example.invalid/notes/1",
    )
    obs = mem.get_observation(res.observation.slug)
    assert obs.category == "meeting"
    assert obs.tags == ["acme", "pilot"]
    assert obs.observed_at == datetime(2024, 5, 20, 12, 0, tzinfo=UTC)
    assert obs.confidence == 0.8
    assert obs.source == "https://example.invalid/notes/1"
    assert obs == res.observation


def test_updates_merge_entities_and_keep_what_was_omitted(mem: turngraph.Memory) -> None:
    res = mem.add_observation(
        title="Team",
        content="Alice and Bob work at Acme.",
        entities=[entity("Alice", "Engineer"), entity("Bob"), entity("Acme", type="organization")],
        relationships=[rel("Alice", "works_at", "Acme"), rel("Bob", "works_at", "Acme")],
    )
    slug = res.observation.slug
    updated = mem.update_observation(
        slug,
        entities=[entity("Alice", "Engineering manager"), entity("Carol")],
        relationships=[rel("Carol", "reports_to", "Alice")],
    )
    assert updated.observation.entities == ["Alice", "Bob", "Acme", "Carol"]
    assert len(updated.observation.relationships) == 3
    assert mem.get_entity("Alice").description == "Engineering manager"  # caller wins
    assert mem.get_entity("Bob").degree == 1  # omitted: kept
    assert mem.get_entity("Alice").degree == 2
    check_graph_invariants(mem, {slug})


def test_removal_is_explicit_and_prunes_what_nothing_else_backs(mem: turngraph.Memory) -> None:
    a = mem.add_observation(
        title="a",
        content="a",
        entities=[entity("Alice"), entity("Bob"), entity("Acme", type="organization")],
        relationships=[rel("Alice", "works_at", "Acme"), rel("Bob", "knows", "Alice")],
    ).observation.slug
    b = mem.add_observation(
        title="b", content="b", entities=[entity("Acme", type="organization")]
    ).observation.slug
    with pytest.raises(turngraph.ValidationError, match="'Nobody' is not part"):
        mem.update_observation(a, remove_entities=["Bob", "Nobody"])
    res = mem.update_observation(
        a,
        remove_entities=["Bob"],
        remove_relationships=[rel("Alice", "works_at", "Acme")],
    )
    assert "Bob" not in res.observation.entities
    assert res.observation.relationships == []
    assert any("'Bob' was removed" in w for w in res.warnings)
    with pytest.raises(turngraph.NotFoundError):
        mem.get_entity("Bob")
    assert mem.get_entity("Alice").degree == 0
    assert mem.get_entity("Acme").observations == [b, a]
    check_graph_invariants(mem, {a, b})


def test_adding_and_removing_one_entity_in_one_update_is_rejected(mem: turngraph.Memory) -> None:
    slug = mem.add_observation(title="a", content="a", entities=[entity("Alice")]).observation.slug
    with pytest.raises(turngraph.ValidationError, match="both added and removed"):
        mem.update_observation(slug, entities=[entity("alice")], remove_entities=["Alice"])


def test_a_material_description_change_returns_a_review_hint_and_rewrites_nothing(
    mem: turngraph.Memory,
) -> None:
    mem.add_observation(
        title="a",
        content="a",
        entities=[entity("Alice", "CEO of Acme"), entity("Acme", type="organization")],
        relationships=[rel("Alice", "leads", "Acme", description="runs the company")],
    )
    cosmetic = mem.add_observation(
        title="b", content="b", entities=[entity("alice", "ceo of acme.")]
    )
    assert cosmetic.hints == []
    material = mem.add_observation(
        title="c", content="c", entities=[entity("Alice", "Former CEO; now an advisor to Acme")]
    )
    (hint,) = material.hints
    assert hint.entity == "Alice"
    assert hint.old_description == "ceo of acme."
    assert hint.new_description == "Former CEO; now an advisor to Acme"
    assert [(r.source, r.type, r.target, r.description) for r in hint.relationships] == [
        ("Alice", "leads", "Acme", "runs the company")
    ]
    assert mem.get_entity("Acme").relationships[0].description == "runs the company"


def test_deleting_an_observation_prunes_only_what_it_alone_backed(mem: turngraph.Memory) -> None:
    a = mem.add_observation(
        title="a",
        content="a",
        entities=[
            entity("Alice", "Engineer at Acme"),
            entity("Acme", type="organization"),
            entity("Zed"),
        ],
        relationships=[rel("Alice", "works_at", "Acme"), rel("Zed", "knows", "Alice")],
    ).observation.slug
    b = mem.add_observation(
        title="b",
        content="b",
        entities=[entity("Alice", "Promoted to CTO of Acme")],
        relationships=[rel("Alice", "works_at", "Acme", description="CTO")],
    ).observation.slug
    gone = mem.delete_observation(b)
    assert gone.observation.slug == b
    assert gone.pruned_entities == []
    assert gone.pruned_relationships == []
    alice = mem.get_entity("Alice")
    assert alice.description == "Engineer at Acme"  # the deleted assertion no longer counts
    works_at = next(r for r in alice.relationships if r.type == "works_at")
    assert works_at.description == ""  # "CTO" came from the deleted observation
    assert alice.degree == 2
    gone = mem.delete_observation(a)
    assert sorted(gone.pruned_entities) == ["Acme", "Alice", "Zed"]
    assert len(gone.pruned_relationships) == 2
    assert counts(mem) == (0, 0, 0, 0)


def test_degrees_are_recomputed_after_a_delete(mem: turngraph.Memory) -> None:
    mem.add_observation(
        title="a",
        content="a",
        entities=[entity("Alice"), entity("Bob")],
        relationships=[rel("Alice", "knows", "Bob")],
    )
    c = mem.add_observation(
        title="c",
        content="c",
        entities=[entity("Carol")],
        relationships=[rel("Carol", "knows", "Alice")],
    ).observation.slug
    assert mem.get_entity("Alice").degree == 2
    mem.delete_observation(c)
    assert mem.get_entity("Alice").degree == 1
    check_graph_invariants(mem, {"a"})


def test_replaying_an_idempotency_key_returns_the_first_result_and_writes_nothing(
    mem: turngraph.Memory,
) -> None:
    request = {
        "title": "Kickoff",
        "content": "Alice met us.",
        "entities": [{"name": "Alice", "description": "Contact", "type": "person"}],
        "tags": ["acme"],
    }
    first = mem.add_observation(**request, idempotency_key="turn-1")
    # The same request in another canonical spelling: key order and name spacing differ.
    again = mem.add_observation(
        content="Alice met us.",
        title="Kickoff",
        tags=["acme"],
        entities=[{"type": "person", "description": "Contact", "name": " Alice "}],
        idempotency_key="turn-1",
    )
    assert again.replayed
    assert not first.replayed
    assert again.observation == first.observation
    assert counts(mem) == (1, 1, 0, 0)
    with pytest.raises(turngraph.IdempotencyConflictError) as err:
        mem.add_observation(**{**request, "content": "Something else"}, idempotency_key="turn-1")
    assert isinstance(err.value, turngraph.ConflictError)
    assert counts(mem) == (1, 1, 0, 0)


def test_update_and_delete_replays_are_idempotent_too(mem: turngraph.Memory) -> None:
    slug = mem.add_observation(title="a", content="a").observation.slug
    u1 = mem.update_observation(slug, content="b", idempotency_key="u")
    u2 = mem.update_observation(slug, content="b", idempotency_key="u")
    assert u2.replayed
    assert u2.observation == u1.observation
    d1 = mem.delete_observation(slug, idempotency_key="d")
    d2 = mem.delete_observation(slug, idempotency_key="d")
    assert d2.replayed
    assert d2.pruned_entities == d1.pruned_entities
    with pytest.raises(turngraph.NotFoundError):
        mem.delete_observation(slug)
