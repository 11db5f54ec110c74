"""``turngraph bench currency`` scores what it says it scores: on a small suite of its own
format, the current value ranked above the stale one, the fact first, the past value for a
question about the past, and no more than k hits; a suite it cannot read is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from turngraph.bench import currency
from turngraph.errors import ValidationError

MAYA = {
    "id": "t01",
    "user": "Maya Okafor",
    "speaker": "Maya",
    "sessions": [
        {
            "date": "2024-01-05T10:00:00Z",
            "turns": [
                {"id": "S1:1", "role": "user", "text": "Hi! I'm Maya, I live in Manchester."},
                {"id": "S1:2", "role": "assistant", "text": "Nice to meet you, Maya!"},
            ],
        },
        {
            "date": "2024-05-01T10:00:00Z",
            "turns": [
                {"id": "S2:1", "role": "user", "text": "Big news: we moved to Bristol!"},
                {"id": "S2:2", "role": "assistant", "text": "So you're in Bristol now?"},
            ],
        },
    ],
    "changes": [
        {
            "id": "home",
            "about": "Maya",
            "what": "city Maya lives in",
            "values": [
                {"value": "Manchester", "turns": ["S1:1"]},
                {"value": "Bristol", "turns": ["S2:1"]},
            ],
        }
    ],
    "questions": [
        {
            "id": "now",
            "change": "home",
            "kind": "present",
            "question": "Where does Maya live?",
            "answer": "Bristol",
        },
        {
            "id": "before",
            "change": "home",
            "kind": "past",
            "question": "Where did Maya live before Bristol?",
            "answer": "Manchester",
        },
        {
            "id": "when",
            "change": "home",
            "kind": "when",
            "question": "When did Maya move to Bristol?",
            "answer": "2024-05-01",
        },
    ],
}


def test_a_small_suite_is_scored(tmp_path: Path) -> None:
    (tmp_path / "t01.json").write_text(json.dumps(MAYA), "utf-8")
    (tmp_path / "splits.json").write_text(
        json.dumps({"development": ["t01.json"], "held-out": ["t01.json"]}), "utf-8"
    )
    report = currency.run(tmp_path, log=lambda _: None)
    for split in currency.SPLITS:
        got = report[split]
        assert got["present_current_above_stale"] == {"n": 1, "rate": 1.0}
        assert got["present_fact_first"] == {"n": 1, "rate": 1.0}
        assert got["past_right_value"] == {"n": 1, "rate": 1.0}
        assert got["when_right_date"] == {"n": 1, "rate": 1.0}
        assert got["hits_max"] <= currency.K
    assert "| present: current ranked above stale | 1.000 (1) | 1.000 (1) |" in currency.render(
        report
    )


@pytest.mark.parametrize(
    ("question", "day"),
    [
        ("When did Maya move to Bristol?", "2024-05-01"),  # the day the turn placed the move
        ("When did Maya say she had moved to Bristol?", "2024-05-08"),  # the day she said it
    ],
)
def test_a_when_question_is_judged_by_the_day_it_asks_for(
    tmp_path: Path, question: str, day: str
) -> None:
    told = json.loads(json.dumps(MAYA))
    told["sessions"][1]["date"] = "2024-05-08T10:00:00Z"
    told["sessions"][1]["turns"][0]["text"] = "Big news: we moved to Bristol last week!"
    told["questions"] = [{**MAYA["questions"][2], "question": question, "answer": day}]
    (tmp_path / "t01.json").write_text(json.dumps(told), "utf-8")
    (tmp_path / "splits.json").write_text(
        json.dumps({"development": ["t01.json"], "held-out": []}), "utf-8"
    )
    report = currency.run(tmp_path, log=lambda _: None)
    assert report["development"]["when_right_date"] == {"n": 1, "rate": 1.0}


def test_values_are_matched_by_their_words_and_polarity() -> None:
    assert currency.same_value("Samsung S23", "Samsung Galaxy S23")
    assert not currency.same_value("Lisbon", "Porto")
    assert currency._polarity("Sofía likes") == 1
    assert currency._polarity("dislikes reggaeton") == -1


def test_a_suite_without_its_splits_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="cannot read the currency suite"):
        currency.run(tmp_path, log=lambda _: None)


@pytest.mark.parametrize(("named", "rate"), [(True, 1.0), (False, 0.0)])
def test_a_turn_that_names_the_old_value_while_stating_the_new_gives_both(
    tmp_path: Path, named: bool, rate: float
) -> None:
    """ "We left Manchester for Bristol!" answers where Maya lived before Bristol, and is still
    the turn that states where she lives now."""
    moved = json.loads(json.dumps(MAYA))
    moved["sessions"][0]["turns"][0]["text"] = "Hi! I'm Maya."
    moved["sessions"][1]["turns"][0]["text"] = "Big news: we left Manchester for Bristol!"
    values = moved["changes"][0]["values"]
    values[0] = {"value": "Manchester", "turns": [], **({"named_in": ["S2:1"]} if named else {})}
    moved["questions"] = MAYA["questions"][:2]
    (tmp_path / "t01.json").write_text(json.dumps(moved), "utf-8")
    (tmp_path / "splits.json").write_text(
        json.dumps({"development": ["t01.json"], "held-out": []}), "utf-8"
    )
    report = currency.run(tmp_path, log=lambda _: None)["development"]
    assert report["past_right_value"] == {"n": 1, "rate": rate}
    assert report["present_current_above_stale"] == {"n": 1, "rate": 1.0}
