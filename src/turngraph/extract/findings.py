"""What one turn has yielded so far, and the state the rule mixins share while reading it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from turngraph.extract.base import (
    RawAction,
    RawAttribute,
    RawEntity,
    RawExtraction,
    RawInstruction,
    RawRelation,
    RawUncertainty,
    TurnContext,
)

if TYPE_CHECKING:
    from turngraph.extract.clauses import Clause
    from turngraph.extract.timeref import TimeRef


@dataclass
class Findings:
    """What one turn has yielded so far."""

    ctx: TurnContext
    entities: dict[str, RawEntity] = field(default_factory=dict)
    attributes: list[RawAttribute] = field(default_factory=list)
    relations: list[RawRelation] = field(default_factory=list)
    actions: list[RawAction] = field(default_factory=list)
    instructions: list[RawInstruction] = field(default_factory=list)
    uncertainties: list[RawUncertainty] = field(default_factory=list)

    def entity(self, name: str, etype: str) -> str:
        name = re.sub(r"(?:'s|[-'\"])$", "", " ".join(name.split()))
        key = name.casefold()
        known = self.entities.get(key)
        if known is None or (known.type == "other" and etype != "other"):
            self.entities[key] = RawEntity(known.name if known else name, etype)
        return self.entities[key].name

    def retype(self, name: str, etype: str) -> str:
        """``name`` as an entity of ``etype``, whatever an earlier guess made it ("Thandi" after
        "married to" is a person, not the place "to" suggested)."""
        display = self.entity(name, etype)
        self.entities[display.casefold()] = RawEntity(display, etype)
        return display

    def attribute(self, entity: str, key: str, value: str, *, negated: bool = False) -> None:
        value = " ".join(value.split()).strip(" ,.;:!?\"'")
        if not value or len(value) > 120:
            return
        item = RawAttribute(entity, key, value, negated)
        same = [
            a
            for a in self.attributes
            if a.entity == entity and a.key == key and a.value.casefold() == value.casefold()
        ]
        if not same:
            self.attributes.append(item)

    def relation(self, subject: str, label: str, obj: str, *, negated: bool = False) -> None:
        rel = RawRelation(subject, label, obj, negated=negated)
        if subject.casefold() != obj.casefold() and rel not in self.relations:
            self.relations.append(rel)

    def result(self, used: set[str]) -> RawExtraction:
        tidied = (_tidied(a) for a in self.actions)
        self.actions = [a for a in tidied if a and not _small_talk(a) and not _cut_object(a)]
        self.attributes = [a for a in self.attributes if not _idle_attribute(a)]
        # An untyped name that no fact uses is a capitalized word, not knowledge; the speaker
        # is an entity of this turn only when something is said about them.
        named = {a.entity.casefold() for a in self.attributes}
        named |= {r.subject.casefold() for r in self.relations}
        named |= {r.object.casefold() for r in self.relations}
        named |= {a.actor.casefold() for a in self.actions}
        named |= {u.about.casefold() for u in self.uncertainties}
        speaker = self.ctx.speaker.casefold()
        entities = tuple(
            e
            for e in self.entities.values()
            if (e.type != "other" or e.name.casefold() in used or " " in e.name)
            and (e.name.casefold() != speaker or speaker in named)
        )
        return RawExtraction(
            entities=entities,
            attributes=tuple(self.attributes),
            relations=tuple(self.relations),
            actions=tuple(self.actions),
            instructions=tuple(self.instructions),
            uncertainties=tuple(self.uncertainties),
        )


def _small_talk(action: RawAction) -> bool:
    """Thanks for support, advice to keep going, resolve: true, and not worth remembering.
    Thanks for something particular ("our friendship", "the small things") is kept."""
    if action.verb in _THANKS:
        words = set((action.object or "").lower().split())
        return not words or words <= _THANKED_FOR
    said = (action.object or "").lower().split()
    if (action.verb, " ".join(said)) in _IDIOMS:
        return True  # "crossing my fingers", "got your back"
    if len(said) == 2 and said[0].endswith("ing") and said[1] in ("it", "them", "this", "that"):
        return True  # "try making it": what "it" is was said elsewhere
    if action.verb == "do" and not _vague_doing(action.object or ""):
        return False  # "doing kickboxing", "doing a community food drive"
    if action.verb in _SMALL_TALK_UNLESS_DATED:
        return action.occurred_at is None  # "see the dentist next Tuesday" is a plan
    if action.verb in _SMALL_TALK:
        return True
    # "had a great talk", "tackle life", "spread awareness": a general verb about something
    # abstract, with no time or place to make it an event worth noting.
    if action.occurred_at is not None or action.place:
        return False
    head = _head_words(action.object or "")
    if action.verb == "go" and head[:1] and head[0] in _DOING:
        return True  # "off to go do some research": the errand is the clause after it
    if action.verb in _GENERAL_VERBS:
        return _noun(head) in _VAGUE_HEADS or head == ["look"]  # "take a look"
    plain = len(head) == len((action.object or "").split())  # nothing after the noun
    return plain and action.verb in ("share", "follow") and _noun(head) in _FEELINGS


def _tidied(action: RawAction) -> RawAction | None:
    """The action with its object cut where the clause after it began ("talked | I finally",
    "furry pal definitely brightens my", "find | is a book") and without words left hanging
    at either end ("some of my recipes", "memories of our", "a classic movie the other
    (day)"); None when nothing of the object is left."""
    if not action.object:
        return action
    said = action.object.split()
    cut = next(
        (
            i
            for i, w in enumerate(said)
            # "I" as the pronoun ("talked | I finally"), not a title's ("I Know Why the ...")
            if (w == "I" and (i + 1 == len(said) or said[i + 1].islower()))
            # "lucky to have my family": an infinitive goes on, a finite verb does not;
            # a capitalized word is a title's or a name's ("Love Actually", "Will Storr")
            or (
                i
                and w in _CLAUSE_STARTS
                and said[i - 1].lower() != "to"
                and said[i - 1].lower() not in _CLAUSE_STARTS  # "to have had him"
            )
        ),
        len(said),
    )
    said = said[:cut]
    while said and (said[0].lower() == "of" or (len(said) > 1 and said[0].lower() in _OPENERS)):
        said = said[1:]
    while said and said[-1].lower() in _DANGLING:
        if said[-1].lower() == "other":  # "the other (day)", not "each other"
            if len(said) < 2 or said[-2].lower() != "the":
                break
            said = said[:-1]
        said = said[:-1]
    if not said:
        return None
    tidy = " ".join(said)
    return action if tidy == action.object else replace(action, object=tidy)


def _cut_object(action: RawAction) -> bool:
    """An object cut from what it stood for: "raised a ton", "read a few", "grown fond (of
    them)", "proud of how far (I've come)", "figure out why": a quantity, a word that
    needed its complement, or a question word with at most three words after it."""
    said = (action.object or "").lower().split()
    if len(said) == 1 and said[0] in _CUT_ALONE:
        return True
    # "how to bake bread" is whole
    return bool(said) and said[0] in _QUESTION_WORDS and len(said) <= 4 and "to" not in said


def _vague_doing(phrase: str) -> bool:
    """What "do" does with no thing of its own: "do it", "do my best", "do some research"."""
    head = _head_words(phrase)
    return all(w in _VAGUE_HEADS or w in _VAGUE_DOINGS for w in head)


def _idle_attribute(attribute: RawAttribute) -> bool:
    """ "likes energy", "likes work": a liking too vague to keep."""
    words = attribute.value.lower().split()
    return attribute.key == "likes" and len(words) == 1 and words[0] in _VAGUE_HEADS


def _noun(head: list[str]) -> str:
    """The noun of a head: its last word that is not a verb form ("car look" -> "look",
    "incredible time meeting" -> "time")."""
    nouns = [w for w in head if not w.endswith("ing") and w not in _PARTICLES]
    return nouns[-1] if nouns else ""


def _head_words(phrase: str) -> list[str]:
    """The words of a noun phrase before its first preposition: "lot of things" -> ["lot"]."""
    words = phrase.lower().split()
    if len(words) > 2 and words[0] in _QUANTITIES and words[1] == "of":
        words = words[2:]  # "lots of kids books": the books
    head: list[str] = []
    for word in words:
        if word in _PHRASE_BREAKS:
            break
        head.append(word)
    return head


_PARTICLES = frozenset("together up out off down back".split())
# Words with which a new clause or an aside begins inside what was read as an object.
_CLAUSE_STARTS = frozenset(
    "is are was were has have had does did will would can could definitely really actually "
    "finally totally anyway".split()
)
# What an object does not begin with after "of" ("some of my recipes"), or end with.
_OPENERS = frozenset("my our your his her their the".split())
_DANGLING = frozenset(
    "of to for with at in on by from about my our your his her their the a an and or but "
    "just anyway after before that which who other".split()
)
_CUT_ALONE = frozenset("few bunch ton lot lots last one ones fond far couple some more rid".split())
_QUESTION_WORDS = frozenset("how what why where when which who".split())
_QUANTITIES = frozenset("lot lots bunch couple few pair set number plenty".split())
_PHRASE_BREAKS = frozenset("of with for from about to in at on by like".split())
_GENERAL_VERBS = frozenset(
    {
        *"have get make take give put go follow spread tackle build lift face juggle use reach "
        "teach talk journey eat chase keep".split(),
        "hang out",
        "be excited about",
        "keep chase",
    }
)
# Head nouns that name no thing, place or event of their own.
_ABSTRACT = frozenset(
    "lot lots things stuff story talk time moment moments hope hopes journey "
    "impact life awareness energy diversity connection "
    "connections hearts heart props reminders reminder fun blast experience chance difference "
    "feeling feelings vibe vibes progress work strength courage confidence motivation "
    "inspiration others everyone people passion passions dreams".split()
)
_VAGUE_DOINGS = frozenset(
    "it that this something anything everything nothing best well good great fine okay ok alright "
    "same thing things stuff research job part bit much more lot some my the a an your our".split()
)
_DOING = frozenset("do get see make have take grab check".split())
_FEELINGS = frozenset("passion passions love joy happiness".split())
_VAGUE_HEADS = _ABSTRACT | _FEELINGS


_IDIOMS = frozenset(
    {
        ("cross", "fingers"),
        ("get", "back"),
        ("get", "em"),
        ("have", "back"),
        ("keep", "up"),
        ("make", "sure"),
        ("keep do", "best"),
        ("do", "best"),
    }
)
_SMALL_TALK_UNLESS_DATED = frozenset({"see", "do", "try"})
_THANKS = frozenset({"appreciate", "be thankful for", "be grateful for"})
_THANKED_FOR = frozenset(
    "support help words kind encouragement advice it that this everything all you your the "
    "offer effort thoughts tips suggestion suggestions kindness backing care concern input "
    "and so much".split()
)
# Actions that chat is full of and memory is better without: advice, resolve, filler.
_SMALL_TALK = frozenset(
    {
        "appreciate",
        "recommend",
        "do",
        "see",
        "keep",
        "push",
        "figure out",
        "be determined to",
        "be thankful for",
        "be grateful for",
        "tend",
        "try",
    }
)


class TurnState:
    """The state of one turn being read, shared by the rule mixins (``patterns``, ``facts``,
    ``descriptions``, ``keyed``) that :class:`~turngraph.extract.rules.RuleExtractor` joins."""

    ctx: TurnContext
    out: Findings
    speaker: str
    addressee: str
    known: set[str]
    people: dict[str, str]  # lower-cased name or first name -> the person (or pet) it names
    pronoun: str  # whom "he" / "she" points to
    used: set[str]  # names some fact uses
    lowercase: bool  # the turn is written without capitals
    work_talk: bool  # the turn speaks of a job ("new job", "first day"): "I'm at X" is work
    restating: bool  # an earlier sentence is being said again: no corrections
    last_species: str  # the kind of pet last mentioned, for "her name is Luna"
    hedge: str  # what made the sentence being read uncertain, if anything
    dated: bool  # the sentence being read names a time ("Tomorrow I'll fly ... and visit ...")

    if TYPE_CHECKING:

        def _speaker(self) -> str: ...
        def _sentence(self, sentence: str, *, first: bool) -> None: ...
        def _who(self, clause: Clause) -> str | None: ...
        def _time(
            self, c: Clause, time: TimeRef | None, *, future: bool = False
        ) -> TimeRef | None: ...
        def _action(
            self,
            c: Clause,
            who: str,
            np: list[str],
            pps: list[tuple[str, list[str]]],
            time: TimeRef | None,
        ) -> None: ...
        def _copula(self, c: Clause, who: str, rest: list[str]) -> None: ...
        def _facts(self, c: Clause, who: str, time: TimeRef | None) -> None: ...
        def _job(self, who: str, words: list[str]) -> bool: ...
        def _spouse(self, who: str, status: str, words: list[str]) -> None: ...
        def _employer(self, who: str, words: list[str]) -> None: ...
        def _place(self, words: list[str]) -> str | None: ...
        def _turn_patterns(self, text: str) -> None: ...
        def _turn_changes(self, text: str) -> None: ...
        def _location(self, who: str, words: list[str]) -> None: ...
        def _hometown(self, who: str, words: list[str]) -> None: ...
        def _school(self, who: str, words: list[str]) -> None: ...
        def _passive(self, c: Clause, who: str, rest: list[str]) -> None: ...
        def _keyed(
            self,
            c: Clause,
            who: str,
            verb: str,
            rest: list[str],
            np: list[str],
            pps: list[tuple[str, list[str]]],
        ) -> bool: ...
        def _kin_relation(self, kind: str, other_name: str) -> None: ...
        def _person(self, name: str) -> None: ...
        def _kin_mentions(self, clause: Clause) -> None: ...
        def _pet(self, owner: str, species: str, name: str) -> None: ...
