"""Consolidation proposes merges of variant names; only an accepted proposal merges."""

from __future__ import annotations

import pytest

import turngraph

from .helpers import check_graph_invariants, entity, rel


def _names(p: turngraph.MergeProposal) -> set[str]:
    return {p.canonical, p.duplicate}


def test_variant_person_and_organization_names_are_proposed_not_merged(
    mem: turngraph.Memory,
) -> None:
    mem.add_observation(title="a", content="a", entities=[entity("Bob Smith", "Sales lead")])
    mem.add_observation(title="b", content="b", entities=[entity("Robert Smith", "Sales")])
    mem.add_observation(
        title="c", content="c", entities=[entity("Smith, Bob", "Our sales contact")]
    )
    mem.add_observation(
        title="d",
        content="d",
        entities=[
            entity("Acme Corp", "Customer", type="organization"),
            entity("Acme Corporation", "Manufacturer", type="organization"),
            entity("Bob Jones", "Unrelated person"),
        ],
    )
    proposals = mem.consolidate()
    pairs = [_names(p) for p in proposals]
    assert {"Bob Smith", "Robert Smith"} in pairs
    assert {"Bob Smith", "Smith, Bob"} in pairs
    assert {"Robert Smith", "Smith, Bob"} in pairs
    assert {"Acme Corp", "Acme Corporation"} in pairs
    assert not any("Bob Jones" in pair for pair in pairs)
    for p in proposals:
        assert p.status == "open"
        assert p.reasons
    # Proposing is all it did.
    assert len(mem.list_entities()) == 6
    assert mem.consolidate() == []  # open pairs are not proposed twice


def test_same_type_entities_with_near_identical_descriptions_are_proposed(
    mem: turngraph.Memory,
) -> None:
    mem.add_observation(
        title="a",
        content="a",
        entities=[
            entity(
                "Project Falcon",
                "Internal migration of billing to the new ledger service",
                type="project",
            ),
            entity(
                "Falcon migration",
                "Internal migration of billing to the new ledger service.",
                type="project",
            ),
            entity(
                "Ledger team",
                "Internal migration of billing to the new ledger service",
                type="team",
            ),
        ],
    )
    (proposal,) = mem.consolidate()
    assert _names(proposal) == {"Project Falcon", "Falcon migration"}
    assert "near-identical descriptions" in proposal.reasons[0]


def test_accepting_a_merge_moves_edges_and_links_drops_self_loops_and_merges_duplicates(
    mem: turngraph.Memory,
) -> None:
    a = mem.add_observation(
        title="a",
        content="a",
        entities=[
            entity("Bob Smith", "Sales lead"),
            entity("Acme", type="organization"),
            entity("Carol"),
        ],
        relationships=[
            rel("Bob Smith", "works_at", "Acme", weight=0.5),
            rel("Carol", "knows", "Bob Smith"),
        ],
    ).observation.slug
    b = mem.add_observation(
        title="b",
        content="b",
        entities=[
            entity("Robert Smith", "Sales lead at Acme"),
            entity("Acme", type="organization"),
        ],
        relationships=[
            rel("Robert Smith", "works_at", "Acme", description="since 2020"),
            rel("Robert Smith", "same_as", "Bob Smith"),
        ],
    ).observation.slug
    (proposal,) = mem.consolidate()
    assert proposal.canonical == "Bob Smith"  # the better-connected entity survives
    result = mem.accept_proposal(proposal.id)
    assert result.proposal.status == "accepted"
    assert [(r.source, r.type, r.target) for r in result.dropped_self_loops] == [
        ("Robert Smith", "same_as", "Bob Smith")
    ]
    assert [(r.source, r.type, r.target) for r in result.merged_relationships] == [
        ("Robert Smith", "works_at", "Acme")
    ]
    bob = mem.get_entity("Robert Smith")  # the old name resolves to the survivor
    assert bob.name == "Bob Smith"
    assert bob.aliases == ["Robert Smith"]
    assert set(bob.observations) == {a, b}
    edges = {(r.source, r.type, r.target): r for r in bob.relationships}
    assert set(edges) == {("Bob Smith", "works_at", "Acme"), ("Carol", "knows", "Bob Smith")}
    assert edges[("Bob Smith", "works_at", "Acme")].description == "since 2020"
    assert bob.degree == 2
    assert mem.get_entity("Acme").degree == 1
    assert set(mem.get_observation(b).entities) == {"Bob Smith", "Acme"}
    check_graph_invariants(mem, {a, b})
    # Later writes under the merged-away name land on the survivor.
    res = mem.add_observation(
        title="c", content="c", entities=[entity("robert smith", "Sales lead")]
    )
    assert [e.name for e in res.entities] == ["Bob Smith"]
    with pytest.raises(turngraph.ConflictError, match="already accepted"):
        mem.accept_proposal(proposal.id)


def test_a_rejected_pair_is_never_proposed_again(mem: turngraph.Memory) -> None:
    mem.add_observation(
        title="a",
        content="a",
        entities=[
            entity("Acme Corp", type="organization"),
            entity("Acme Corporation", type="organization"),
        ],
    )
    (proposal,) = mem.consolidate()
    rejected = mem.reject_proposal(proposal.id)
    assert rejected.status == "rejected"
    assert rejected.decided_at is not None
    assert mem.consolidate() == []
    assert mem.list_proposals() == []
    assert [p.id for p in mem.list_proposals("rejected")] == [proposal.id]
    assert len(mem.list_entities()) == 2


def test_proposals_that_no_longer_apply_become_obsolete(mem: turngraph.Memory) -> None:
    mem.add_observation(
        title="a",
        content="a",
        entities=[entity("Bob Smith"), entity("Robert Smith"), entity("Smith, Bob")],
    )
    proposals = mem.consolidate()
    assert len(proposals) == 3
    mem.accept_proposal(proposals[0].id)
    mem.accept_proposal(mem.list_proposals()[0].id)
    assert mem.list_proposals() == []
    assert {p.status for p in mem.list_proposals(None)} == {"accepted", "obsolete"}
    assert len(mem.list_entities()) == 1
    with pytest.raises(turngraph.NotFoundError):
        mem.accept_proposal(999)
    with pytest.raises(turngraph.ValidationError):
        mem.list_proposals("pending")


def _chat(mem: turngraph.Memory, *turns: tuple[str, str]) -> None:
    session = None
    for speaker, text in turns:
        session = mem.remember(text, speaker=speaker, session_id=session).session_id


def test_places_and_people_mentioned_in_passing_are_not_proposed_as_one(
    mem: turngraph.Memory,
) -> None:
    _chat(
        mem,
        ("Maya", "We're going to Lisbon in May."),
        ("Maya", "Paris was lovely last spring, and Rome before that."),
        ("Sam", "Say hi to Priya and Tom for me."),
    )
    names = {e.name for e in mem.list_entities(limit=50)}
    assert {"Lisbon", "Paris", "Rome", "Priya", "Tom"} <= names
    assert mem.consolidate() == []


def test_a_first_name_and_the_full_name_the_same_speaker_said_are_proposed(
    mem: turngraph.Memory,
) -> None:
    _chat(
        mem,
        ("Maya", "Hi, I'm Maya Okafor, I work at Acme."),
        ("Maya", "Maya here again. My brother Tom lives in London."),
    )
    (proposal,) = mem.consolidate()
    assert _names(proposal) == {"Maya", "Maya Okafor"}
    assert "said by Maya" in proposal.reasons[0]


def test_a_first_name_is_not_proposed_when_two_surnames_share_it_or_nobody_said_both(
    mem: turngraph.Memory,
) -> None:
    _chat(
        mem,
        ("Maya", "Hi, I'm Maya Okafor, I work at Acme."),
        ("Maya", "Maya here again. My friend Maya Chen lives in Leeds."),
    )
    _chat(mem, ("Dana", "I'm Dana and I work at Globex."))
    _chat(mem, ("Sam", "I met Dana Smith at the gym."))
    assert mem.consolidate() == []


def test_names_that_look_alike_across_scripts_are_proposed_with_the_letter_named(
    mem: turngraph.Memory,
) -> None:
    mem.add_observation(title="a", content="a", entities=[entity("Alice Moreau", "Our auditor")])
    mem.add_observation(  # a Cyrillic capital A
        title="b", content="b", entities=[entity("\u0410lice Moreau", "Sent the invoice")]
    )
    mem.add_observation(  # both wholly in one script each: two different names
        title="c", content="c", entities=[entity("Вова", "A friend"), entity("Boba", "A cat")]
    )
    proposals = mem.consolidate()
    pairs = [_names(p) for p in proposals]
    assert pairs == [{"Alice Moreau", "\u0410lice Moreau"}]
    (reason,) = proposals[0].reasons
    assert "look the same" in reason
    assert "U+0410 CYRILLIC CAPITAL LETTER A) looks like 'A'" in reason
