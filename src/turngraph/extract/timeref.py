"""Resolving time expressions ("yesterday", "last Friday", "two weeks ago") against a turn."""

from __future__ import annotations

import calendar
import re
from datetime import UTC, datetime, timedelta

WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
MONTHS["sept"] = 9
NUMBER_WORDS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "a couple of": 2,
    "couple of": 2,
    "a few": 3,
    "few": 3,
    "several": 3,
}
_NUM = (
    r"(\d+|a couple of|couple of|a few|few|several|an?|one|two|three|four|five|six|seven|"
    r"eight|nine|ten|eleven|twelve)"
)
_MONTH = (
    r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)

_AGO = re.compile(rf"\b{_NUM}\s+(day|week|month|year)s?\s+ago\b", re.I)
_LAST_UNIT = re.compile(r"\b(last|this past|past)\s+(night|week|weekend|month|year)\b", re.I)
_LAST_WEEKDAY = re.compile(r"\b(?:last|this past|on)\s+(" + "|".join(WEEKDAYS) + r")\b", re.I)
_DAY_MONTH_YEAR = re.compile(
    rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH},?\s*(\d{{4}})?\b", re.I
)
_MONTH_DAY_YEAR = re.compile(
    rf"\b{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s*(\d{{4}}))?\b", re.I
)
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_IN_MONTH = re.compile(rf"\bin\s+{_MONTH}(?:\s+(\d{{4}}))?\b", re.I)
_IN_YEAR = re.compile(r"\bin\s+((?:19|20)\d{2})\b")
_SIMPLE = [
    (re.compile(r"\bthe day before yesterday\b", re.I), -2),
    (re.compile(r"\byesterday\b", re.I), -1),
    (
        re.compile(
            r"\b(today|tonight|this (morning|afternoon|evening)|earlier today|just now)\b", re.I
        ),
        0,
    ),
]


def _shift_months(ref: datetime, months: int) -> datetime:
    total = ref.year * 12 + (ref.month - 1) + months
    year, month = divmod(total, 12)
    day = min(ref.day, calendar.monthrange(year, month + 1)[1])
    return ref.replace(year=year, month=month + 1, day=day)


def _number(word: str) -> int:
    word = word.lower()
    return int(word) if word.isdigit() else NUMBER_WORDS[word]


def _month(word: str) -> int:
    word = word.lower().rstrip(".")
    return MONTHS.get(word) or MONTHS[word[:3]]


def _safe_date(year: int, month: int, day: int, ref: datetime) -> datetime | None:
    try:
        return ref.replace(year=year, month=month, day=day)
    except ValueError:
        return None


def resolve_time(text: str, ref: datetime) -> tuple[datetime, str] | None:
    """The moment a clause refers to, and the phrase that said so; None if it names none.

    Relative expressions count back from ``ref`` (the turn's time). A date without a year is
    taken in the past year closest to ``ref``.
    """
    ref = ref.astimezone(UTC)
    for pattern, days in _SIMPLE:
        m = pattern.search(text)
        if m:
            return ref + timedelta(days=days), m.group(0)
    m = _AGO.search(text)
    if m:
        n, unit = _number(m.group(1)), m.group(2).lower()
        if unit == "day":
            return ref - timedelta(days=n), m.group(0)
        if unit == "week":
            return ref - timedelta(weeks=n), m.group(0)
        if unit == "month":
            return _shift_months(ref, -n), m.group(0)
        return _shift_months(ref, -12 * n), m.group(0)
    m = _LAST_WEEKDAY.search(text)
    if m:
        target = WEEKDAYS.index(m.group(1).lower())
        back = (ref.weekday() - target) % 7 or 7
        return ref - timedelta(days=back), m.group(0)
    m = _LAST_UNIT.search(text)
    if m:
        unit = m.group(2).lower()
        if unit == "night":
            return ref - timedelta(days=1), m.group(0)
        if unit == "week":
            return ref - timedelta(weeks=1), m.group(0)
        if unit == "weekend":
            back = (ref.weekday() - 5) % 7 or 7
            return ref - timedelta(days=back), m.group(0)
        if unit == "month":
            return _shift_months(ref, -1), m.group(0)
        return _shift_months(ref, -12), m.group(0)
    m = _ISO.search(text)
    if m:
        found = _safe_date(int(m.group(1)), int(m.group(2)), int(m.group(3)), ref)
        if found:
            return found, m.group(0)
    for pattern, day_group, month_group, year_group in (
        (_DAY_MONTH_YEAR, 1, 2, 3),
        (_MONTH_DAY_YEAR, 2, 1, 3),
    ):
        m = pattern.search(text)
        if m:
            day, month = int(m.group(day_group)), _month(m.group(month_group))
            year = int(m.group(year_group)) if m.group(year_group) else ref.year
            found = _safe_date(year, month, day, ref)
            if found and not m.group(year_group) and found > ref:
                found = _safe_date(year - 1, month, day, ref)
            if found:
                return found, m.group(0)
    m = _IN_MONTH.search(text)
    if m:
        month = _month(m.group(1))
        year = int(m.group(2)) if m.group(2) else ref.year
        found = _safe_date(year, month, 1, ref)
        if found and not m.group(2) and found > ref:
            found = _safe_date(year - 1, month, 1, ref)
        if found:
            return found, m.group(0)
    m = _IN_YEAR.search(text)
    if m:
        found = _safe_date(int(m.group(1)), 1, 1, ref)
        if found:
            return found, m.group(0)
    return None
