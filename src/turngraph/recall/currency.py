"""Which recalled passages state facts that are no longer current, and which turns set the
values that replaced them.

An attribute version is current at a time ``t`` when it had not been replaced or ended by
then (``valid_until`` unset, or later than ``t``); without ``as_of``, ``t`` is now. A passage
that set a version no longer current carries a note saying so ("Maya location: Manchester,
now Bristol"). For a question about the present, such a passage gives way: the passage that
set the value current at ``t`` is ranked just above it (joining the ranking if it was not
there) and the old one drops by :data:`W_SUPERSEDED`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple

from turngraph.store.base import AttributeRow, ReadTx

W_SUPERSEDED = 1.0  # fused-score units a passage loses per question about the present
MARGIN = 0.05  # how far above the old passage the one that replaced it is put
# Words that make a question about the past ("Where did Maya live before?"), where an old
# value is the answer and keeps its rank.
PAST_WORDS = frozenset(
    {
        "ago",
        "before",
        "did",
        "earlier",
        "ex",
        "first",
        "former",
        "formerly",
        "had",
        "history",
        "originally",
        "past",
        "previous",
        "previously",
        "then",
        "used",
        "was",
        "were",
    }
)
_WORD = re.compile(r"[a-z]+")


def asks_about_now(query: str) -> bool:
    """Whether a question asks what holds now (no word of :data:`PAST_WORDS`)."""
    return not any(word in PAST_WORDS for word in _WORD.findall(query.lower()))


# Words that ask for an earlier value than the current one ("before the move", "previous job").
EARLIER_WORDS = frozenset(
    {"before", "earlier", "ex", "former", "formerly", "originally", "previous", "previously"}
)


_BEFORE = re.compile(r"\b(?:before|prior to|until|previous to)\b(.+)$", re.I)
# "... while he worked for Aker Solutions", "... when she wrote her essay": a question placed
# by something that held or happened then. Not a question that opens with "When".
_DURING = re.compile(r"(?<=\w)[\s,]+(?:while|when|during)\b(.+)$", re.I)


class Anchor(NamedTuple):
    """What a question about the past places itself by: ``how`` ("before" or "during"),
    the ``clause`` ("she moved to Eimsbüttel") and the question without it (``main``,
    "Where did she live"), which says what is asked."""

    how: str
    clause: str
    main: str


def anchor_clause(query: str) -> Anchor | None:
    """The :class:`Anchor` of "... before she moved to Eimsbüttel?" (``before``) or "...
    while he worked for Aker Solutions?" (``during``); None when the question names none."""
    for how, pattern in (("before", _BEFORE), ("during", _DURING)):
        m = pattern.search(query)
        clause = m.group(1).strip(" ?.!") if m else ""
        if m and clause:
            return Anchor(how, clause, query[: m.start()].strip())
    return None


# A value the question says has ended: "Which school did she graduate from?", "Which firm
# did she leave to take up her job in Singapore?" (the verb ends the question or its clause).
_ENDED = re.compile(
    r"^\W*(?:which|what|where|who)\b[^?]{0,120}?\bdid\b[^?]{0,120}?\b(?:graduate|leave|quit|"
    r"resign)"
    r"(?: from)?(?:\W*$|\s+(?:to|in|when|after)\b)",
    re.I,
)


def time_tilt(query: str) -> float:
    """Which way a question leans in time: 1 for the present (newer passages first among
    equals), -1 for an earlier value ("before", "previous", "used to", one that ended: "Which
    school did she graduate from?"), 0 for a question about the past that names no order
    ("When did she ...")."""
    words = _WORD.findall(query.lower())
    if any(w in EARLIER_WORDS for w in words) or "used to" in " ".join(words):
        return -1.0
    if _ENDED.search(query):
        return -1.0
    return 1.0 if not any(w in PAST_WORDS for w in words) else 0.0


@dataclass(frozen=True, slots=True)
class Replaced:
    """A fact a passage set that was no longer current at the time asked about."""

    observation_id: int  # the passage that set the old value
    entity_id: int
    note: str  # "Maya location: Manchester, now Bristol"
    successor: int | None  # the observation that set the value current then, if any
    until: datetime  # when the value stopped holding


def _current_at(row: AttributeRow, at: datetime | None) -> bool:
    if row.valid_until is None:
        return True
    return at is not None and row.valid_until > at


class Currency:
    """What recall learned of its candidates' facts, read once per recall: the facts each
    observation set that were replaced or ended by ``at`` (default: now)."""

    def __init__(self, tx: ReadTx, at: datetime | None) -> None:
        self._tx = tx
        self._at = at
        self._checked: set[int] = set()
        self._facts: dict[int, list[Replaced]] = {}
        self._chains: dict[tuple[int, str], list[AttributeRow]] = {}

    def replaced(self, ids: Sequence[int]) -> dict[int, list[Replaced]]:
        """The replaced facts of each of ``ids`` that has any (read only for new ids)."""
        missing = [oid for oid in ids if oid not in self._checked]
        if missing:
            self._facts.update(replaced_facts(self._tx, missing, self._at, self._chains))
            self._checked.update(missing)
        return {oid: self._facts[oid] for oid in ids if oid in self._facts}


def replaced_facts(
    tx: ReadTx,
    ids: Sequence[int],
    at: datetime | None,
    chains: dict[tuple[int, str], list[AttributeRow]] | None = None,
) -> dict[int, list[Replaced]]:
    """The facts each of ``ids`` set that were replaced or ended by ``at`` (default: now),
    by observation; observations whose facts all still held are absent."""
    out: dict[int, list[Replaced]] = {}
    chains = {} if chains is None else chains
    for row in tx.attributes_for_observations(ids):
        if _current_at(row, at):
            continue
        successor: AttributeRow | None = None
        if row.superseded_by is not None:  # a single-valued key: find the value current then
            chain = chains.get((row.entity_id, row.key))
            if chain is None:
                chain = chains[(row.entity_id, row.key)] = tx.attribute_history(
                    row.entity_id, row.key
                )
            successor = next(
                (
                    v
                    for v in reversed(chain)
                    if _current_at(v, at) and (at is None or v.valid_from <= at)
                ),
                None,
            )
        key = row.key.replace("_", " ")
        tail = f", now {successor.value}" if successor is not None else " (no longer)"
        out.setdefault(row.observation_id, []).append(
            Replaced(
                observation_id=row.observation_id,
                entity_id=row.entity_id,
                note=f"{row.entity_name} {key}: {row.value}{tail}",
                successor=None if successor is None else successor.observation_id,
                until=row.valid_until or row.valid_from,
            )
        )
    return out
