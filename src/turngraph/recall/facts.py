"""Facts as answers: the attribute facts a question asks for, ranked above the passages.

A question asks for a fact when it asks for the fact's key, by a word of the key's cues
("live", "neighbourhood" -> location; "work", "company" -> employer; "diet", "vegan" -> diet)
or by the key's own words ("favorite color"), and is about the fact's entity: it names the
entity, or it asks about "the user" and the entity is who speaks the memory's user turns.
A question that names the value ("Who lives in Bristol?") finds the fact through the
attribute text search instead, whoever it is about.

Which version answers depends on how the question leans in time
(:func:`turngraph.recall.currency.time_tilt`) and on ``as_of``:

- at a time (``as_of``, or a date the question names): the version valid then;
- an earlier value ("before", "previous", "used to"): the version before the one the
  question names ("before she moved to Eimsbüttel"), else the last one replaced;
- otherwise: the current version (every current value of a key that holds several).

Other facts are not hits: a fact that the question does not ask for is noise beside the
passages, however well its words match.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from turngraph.core.validate import name_key
from turngraph.extract import gazetteers as gz
from turngraph.extract.base import MULTI_VALUED, SINGLE_VALUED
from turngraph.extract.instructions import instruction_topic
from turngraph.extract.timeref import resolve_time
from turngraph.models import Instruction
from turngraph.store.base import AttributeRow, EntityRow, FactRow, ReadTx

# Words of a question that ask for a key. A word may ask for several keys; the first listed
# for it is the likelier one.
CUES: dict[str, list[str]] = {
    "location": (
        "live lives living lived home city town neighbourhood neighborhood neighbourhoods "
        "district area suburb based reside resides residing moved move moving "
        "relocated flat apartment house"
    ).split(),
    "employer": (
        "work works working worked employer employers company companies firm employed "
        "job jobs workplace office"
    ).split(),
    "job_title": (
        "job jobs role roles title position occupation profession career promoted promotion"
    ).split(),
    "diet": "diet diets eat eats eating vegetarian vegan pescatarian meat food".split(),
    "pets": "pet pets dog dogs cat cats puppy kitten animal animals".split(),
    "relationship_status": (
        "relationship married single dating partner girlfriend boyfriend wife husband "
        "spouse engaged divorced fiance fiancee status"
    ).split(),
    "partner": (
        "partner partners girlfriend boyfriend wife husband spouse dating seeing fiance "
        "fiancee together"
    ).split(),
    "manager": (
        "manager managers boss supervisor supervisors advisor adviser reports managed "
        "manages supervised supervises supervising"
    ).split(),
    "phone_model": "phone phones smartphone mobile iphone android".split(),
    "health": "health condition conditions illness diagnosed diagnosis injury injured".split(),
    "allergies": "allergy allergies allergic intolerant intolerance".split(),
    "hobbies": "hobby hobbies pastime sport sports free time craft crafts".split(),
    "likes": "like likes love loves enjoy enjoys favorite favourite fan into think feel".split(),
    "dislikes": "dislike dislikes hate hates think feel".split(),
    "education": "study studies studying degree course courses education".split(),
    "school": "school university college uni phd masters studying studies".split(),
    "age": "age old".split(),
    "birthday": "birthday born".split(),
    "hometown": "from hometown grew".split(),
    "languages": "language languages speak speaks".split(),
    "preferred_name": "call called name nickname address".split(),
    "nationality": "nationality citizen".split(),
    "learning": "learning learn learns studying".split(),
    "skills": "skill skills".split(),
    "goals": "goal goals plan plans planning".split(),
    "habits": "habit habits routine".split(),
    "family": "family kids children child".split(),
    "date": "when date day scheduled rescheduled".split(),
}
# The keys whose value changes over a life and is asked about as a state ("where does she
# live?", "what does he eat?"): asked about now, the newest telling is the likeliest answer.
STATE_KEYS = (
    "location employer job_title diet pets relationship_status partner manager phone_model "
    "health allergies hobbies school learning"
).split()
_STATE_WORDS = frozenset(word for key in STATE_KEYS for word in CUES[key])
_BY_WORD: dict[str, list[str]] = {}
for _key, _words in CUES.items():
    for _word in _words:
        _BY_WORD.setdefault(_word, []).append(_key)
_WORD = re.compile(r"[a-z]+")


# Words with which a question says that it asks what holds now, as against before: people
# say them of what has changed ("what does she eat these days?").
_NOW_WORDS = frozenset("now currently nowadays presently".split())
_NOW_PHRASES = ("these days", "at the moment", "at present", "any more", "anymore")


def asks_about_state(query: str) -> bool:
    """Whether a question names a state that changes over a life (a word of STATE_KEYS), or
    asks in so many words what holds now ("what dose is she taking now?")."""
    low = query.lower()
    words = _WORD.findall(low)
    return (
        not _STATE_WORDS.isdisjoint(words)
        or not _NOW_WORDS.isdisjoint(words)
        or any(phrase in low for phrase in _NOW_PHRASES)
    )


# "What does Maya do?", "what do they do for a living": the question asks for a job.
# "What does she do?" asks for a job; "What sport does she do?" does not.
_DOES_FOR_WORK = re.compile(
    r"\bwhat(?: exactly| (?:kind|sort|type) of (?:work|job))? do(?:es)?\b.*\bdo\W*$|"
    r"\bfor a living\b|\bdo for work\b",
    re.I,
)
# The words that name a key holding many values, as a question asks for all of them.
NOUN_CUES: dict[str, tuple[str, ...]] = {
    "pets": ("pet", "pets", "dog", "dogs", "cat", "cats", "animal", "animals"),
    "hobbies": ("hobby", "hobbies", "sport", "sports", "pastime", "craft", "crafts"),
    "allergies": ("allergy", "allergies", "allergic", "intolerant", "intolerance"),
    "languages": ("language", "languages", "speak", "speaks"),
    "health": ("health", "condition", "conditions", "illness", "diagnosed", "diagnosis"),
    "skills": ("skill", "skills"),
    "learning": ("studying", "learning", "course", "certification"),
    "education": ("degree", "degrees", "education", "qualification"),
}
# The keys holding many values whose values answer questions (the rest, such as family,
# goals and opinions, are left to relationships and passages).
ANSWERING_LISTS = frozenset(
    "pets hobbies allergies languages health skills learning education likes dislikes".split()
)
# Keys whose value is a person: "who" asks for them.
PERSON_KEYS = frozenset({"partner", "manager"})
# Words that say the question is about the memory's user rather than a named person (an
# agent asking in the user's words: "where do I live now?").
USER_WORDS = frozenset({"user", "users", "i", "my", "me", "mine"})
MULTI_SHOWN = 3  # current values shown of a key that holds several


def asked_keys(query: str, known: Iterable[str] = ()) -> list[str]:
    """The attribute keys ``query`` asks for most: those with the most cue words in it
    ("job title" asks for job_title, not employer; "job" asks for both), or any key of
    ``known`` (keys the memory holds) whose every word the query has ("favorite color")."""
    words = _WORD.findall(query.lower())
    votes: dict[str, int] = {}
    if _DOES_FOR_WORK.search(query):
        votes["job_title"] = 2
    for word in words:
        for key in _BY_WORD.get(word, ()):
            votes[key] = votes.get(key, 0) + 1
    present = set(words)
    for key in known:
        parts = [p for p in key.split("_") if p]
        if parts and all(p in present for p in parts):
            votes[key] = votes.get(key, 0) + len(parts)
    if votes and ({"who", "whom"} & present):  # "Who is she dating?": a person, not a status
        for key in PERSON_KEYS & votes.keys():
            votes[key] += 1
    most = max(votes.values(), default=0)
    return [key for key, n in votes.items() if n == most]


# Words that ask for the first value of all ("what was she first called?").
EARLIEST_WORDS = frozenset({"first", "originally", "initially", "original"})
_START_OF = re.compile(r"\b(?:start|beginning) of\b|\bearly\b", re.I)
_PERIOD = {
    "day": timedelta(days=1),
    "week": timedelta(days=7),
    "month": timedelta(days=31),
    "season": timedelta(days=92),
    "year": timedelta(days=366),
}


def question_time(query: str, now: datetime) -> datetime | None:
    """The moment a question asks about when it names a time ("in March 2024", "last
    year"): the end of the period it names (the value held then is the last one of it),
    never later than ``now``; None when it names none."""
    ref = resolve_time(query, now)
    if ref is None:
        return None
    if _START_OF.search(query):  # "at the start of 2024": its first days
        return min(ref.when + timedelta(days=7), now)
    end = ref.when + _PERIOD.get(ref.precision, timedelta(days=1))
    if ref.precision == "month":
        end = end.replace(day=1)
    elif ref.precision == "year":
        end = end.replace(month=1, day=1)
    return min(end - timedelta(microseconds=1), now)


def about_user(query: str) -> bool:
    """Whether ``query`` asks about the memory's user ("the user", "my", "I")."""
    return any(w in USER_WORDS for w in _WORD.findall(query.lower()))


@dataclass(frozen=True, slots=True)
class Answer:
    """A fact that answers the question: an attribute version or a standing instruction,
    the observation (turn) that stated it, and what replaced it when it no longer holds."""

    kind: str  # attribute | instruction
    id: str
    text: str  # "Maya location: Bristol", or the instruction as said
    value: str  # the attribute's value ("Bristol"); the instruction as said
    observation_id: int
    since: datetime
    slug: str | None = None  # the stating observation's slug, when known
    successor: int | None = None  # the observation that stated what replaced it
    until: datetime | None = None  # when it stopped holding
    note: str | None = None  # "Maya location: Manchester, now Bristol"
    key: str = ""  # the attribute's key ("location"); "" for an instruction
    named_only: bool = False  # the question named its value, not its key


def _attribute_answer(row: AttributeRow, successor: AttributeRow | None = None) -> Answer:
    said = f"{row.entity_name} {row.key.replace('_', ' ')}: {row.value}"
    return Answer(
        kind="attribute",
        id=row.id,
        text=said,
        value=row.value,
        key=row.key,
        observation_id=row.observation_id,
        since=row.valid_from,
        slug=row.source_slug,
        successor=successor.observation_id if successor else None,
        until=successor.valid_from if successor else row.valid_until,
        note=f"{said}, now {successor.value}" if successor else None,
    )


def user_entities(tx: ReadTx) -> list[EntityRow]:
    """The entities of who speaks the memory's user turns (newest first), and of the speaker
    a turn without one stands for (``user``)."""
    names = tx.user_speakers(limit=3)
    keys = [name_key(n) for n in names] + [name_key("user")]
    found = tx.find_entities(keys)
    return [found[k] for k in keys if k in found]


def answers(
    tx: ReadTx,
    query: str,
    about: Sequence[EntityRow],
    *,
    tilt: float,
    at: datetime | None,
    matched: Sequence[AttributeRow] = (),
    asking: str | None = None,
) -> list[Answer]:
    """The facts of the entities ``about`` (and of ``matched``, the attribute text search's
    rows) that answer ``query``, best first; the keys asked for are read from ``asking``
    (default: ``query``)."""
    keys = asked_keys(query if asking is None else asking)
    if not keys or (not about and not matched):
        return []
    words = set(_WORD.findall(query.lower()))
    rows = tx.entity_attributes([e.id for e in about], keys) if about else []
    seen = {r.id for r in rows}
    # A row the attribute search found for another entity answers only a question that
    # names its value and no one else ("Who lives in Bristol?").
    if not any(e.type == "person" for e in about):
        rows += [
            r for r in matched if r.key in keys and r.id not in seen and names_value(r.value, words)
        ]
    # A key that holds many values (likes, family, goals) is asked for only by a word that
    # names it ("What pets does she have?"); otherwise only a value the question names is
    # an answer ("What does she think of reggaeton?"), not every value of the key.
    listed = {k for k in keys if k in MULTI_VALUED and not words & set(NOUN_CUES.get(k, ()))}
    chains: dict[tuple[int, str], list[AttributeRow]] = {}
    for row in rows:
        chains.setdefault((row.entity_id, row.key), []).append(row)
    for chain in chains.values():
        chain.sort(key=lambda r: (r.valid_from, r.created_at))
    if at is None and tilt <= 0 and about:
        at = _time_of_reference(tx, about, keys, words)
    order = {key: i for i, key in enumerate(keys)}
    picked: list[tuple[tuple[int, float], Answer]] = []
    for (_, key), chain in chains.items():
        if key in MULTI_VALUED and key not in ANSWERING_LISTS:
            continue  # family, goals, opinions: what relations and passages answer better
        if key in listed:
            chain = [row for row in chain if names_value(row.value, words)]
            if not chain:
                continue
        for row, successor in _versions(chain, key, tilt, at, words):
            rank = order.get(key, len(order))
            answer = _attribute_answer(row, successor)
            if key in listed:  # only its value was named: it answers, but less surely
                answer = replace(answer, named_only=True)
            picked.append(((rank, -row.valid_from.timestamp()), answer))
    picked.sort(key=lambda p: p[0])
    return [a for _, a in picked]


REFERENCE_KEYS = ("employer", "location", "school", "partner", "job_title", "manager")


def _time_of_reference(
    tx: ReadTx, about: Sequence[EntityRow], keys: Sequence[str], words: set[str]
) -> datetime | None:
    """A question about the past may place itself by another fact that no longer holds:
    "What was Lena's role at Otto Group?" asks for the job title while Otto Group was her
    employer. The last moment that value held, or None."""
    other = [k for k in REFERENCE_KEYS if k not in keys]
    if not other:
        return None
    for row in tx.entity_attributes([e.id for e in about], other):
        if row.valid_until is not None and names_value(row.value, words):
            return row.valid_until - timedelta(microseconds=1)
    return None


def _current(row: AttributeRow, at: datetime | None) -> bool:
    if at is not None and row.valid_from > at:
        return False
    return row.valid_until is None or (at is not None and row.valid_until > at)


Version = tuple[AttributeRow, AttributeRow | None]  # a version and what replaced it


def _versions(
    chain: list[AttributeRow], key: str, tilt: float, at: datetime | None, words: set[str]
) -> list[Version]:
    """The versions of one entity's key that answer: see the module's docstring."""
    # A value the question names ("before Prof. Tremblay"), unless it is only the entity's
    # own name ("What did Tunde ask to be called?" names Tunde, not the value "Tunde").
    own = set(_WORD.findall(chain[0].entity_name.lower())) if chain else set()
    named = [
        i
        for i, row in enumerate(chain)
        if names_value(row.value, words) and not names_value(row.value, own)
    ]
    if tilt < 0 and at is None and named:  # "before she moved to Eimsbüttel"
        i = named[-1]
        return [(chain[i - 1], chain[i])] if i > 0 else []
    if named and at is None:  # "When did she go vegan?": the version with that value
        i = named[-1]
        return [(chain[i], _successor(chain, chain[i]))]
    if at is None and words & EARLIEST_WORDS and tilt <= 0:  # "what was she first called?"
        return [(chain[0], chain[1] if len(chain) > 1 else None)]
    if tilt < 0 and at is None:
        gone = [i for i, row in enumerate(chain) if row.valid_until is not None]
        if not gone:
            return []
        i = gone[-1]
        return [(chain[i], _successor(chain, chain[i]))]
    now = [row for row in chain if _current(row, at)]
    if not now and at is None and tilt > 0:
        # Nothing holds now: the last value, marked as ended ("pets: dog", until Tango died),
        # says so better than silence.
        ended = [row for row in chain if row.valid_until is not None]
        return [(ended[-1], None)] if ended and ended[-1].superseded_by is None else []
    if key in SINGLE_VALUED:
        return [(now[-1], None)] if now else []
    return [(row, None) for row in reversed(now[-MULTI_SHOWN:])]


def names_value(value: str, words: set[str]) -> bool:
    """Whether the question's words (as :func:`words_in` reads them) hold every word of
    ``value``."""
    parts = words_in(value)
    return bool(parts) and parts <= words


def words_in(text: str) -> set[str]:
    """The words of ``text`` as the facts compare them (lower case, letters only)."""
    return set(_WORD.findall(text.lower()))


def _successor(chain: list[AttributeRow], row: AttributeRow) -> AttributeRow | None:
    if row.superseded_by is None:
        return None
    return next((r for r in chain if r.id == row.superseded_by), None)


# Words of a question about how the assistant should answer ("How should answers be
# formatted for Sofía?", "What should the assistant call Kenji?"), and the topic each
# asks about (see turngraph.extract.instructions.TOPICS).
INSTRUCTION_CUES = frozenset(
    (
        "answer answers reply replies response responses respond format formatted formatting "
        "explain explained explanation explanations address addressed call called assistant "
        "instruction instructions rule rules"
    ).split()
)
_QUERY_TOPICS = {
    "name": "call called address addressed name nickname",
    "language": "language languages",
    "format": "format formatted formatting bullet bullets paragraphs paragraph list lists "
    "table tables markdown laid layout numbered steps",
    "level": "level technical beginner simple explain explained explanation explanations",
    "units": "units unit measurements metric imperial",
    "length": "long length short brief detailed",
    "tone": "tone formal casual emoji emojis",
}
_TOPIC_OF = {w: topic for topic, words in _QUERY_TOPICS.items() for w in words.split()}
STANDING_SEEN = 500  # instructions read to answer one question


def instruction_answers(
    tx: ReadTx, query: str, *, tilt: float, at: datetime | None
) -> list[Answer]:
    """The standing instructions a question about how the assistant should answer asks for:
    on the topic it names (all, when it names none), the one in force at ``at`` (now by
    default), the one replaced last for a question about an earlier one, the first said of
    all for one about the first ("What did she originally ask for?")."""
    words = _WORD.findall(query.lower())
    cues = set(words) & INSTRUCTION_CUES
    if not cues:
        return []
    topics = {_TOPIC_OF[w] for w in words if w in _TOPIC_OF}
    if any(w in gz.LANGUAGES for w in words):
        topics.add("language")
    if cues == {"assistant"} and not topics:
        return []  # "when he set up the assistant on his tablet" asks about something else
    rows = tx.list_facts(
        kind="instruction", category=None, as_of=at, limit=STANDING_SEEN, retired=True
    )
    chains: dict[str, list[tuple[FactRow, Instruction]]] = {}
    loose: list[tuple[FactRow, Instruction]] = []
    first = at is None and bool(set(words) & EARLIEST_WORDS) and tilt <= 0
    for row in rows:
        said = Instruction.model_validate(json.loads(row.data))
        topic = said.topic or instruction_topic(said.description)
        if topics and topic not in topics:
            continue
        if topic is None:
            if row.active:
                loose.append((row, said))
            continue
        chains.setdefault(topic, []).append((row, said))
    out: list[Answer] = []
    for chain in chains.values():
        # One instruction may stand per topic, except those one turn gave together.
        turns = list(dict.fromkeys(row.observation_id for row, _ in chain))
        pick = len(turns) - 1
        if first:
            pick = 0  # "How did she first ask for replies to be written?"
        elif tilt < 0:
            pick -= 1
        if pick < 0:
            continue
        successor = turns[pick + 1] if pick + 1 < len(turns) else None
        until = next((r.happened_at for r, _ in chain if r.observation_id == successor), None)
        for row, said in chain:
            if row.observation_id == turns[pick]:
                out.append(_instruction_answer(row, said, successor, until))
    if not topics:
        out += [_instruction_answer(row, said, None, None) for row, said in loose]
    if first and out:  # what was asked first of all, on whichever topic
        earliest = min(a.since for a in out)
        return [a for a in out if a.since == earliest]
    out.sort(key=lambda a: -a.since.timestamp())
    return out


def _instruction_answer(
    row: FactRow, said: Instruction, successor: int | None, until: datetime | None
) -> Answer:
    return Answer(
        kind="instruction",
        id=said.id,
        text=said.description,
        value=said.description,
        observation_id=row.observation_id,
        since=row.happened_at,
        successor=successor,
        until=until,
        note=f"replaced: {said.description}" if successor is not None else None,
    )


# "Tunde's brother", "the user's mother", "my manager": a person the question reaches through
# a relationship of the person it names. Each kin word: the relationship's label, and whether
# the relative is its source (the mother is the parent_of the owner) or its target.
KIN_LINKS: dict[str, tuple[tuple[str, str], ...]] = {
    **dict.fromkeys(
        ("brother", "sister", "sibling", "brothers", "sisters", "siblings"),
        (("sibling_of", "either"),),
    ),
    **dict.fromkeys(
        ("mother", "mom", "mum", "father", "dad", "parents"), (("parent_of", "source"),)
    ),
    **dict.fromkeys(("son", "daughter", "kids", "children", "child"), (("parent_of", "target"),)),
    **dict.fromkeys(
        ("partner", "boyfriend", "girlfriend", "wife", "husband", "spouse", "fiance", "fiancee"),
        (("partner_of", "either"), ("married_to", "either")),
    ),
    **dict.fromkeys(("manager", "boss", "supervisor"), (("manages", "source"),)),
    **dict.fromkeys(("friend", "friends", "bestie", "roommate"), (("friend_of", "either"),)),
    **dict.fromkeys(
        (
            "grandson",
            "granddaughter",
            "grandchild",
            "grandma",
            "grandpa",
            "grandmother",
            "grandfather",
            "cousin",
            "aunt",
            "uncle",
            "niece",
            "nephew",
        ),
        (("relative_of", "either"), ("parent_of", "either")),
    ),
    **dict.fromkeys(("colleague", "coworker"), (("colleague_of", "either"),)),
    **dict.fromkeys(("pet", "dog", "cat"), (("has_pet", "target"),)),
}
_KIN_PHRASE = re.compile(
    r"\b(?P<owner>[\w'-]+?)(?:'s|s'|\u2019s)\s+(?:(?:younger|older|little|big|new|current)\s+)?"
    r"(?P<kin>" + "|".join(sorted(KIN_LINKS, key=len, reverse=True)) + r")\b",
    re.I,
)
_MY_KIN = re.compile(
    r"\b(?:my|her|his|their)\s+(?:(?:younger|older|little|big|new|current)\s+)?"
    r"(?P<kin>" + "|".join(sorted(KIN_LINKS, key=len, reverse=True)) + r")\b",
    re.I,
)


def kin_of(
    tx: ReadTx, query: str, named: Sequence[EntityRow], users: Sequence[EntityRow]
) -> tuple[list[EntityRow], set[int]] | None:
    """The people a question reaches through a kin word ("Where does Tunde's brother
    live?" -> Kunle), and the owners it goes through (whose own facts are not what is
    asked); None when it uses no kin word."""
    m = _KIN_PHRASE.search(query) or _MY_KIN.search(query)
    if m is None or not asked_keys(query[: m.start()] + " " + query[m.end() :]):
        return None  # "Who is Aisha's supervisor?" asks for her manager, not of him
    m = _KIN_PHRASE.search(query)
    owners: list[EntityRow] = []
    if m is not None:
        key = name_key(m.group("owner"))
        owners = [e for e in named if e.key == key or e.key.split()[0] == key]
        if not owners and m.group("owner").lower() in USER_WORDS | {"user"}:
            owners = list(users)
    else:
        m = _MY_KIN.search(query)
        if m is None:
            return None
        owners = [e for e in named if e.type == "person"][:1] or list(users)
    if not owners:
        return None
    links = KIN_LINKS[m.group("kin").lower()]
    related = tx.neighbour_relationships([o.id for o in owners], limit=50)
    ids: list[int] = []
    for owner in owners:
        for rel in related.get(owner.id, []):
            if rel.valid_until is not None:
                continue
            for label, side in links:
                if rel.type != label:
                    continue
                if side in ("source", "either") and rel.target_id == owner.id:
                    ids.append(rel.source_id)
                if side in ("target", "either") and rel.source_id == owner.id:
                    ids.append(rel.target_id)
    found = tx.get_entities(dict.fromkeys(ids))
    people = [found[i] for i in dict.fromkeys(ids) if i in found]
    if not people:  # "Mother lives in Cádiz": a relative known only by the kin word
        word = name_key(m.group("kin"))
        people = list(tx.find_entities([word]).values())
    return people, {o.id for o in owners}
