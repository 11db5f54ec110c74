"""Variant-name keys that drive merge proposals."""

from __future__ import annotations

import pytest

from turngraph.consolidate import variant_key


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
