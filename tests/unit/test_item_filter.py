"""The learned item filter and the guard on cut objects: what a careful reader would drop goes,
and what says who someone is stays."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from turngraph.bench.extraction import items_of
from turngraph.cli.commands import _labels_files
from turngraph.errors import ValidationError
from turngraph.extract import item_filter
from turngraph.extract.base import TurnContext
from turngraph.extract.rules import RuleExtractor

CTX = TurnContext(
    speaker="Maria", role="user", observed_at=datetime(2023, 5, 8, tzinfo=UTC), addressee="John"
)


def _lines(text: str, *, filtered: bool = True) -> set[str]:
    found = RuleExtractor(filtered=filtered).extract(text, CTX)
    return {i.key() for i in items_of(found) if i.kind != "entity"}


@pytest.mark.parametrize(
    ("text", "dropped"),
    [
        # thanks for support: true, and not worth remembering
        (
            "Thanks, John. Your support and friendship mean everything. I appreciate your support.",
            "action | Maria | appreciate | support and friendship",
        ),
        # "we can": something that could be done, not something done
        (
            "We can make a difference and help lots of people.",
            "action | Maria | help | lots of people",
        ),
    ],
)
def test_the_filter_drops_what_the_development_readers_called_noise(
    text: str, dropped: str
) -> None:
    assert dropped in _lines(text, filtered=False)
    assert dropped not in _lines(text)


def test_facts_that_say_who_someone_is_are_never_judged() -> None:
    text = "I moved to Lisbon last month and I adopted a cat named Miso."
    kept = _lines(text)
    assert {"attr | Maria | location | Lisbon", "attr | Maria | pets | cat"} <= kept
    assert kept == _lines(text, filtered=False)
    # Whatever the sentence, a key outside the judged ones is kept.
    assert item_filter.keep("attr", "partner", "Sam", "we can maybe, lol?")
    assert not item_filter.JUDGED_KEYS & {"location", "employer", "partner", "diet", "family"}


def test_the_score_is_a_probability_and_reads_the_sentence_of_the_item() -> None:
    value = "lots of people"
    done = item_filter.score("action", "help", value, "I helped lots of people last year.")
    could = item_filter.score("action", "help", value, "We can help lots of people!")
    assert 0.0 < could < done < 1.0
    said = item_filter.features("action", "help", value, "Thanks, we can help lots of people?")
    assert {"before=can", "subject=we", "question", "opens=thanks"} <= set(said)


@pytest.mark.parametrize(
    ("text", "cut"),
    [
        ("Yup, we raised a ton! We got canned food.", "action | Maria | raise | ton"),
        ("I've watched a bunch of them and they're inspiring.", "action | Maria | watch | bunch"),
        ("I'm proud of how far I've come.", "action | Maria | be proud of | how far"),
    ],
)
def test_an_object_cut_from_what_it_stood_for_is_not_an_action(text: str, cut: str) -> None:
    assert cut not in _lines(text, filtered=False)


def test_several_label_files_join_and_a_turn_labelled_twice_is_refused(tmp_path: Path) -> None:
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    one.write_text(json.dumps({"turns": {"c:D1:1": {"entity | A | person": "correct"}}}))
    two.write_text(json.dumps({"turns": {"c:D1:2": {}}}))
    assert set(_labels_files([str(one), str(two)])["turns"]) == {"c:D1:1", "c:D1:2"}
    with pytest.raises(ValidationError, match="c:D1:1"):
        _labels_files([str(one), str(one)])
