"""How recall reads a question before it searches: the attribute keys it asks for, and the
time or clause that places it in the past."""

from __future__ import annotations

import pytest

from turngraph.recall.currency import anchor_clause, time_tilt
from turngraph.recall.facts import asked_keys


@pytest.mark.parametrize(
    ("question", "keys"),
    [
        ("What does Thiago do?", ["job_title"]),
        ("What does Thiago do for a living?", ["job_title"]),
        ("What kind of work does Lena do?", ["job_title"]),
        ("What sport does Thiago do?", ["hobbies"]),  # a pastime, not a job
        ("Which sport does Inês do these days?", ["hobbies"]),
    ],
)
def test_a_question_asks_for_the_keys_its_words_name(question: str, keys: list[str]) -> None:
    assert asked_keys(question) == keys


@pytest.mark.parametrize(
    ("question", "anchor"),
    [
        (
            "Where did Sofía live before moving to Valencia?",
            ("before", "moving to Valencia", "Where did Sofía live"),
        ),
        (
            "Where did Erik live while he worked for Aker Solutions?",
            ("during", "he worked for Aker Solutions", "Where did Erik live"),
        ),
        ("When did she move to Leeds?", None),  # a question that opens with "When"
        ("Which sport did Erik do in spring 2024?", None),  # a time, not a clause
    ],
)
def test_a_clause_that_places_a_question_is_read_apart_from_what_it_asks(
    question: str, anchor: tuple[str, str, str] | None
) -> None:
    assert anchor_clause(question) == anchor


@pytest.mark.parametrize(
    ("question", "tilt"),
    [
        ("Where does Maya live?", 1.0),
        ("Where did Maya live before?", -1.0),
        ("Which junior high school did Yuko's daughter graduate from?", -1.0),  # one that ended
        ("Which firm did Anjali leave to take up her job in Singapore?", -1.0),
        ("When did she leave Deloitte?", 0.0),  # when, not which
        ("Why did she quit?", 0.0),
    ],
)
def test_a_question_leans_to_the_time_it_asks_about(question: str, tilt: float) -> None:
    assert time_tilt(question) == tilt
