"""How well extraction understands conversation (``turngraph bench extraction FILE...``).

Three measures, each recomputable after any change to an extractor:

- **LoCoMo gold-fact coverage.** Each LoCoMo conversation lists, per session and speaker,
  observations written by the data set's authors with the ``dia_id`` of the turns that state
  them. A conversation is ingested as ``bench locomo`` does (one session per LoCoMo session,
  each turn stamped with its session's date and spoken by its speaker); an observation is
  *covered* when an item extracted from one of its evidence turns states the same fact
  (:func:`states_same_fact`). The observations are read only to score.
- **Precision** against hand labels (``--labels``): every item extracted from the labelled
  turns, marked correct, wrong or noise.
- **The labelled suite** (``tests/data/extraction_suite.txt``): short chats with every item a
  careful person would expect from them, and what must not be extracted.
"""

from __future__ import annotations

import contextlib
import json
import re
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import turngraph
from turngraph.bench.locomo import _sessions, _turn_text
from turngraph.extract.base import Extractor, RawExtraction, TurnContext
from turngraph.extract.lexicon import stem, words
from turngraph.recall.stopwords import QUESTION_STOPWORDS

# -- items -------------------------------------------------------------------------------------

SYMMETRIC = frozenset({"sibling_of", "married_to", "partner_of", "friend_of", "colleague_of"})
FACT_KINDS = ("attr", "rel", "action")  # what can state a gold fact
ALL_KINDS = (
    "entity",
    "attr",
    "ended",
    "rel",
    "ended_rel",
    "action",
    "instruction",
    "uncertain",
)


@dataclass(frozen=True, slots=True)
class Item:
    """One extracted item in a flat, comparable form."""

    kind: str  # entity | attr | ended | rel | ended_rel | action | instruction | uncertain
    subject: str  # entity, actor, relation subject, uncertainty's about; "" for instructions
    predicate: str  # attribute key, relation label, action verb, entity type
    object: str = ""  # attribute value, relation object, action object, instruction text
    time: str = ""  # an action's time at its stated precision: 2024-03-05, 2024-W10, 2024-03
    place: str = ""

    def key(self) -> str:
        """The item as one line, as stored in precision labels."""
        fields = [self.kind, self.subject, self.predicate, self.object]
        if self.kind == "action":
            fields += [self.time, self.place]
        return " | ".join(fields).rstrip(" |")


def time_label(when: datetime | None, precision: str | None) -> str:
    if when is None:
        return ""
    if precision == "year":
        return f"{when.year}"
    if precision == "season":
        season = {3: "spring", 6: "summer", 9: "fall", 12: "winter"}.get(when.month, "")
        return f"{when.year}-{season}" if season else f"{when.year}-{when.month:02d}"
    if precision == "month":
        return f"{when.year}-{when.month:02d}"
    if precision == "week":
        year, week, _ = when.isocalendar()
        return f"{year}-W{week:02d}"
    return when.date().isoformat()


def items_of(raw: RawExtraction) -> list[Item]:
    """Every item of a raw extraction, flattened."""
    out = [Item("entity", e.name, e.type) for e in raw.entities]
    for a in raw.attributes:
        out.append(Item("ended" if a.negated else "attr", a.entity, a.key, a.value))
    out += [
        Item("ended_rel" if r.negated else "rel", r.subject, r.label, r.object)
        for r in raw.relations
    ]
    for act in raw.actions:
        out.append(
            Item(
                "action",
                act.actor,
                act.verb,
                act.object or "",
                time_label(act.occurred_at, act.precision),
                act.place or "",
            )
        )
    out += [Item("instruction", "", i.label, i.description) for i in raw.instructions]
    out += [Item("uncertain", u.about, "", u.reason) for u in raw.uncertainties]
    return out


class RecordingExtractor:
    """Wraps an extractor: times each call and keeps what it returned, in call order."""

    def __init__(self, inner: Extractor) -> None:
        self.inner = inner
        self.name = inner.name
        self.calls: list[tuple[str, TurnContext, RawExtraction | None, float]] = []

    def extract(self, text: str, context: TurnContext) -> RawExtraction:
        began = time.perf_counter()
        raw: RawExtraction | None = None
        try:
            raw = self.inner.extract(text, context)
            return raw
        finally:
            self.calls.append((text, context, raw, (time.perf_counter() - began) * 1000))


# -- comparing words ---------------------------------------------------------------------------

_GENERIC = frozenset(
    {"be", "have", "do", "get", "make", "go", "feel", "thing", "lot", "really", "just", "also"}
)
# Predicate words that say the same thing in different words, by stem.
_SYNONYMS = [
    "go went attend visit trip travel tour join",
    "like love enjoy fond passion appreciate favorite fan adore into",
    "dislike hate detest",
    "live move based relocate reside settle home",
    "from hometown born grow origin native",
    "work job employ career hire profession employer",
    "learn study class lesson course practice school student education",
    "want plan hope dream goal wish aspire consider intend keen think",
    "pet pets dog cat puppy kitten animal",
    "family kid kids child children son daughter husband wife married parent mom dad sibling",
    "start begin began started join took",
    "make create build paint draw craft",
    "get receive give award win",
    "read book novel",
    "volunteer help support",
    "run race marathon",
    "play game",
    "meet met",
    "buy purchase",
    "adopt adoption",
    "friend friends",
    "appreciate grateful thankful gratitude thank mean",
    "prepare ready",
]
_GROUP: dict[str, int] = {}
for _i, _line in enumerate(_SYNONYMS):
    for _w in _line.split():
        _GROUP.setdefault(stem(_w), _i)


def content_stems(text: str, *, drop: Iterable[str] = ()) -> set[str]:
    """Stems of the words that carry content (no stopwords, no generic verbs)."""
    dropped = {d.casefold() for d in drop}
    out: set[str] = set()
    for w in words(text.replace("_", " ")):
        if w in QUESTION_STOPWORDS or w in dropped or len(w) < 2:
            continue
        s = stem(w)
        if s not in _GENERIC:
            out.add(s)
    return out


def _groups(stems: Iterable[str]) -> set[int]:
    out: set[int] = set()
    for s in stems:
        if s in _GROUP:
            out.add(_GROUP[s])
        elif len(s) >= 5:
            out.update(
                g
                for word, g in _GROUP.items()
                if len(word) >= 5 and (s.startswith(word) or word.startswith(s))
            )
    return out


# Object words too general to carry a fact by themselves.
_VAGUE = frozenset(
    stem(w)
    for w in (
        "strong great good first step time difference thing way lot people change "
        "experience chance memory memories place connection life day fun moment part "
        "kind love support one bit new big little best nice whole stuff world others "
        "everyone someone something important special hard tough amazing awesome cool "
        "feeling feelings idea ideas journey story stories spend spending create "
        "creating make making positive negative"
    ).split()
)
# Verbs that say little by themselves: a fact needs two shared object words with them.
_WEAK_VERBS = frozenset(
    (
        "have make take get do give help turn tend name remember keep put form feel "
        "think know see look say tell"
    ).split()
)
_FAMILY_CUES = re.compile(
    r"\b(has|have|had|married|husband|wife|mother of|father of|parent|mom of|dad of)\b", re.I
)


def compact(item: Item) -> bool:
    """A fact, not an echo: an object of a few words and a short predicate."""
    return (
        len(words(item.object)) <= 8
        and len(words(item.predicate.replace("_", " "))) <= 4
        and len(words(item.place)) <= 6
    )


def _names(text: str) -> set[str]:
    return {w.casefold() for w in re.findall(r"\b[A-Z][a-z]+", text)}


def states_same_fact(item: Item, gold: str, speaker: str) -> bool:
    """Whether ``item`` states the fact of the gold observation ``gold`` about ``speaker``.

    The item must be a compact fact (attribute, relation or action) about the observation's
    person, or about a person or thing the observation names. Its object must share specific
    content words with the observation (not "time", "people", "experience"): two of them, or
    one when its predicate says the same thing as the observation (the same word or a
    synonym: "went to" / "attended", "likes" / "is passionate about") and is no light verb
    ("have", "make", "take"). Family facts need the observation to say that someone has them.
    """
    if item.kind not in FACT_KINDS or not compact(item):
        return False
    subject = item.subject.casefold().split()[0] if item.subject.strip() else ""
    person = speaker.casefold().split()[0]
    if subject != person and subject not in _names(gold):
        return False
    names = {person, subject}
    gold_stems = content_stems(gold, drop=names)
    obj = content_stems(f"{item.object} {item.place}", drop=names)
    specific = (obj & gold_stems) - _VAGUE
    if item.kind == "attr" and item.predicate in ("family", "relationship_status"):
        if not _FAMILY_CUES.search(gold):
            return False
        if _groups(obj) & _groups(stem(w) for w in words(gold)):
            return True
    if len(specific) >= 2:
        return True
    if len(specific) != 1:
        return False
    verb = item.predicate.split()[0] if item.kind == "action" else ""
    if verb in _WEAK_VERBS:
        return False
    pred = {stem(w) for w in words(item.predicate.replace("_", " "))}
    gold_all = {stem(w) for w in words(gold)}
    return bool(pred & gold_all or _groups(pred) & _groups(gold_all))


# -- LoCoMo --------------------------------------------------------------------------------------


@dataclass
class Gold:
    conversation: str
    speaker: str
    text: str
    evidence: tuple[str, ...]
    covered_by: str = ""


@dataclass
class TurnItems:
    conversation: str
    dia_id: str
    speaker: str
    text: str
    items: list[Item]
    ms: float


def gold_observations(conv: dict[str, Any], name: str) -> list[Gold]:
    out: list[Gold] = []
    for key, value in conv.items():
        if not re.fullmatch(r"session_\d+_observation", key) or not isinstance(value, dict):
            continue
        for speaker, facts in value.items():
            for fact in facts:
                if not isinstance(fact, list) or len(fact) < 2:
                    continue
                ids = re.findall(r"D\d+:\d+", json.dumps(fact[1:]))
                if ids:
                    out.append(Gold(name, speaker, str(fact[0]), tuple(ids)))
    return out


def ingest(
    path: Path, extractor: Extractor, *, max_turns: int | None = None
) -> tuple[list[TurnItems], list[Gold]]:
    """Ingest one LoCoMo conversation through ``remember_many`` and keep each turn's items."""
    data = json.loads(path.read_text("utf-8"))
    conv = data.get("conversation", data)
    name = path.stem
    recorder = RecordingExtractor(extractor)
    turns: list[TurnItems] = []
    with tempfile.TemporaryDirectory() as tmp:
        db = turngraph.open(Path(tmp) / "extraction.db", extractor=recorder)
        try:
            mem = db.create_memory(
                re.sub(r"[^A-Za-z0-9_.-]", "-", name), retrieval={"embedder": "none"}
            )
            for when, session in _sessions(conv):
                if max_turns is not None:
                    session = session[: max(max_turns - len(turns), 0)]
                if not session:
                    break
                batch = [
                    {
                        "role": "user",
                        "content": _turn_text(t),
                        "speaker": t["speaker"],
                        "ts": (when + timedelta(seconds=i)).isoformat(),
                    }
                    for i, t in enumerate(session)
                ]
                first = len(recorder.calls)
                # A failed extraction stores its turns; they count as turns without items.
                with contextlib.suppress(turngraph.ExtractionError):
                    mem.remember_many(batch)
                for t, (_, _, raw, ms) in zip(session, recorder.calls[first:], strict=True):
                    items = items_of(raw) if raw is not None else []
                    turns.append(
                        TurnItems(name, t["dia_id"], t["speaker"], _turn_text(t), items, ms)
                    )
        finally:
            db.close()
    kept = {t.dia_id for t in turns}
    golds = [g for g in gold_observations(conv, name) if set(g.evidence) <= kept]
    return turns, golds


def score_coverage(turns: Sequence[TurnItems], golds: Sequence[Gold]) -> None:
    """Mark each gold observation with the first item (from its evidence) that states it."""
    by_turn = {(t.conversation, t.dia_id): t for t in turns}
    for gold in golds:
        for dia in gold.evidence:
            turn = by_turn.get((gold.conversation, dia))
            for item in turn.items if turn else ():
                if states_same_fact(item, gold.text, gold.speaker):
                    gold.covered_by = item.key()
                    break
            if gold.covered_by:
                break


def coverage_by_correct(
    turns: Sequence[TurnItems], golds: Sequence[Gold], labels: dict[str, Any]
) -> dict[str, Any]:
    """Coverage counting only items labelled correct, over the gold observations whose
    evidence turns are all labelled."""
    marks: dict[str, dict[str, str]] = labels.get("turns", {})
    by_turn = {(t.conversation, t.dia_id): t for t in turns}
    scored = covered = 0
    for gold in golds:
        keys = [f"{gold.conversation}:{dia}" for dia in gold.evidence]
        if not all(k in marks for k in keys):
            continue
        scored += 1
        for dia, key in zip(gold.evidence, keys, strict=True):
            turn = by_turn.get((gold.conversation, dia))
            good = [i for i in (turn.items if turn else ()) if marks[key].get(i.key()) == "correct"]
            if any(states_same_fact(i, gold.text, gold.speaker) for i in good):
                covered += 1
                break
    return {
        "gold": scored,
        "covered": covered,
        "coverage": round(covered / scored, 4) if scored else None,
    }


def _quantiles(values: Sequence[float]) -> dict[str, float]:
    v = sorted(values)
    if not v:
        return {"p50": 0.0, "p95": 0.0, "max": 0.0}
    q = statistics.quantiles(v, n=100) if len(v) > 1 else [v[0]] * 99
    return {"p50": round(q[49], 3), "p95": round(q[94], 3), "max": round(v[-1], 3)}


def precision(turns: Sequence[TurnItems], labels: dict[str, Any]) -> dict[str, Any]:
    """Precision of the items extracted from the labelled turns.

    ``labels["turns"]`` maps ``"<conversation>:<dia_id>"`` to ``{item line: label}`` with
    labels correct, wrong or noise. Items extracted now that carry no label are counted
    apart: relabel after a change that makes many.
    """
    labelled: dict[str, dict[str, str]] = labels.get("turns", {})
    counts: Counter[str] = Counter()
    per_kind: dict[str, Counter[str]] = {}
    unlabelled: list[str] = []
    for t in turns:
        marks = labelled.get(f"{t.conversation}:{t.dia_id}")
        if marks is None:
            continue
        counts["turns"] += 1
        for item in t.items:
            label = marks.get(item.key())
            if label is None:
                unlabelled.append(f"{t.conversation}:{t.dia_id} {item.key()}")
                continue
            counts[label] += 1
            per_kind.setdefault(item.kind, Counter())[label] += 1
    judged = counts["correct"] + counts["wrong"] + counts["noise"]
    facts = Counter[str]()
    for kind, c in per_kind.items():
        if kind != "entity":
            facts.update(c)
    named = per_kind.get("entity", Counter())
    return {
        "turns": counts["turns"],
        "items": judged,
        "correct": counts["correct"],
        "wrong": counts["wrong"],
        "noise": counts["noise"],
        "precision": round(counts["correct"] / judged, 4) if judged else None,
        # Noise is true but not worth keeping; without it, the share that is not wrong.
        "precision_without_noise": (
            round(counts["correct"] / (counts["correct"] + counts["wrong"]), 4)
            if counts["correct"] + counts["wrong"]
            else None
        ),
        "by_kind": {
            kind: round(c["correct"] / sum(c.values()), 4) for kind, c in sorted(per_kind.items())
        },
        # Bare names (entity items) apart: precision of the facts, and of the names.
        "facts_precision": round(facts["correct"] / sum(facts.values()), 4) if facts else None,
        "facts": sum(facts.values()),
        "names_precision": round(named["correct"] / sum(named.values()), 4) if named else None,
        "unlabelled": len(unlabelled),
        "unlabelled_items": unlabelled[:50],
    }


def run_locomo(
    paths: Sequence[Path],
    *,
    extractor: Extractor,
    labels: dict[str, Any] | None = None,
    max_turns: int | None = None,
    log: Callable[[str], None] = lambda _: None,
) -> dict[str, Any]:
    """Coverage of the gold observations, items per 100 turns and time per turn."""
    all_turns: list[TurnItems] = []
    all_golds: list[Gold] = []
    per_conv: dict[str, dict[str, Any]] = {}
    for path in paths:
        turns, golds = ingest(path, extractor, max_turns=max_turns)
        score_coverage(turns, golds)
        covered = sum(1 for g in golds if g.covered_by)
        per_conv[path.stem] = {
            "turns": len(turns),
            "gold": len(golds),
            "covered": covered,
            "coverage": round(covered / len(golds), 4) if golds else None,
        }
        log(f"{path.name}: {len(turns)} turns, coverage {covered}/{len(golds)}")
        all_turns += turns
        all_golds += golds
    n = len(all_turns)
    kinds = Counter(item.kind for t in all_turns for item in t.items)
    covered = sum(1 for g in all_golds if g.covered_by)
    report: dict[str, Any] = {
        "extractor": extractor.name,
        "conversations": per_conv,
        "overall": {
            "turns": n,
            "gold": len(all_golds),
            "covered": covered,
            "coverage": round(covered / len(all_golds), 4) if all_golds else None,
        },
        "items_per_100_turns": {k: round(100 * kinds[k] / n, 1) if n else 0 for k in ALL_KINDS},
        "ms_per_turn": _quantiles([t.ms for t in all_turns]),
    }
    if labels is not None:
        report["precision"] = precision(all_turns, labels)
        report["coverage_correct"] = coverage_by_correct(all_turns, all_golds, labels)
    report["_turns"] = all_turns
    report["_golds"] = all_golds
    return report


# -- the labelled suite --------------------------------------------------------------------------

SUITE_TIME = datetime(2024, 3, 6, 10, 0, tzinfo=UTC)


@dataclass
class Case:
    id: str
    topic: str
    turns: list[tuple[str, str, str]]  # (role, speaker, text)
    expect: list[str]
    at: datetime = SUITE_TIME
    line: int = 0


def parse_suite(text: str) -> list[Case]:
    """Cases of the suite file format (see the header of ``tests/data/extraction_suite.txt``)."""
    cases: list[Case] = []
    case: Case | None = None
    for n, raw_line in enumerate(text.splitlines(), 1):
        line = raw_line.strip()
        if not line or (line.startswith("#") and not line.startswith("## ")):
            continue
        if line.startswith("## "):
            head = line[3:].split()
            if not head:
                raise ValueError(f"line {n}: a case needs an id")
            case = Case(head[0], head[1] if len(head) > 1 else "other", [], [], line=n)
            cases.append(case)
            continue
        if case is None:
            raise ValueError(f"line {n}: text before the first case")
        if line.startswith(">"):
            case.expect.append(line[1:].strip())
        elif line.startswith("at:"):
            stamp = line[3:].strip()
            case.at = datetime.fromisoformat(stamp.replace(" ", "T")).replace(tzinfo=UTC)
        elif m := re.match(r"@(assistant|system|tool):\s*(.*)$", line):
            case.turns.append((m.group(1), m.group(1), m.group(2)))
        elif m := re.match(r"([^:@>#][^:]{0,60}):\s*(.*)$", line):
            case.turns.append(("user", m.group(1).strip(), m.group(2)))
        else:
            raise ValueError(f"line {n}: not a turn, an expectation or a time: {line!r}")
    ids = Counter(c.id for c in cases)
    dupes = [i for i, k in ids.items() if k > 1]
    if dupes:
        raise ValueError(f"duplicate case ids: {', '.join(dupes)}")
    return cases


def _norm_value(text: str) -> list[str]:
    ws = [w for w in words(text) if w not in ("a", "an", "the", "my", "our", "his", "her")]
    return [stem(w) for w in ws]


def _same_value(have: str, want: str) -> bool:
    """The expected value, said perhaps with a word or two more ("run every morning before
    work" meets "run every morning"); a single word must match exactly."""
    h, w = _norm_value(have), _norm_value(want)
    if h == w:
        return True
    return len(w) >= 2 and set(w) <= set(h) and len(h) <= len(w) + 2


def _same_name(a: str, b: str) -> bool:
    a, b = a.casefold().strip(), b.casefold().strip()
    return bool(a) and (a == b or a.split()[0] == b.split()[0] == b)


def _season_of_year(label: str, year: str) -> bool:
    """A season said ("this summer") meets an expectation that names only its year."""
    return len(year) == 4 and label.startswith(year + "-") and not label[5:6].isdigit()


def _all_in(wanted: str, text: str) -> bool:
    need = {stem(w) for w in words(wanted) if w not in ("a", "an", "the")}
    have = {stem(w) for w in words(text)}
    return need <= have


def _matches(kind: str, fields: list[str], item: Item) -> bool:
    """Whether ``item`` meets the expectation ``kind | fields...`` (fields may be partial)."""
    f = fields + [""] * 5
    if kind == "entity":
        return (
            item.kind == "entity"
            and _same_name(item.subject, f[0])
            and (not f[1] or item.predicate == f[1])
        )
    if kind in ("attr", "ended"):
        return (
            item.kind == kind
            and _same_name(item.subject, f[0])
            and (not f[1] or item.predicate == f[1])
            and (not f[2] or _same_value(item.object, f[2]))
        )
    if kind in ("rel", "ended_rel"):
        if item.kind != kind or (f[1] and item.predicate != f[1]):
            return False
        pairs = [(item.subject, item.object)]
        if item.predicate in SYMMETRIC:
            pairs.append((item.object, item.subject))
        return any(
            (not f[0] or _same_name(s, f[0])) and (not f[2] or _same_name(o, f[2]))
            for s, o in pairs
        )
    if kind == "action":
        return (
            item.kind == "action"
            and (not f[0] or _same_name(item.subject, f[0]))
            and (
                not f[1] or item.predicate == f[1] or stem(item.predicate.split()[0]) == stem(f[1])
            )
            and (not f[2] or _all_in(f[2], f"{item.object} {item.place}"))
            and (not f[3] or item.time == f[3] or _season_of_year(item.time, f[3]))
            and (not f[4] or _all_in(f[4], f"{item.place} {item.object}"))
        )
    if kind == "instruction":
        return item.kind == "instruction" and (
            not f[0] or _all_in(f[0], f"{item.predicate} {item.object}")
        )
    if kind == "uncertain":
        return (
            item.kind == "uncertain"
            and (not f[0] or _same_name(item.subject, f[0]))
            and (not f[1] or _all_in(f[1], item.object))
        )
    raise ValueError(f"unknown expectation kind {kind!r}")


@dataclass
class CaseResult:
    case: Case
    met: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)
    items: list[Item] = field(default_factory=list)
    corrections: list[str] = field(default_factory=list)


def check_case(case: Case, items: list[Item], corrections: list[str]) -> CaseResult:
    result = CaseResult(case, items=items, corrections=corrections)
    for expectation in case.expect:
        negative = expectation.startswith("!")
        parts = [p.strip() for p in expectation.lstrip("!").split("|")]
        kind, fields = parts[0].strip(), parts[1:]
        if kind == "correction":
            f = [*fields, "", "", ""]
            old, _, new = f[2].partition("->")
            want = " | ".join([f[0], f[1], " ".join(_norm_value(old)), " ".join(_norm_value(new))])
            found = any(_same_correction(c, want) for c in corrections)
        else:
            found = any(_matches(kind, fields, item) for item in items)
        (result.met if found != negative else result.missed).append(expectation)
    return result


def _same_correction(have: str, want: str) -> bool:
    h, w = have.split(" | "), want.split(" | ")
    return _same_name(h[0], w[0]) and h[1:] == w[1:]


def suite_items(extractor: Extractor, path: Path) -> list[tuple[str, Item, bool]]:
    """Each attribute and action the extractor gives on the suite's cases, with the text of
    the turn it came from and whether the case expects it (the suite's share of the item
    filter's training examples)."""
    cases = {c.id: c for c in parse_suite(path.read_text("utf-8"))}
    out = []
    for case_id, calls in run_suite(extractor, path, calls=True)["calls"].items():
        wanted = [
            [p.strip() for p in e.split("|")]
            for e in cases[case_id].expect
            if not e.startswith(("!", "correction"))
        ]
        for text, items in calls:
            for item in items:
                if item.kind in ("attr", "action"):
                    found = any(w[0] == item.kind and _matches(w[0], w[1:], item) for w in wanted)
                    out.append((text, item, found))
    return out


def run_suite(extractor: Extractor, path: Path, *, calls: bool = False) -> dict[str, Any]:
    """Run every case through a real memory and score its expectations, per kind; with
    ``calls``, the report also holds each case's turns with their items."""
    cases = parse_suite(path.read_text("utf-8"))
    recorder = RecordingExtractor(extractor)
    per_case: dict[str, list[tuple[str, list[Item]]]] = {}
    results: list[CaseResult] = []
    with tempfile.TemporaryDirectory() as tmp:
        db = turngraph.open(Path(tmp) / "suite.db", extractor=recorder)
        try:
            for i, case in enumerate(cases):
                mem = db.create_memory(f"case-{i}", retrieval={"embedder": "none"})
                session = mem.create_session()
                first = len(recorder.calls)
                corrections: list[str] = []
                for j, (role, speaker, text) in enumerate(case.turns):
                    try:
                        res = mem.remember(
                            text,
                            session_id=session.id,
                            role=role,
                            speaker=speaker if role == "user" else None,
                            observed_at=case.at + timedelta(seconds=j),
                        )
                    except turngraph.ExtractionError:
                        continue
                    names = {e.id: e.name for e in res.extraction.entities}
                    for c in res.extraction.corrections:
                        corrections.append(
                            " | ".join(
                                [
                                    names.get(c.entity_id, c.entity_id),
                                    c.key,
                                    " ".join(_norm_value(c.old_value)),
                                    " ".join(_norm_value(c.new_value)),
                                ]
                            )
                        )
                said = [
                    (text, items_of(raw))
                    for text, _, raw, _ in recorder.calls[first:]
                    if raw is not None
                ]
                per_case[case.id] = said
                items = [item for _, found in said for item in found]
                results.append(check_case(case, items, corrections))
        finally:
            db.close()
    report = summarize_suite(results)
    if calls:
        report["calls"] = per_case
    return report


def _kind_of(expectation: str) -> str:
    if expectation.startswith("!"):
        return "negative"
    return expectation.split("|")[0].strip()


def summarize_suite(results: Sequence[CaseResult]) -> dict[str, Any]:
    per_kind: dict[str, list[int]] = {}
    per_topic: dict[str, list[int]] = {}
    for r in results:
        for exp, ok in [(e, 1) for e in r.met] + [(e, 0) for e in r.missed]:
            for table, key in ((per_kind, _kind_of(exp)), (per_topic, r.case.topic)):
                table.setdefault(key, [0, 0])
                table[key][0] += ok
                table[key][1] += 1
    met = sum(len(r.met) for r in results)
    total = met + sum(len(r.missed) for r in results)
    return {
        "cases": len(results),
        "expectations": total,
        "met": met,
        "share_met": round(met / total, 4) if total else None,
        "by_kind": {
            k: {"met": v[0], "of": v[1], "recall": round(v[0] / v[1], 4)}
            for k, v in sorted(per_kind.items())
        },
        "by_topic": {k: {"met": v[0], "of": v[1]} for k, v in sorted(per_topic.items())},
        # Cases whose every expectation holds: the ratchet the suite's test keeps.
        "passing": sorted(r.case.id for r in results if not r.missed),
        "missed": [
            {
                "case": r.case.id,
                "line": r.case.line,
                "missed": r.missed,
                "items": [i.key() for i in r.items],
                "corrections": r.corrections,
            }
            for r in results
            if r.missed
        ],
    }


# -- rendering -----------------------------------------------------------------------------------


def render(report: dict[str, Any]) -> str:
    lines: list[str] = []
    if "overall" in report:
        lines += [
            f"LoCoMo gold-fact coverage ({report['extractor']})",
            "",
            "| conversation | turns | gold | covered | coverage |",
            "|---|---|---|---|---|",
        ]
        rows = [*report["conversations"].items(), ("all", report["overall"])]
        for name, s in rows:
            lines.append(
                f"| {name} | {s['turns']} | {s['gold']} | {s['covered']} | "
                f"{(s['coverage'] or 0):.3f} |"
            )
        per = report["items_per_100_turns"]
        lines += [
            "",
            "items per 100 turns: " + ", ".join(f"{k} {v}" for k, v in per.items()),
            "extraction ms per turn: p50 {p50}, p95 {p95}, max {max}".format(
                **report["ms_per_turn"]
            ),
        ]
        if "precision" in report:
            p = report["precision"]
            lines.append(
                f"precision on {p['turns']} labelled turns: {p['precision']} "
                f"({p['correct']} correct, {p['wrong']} wrong, {p['noise']} noise; "
                f"{p['precision_without_noise']} leaving noise aside; "
                f"{p['unlabelled']} items without a label)"
            )
    if "heldout" in report and "overall" in report:
        lines += ["", *side_by_side(report, report["heldout"])]
    if "suite" in report:
        s = report["suite"]
        lines += [
            "",
            f"labelled suite: {s['met']}/{s['expectations']} expectations met "
            f"({s['share_met']}) over {s['cases']} cases",
            "",
            "| kind | met | of | recall |",
            "|---|---|---|---|",
        ]
        for kind, v in s["by_kind"].items():
            lines.append(f"| {kind} | {v['met']} | {v['of']} | {v['recall']:.3f} |")
    return "\n".join(lines)


def _cov(c: dict[str, Any] | None) -> str:
    if not c or c.get("coverage") is None:
        return "-"
    return f"{c['coverage']:.3f} ({c['covered']}/{c['gold']})"


def side_by_side(dev: dict[str, Any], held: dict[str, Any]) -> list[str]:
    """Development and held-out figures in one table (held-out text was never tuned on)."""

    def cov(r: dict[str, Any]) -> str:
        o = r["overall"]
        return f"{(o['coverage'] or 0):.3f} ({o['covered']}/{o['gold']})"

    def prec(r: dict[str, Any], key: str) -> str:
        p = r.get("precision")
        if not p or p.get(key) is None:
            return "-"
        return f"{p[key]:.3f}"

    rows = [
        ("turns read", str(dev["overall"]["turns"]), str(held["overall"]["turns"])),
        ("gold-fact coverage", cov(dev), cov(held)),
        (
            "gold-fact coverage, items labelled correct only",
            _cov(dev.get("coverage_correct")),
            _cov(held.get("coverage_correct")),
        ),
        (
            "precision, facts (noise counts as not correct)",
            prec(dev, "facts_precision"),
            prec(held, "facts_precision"),
        ),
        ("precision, bare names", prec(dev, "names_precision"), prec(held, "names_precision")),
        ("precision, all items", prec(dev, "precision"), prec(held, "precision")),
        (
            "precision leaving noise aside",
            prec(dev, "precision_without_noise"),
            prec(held, "precision_without_noise"),
        ),
    ]
    kinds = sorted(
        set((dev.get("precision") or {}).get("by_kind", {}))
        | set((held.get("precision") or {}).get("by_kind", {}))
    )
    for kind in kinds:
        d = (dev.get("precision") or {}).get("by_kind", {}).get(kind)
        h = (held.get("precision") or {}).get("by_kind", {}).get(kind)
        rows.append(
            (
                f"precision, {kind}",
                "-" if d is None else f"{d:.3f}",
                "-" if h is None else f"{h:.3f}",
            )
        )
    for r, name in ((dev, "development"), (held, "held-out")):
        p = r.get("precision")
        if p:
            rows.append(
                (
                    f"labelled turns / items / unlabelled ({name})",
                    *(
                        (f"{p['turns']} / {p['items']} / {p['unlabelled']}", "")
                        if name == "development"
                        else ("", f"{p['turns']} / {p['items']} / {p['unlabelled']}")
                    ),
                )
            )
    rows.append(
        (
            "extraction ms per turn, p95",
            f"{dev['ms_per_turn']['p95']}",
            f"{held['ms_per_turn']['p95']}",
        )
    )
    out = ["| measure | development | held-out |", "|---|---|---|"]
    out += [f"| {a} | {b} | {c} |" for a, b, c in rows]
    return out


def public(report: dict[str, Any]) -> dict[str, Any]:
    """The report without its working data (for ``--json``)."""
    out = {k: v for k, v in report.items() if not k.startswith("_")}
    if "heldout" in out:
        out["heldout"] = public(out["heldout"])
    return out


def dump_items(report: dict[str, Any], out: Path) -> None:
    """Each turn with its items, one JSON line per turn (the input of precision labelling)."""
    with out.open("w", encoding="utf-8") as fh:
        for t in report["_turns"]:
            fh.write(
                json.dumps(
                    {
                        "turn": f"{t.conversation}:{t.dia_id}",
                        "speaker": t.speaker,
                        "text": t.text,
                        "items": [i.key() for i in t.items],
                    }
                )
                + "\n"
            )


__all__ = [
    "Item",
    "items_of",
    "parse_suite",
    "render",
    "run_locomo",
    "run_suite",
    "states_same_fact",
    "suite_items",
]
