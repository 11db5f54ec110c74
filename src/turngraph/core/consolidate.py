"""Finding entities recorded under variant names, as merge candidates.

Three signals, each cheap and explainable:

- **name variants**: the names agree once nicknames ("Bob" / "Robert"), "Last, First"
  order, organization suffixes ("Corp" / "Corporation" / "Inc") and a leading "the" are
  normalized away;
- **near-identical names**: the normalized names differ by a typo or two;
- **look-alike names**: the names read the same once confusable characters are mapped to the
  one they look like (core/lookalike.py: "Alice" spelled with a Cyrillic capital A, U+0410,
  and "Alice"), and one of them mixes scripts;
- **a first name and a full name** ("Maya" / "Maya Okafor"), both people, when someone who
  said one also said the other and no other full name shares the first name (a second
  surname makes the first name ambiguous);
- **near-identical descriptions**: same type, and the descriptions share almost every word.
  Only descriptions someone wrote count: a generated one ("Lisbon: a place mentioned in
  conversation") says nothing about which entity it is.

Candidates are only proposals: nothing is merged until a proposal is accepted.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher

from turngraph.core.lookalike import lookalike_letters, scripts, skeleton
from turngraph.store.base import EntityRow

NICKNAMES = {
    "abby": "abigail",
    "al": "albert",
    "alex": "alexander",
    "andy": "andrew",
    "ben": "benjamin",
    "beth": "elizabeth",
    "bill": "william",
    "billy": "william",
    "bob": "robert",
    "bobby": "robert",
    "cathy": "catherine",
    "chris": "christopher",
    "chuck": "charles",
    "dan": "daniel",
    "danny": "daniel",
    "dave": "david",
    "dick": "richard",
    "ed": "edward",
    "eddie": "edward",
    "fred": "frederick",
    "greg": "gregory",
    "jack": "john",
    "jeff": "jeffrey",
    "jen": "jennifer",
    "jenny": "jennifer",
    "jim": "james",
    "jimmy": "james",
    "joe": "joseph",
    "joey": "joseph",
    "johnny": "john",
    "jon": "jonathan",
    "kate": "katherine",
    "katie": "katherine",
    "kathy": "katherine",
    "ken": "kenneth",
    "larry": "lawrence",
    "liz": "elizabeth",
    "maggie": "margaret",
    "matt": "matthew",
    "meg": "margaret",
    "mike": "michael",
    "mikey": "michael",
    "nate": "nathan",
    "nick": "nicholas",
    "pat": "patrick",
    "peggy": "margaret",
    "pete": "peter",
    "rich": "richard",
    "rick": "richard",
    "rob": "robert",
    "robbie": "robert",
    "ron": "ronald",
    "sam": "samuel",
    "steve": "stephen",
    "sue": "susan",
    "susie": "susan",
    "ted": "edward",
    "tim": "timothy",
    "tom": "thomas",
    "tommy": "thomas",
    "tony": "anthony",
    "vicky": "victoria",
    "will": "william",
}
ORG_SUFFIXES = {
    "ag",
    "co",
    "company",
    "corp",
    "corporation",
    "gmbh",
    "inc",
    "incorporated",
    "limited",
    "llc",
    "llp",
    "ltd",
    "plc",
    "pty",
    "sa",
    "sarl",
    "srl",
}
_WORD = re.compile(r"\w+")
# Signals and the score each one gives a pair.
NAME_VARIANT_SCORE = 0.9
LOOKALIKE_SCORE = 0.95
FULL_NAME_SCORE = 0.8
TYPO_RATIO = 0.9
DESCRIPTION_RATIO = 0.9
DESCRIPTION_MIN_WORDS = 4
# Description words this common carry no signal for finding candidate pairs.
MAX_POSTING = 200


@dataclass(frozen=True, slots=True)
class Candidate:
    canonical: EntityRow
    duplicate: EntityRow
    type: str
    reasons: tuple[str, ...]
    score: float


def _words(text: str) -> list[str]:
    plain = unicodedata.normalize("NFKD", text)
    plain = "".join(ch for ch in plain if unicodedata.category(ch) != "Mn").casefold()
    return _WORD.findall(plain)


def variant_key(name: str) -> str:
    """The name with nickname, order, suffix and article differences normalized away."""
    parts = [p.strip() for p in name.split(",")]
    if len(parts) == 2 and all(parts) and len(parts[0].split()) <= 2:
        second = _words(parts[1])
        if second and not set(second) <= ORG_SUFFIXES:  # "Smith, Bob" but not "Acme, Inc."
            name = f"{parts[1]} {parts[0]}"
    words = _words(name)
    if words and words[0] == "the":
        words = words[1:]
    while len(words) > 1 and words[-1] in ORG_SUFFIXES:
        words = words[:-1]
    if words:
        words[0] = NICKNAMES.get(words[0], words[0])
    return " ".join(words)


def types_compatible(a: str, b: str) -> bool:
    return a == b or "other" in (a, b)


def choose_canonical(a: EntityRow, b: EntityRow) -> tuple[EntityRow, EntityRow]:
    """The better-connected, plainer-named, older entity survives a merge."""

    def rank(e: EntityRow) -> tuple[int, int, str, int]:
        return (-e.degree, int("," in e.name), e.created_at.isoformat(), e.id)

    return (a, b) if rank(a) <= rank(b) else (b, a)


def _first_name(word: str) -> str:
    folded = " ".join(_words(word))
    return NICKNAMES.get(folded, folded)


def first_name_pairs(entities: Sequence[EntityRow]) -> list[tuple[EntityRow, EntityRow]]:
    """(first name, full name) pairs of people ("Maya", "Maya Okafor") where the first name
    has a single surname among the memory's full names."""
    people = [e for e in entities if e.type == "person"]
    full: dict[str, list[EntityRow]] = defaultdict(list)
    for e in people:
        words = e.name.split()
        if 2 <= len(words) <= 3 and "," not in e.name:
            full[_first_name(words[0])].append(e)
    pairs: list[tuple[EntityRow, EntityRow]] = []
    for e in people:
        words = e.name.split()
        if len(words) != 1:
            continue
        matches = full.get(_first_name(words[0]), [])
        if len({variant_key(" ".join(m.name.split()[1:])) for m in matches}) == 1:
            pairs += [(e, m) for m in matches]
    return pairs


def find_candidates(
    entities: Sequence[EntityRow],
    *,
    skip: set[tuple[str, str]],
    described: set[int] | None = None,
    speakers: dict[int, set[str]] | None = None,
) -> list[Candidate]:
    """Merge candidates among ``entities``, best first, leaving out the (sorted) key pairs in
    ``skip``. Descriptions are compared only between entities in ``described`` (those someone
    described in words; all when None). ``speakers`` holds who said the turns naming each
    entity, for first-name / full-name pairs (none proposed without it)."""
    reasons: dict[tuple[int, int], list[tuple[str, float]]] = defaultdict(list)
    by_id = {e.id: e for e in entities}

    def note(a: EntityRow, b: EntityRow, reason: str, score: float) -> None:
        pair = (min(a.id, b.id), max(a.id, b.id))
        if tuple(sorted((a.key, b.key))) in skip:
            return
        reasons[pair].append((reason, score))

    # Name variants: group by variant key.
    groups: dict[str, list[EntityRow]] = defaultdict(list)
    for e in entities:
        vk = variant_key(e.name)
        if vk:
            groups[vk].append(e)
    for vk, members in groups.items():
        for i, a in enumerate(members):
            for b in members[i + 1 :]:
                if types_compatible(a.type, b.type):
                    note(
                        a,
                        b,
                        f"{a.name!r} and {b.name!r} are variants of one name ({vk!r})",
                        NAME_VARIANT_SCORE,
                    )

    # Look-alikes: equal skeletons, different keys, one name mixing scripts.
    shapes: dict[str, list[EntityRow]] = defaultdict(list)
    for e in entities:
        if not e.key.isascii():
            shapes[skeleton(e.key)].append(e)
    for e in entities:
        if e.key.isascii() and (shape := skeleton(e.key)) in shapes:
            shapes[shape].append(e)
    for members in shapes.values():
        for i, a in enumerate(members):
            for b in members[i + 1 :]:
                mixed = len(scripts(a.name)) > 1 or len(scripts(b.name)) > 1
                if a.key != b.key and mixed and types_compatible(a.type, b.type):
                    letters = "; ".join(lookalike_letters(a.name, b.name))
                    note(
                        a,
                        b,
                        f"{a.name!r} and {b.name!r} look the same ({letters or 'confusables'})",
                        LOOKALIKE_SCORE,
                    )

    # Typos: compare variant keys that share their first three characters.
    blocks: dict[str, list[tuple[str, EntityRow]]] = defaultdict(list)
    for vk, members in groups.items():
        if len(vk) >= 6:
            blocks[vk[:3]].extend((vk, m) for m in members)
    for members_with_keys in blocks.values():
        for i, (ka, a) in enumerate(members_with_keys):
            for kb, b in members_with_keys[i + 1 :]:
                if ka == kb or not types_compatible(a.type, b.type):
                    continue
                ratio = SequenceMatcher(None, ka, kb).ratio()
                if ratio >= TYPO_RATIO:
                    note(a, b, f"{a.name!r} and {b.name!r} differ by a typo", ratio)

    # A first name and a full name that the same person said.
    said_by = speakers or {}
    for short, long in first_name_pairs(entities) if said_by else ():
        heard = {who.casefold(): who for who in said_by.get(short.id, ())}
        said = [heard[k] for k in {w.casefold() for w in said_by.get(long.id, ())} & heard.keys()]
        if said:
            note(
                short,
                long,
                f"{short.name!r} is the first name of {long.name!r}, both said by "
                f"{', '.join(sorted(said))}, and no other {short.name} has another surname",
                FULL_NAME_SCORE,
            )

    # Descriptions: candidates share description words (via postings), then compare.
    written = [e for e in entities if described is None or e.id in described]
    words = {e.id: _words(e.description) for e in written}
    postings: dict[tuple[str, str], list[int]] = defaultdict(list)
    for e in written:
        for w in set(words[e.id]):
            postings[(e.type, w)].append(e.id)
    shared: dict[tuple[int, int], int] = defaultdict(int)
    for ids in postings.values():
        if len(ids) > MAX_POSTING:
            continue
        for i, a_id in enumerate(ids):
            for b_id in ids[i + 1 :]:
                shared[(min(a_id, b_id), max(a_id, b_id))] += 1
    for (a_id, b_id), count in shared.items():
        wa, wb = words[a_id], words[b_id]
        if min(len(wa), len(wb)) < DESCRIPTION_MIN_WORDS:
            continue
        if count < 0.8 * max(len(set(wa)), len(set(wb))):
            continue
        ratio = SequenceMatcher(None, " ".join(wa), " ".join(wb)).ratio()
        if ratio >= DESCRIPTION_RATIO:
            a, b = by_id[a_id], by_id[b_id]
            note(
                a,
                b,
                f"{a.name!r} and {b.name!r} are both {a.type}s with near-identical descriptions",
                ratio,
            )

    out: list[Candidate] = []
    for (a_id, b_id), found in reasons.items():
        canonical, duplicate = choose_canonical(by_id[a_id], by_id[b_id])
        best = max(score for _, score in found)
        score = min(1.0, best + 0.05 * (len(found) - 1))
        etype = canonical.type if canonical.type != "other" else duplicate.type
        out.append(
            Candidate(canonical, duplicate, etype, tuple(r for r, _ in found), round(score, 4))
        )
    out.sort(key=lambda c: (-c.score, c.canonical.key, c.duplicate.key))
    return out
