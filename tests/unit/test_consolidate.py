"""Variant-name keys that drive merge proposals."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from turngraph.core.consolidate import find_candidates, first_name_pairs, variant_key
from turngraph.store.base import EntityRow


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Bob Smith", "Robert Smith"),
        ("Smith, Bob", "Robert Smith"),
        ("Acme Corp", "Acme Corporation"),
        ("Acme, Inc.", "ACME"),
        ("The Globex Company", "Globex"),
        ("Liz Taylor", "Elizabeth Taylor"),
        ("José Núñez", "Jose Nunez"),
    ],
)
def test_variant_names_share_a_key(a: str, b: str) -> None:
    assert variant_key(a) == variant_key(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [("Bob Smith", "Bob Jones"), ("Acme", "Acme Labs"), ("Sam Lee", "Lee Sam Corp")],
)
def test_different_names_keep_different_keys(a: str, b: str) -> None:
    assert variant_key(a) != variant_key(b)


def _person(i: int, name: str, description: str = "", type: str = "person") -> EntityRow:
    at = datetime(2024, 1, 1, tzinfo=UTC)
    return EntityRow(
        id=i,
        key=name.casefold(),
        name=name,
        type=type,
        description=description or f"{name}: a {type} mentioned in conversation.",
        retrieval_queries=(),
        degree=0,
        created_at=at,
        updated_at=at,
    )


def test_a_first_name_pairs_with_the_one_full_name_that_starts_with_it() -> None:
    maya, okafor, bob, smith = (
        _person(1, "Maya"),
        _person(2, "Maya Okafor"),
        _person(3, "Bob"),
        _person(4, "Robert Smith"),
    )
    pairs = {(a.name, b.name) for a, b in first_name_pairs([maya, okafor, bob, smith])}
    assert pairs == {("Maya", "Maya Okafor"), ("Bob", "Robert Smith")}


def test_a_first_name_with_two_surnames_pairs_with_neither() -> None:
    people = [_person(1, "Maya"), _person(2, "Maya Okafor"), _person(3, "Maya Chen")]
    assert first_name_pairs(people) == []


def test_a_first_name_pair_needs_someone_who_said_both() -> None:
    maya, okafor = _person(1, "Maya"), _person(2, "Maya Okafor")
    none: set[int] = set()
    alone = find_candidates(
        [maya, okafor], skip=set(), described=none, speakers={1: {"Maya"}, 2: {"Sam"}}
    )
    assert alone == []
    (found,) = find_candidates(
        [maya, okafor], skip=set(), described=none, speakers={1: {"Maya"}, 2: {"maya"}}
    )
    assert {found.canonical.name, found.duplicate.name} == {"Maya", "Maya Okafor"}
    assert "said by Maya" in found.reasons[0]


def test_generated_descriptions_are_no_evidence_of_sameness() -> None:
    london = _person(1, "London", type="place")
    lisbon = _person(2, "Lisbon", type="place")
    assert find_candidates([london, lisbon], skip=set(), described=set()) == []
    # The same text written by someone is still compared.
    assert find_candidates([london, lisbon], skip=set(), described={1, 2})
