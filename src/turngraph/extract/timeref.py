"""Resolving time expressions against a turn's time, with the precision they were said at.

"yesterday" is a day, "last weekend" a week, "in May" a month, "last summer" a season,
"three years ago" a year. Past and future expressions both resolve ("next Tuesday", "in two
weeks", "this weekend"); a bare weekday ("on Monday") counts back in a past-tense clause and
forward in a future one. Every pattern is a plain alternation with no nested repetition, so
matching is linear in the text.
"""

from __future__ import annotations

import calendar
import re
from datetime import UTC, datetime, timedelta
from typing import NamedTuple

from turngraph.extract.folded import Folded

WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
MONTHS["sept"] = 9
SEASONS = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12}
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
    "a couple": 2,
    "a few": 3,
    "few": 3,
    "several": 3,
}
_NUM = (
    r"(\d{1,3}|a couple of|couple of|a couple|a few|few|several|an?|one|two|three|four|five|"
    r"six|seven|eight|nine|ten|eleven|twelve)"
)
_MONTH = (
    r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_WEEKDAY = "(" + "|".join(WEEKDAYS) + ")"
_SEASON = r"(spring|summer|fall|autumn|winter)"


# Every expression below contains one of these; a clause without any names no time.
_ANY_TIME = Folded(
    r"\b(?:yesterday|today|tonight|tomorrow|morning|afternoon|evening|night|now|ago|back|earlier|"
    r"in|within|last|past|next|this|coming|following|previous|later|before|weekend|on|over|"
    r"during|since|by|until|spring|summer|fall|autumn|winter|christmas|easter|halloween|"
    r"valentine's|new year's|" + _WEEKDAY[1:-1] + "|" + _MONTH[1:-1] + r")\b|\d",
)


class TimeRef(NamedTuple):
    when: datetime
    phrase: str
    precision: str  # day | week | month | season | year


_AGO = Folded(rf"\b{_NUM}\s+(day|week|month|year)s?\s+(?:ago|back|earlier)\b")
_IN_UNITS = Folded(rf"\b(?:in|within)\s+{_NUM}\s+(day|week|month|year)s?\b")
_RELATIVE_UNIT = Folded(
    r"\b(last|this past|past|next|this|the following|the previous|earlier this|later this)\s+"
    r"(night|week|weekend|month|year)\b",
)
_THE_UNIT_BEFORE = Folded(r"\bthe\s+(day|week|month|year)\s+before\b")
_RELATIVE_WEEKDAY = Folded(
    rf"\b(last|this past|next|this coming|coming|this|on|this last)\s+{_WEEKDAY}\b"
)
_BARE_WEEKDAY = Folded(rf"\b{_WEEKDAY}\b")
_SEASON_REF = Folded(rf"\b(last|this past|next|this|this coming)\s+{_SEASON}\b")
# "in spring 2024", "the summer of 2023"
_SEASON_OF_YEAR = Folded(rf"\b{_SEASON}(?:\s+of)?\s+((?:19|20)\d{{2}})\b")
# A holiday of a named year ("at Easter 2024", "Christmas 2023") or said from now ("last
# Christmas"); a bare "at Christmas" may be any year and names none.
_HOLIDAY = (
    r"(christmas eve|christmas day|christmas|new year's eve|new year's day|easter|halloween|"
    r"valentine's day)"
)
_HOLIDAY_OF_YEAR = Folded(rf"\b{_HOLIDAY}\s+((?:19|20)\d{{2}})\b")
_RELATIVE_HOLIDAY = Folded(rf"\b(last|this past|next|this coming)\s+{_HOLIDAY}")
_FIXED_HOLIDAYS = {
    "christmas eve": (12, 24),
    "christmas day": (12, 25),
    "christmas": (12, 25),
    "new year's eve": (12, 31),
    "new year's day": (1, 1),
    "halloween": (10, 31),
    "valentine's day": (2, 14),
}
_OVER_WEEKEND = Folded(r"\b(?:over|on|during) the weekend\b")
_DAY_MONTH_YEAR = re.compile(
    rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\b,?\s*(\d{{4}})?", re.I
)
_MONTH_DAY_YEAR = re.compile(
    rf"\b{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s*(\d{{4}}))?", re.I
)
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_IN_MONTH = Folded(rf"\b(in|last|next|this|since|by|until)\s+{_MONTH}\b(?:\s+(\d{{4}}))?")
_IN_YEAR = Folded(r"\b(?:in|since|back in|during)\s+((?:19|20)\d{2})\b")
_SIMPLE = [
    (re.compile(r"\bthe day before yesterday\b", re.I), -2),
    (re.compile(r"\bthe day after tomorrow\b", re.I), 2),
    (re.compile(r"\b(?:yesterday|last night)\b", re.I), -1),
    (re.compile(r"\btomorrow\b", re.I), 1),
    (
        re.compile(
            r"\b(?:today|tonight|this (?:morning|afternoon|evening)|earlier today|just now)\b",
            re.I,
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


def _units(ref: datetime, n: int, unit: str) -> tuple[datetime, str]:
    """``ref`` moved by ``n`` units (negative: back), and the precision of that unit."""
    if unit == "day":
        return ref + timedelta(days=n), "day"
    if unit == "week":
        return ref + timedelta(weeks=n), "week"
    if unit == "month":
        return _shift_months(ref, n), "month"
    return _shift_months(ref, 12 * n), "year"


def _weekday(ref: datetime, name: str, *, forward: bool) -> datetime:
    """The nearest such weekday after ``ref`` (forward) or before it."""
    target = WEEKDAYS.index(name.lower())
    if forward:
        ahead = (target - ref.weekday()) % 7 or 7
        return ref + timedelta(days=ahead)
    back = (ref.weekday() - target) % 7 or 7
    return ref - timedelta(days=back)


def _season(ref: datetime, name: str, which: str) -> datetime:
    month = SEASONS[name.lower()]
    year = ref.year
    if which in ("last", "this past"):
        year = ref.year if ref.month >= month + 3 else ref.year - 1
    elif which in ("next", "this coming"):
        year = ref.year if ref.month < month else ref.year + 1
    return ref.replace(year=year, month=month, day=1)


def _holiday(name: str, year: int, ref: datetime) -> datetime:
    name = name.lower().replace("\u2019", "'")
    if name == "easter":  # the Gregorian computus (Meeus, Jones and Butcher)
        a, b, c = year % 19, year // 100, year % 100
        d, e = divmod(b, 4)
        g = (8 * b + 13) // 25
        h = (19 * a + b - d - g + 15) % 30
        i, k = divmod(c, 4)
        l_ = (32 + 2 * e + 2 * i - h - k) % 7
        m = (a + 11 * h + 22 * l_) // 451
        month, day = divmod(h + l_ - 7 * m + 114, 31)
        return ref.replace(
            year=year, month=month, day=day + 1, hour=0, minute=0, second=0, microsecond=0
        )
    month, day = _FIXED_HOLIDAYS[name]
    return ref.replace(year=year, month=month, day=day, hour=0, minute=0, second=0, microsecond=0)


def resolve_time(text: str, ref: datetime, *, future: bool = False) -> TimeRef | None:
    """The moment a clause refers to, the phrase that said so and its precision; None if none.

    Relative expressions count from ``ref`` (the turn's time). ``future`` says the clause
    speaks of what is to come, so a bare "on Friday" means the next one. A date without a
    year is taken in the year that puts it on the clause's side of ``ref``.
    """
    if not _ANY_TIME.search(text):
        return None  # most clauses name no time: one search says so
    try:
        return _resolve(text, ref.astimezone(UTC), future=future)
    except (OverflowError, ValueError):
        return None  # "next week" said on 9999-12-31: a time outside the calendar is none


def _resolve(text: str, ref: datetime, *, future: bool) -> TimeRef | None:
    for pattern, days in _SIMPLE:
        m = pattern.search(text)
        if m:
            return TimeRef(ref + timedelta(days=days), m.group(0), "day")
    m = _AGO.search(text)
    if m:
        when, precision = _units(ref, -_number(m.group(1)), m.group(2).lower())
        return TimeRef(when, m.group(0), precision)
    m = _IN_UNITS.search(text)
    if m:
        when, precision = _units(ref, _number(m.group(1)), m.group(2).lower())
        return TimeRef(when, m.group(0), precision)
    m = _THE_UNIT_BEFORE.search(text)
    if m:
        when, precision = _units(ref, -1, m.group(1).lower())
        return TimeRef(when, m.group(0), precision)
    m = _RELATIVE_WEEKDAY.search(text)
    if m:
        which = m.group(1).lower()
        forward = which in ("next", "this coming", "coming") or (which in ("on", "this") and future)
        return TimeRef(_weekday(ref, m.group(2), forward=forward), m.group(0), "day")
    m = _BARE_WEEKDAY.search(text)
    if m:
        return TimeRef(_weekday(ref, m.group(1), forward=future), m.group(0), "day")
    m = _OVER_WEEKEND.search(text)
    if m:
        sat = _weekday(ref, "saturday", forward=future)
        return TimeRef(sat, m.group(0), "week")
    m = _RELATIVE_UNIT.search(text)
    if m:
        which, unit = m.group(1).lower(), m.group(2).lower()
        step = 1 if which in ("next", "the following") else -1
        if which in ("this", "earlier this", "later this"):
            step = 0
        if unit == "night":
            return TimeRef(ref + timedelta(days=min(step, 0)), m.group(0), "day")
        if unit == "weekend":
            if step == 0:
                sat = _weekday(ref, "saturday", forward=future or ref.weekday() < 5)
            elif step > 0:
                sat = _weekday(ref, "saturday", forward=True) + timedelta(weeks=1)
                if ref.weekday() < 5:
                    sat -= timedelta(weeks=1)
            else:
                sat = _weekday(ref, "saturday", forward=False)
            return TimeRef(sat, m.group(0), "week")
        when, precision = _units(ref, step, unit)
        return TimeRef(when, m.group(0), precision)
    m = _SEASON_REF.search(text)
    if m:
        return TimeRef(_season(ref, m.group(2), m.group(1).lower()), m.group(0), "season")
    m = _SEASON_OF_YEAR.search(text)
    if m:
        month = SEASONS[m.group(1).lower()]
        return TimeRef(ref.replace(year=int(m.group(2)), month=month, day=1), m.group(0), "season")
    m = _HOLIDAY_OF_YEAR.search(text)
    if m:
        return TimeRef(_holiday(m.group(1), int(m.group(2)), ref), m.group(0), "day")
    m = _RELATIVE_HOLIDAY.search(text)
    if m:
        ahead = m.group(1).lower() in ("next", "this coming")
        year = ref.year
        when = _holiday(m.group(2), year, ref)
        if ahead and when.date() <= ref.date():
            when = _holiday(m.group(2), year + 1, ref)
        elif not ahead and when.date() >= ref.date():
            when = _holiday(m.group(2), year - 1, ref)
        return TimeRef(when, m.group(0), "day")
    m = _ISO.search(text)
    if m:
        found = _safe_date(int(m.group(1)), int(m.group(2)), int(m.group(3)), ref)
        if found:
            return TimeRef(found, m.group(0), "day")
    for pattern, day_group, month_group, year_group in (
        (_DAY_MONTH_YEAR, 1, 2, 3),
        (_MONTH_DAY_YEAR, 2, 1, 3),
    ):
        m = pattern.search(text)
        if m:
            day, month = int(m.group(day_group)), _month(m.group(month_group))
            year = int(m.group(year_group)) if m.group(year_group) else ref.year
            found = _safe_date(year, month, day, ref)
            if found and not m.group(year_group):
                if not future and found > ref + timedelta(days=1):
                    found = _safe_date(year - 1, month, day, ref)
                elif future and found < ref - timedelta(days=1):
                    found = _safe_date(year + 1, month, day, ref)
            if found:
                return TimeRef(found, m.group(0).strip(), "day")
    m = _IN_MONTH.search(text)
    if m:
        month = _month(m.group(2))
        year = int(m.group(3)) if m.group(3) else ref.year
        found = _safe_date(year, month, 1, ref)
        ahead = future or m.group(1).lower() in ("next", "by", "until")
        if found and not m.group(3):
            if not ahead and found > ref:
                found = _safe_date(year - 1, month, 1, ref)
            elif ahead and found.month < ref.month:
                found = _safe_date(year + 1, month, 1, ref)
        if found:
            return TimeRef(found, m.group(0), "month")
    m = _IN_YEAR.search(text)
    if m:
        found = _safe_date(int(m.group(1)), 1, 1, ref)
        if found:
            return TimeRef(found, m.group(0), "year")
    return None
