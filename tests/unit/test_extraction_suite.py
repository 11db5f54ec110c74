"""The labelled suite: short chats in the shape people write, with every item a careful person
would expect from them and what must not be extracted (tests/data/extraction_suite.txt).

Each case runs through a real memory (SQLite file, the full write path), so corrections and
ended values are checked where they are made. The floors rise as the extractor improves.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from turngraph.bench.extraction import Item, check_case, parse_suite, run_suite
from turngraph.extract.rules import RuleExtractor

SUITE = Path(__file__).parent.parent / "data" / "extraction_suite.txt"
TOPICS = (
    "job title move origin family partner pet diet health education age project "
    "plan likes habit instruction hedge negation third correction action"
).split()
# Floors: the share of all expectations met, and of each kind's.
OVERALL_FLOOR = 0.91
KIND_FLOORS = {
    "attr": 0.87,
    "rel": 0.84,
    "entity": 0.89,
    "action": 0.90,
    "instruction": 0.95,
    "uncertain": 0.92,
    "ended": 0.80,
    "correction": 0.80,
    "negative": 0.98,
}


def test_the_suite_covers_every_topic_with_enough_cases() -> None:
    cases = parse_suite(SUITE.read_text("utf-8"))
    assert len(cases) >= 200
    topics = Counter(c.topic for c in cases)
    assert {t: topics[t] for t in TOPICS if topics[t] < 8} == {}
    assert all(c.turns and c.expect for c in cases)
    negatives = sum(1 for c in cases if any(e.startswith("!") for e in c.expect))
    assert negatives >= 60


def test_the_rule_extractor_meets_the_suite_floors() -> None:
    report = run_suite(RuleExtractor(), SUITE)
    kinds = {k: v["recall"] for k, v in report["by_kind"].items()}
    assert report["share_met"] >= OVERALL_FLOOR, report["missed"][:10]
    assert {k: r for k, r in kinds.items() if r < KIND_FLOORS.get(k, 0.75)} == {}


def test_expectations_are_checked_by_kind_field_and_polarity() -> None:
    (case,) = parse_suite(
        "## t-1 job\nDana: i work at deloitte\n"
        "> attr | Dana | employer | Deloitte\n> !attr | Dana | employer | KPMG\n"
        "> action | Dana | go | gym | 2024-03-05\n> !instruction\n"
    )
    items = [
        Item("attr", "Dana", "employer", "Deloitte"),
        Item("action", "Dana", "go", "", "2024-03-05", "the gym"),
    ]
    assert check_case(case, items, []).missed == []
    wrong = [Item("attr", "Dana", "employer", "KPMG"), Item("instruction", "", "x", "use emoji")]
    missed = check_case(case, wrong, []).missed
    assert missed == [
        "attr | Dana | employer | Deloitte",
        "!attr | Dana | employer | KPMG",
        "action | Dana | go | gym | 2024-03-05",
        "!instruction",
    ]


@pytest.mark.parametrize(
    "bad",
    ["> attr | x | y | z\n", "## a job\nDana: hi\n> attr\n## a job\nDana: hi\n> attr\n"],
)
def test_a_malformed_suite_is_refused_with_the_line(bad: str) -> None:
    with pytest.raises(ValueError, match=r"line|duplicate"):
        parse_suite(bad)


PASSING = Path(__file__).parent.parent / "data" / "extraction_suite_passing.txt"


def test_no_case_that_passed_fails_now() -> None:
    """The ratchet: every case listed as passing still meets all its expectations."""
    listed = {
        line.strip()
        for line in PASSING.read_text("utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    }
    report = run_suite(RuleExtractor(), SUITE)
    lost = sorted(listed - set(report["passing"]))
    missed = {m["case"]: m["missed"] for m in report["missed"]}
    assert lost == [], {case: missed.get(case) for case in lost}
    ids = {c.id for c in parse_suite(SUITE.read_text("utf-8"))}
    assert listed <= ids, sorted(listed - ids)  # a listed case still exists


def test_held_out_figures_count_noise_as_not_correct_and_names_apart() -> None:
    """Precision of facts leaves bare names out and counts noise against; coverage by
    correct items ignores a matching item a reader judged wrong."""
    from turngraph.bench.extraction import Gold, Item, TurnItems, coverage_by_correct, precision

    pets = Item("attr", "Ana", "pets", "dog")
    walks = Item("action", "Ana", "walk", "dog in the park")
    name = Item("entity", "Ana", "person")
    turn = TurnItems("c", "D1:1", "Ana", "I walk my dog in the park", [pets, walks, name], 1.0)
    labels = {
        "turns": {"c:D1:1": {pets.key(): "correct", walks.key(): "noise", name.key(): "correct"}}
    }
    p = precision([turn], labels)
    assert (p["facts_precision"], p["names_precision"], p["precision"]) == (0.5, 1.0, 0.6667)
    gold = Gold("c", "Ana", "Ana has a dog she walks in the park", ("D1:1",))
    assert coverage_by_correct([turn], [gold], labels)["covered"] == 1
    labels["turns"]["c:D1:1"][pets.key()] = "wrong"
    labels["turns"]["c:D1:1"][walks.key()] = "wrong"
    assert coverage_by_correct([turn], [gold], labels)["covered"] == 0
