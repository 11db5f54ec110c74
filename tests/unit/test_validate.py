"""Normalization rules of the write contract, as pure functions."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from turngraph.config import Limits
from turngraph.core.validate import (
    fingerprint,
    name_key,
    normalize_name,
    parse_datetime,
    parse_entities,
    slugify,
    validate_file_path,
)
from turngraph.errors import ValidationError


@pytest.mark.parametrize(
    ("raw", "display", "key"),
    [
        ("Acme Corp", "Acme Corp", "acme corp"),
        ("  acme \t corp ", "acme corp", "acme corp"),
        ("“Acme Corp.”", "Acme Corp", "acme corp"),
        ("Ｃａｆé", "Café", "café"),
        ("STRASSE", "STRASSE", "strasse"),
        ("Straße", "Straße", "strasse"),
        ("C++", "C++", "c++"),
        ("O'Brien", "O'Brien", "o'brien"),
    ],
)
def test_entity_names_normalize_to_one_key(raw: str, display: str, key: str) -> None:
    assert normalize_name(raw, field="name", limit=200) == (display, key)
    assert name_key(display) == key


@pytest.mark.parametrize(
    ("title", "slug"),
    [
        ("Kickoff with Acme!", "kickoff-with-acme"),
        ("Café  Déjà vu", "cafe-deja-vu"),
        ("snake_case_title", "snake-case-title"),
        ("東京の会議", "東京の会議"),
        ("!!!", "observation"),
        ("word " * 30, "-".join(["word"] * 13)),
    ],
)
def test_slugs_are_readable_and_bounded(title: str, slug: str) -> None:
    assert slugify(title) == slug
    assert len(slugify(title)) <= 64


def test_a_single_very_long_word_still_gives_a_bounded_slug() -> None:
    assert slugify("x" * 100) == "x" * 64


def test_datetimes_become_aware_utc() -> None:
    assert parse_datetime("2024-05-20", field="t") == datetime(2024, 5, 20, tzinfo=UTC)
    assert parse_datetime("2024-05-20T10:00:00Z", field="t") == datetime(
        2024, 5, 20, 10, tzinfo=UTC
    )
    local = datetime(2024, 5, 20, 12, tzinfo=timezone(timedelta(hours=2)))
    assert parse_datetime(local, field="t") == datetime(2024, 5, 20, 10, tzinfo=UTC)
    with pytest.raises(ValidationError, match="ISO-8601"):
        parse_datetime("last tuesday", field="t")


def test_repeated_names_in_one_write_merge_with_the_later_description() -> None:
    drafts = parse_entities(
        [
            {"name": "Alice", "type": "person", "description": "one", "retrieval_queries": ["q1"]},
            {"name": "alice", "description": "two", "retrieval_queries": ["q2"]},
        ],
        limits=Limits(),
    )
    (alice,) = drafts
    assert (alice.name, alice.type, alice.description) == ("Alice", "person", "two")
    assert alice.retrieval_queries == ("q1", "q2")


def test_file_paths_stay_inside_the_appendix() -> None:
    assert validate_file_path("a/b/c.txt", limits=Limits()) == "a/b/c.txt"
    for bad in ("/abs", "../up", "a/../b", "a//b", " a/b", "a\\b"):
        with pytest.raises(ValidationError):
            validate_file_path(bad, limits=Limits())
    with pytest.raises(ValidationError, match="limit"):
        validate_file_path("x" * 600, limits=Limits())


def test_fingerprints_ignore_key_order_but_not_values() -> None:
    a = fingerprint("op", {"a": 1, "b": [1, 2]})
    assert a == fingerprint("op", {"b": [1, 2], "a": 1})
    assert a != fingerprint("op", {"a": 1, "b": [2, 1]})
    assert a != fingerprint("other", {"a": 1, "b": [1, 2]})


def test_every_default_ignorable_code_point_folds_out_of_a_name() -> None:
    """Not a hand list: every code point with the Unicode property, anywhere in the name,
    and the Braille blank; the display shows none of them at its edges."""
    import regex

    ignorable = regex.compile(r"\p{Default_Ignorable_Code_Point}")
    points = [chr(cp) for cp in range(0x110000) if ignorable.match(chr(cp))] + ["\u2800"]
    assert len(points) > 4000
    named = "\u034f\u115f\u1160\u17b4\u17b5\u180b\u2800\u3164\ufe00\ufe0f\uffa0"
    assert set(named) <= set(points)
    for ch in points:
        for raw in (f"Al{ch}ice", f"{ch}Alice", f"Alice{ch}"):
            display, key = normalize_name(raw, field="name", limit=200)
            assert key == "alice", (hex(ord(ch)), raw)
            assert (display[0], display[-1]) == ("A", "e"), (hex(ord(ch)), display)
    with pytest.raises(ValidationError, match="no letter, digit or symbol"):
        normalize_name("\u3164\u3164", field="name", limit=200)
