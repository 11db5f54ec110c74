"""What is true now: recall on conversations in which facts change (``turngraph bench currency``).

Each conversation of the suite (a folder of JSON files, see ``benchmarks/data/currency/``) is a
user talking with an assistant over several dated sessions while facts about the user change:
moves, jobs, partners, pets, diets, revised instructions. Its turns are stored with their real
roles (the user's as ``user`` spoken by the user's name, the assistant's as ``assistant``),
one memory per conversation, then every question is asked of the default ``recall`` with
``k=10``. Each change lists its values oldest first with the turns that state each one, and
under ``named_in`` the turns that name a value while stating another ("Swapped the Volvo.
Polestar 2." states the Polestar and names the Volvo): such a turn gives both values.

What is measured, per split (``splits.json`` names the development and held-out files):

- **present, current above stale**: for a question about the present, a hit that gives the
  current value (a turn that states it, or a fact hit with that value) ranks above every hit
  that gives an older value;
- **present, fact first**: the first hit is a fact hit with the current value, over the
  questions whose current value the memory holds as a current fact;
- **past, right value**: for a question about the past, the first hit that gives any value of
  the change gives the asked one;
- **when, right date**: for a question asking when a change happened, the first hit that
  gives the changed value is dated that day (its resolved date, else its turn's date);
- hits per answer (never more than ``k``).
"""

from __future__ import annotations

import json
import re
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import turngraph
from turngraph.errors import TurngraphError, ValidationError
from turngraph.models import Hit
from turngraph.recall.index import wait_for_index

K = 10
SPLITS = ("development", "held-out")


# A question about when something was said, not when it happened.
_TELLING = re.compile(r"\b(?:tell|told|say|said|mention|mentioned|report|announce|share)\b", re.I)


def _norm(text: str) -> str:
    return " ".join(text.casefold().replace("-", " ").split())


def same_value(a: str, b: str) -> bool:
    """Whether a stored value and an expected one name the same thing: equal once folded,
    or every word of one is a word of the other ("Stripe" and "Stripe Inc", "Samsung S23"
    and "Samsung Galaxy S23")."""
    x, y = set(_norm(a).split()), set(_norm(b).split())
    return bool(x) and bool(y) and (x <= y or y <= x)


_LIKE = frozenset("like likes liked love loves loved enjoys enjoy".split())
_DISLIKE = frozenset("dislike dislikes disliked hate hates hated".split())


def _polarity(text: str) -> int:
    words = set(_norm(text).split())
    return (1 if words & _LIKE else 0) - (1 if words & _DISLIKE else 0)


@dataclass
class Conversation:
    """One suite file, ingested: its changes and questions, and turn ids mapped both ways."""

    data: dict[str, Any]
    memory: turngraph.Memory
    suite_of: dict[str, str] = field(default_factory=dict)  # turngraph turn id -> "S1:3"

    def change(self, change_id: str) -> dict[str, Any]:
        found: dict[str, Any] = next(c for c in self.data["changes"] if c["id"] == change_id)
        return found

    def values_of(self, hit: Hit, change: dict[str, Any]) -> frozenset[int]:
        """Which values of ``change`` (their indices) the hit gives: a fact by its value
        (the same value first, else the longest that one holds in the other), anything else
        by the turn it is or cites (a turn that states one value and names an earlier one,
        "Swapped the Volvo. Polestar 2.", gives both)."""
        if hit.kind in ("attribute", "relation"):
            found = self._fact_value(hit, change)
            return frozenset() if found is None else frozenset({found})
        suite_id = self.suite_of.get(hit.source.turn_id or "")
        return frozenset(
            i
            for i, v in enumerate(change["values"])
            if suite_id in v["turns"] or suite_id in v.get("named_in", ())
        )

    @staticmethod
    def _fact_value(hit: Hit, change: dict[str, Any]) -> int | None:
        text = hit.text.split(": ", 1)[-1]
        values = [str(v["value"]) for v in change["values"]]
        if hit.superseded_at is not None and hit.superseded_by is None:
            # A fact shown as ended with nothing after it says "no longer": the "none"
            # value when the change ends in one.
            ended = [i for i, v in enumerate(values) if v.casefold() == "none"]
            if ended:
                return ended[-1]
        exact = [i for i, v in enumerate(values) if _norm(v) == _norm(text)]
        if exact:
            return exact[-1]
        # "Sofía likes: reggaeton" is "loves reggaeton", not "dislikes reggaeton".
        sign = _polarity(hit.text.split(": ", 1)[0])
        held = [i for i, v in enumerate(values) if same_value(text, v) and sign * _polarity(v) >= 0]
        if held:
            return max(held, key=lambda i: len(values[i]))
        return None


@dataclass
class Tally:
    present: list[bool] = field(default_factory=list)
    fact_first: list[bool] = field(default_factory=list)
    past: list[bool] = field(default_factory=list)
    when: list[bool] = field(default_factory=list)
    hits: list[int] = field(default_factory=list)
    latencies: list[float] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        def rate(values: list[bool]) -> dict[str, Any]:
            return {"n": len(values), "rate": round(statistics.fmean(values), 4) if values else 0}

        return {
            "present_current_above_stale": rate(self.present),
            "present_fact_first": rate(self.fact_first),
            "past_right_value": rate(self.past),
            "when_right_date": rate(self.when),
            "hits_mean": round(statistics.fmean(self.hits), 2) if self.hits else 0,
            "hits_max": max(self.hits, default=0),
            "over_k": sum(h > K for h in self.hits),
        }


def load_suite(folder: Path) -> dict[str, list[dict[str, Any]]]:
    """The suite's conversations by split, as ``splits.json`` in ``folder`` names them."""
    try:
        splits = json.loads((folder / "splits.json").read_text("utf-8"))
        out = {
            split: [json.loads((folder / name).read_text("utf-8")) for name in splits[split]]
            for split in SPLITS
        }
    except (OSError, ValueError, KeyError) as exc:
        raise ValidationError(f"cannot read the currency suite in {folder}: {exc}") from None
    return out


def ingest(db: turngraph.Database, data: dict[str, Any], split: str = "") -> Conversation:
    """Store the conversation's turns, session by session, with their roles and times, in a
    memory of its own."""
    conv = Conversation(data, db.create_memory(f"currency-{split}-{data['id']}".strip("-")))
    for session in data["sessions"]:
        start = datetime.fromisoformat(session["date"].replace("Z", "+00:00"))
        session_id: str | None = None
        for i, turn in enumerate(session["turns"]):
            user = turn["role"] == "user"
            result = conv.memory.remember(
                turn["text"],
                session_id=session_id,
                role=turn["role"],
                speaker=data["speaker"] if user else None,
                observed_at=start + timedelta(minutes=i),
            )
            session_id = result.session_id
            conv.suite_of[result.turn_id] = turn["id"]
    return conv


def _holds(conv: Conversation, answer: str) -> bool:
    """Whether the memory holds a current fact with this value."""
    state = conv.memory.state(limit=500)
    for group in (state.identity, state.knowledge, state.context):
        if any(same_value(a.value, answer) for a in group.attributes):
            return True
    return False


def ask(conv: Conversation, question: dict[str, Any], tally: Tally) -> None:
    began = time.perf_counter()
    rc = conv.memory.recall(question["question"], k=K)
    tally.latencies.append((time.perf_counter() - began) * 1000)
    tally.hits.append(len(rc.hits))
    change = conv.change(question["change"])
    values = [conv.values_of(h, change) for h in rc.hits]
    given = [(i, v) for i, v in enumerate(values) if v]
    last = len(change["values"]) - 1
    kind = question["kind"]
    label = f"{conv.data['id']}/{question['id']}"
    if kind == "present":
        current = next((i for i, v in given if last in v), None)
        stale = next((i for i, v in given if last not in v), None)
        ok = current is not None and (stale is None or current < stale)
        tally.present.append(ok)
        if change["values"][last]["value"].casefold() != "none" and _holds(
            conv, question["answer"]
        ):
            first = rc.hits[0] if rc.hits else None
            fact_ok = first is not None and first.kind == "attribute" and last in values[0]
            tally.fact_first.append(fact_ok)
            if not fact_ok:
                tally.misses.append(f"fact {label}: {_show(rc.hits[:3], values[:3])}")
        if not ok:
            tally.misses.append(f"present {label}: {_show(rc.hits, values)}")
    elif kind == "past":
        wanted = {
            i for i, v in enumerate(change["values"]) if same_value(v["value"], question["answer"])
        }
        ok = bool(given) and bool(given[0][1] & wanted)
        tally.past.append(ok)
        if not ok:
            tally.misses.append(f"past {label}: {_show(rc.hits, values)}")
    elif kind == "when":
        day = str(question["answer"])[:10]
        changed = next(((i, max(v)) for i, v in given if max(v) > 0), None)
        dated = None if changed is None else rc.hits[changed[0]]
        when = None
        if dated is not None and changed is not None:
            ending = str(change["values"][changed[1]]["value"]).casefold() == "none"
            # A fact shown as ended is dated by its end; anything else by what it reports,
            # unless the question asks when it was told ("When did Erik say ...?").
            said = dated.superseded_at if ending and dated.kind == "attribute" else None
            told = bool(_TELLING.search(question["question"]))
            when = said or (None if told else dated.occurred_at) or dated.observed_at
        ok = when is not None and when.date().isoformat() == day
        tally.when.append(ok)
        if not ok:
            tally.misses.append(f"when {label}: wanted {day}, {_show(rc.hits, values)}")


def _show(hits: Sequence[Hit], values: Sequence[frozenset[int]]) -> str:
    return " | ".join(
        f"{'+'.join(map(str, sorted(v))) or '-'}:{h.kind[0]}:{h.text[:50]!r}"
        for h, v in zip(hits, values, strict=True)
    )[:600]


def run(folder: Path, *, log: Callable[[str], None]) -> dict[str, Any]:
    suite = load_suite(folder)
    report: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        db = turngraph.open(Path(tmp) / "currency.db")
        try:
            for split in SPLITS:
                tally = Tally()
                for data in suite[split]:
                    conv = ingest(db, data, split)
                    if not wait_for_index(db.store, timeout=600):
                        raise TurngraphError(f"{data['id']}: the index did not catch up")
                    for question in data["questions"]:
                        ask(conv, question, tally)
                    log(f"{split} {data['id']}: {len(data['questions'])} questions")
                report[split] = {**tally.summary(), "misses": tally.misses}
        finally:
            db.close()
    return report


def render(report: dict[str, Any]) -> str:
    rows = [
        ("present: current ranked above stale", "present_current_above_stale"),
        ("present: current fact first (fact held)", "present_fact_first"),
        ("past: the asked value first", "past_right_value"),
        ("when: the right date", "when_right_date"),
    ]
    lines = ["| measure | " + " | ".join(SPLITS) + " |", "|---|" + "---|" * len(SPLITS)]
    for name, key in rows:
        cells = [
            f"{report[s][key]['rate']:.3f} ({report[s][key]['n']})" for s in SPLITS if s in report
        ]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    cells = [f"{report[s]['hits_mean']} / {report[s]['hits_max']}" for s in SPLITS if s in report]
    lines.append("| hits per answer, mean / max (k=10) | " + " | ".join(cells) + " |")
    return "\n".join(lines)
