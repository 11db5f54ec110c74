"""Corrective removals: forget by query, delete an entity."""

from __future__ import annotations

import pytest

import turngraph
from turngraph.errors import NotFoundError, ValidationError

from .helpers import check_graph_invariants, entity, rel


def test_forget_removes_matching_turns_and_what_only_they_taught(
    mem: turngraph.Memory,
) -> None:
    first = mem.remember("I work at Acme as VP of sales.", speaker="Dana")
    mem.remember("I work at Acme as CTO now.", speaker="Dana", session_id=first.session_id)
    kept = mem.remember("My dog Rex loves the beach.", speaker="Dana")
    assert mem.state().identity.attributes  # the job title is known
    preview = mem.forget("work Acme", dry_run=True)
    assert (preview.deleted, preview.dry_run) == (2, True)
    assert len(mem.list_turns(first.session_id).turns) == 2  # nothing removed yet
    done = mem.forget("work Acme", purge=True)
    assert done.deleted == 2
    assert sorted(done.observations) == sorted(preview.observations)
    assert mem.list_turns(first.session_id).turns == []
    assert all(
        a.key != "job_title"
        for c in ("identity", "knowledge", "context")
        for a in getattr(mem.state(), c).attributes
    )
    assert "Acme" in done.pruned_entities  # only the forgotten turns named it
    assert mem.recall("Acme CTO", include=("passages",)).hits[0].source.turn_id == kept.turn_id
    assert mem.forget("nothing matches this").deleted == 0
    with pytest.raises(ValidationError, match="searchable words"):
        mem.forget("what is the?")
    with pytest.raises(ValidationError, match="non-empty"):
        mem.forget("  ")
    check_graph_invariants(mem, {t.slug for t in mem.list_turns(kept.session_id).turns})


def test_forget_without_purge_keeps_the_older_value_current(mem: turngraph.Memory) -> None:
    r = mem.remember("I work at Acme as VP of sales.", speaker="Dana")
    mem.remember("I just got promoted to CTO", speaker="Dana", session_id=r.session_id)
    history = mem.entity_history("person", "Dana", "job_title")
    assert [v.value for v in history] == ["VP of sales", "CTO"]
    mem.forget("CTO")
    history = mem.entity_history("person", "Dana", "job_title")
    assert [(v.value, v.valid_until) for v in history] == [("VP of sales", None)]


def test_delete_entity_removes_it_and_its_edges_but_not_the_notes(
    mem: turngraph.Memory,
) -> None:
    mem.add_observation(
        title="Kickoff",
        content="Alice leads Falcon for Acme.",
        entities=[
            entity("Alice", "Lead engineer"),
            entity("Falcon", "Billing project", type="project"),
            entity("Acme", "Customer", type="organization"),
        ],
        relationships=[rel("Alice", "leads", "Falcon"), rel("Falcon", "serves", "Acme")],
    )
    result = mem.delete_entity("Falcon", "project")
    assert (result.entity, result.relationships, result.unlinked_observations) == ("Falcon", 2, 1)
    with pytest.raises(NotFoundError):
        mem.get_entity("Falcon")
    assert "Falcon" not in {e.name for e in mem.list_entities()}
    assert mem.get_entity("Alice").degree == 0
    assert mem.get_observation("kickoff").content == "Alice leads Falcon for Acme."
    assert "Falcon" not in {e.name for e in mem.recall("Falcon billing project").entities}
    with pytest.raises(NotFoundError):
        mem.delete_entity("Alice", "organization")
    with pytest.raises(NotFoundError):
        mem.delete_entity("Nobody")
    check_graph_invariants(mem, {"kickoff"})
