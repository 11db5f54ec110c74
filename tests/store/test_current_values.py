"""What the write path reads to compare an attribute's new value with the current ones."""

from __future__ import annotations

from datetime import timedelta

from turngraph.store.base import Store

from .conftest import NOW, current_attribute, insert_note

# Values that are the same once stripped and case-folded, and values that only look alike:
# the long s folds to "s", the Kelvin sign to "k", "ß" to "ss"; \x1c is whitespace to Python.
VALUES = [
    "Hiking",
    " hiking\t",
    "hiking\x1c",
    "HIKING!",
    "biking",
    "\u017ftyle",
    "Style",
    "Stra\u00dfe",
    "STRASSE",
    "\u00dcn\u00efcode",
    "\u00fcn\u00cfcode",
    "k\u212a",
    "KK",
]
PROBES = [*VALUES, "hiking", "  HiKiNg ", "style", "strasse", "kk", "nothing", "\u00fcn\u00efcode"]


def _same(a: str, b: str) -> bool:
    return a.strip().casefold() == b.strip().casefold()


def test_like_keeps_every_row_a_folded_comparison_finds_and_leaves_other_ascii_rows_out(
    store: Store, memory_id: int
) -> None:
    with store.write(memory_id) as tx:
        entity = tx.insert_entity(
            key="maya", name="Maya", type="person", description="", retrieval_queries=(), now=NOW
        )
        observation = insert_note(tx, "note", "Maya's likes")
        for i, (key, value) in enumerate(
            [("likes", v) for v in VALUES] + [("opinions", "hiking"), ("location", "Oslo")]
        ):
            tx.insert_attribute(
                current_attribute(
                    entity.id,
                    key,
                    value,
                    observation,
                    valid_from=NOW + timedelta(seconds=i),
                    row_id=f"attribute:{i:026d}",
                )
            )
    with store.read(memory_id) as tx:
        likes = tx.current_values(entity.id, "likes")
        assert [value for _, _, value in likes] == VALUES
        for probe in PROBES:
            found = tx.current_values(entity.id, "likes", like=probe)
            assert found == [row for row in likes if row in found]  # a part, in order
            assert [r for r in found if _same(r[2], probe)] == [
                r for r in likes if _same(r[2], probe)
            ]
            if probe.isascii():  # an ASCII value is left out unless it is the same
                assert all(_same(r[2], probe) for r in found if r[2].isascii())
        assert [key for _, key, _ in tx.current_values(entity.id, skip_keys={"likes"})] == [
            "location",
            "opinions",
        ]
