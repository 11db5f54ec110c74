"""RuleExtractor: offline, deterministic extraction from casual English, clause by clause.

For each turn: the text is normalized (``normalize``), names are found and typed (``names``),
and each sentence is read as an instruction, a correction, a question (which asserts
nothing) or a series of clauses (``clauses``). A clause yields facts about whom it is about:
the speaker ("I", "we", a dropped subject), a named person ("my brother Felix", "she" for
the person last named in the session), never "you" except in an assistant's turn. How the
clause was said decides what its facts become: stated (attributes, relations, actions with
their time), negated (ends the value it names), hedged or conditional (an uncertainty),
wished or planned without a date (a goal), habitual (a habit).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from turngraph.extract import gazetteers as gz
from turngraph.extract import vocab as v
from turngraph.extract.base import (
    SINGLE_VALUED,
    RawAction,
    RawAttribute,
    RawEntity,
    RawExtraction,
    RawInstruction,
    RawRelation,
    RawUncertainty,
    TurnContext,
)
from turngraph.extract.clauses import (
    Clause,
    is_past,
    is_verb,
    parse_clause,
    sentences,
    split_clauses,
)
from turngraph.extract.clauses import tokens as tokenize
from turngraph.extract.instructions import find_instruction
from turngraph.extract.lexicon import lemma
from turngraph.extract.names import find_names, is_lowercase, truecase
from turngraph.extract.normalize import normalize
from turngraph.extract.timeref import TimeRef, resolve_time

MAX_OBJECT_WORDS = 6
# Extraction reads at most this much of a turn (the most a turn may hold through the API):
# work is linear in it, so any turn extracts in bounded time.
MAX_EXTRACT_CHARS = 32_000
# What a turn says in brackets ("[shares a photo: ...]") describes it; it is not said.
_BRACKETS = re.compile(r"\[[^\[\]]{0,400}\]")
_CORRECTION = re.compile(
    r"\b(?:I meant|I mean|meant to say|I misspoke|correction|it's|it is|it was)\W+"
    r"([\w' -]{1,40}?)\s*,?\s+not\s+([\w' -]{1,40}?)\s*$",
    re.I,
)
_CORRECTION_REVERSED = re.compile(
    r"^(?:sorry\W+)?not\s+([\w' -]{1,40}?)\s*,\s*(?:I meant\s+|it's\s+)?([\w' -]{1,40}?)\s*$",
    re.I,
)
_EMAIL = re.compile(r"[\w.+-]{1,64}@[\w-]{1,63}\.[\w.-]{1,63}")
_PHONE = re.compile(r"(?<![\w+])\+?\d[\d ().-]{6,18}\d")
_HEDGE_LEAD = re.compile(
    r"^(?:(?:and|but|so|well|also)\s+)?(?:I think|I guess|I suppose|I believe|I heard|I'm not "
    r"sure(?: if| whether)?|not sure(?: if| whether)?|I wonder if|it seems like|seems like|"
    r"apparently|maybe|perhaps|probably|I doubt|rumou?r is|rumou?r has it|word is|"
    r"supposedly|I could be wrong but(?: I think)?|not confirmed but)\b(?:\s+that)?\s*",
    re.I,
)
_ARTICLES = (
    "another",
    "a",
    "an",
    "the",
    "my",
    "our",
    "his",
    "her",
    "their",
    "your",
    "some",
    "this",
    "that",
    "these",
    "those",
    "its",
    "own",
)
_ORG_VERBS = frozenset({"work", "intern", "volunteer", "freelance", "consult"})
_QUESTION = re.compile(
    r"^\W*(?:\w+\W+){0,2}?(?:what|where|when|why|how|who|whom|which|whose|is|are|am|was|were|"
    r"do|does|did|have|has|had|can|could|will|would|should|shall|may|might|any|anything|"
    r"you|u|ya|wanna|want|got|ever|right|or)\b",
    re.I,
)
_SELF_QUESTION = re.compile(
    r"^(am|do|did|have|was)\s+(I)\s+(.+?)(?:\s+or\s+.*)?\W*$", re.I
)
_CORRECTION_LEAD = re.compile(
    r"^(?:(?:sorry|oops|wait|no|nah|correction|actually|my bad|typo|scratch that|I mean|"
    r"I meant|sorry I meant|whoops)\b\W*)+",
    re.I,
)
_DOUBLED = re.compile(r"\b(\w+)(?:\s+\1\b)+", re.I)
_PARTS = re.compile(r"\s*(?:[,;:]|\s-\s|\bbut\b)\s*", re.I)
_REPORTING = frozenset({"think", "believe", "guess", "suppose", "hear", "say", "reckon"})
_NO_MORE = re.compile(r"\b(?:anymore|any more|no longer|these days)\b", re.I)
_SARCASM = re.compile(r"^(?:oh\s+)?(?:sure|yeah right|riiight)\b\W", re.I)
_LEAD_IN = re.compile(
    r"^(?:remember|fyi|just so you know|note that|for the record|for context|quick update)"
    r"\W+(?:that\s+)?",
    re.I,
)
_NAMED_PET = re.compile(
    r"\b(" + "|".join(sorted(gz.PETS, key=len, reverse=True)) + r")s?\s*,?(?: -)? (?:named |called )?"
    r"([A-Z][a-z]+)(?:,? and ([A-Z][a-z]+))?"
)
_YOU_HAVE_PET = re.compile(
    r"\byou (?:have|got|adopted) (?:a|an|two) (" + "|".join(sorted(gz.PETS, key=len,
    reverse=True)) + r")s? (?:named|called) ([A-Z][a-z]+)(?: and ([A-Z][a-z]+))?"
)
_SPECIES = re.compile(r"\b(" + "|".join(sorted(gz.PETS, key=len, reverse=True)) + r")s?\b", re.I)
_SPECIES_OF = {"kitten": "cat", "kitty": "cat", "puppy": "dog", "pup": "dog", "doggo": "dog"}
_FILLERS = v.DISCOURSE | v.ADVERBS
_TIME_UNITS = frozenset(
    "week weekend month year morning evening afternoon night time summer winter spring fall "
    "autumn semester season day monday tuesday wednesday thursday friday saturday sunday "
    "january february march april may june july august september october november december"
    .split()
)
_COUNTS = frozenset("a few couple several two three four five six ten many some".split())
_PHOTO = re.compile(
    r"\b(?:here'?s|here is|this is|check out|look at|take a look at|sharing|sending you|i took)"
    r" (?:a|the|this|my|some|another) (?:quick |recent |new |cute |little )?"
    r"(?:photo|pic|picture|shot|snap|snapshot|selfie)s? (?:of|from) (.{3,80})",
    re.I,
)
_MEANS_A_LOT = re.compile(
    r"^(?:\w+,\s*)?((?:your|the|all your|all the|our) [\w' ]{3,40}?) (?:really |truly )?"
    r"(?:means?|meant) (?:a lot|so much|the world|everything)",
    re.I,
)
_GERUND_PRAISE = re.compile(
    r"^(?:\w+,\s*)?([a-z]+ing)(?: '?s| is| has been| was)? (?:really |so |such |just |always )?"
    r"(?:a |an |my )?(?:really |so |super )?(?:fun|great|awesome|amazing|relaxing|therapeutic|"
    r"rewarding|fulfilling|calming|soothing|my passion|my favorite|the best|a blast|a great way|"
    r"a fun way|a good way|a nice way|a wonderful way|a huge part of my life|my thing|my escape|"
    r"my happy place|life|therapy|my therapy|my haven|my passion|my stress fix)\b",
    re.I,
)
_THING_PRAISE = re.compile(
    r"^(?:\w+,\s*)?((?:my )?[A-Za-z]+(?: [a-z]+)?)(?: '?s| is| are| has always been|'s always "
    r"been) (?:always |just |really |truly )?(?:a (?:huge|big) part of my life|(?:my|our) "
    r"(?:\w+ )?(?:haven|passion|therapy|escape|happy place|stress fix|thing|jam|muse|outlet|"
    r"chill time|safe place|sanctuary)|therapy for me)\b",
    re.I,
)
_IT_IS_GREAT = re.compile(
    r"^(?:\w+,\s*)?it'?s (?:so |really |always |just |super )?(?:great|nice|fun|awesome|amazing|"
    r"wonderful|rewarding|fulfilling|relaxing) (?:to (\w+)|([a-z]+ing))\b ?(.{0,80})",
    re.I,
)
_DREAM = re.compile(
    r"\b(?:my (?:dream|goal|plan|hope|aim|mission)(?: is|'s| has always been| was)|it'?s (?:been )?"
    r"(?:a|my) (?:dream|goal)(?: of mine)?|i'?ve always wanted|i have always wanted) to (\w+) "
    r"(.{2,80})",
    re.I,
)
_NOT_ADVICE = frozenset(
    "look check take let see tell wish guess say thank excuse pardon hang talk hit send show "
    "give come go keep get have".split()
)
_STANCE = {
    ("proud", "of"): "be proud of",
    ("grateful", "for"): "be grateful for",
    ("thankful", "for"): "be thankful for",
    ("excited", "about"): "be excited about",
    ("excited", "for"): "be excited about",
    ("scared", "of"): "be scared of",
    ("afraid", "of"): "be afraid of",
    ("worried", "about"): "be worried about",
    ("nervous", "about"): "be nervous about",
    ("interested", "in"): "likes",
    ("passionate", "about"): "likes",
    ("keen", "on"): "likes",
    ("obsessed", "with"): "likes",
    ("good", "at"): "skills",
    ("excited", "to"): "be excited to",
    ("thrilled", "to"): "be excited to",
    ("stoked", "to"): "be excited to",
    ("pumped", "to"): "be excited to",
    ("eager", "to"): "be excited to",
    ("keen", "to"): "be excited to",
    ("determined", "to"): "be determined to",
    ("looking", "forward"): "look forward to",
    ("great", "at"): "skills",
}
_VAGUE_OBJECTS = frozenset(
    "well great fine badly ok okay smoothly good bad better worse awesome amazing wild crazy "
    "home lot lots bit time fun blast birthday day night chance opportunity longer more less "
    "again around everywhere anywhere somewhere there here all tight".split()
)
_STATUS_OF_KIN = {
    "wife": "married",
    "husband": "married",
    "spouse": "married",
    "boyfriend": "dating",
    "girlfriend": "dating",
    "fiance": "engaged",
    "fiancee": "engaged",
}
_COMMON_PLACES = frozenset(
    ["home", "work", "school", "town", "city", "place", "office", "house", "flat", "apartment", "country", "area", "bed", "uni", "college", "hospital", "gym", "park", "beach", "store", "shop"]
)
_COPULA_STARTS = frozenset(
    ["from", "allergic", "single", "married", "engaged", "divorced", "widowed", "separated", "dating", "based", "living", "in", "into", "vegan", "vegetarian", "pescatarian", "keto"]
)


@dataclass
class _Out:
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

    def relation(self, subject: str, label: str, obj: str) -> None:
        rel = RawRelation(subject, label, obj)
        if subject.casefold() != obj.casefold() and rel not in self.relations:
            self.relations.append(rel)

    def result(self, used: set[str]) -> RawExtraction:
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


def _words_of(text: str) -> list[str]:
    return tokenize(text)


def _strip_articles(words: list[str]) -> list[str]:
    while words and (words[0].lower() in _ARTICLES or words[0].lower() in v.ADVERBS):
        words = words[1:]
    return words


def noun_phrase(words: list[str], limit: int = MAX_OBJECT_WORDS) -> list[str]:
    """The noun phrase at the start of ``words``: up to a preposition, a conjunction, a time
    word or punctuation, at most ``limit`` words, without its leading article."""
    out: list[str] = []
    for i, w in enumerate(words):
        low = w.lower()
        if w in ',;:()"!?-' or low in v.BOUNDARY or (low in ("'s",) and not out):
            break
        determiner = low in ("this", "that", "these", "those", "last", "next") and not (
            i + 1 < len(words) and words[i + 1].lower() in _TIME_UNITS
        )
        if low in v.TIME_WORDS and not determiner and (
            out or low not in ("morning", "evening", "weekend")
        ):
            if not (low in ("day", "week", "month", "year") and out and out[-1].isdigit()):
                break
        if low in v.PREPOSITIONS and not (
            low == "of" and out and i + 1 < len(words) and words[i + 1][:1].isalpha()
        ):
            break
        if low in ("and", "or", "&") and out and i + 1 < len(words):
            nxt = words[i + 1].lower()
            # "offers and promotions" is one phrase; "... and went home" is not.
            if nxt in v.SUBJECT_PRONOUNS or is_verb(nxt) or nxt in v.BOUNDARY or len(out) >= 4:
                break
            out.append(w)
            continue
        if low in v.NEGATIONS or low in ("anymore", "too", "either", "again", "though"):
            break
        if out and (low in v.BE or low in v.MODALS or low in ("originally", "now", "btw")):
            break
        if out and (low in _COUNTS or low.isdigit()) and any(
            x.lower().rstrip("s") in ("day", "week", "month", "year", "hour", "minute")
            for x in words[i + 1 : i + 3]
        ):
            break
        if out and (low in v.FREQUENCY or low in ("pretty", "really", "so")):
            break
        if out and is_past(low) and lemma(low) in v.VERBS and low not in ("used", "named", "called"):
            break
        out.append(w)
        if len(out) >= limit + 2:
            break
    out = _strip_articles(out)
    return out[:limit]


def _pp(words: list[str]) -> list[tuple[str, list[str]]]:
    """(preposition, noun phrase) pairs in ``words``, in order."""
    out = []
    for i, w in enumerate(words):
        low = w.lower()
        if low in v.PREPOSITIONS and low != "of":
            np = noun_phrase(words[i + 1 :])
            if np and np[0].lower() not in ("i", "we", "he", "she", "they", "you"):
                out.append((low, np))
    return out


def _gerund(verb: str) -> str:
    if verb.endswith("ie"):
        return verb[:-2] + "ying"
    if verb.endswith("e") and not verb.endswith(("ee", "ye", "oe")):
        return verb[:-1] + "ing"
    if (
        len(verb) >= 3
        and verb[-1] not in "aeiouwxy"
        and verb[-2] in "aeiou"
        and verb[-3] not in "aeiou"
        and len(verb) <= 4
    ):
        return verb + verb[-1] + "ing"
    return verb + "ing"


def _list_items(words: list[str]) -> list[str]:
    """Items of "hiking, biking and swimming" (each a short phrase)."""
    items: list[list[str]] = [[]]
    for w in words:
        low = w.lower()
        if w == "," or low in ("and", "or", "plus", "&"):
            if items[-1]:
                items.append([])
            continue
        if low in v.BOUNDARY or w in ";:()!?-" or (low in v.PREPOSITIONS and low != "of"):
            break
        if (low in v.TIME_WORDS and low not in ("morning", "evening")) or low == "anymore":
            break
        items[-1].append(w)
    out = []
    for item in items:
        np = _strip_articles(item)
        if np and len(np) <= MAX_OBJECT_WORDS:
            out.append(" ".join(np))
    return out[:6]


def _pronoun_object(np: list[str]) -> bool:
    """An object that names nothing by itself: "it", "them all", "well", "fine"."""
    return not np or np[0].lower() in v.PRONOUN_OBJECTS or (
        len(np) == 1 and np[0].lower() in _VAGUE_OBJECTS
    )


def _Clause_like(c: Clause, words: list[str]) -> Clause:
    """A copy of ``c`` about one item of its list."""
    return Clause(
        words=words,
        subject=c.subject,
        name=c.name,
        verb=c.verb,
        rest=words,
        past=c.past,
        modal=c.modal,
        negated=c.negated,
    )


def _starts_subject(word: str, people: dict[str, str]) -> bool:
    low = word.lower()
    return low in ("i", "we", "he", "she", "they", "my", "our", "his", "her") or low in people


def _habit_phrase(c: Clause) -> str:
    """What a habitual clause says one does: "bike to work", "go for a run after work"."""
    out = [c.verb + (f" {c.particle}" if c.particle else "")] if c.verb else []
    if c.aspect in ("stop", "quit") and c.verb_word.lower().endswith("ing"):
        out = [c.verb_word.lower()]
    for w in c.rest:
        low = w.lower()
        if w in ",;:!?()\"-" or low in v.BOUNDARY or low in ("anymore", "lol", "though"):
            break
        if low in v.NEGATIONS or low in v.FREQUENCY or low in ("ago", "since"):
            break
        if low.isdigit() and out and len(out) > 1:
            break
        out.append(w)
        if len(out) >= 7:
            break
    return " ".join(_strip_articles(out)) if len(out) > 0 else ""


def _shape(value: str) -> str:
    """What kind of value this is: a number, a date, a name or other words."""
    low = value.lower()
    if re.fullmatch(r"\d{1,3}", low):
        return "number"
    if re.search(r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b", low):
        return "date"
    return "name" if value[:1].isupper() else "words"


def _after_first_clause(words: list[str]) -> list[str]:
    """What follows "brazilian" in "brazilian living in lisbon": another description."""
    for i, w in enumerate(words):
        low = w.lower()
        if low in ("living", "based", "from", "and") and i + 1 < len(words):
            rest = words[i + 1 :] if low == "and" else words[i:]
            if rest and rest[0].lower() in ("living", "based", "from"):
                return rest
            return rest if low == "and" and rest[0].lower() in v.RELATIONSHIP_STATUS else []
        if w in ",;" or low in v.BOUNDARY:
            continue
    return []


def _condition(np: list[str]) -> bool:
    """Whether a noun phrase names a health condition ("celiac disease", "a headache")."""
    if not np:
        return False
    head = np[-1].lower().removesuffix("'s")
    return head in v.HEALTH_CONDITIONS or head in ("disease", "syndrome", "disorder",
                                                   "intolerance", "infection", "pain")


def _degree(words: list[str]) -> str:
    """"a master's in social work", "my PhD in chemistry", "a data science bootcamp"."""
    np = _strip_articles(list(words))
    for i, w in enumerate(np[:5]):
        low = w.lower()
        if low in v.DEGREES:
            out = np[: i + 1]
            j = i + 1
            if j < len(np) and np[j] == "'s":
                out[-1] += "'s"
                j += 1
            if j + 1 < len(np) and np[j].lower() in ("in", "of"):
                out += np[j : j + 1] + noun_phrase(np[j + 1 :], 4)
            return " ".join(out)
        if low in ("bootcamp", "course", "program", "programme", "class", "classes"):
            return " ".join(np[:i]) if i else ""
        if low in v.PREPOSITIONS or low in v.BOUNDARY:
            return ""
    return ""


def _cap(name: str) -> str:
    return " ".join(w[:1].upper() + w[1:] for w in name.split())


class RuleExtractor:
    """The default extractor: English clauses read with word lists, no model, ~1 ms a turn."""

    name = "rules-en-v2"

    def extract(self, text: str, context: TurnContext) -> RawExtraction:
        return _Turn(context).run(text)


class _Turn:
    def __init__(self, ctx: TurnContext) -> None:
        self.ctx = ctx
        self.out = _Out(ctx)
        self.speaker = ctx.speaker
        self.addressee = ctx.addressee or next(
            (s for s, _ in reversed(ctx.history) if s.casefold() != ctx.speaker.casefold()), ""
        )
        self.known: set[str] = {ctx.speaker.casefold()}
        self.people: dict[str, str] = {}  # lower-cased name or first name -> person
        self.pronoun = ""  # whom "he" / "she" points to
        self.used: set[str] = set()
        self.lowercase = False
        self.restating = False  # an earlier sentence is being said again: no corrections
        self.last_species = ""  # the kind of pet last mentioned, for "her name is Luna"
        for name in (ctx.speaker, self.addressee):
            if name and name not in ("user", "assistant"):
                self._person(name)
        # Names the session used just before: "she" may point to them, lower case may say them.
        for _, said in ctx.history[-2:]:
            for sentence in sentences(_BRACKETS.sub(" ", said)[:2000]):
                for name, etype in find_names(sentence, self.known, set(self.people)):
                    self.known.add(name.casefold())
                    if etype == "person":
                        self._person(name)
                        if name.casefold() not in (
                            ctx.speaker.casefold(),
                            self.addressee.casefold(),
                        ):
                            self.pronoun = name

    def _person(self, name: str) -> None:
        self.people[name.casefold()] = name
        self.people.setdefault(name.split()[0].casefold(), name)
        self.known.add(name.casefold())

    # -- the turn ---------------------------------------------------------------------------

    def run(self, text: str) -> RawExtraction:
        text = normalize(_BRACKETS.sub(" ", text[:MAX_EXTRACT_CHARS]))
        self.lowercase = is_lowercase(text)
        text = truecase(text, self.known)
        for i, sentence in enumerate(sentences(text)):
            self._sentence(sentence, first=i == 0)
        return self.out.result(self.used)

    def _speaker(self) -> str:
        self.used.add(self.speaker.casefold())
        return self.out.entity(self.speaker, "person")

    def _sentence(self, sentence: str, *, first: bool) -> None:
        named = find_names(sentence, self.known, set(self.people))
        for name, etype in named:
            self.out.entity(name, etype)
            if etype in ("person", "animal"):
                self._person(name)
        if self.ctx.role in ("user", "system"):
            whole = find_instruction(sentence)
            parts = [] if whole else _PARTS.split(sentence) if len(sentence) < 600 else []
            found = [whole] if whole else [find_instruction(p) for p in parts if len(p) > 3]
            for item in found:
                if item is None:
                    continue
                label, description, call_me = item
                # Said in part of a sentence, the rule keeps the rest as its context.
                description = description if whole else f"{sentence.strip().rstrip('.')}."
                self.out.instructions.append(RawInstruction(label, description))
                if call_me:
                    self.out.attribute(self._speaker(), "preferred_name", _cap(call_me))
            if whole:
                return
        if _SARCASM.match(sentence):
            return  # "oh sure, ..." says the opposite of what it says
        asked = sentence.rstrip().endswith("?") or bool(_SELF_QUESTION.match(sentence))
        if asked:
            # A real question asserts nothing; a statement with a question mark ("i think
            # im allergic to cats?") or a question about oneself ("am i lactose intolerant")
            # is a claim the speaker is unsure of.
            inverted = _SELF_QUESTION.match(sentence)
            if inverted:
                sentence = f"{inverted.group(2)} {inverted.group(1)} {inverted.group(3)}"
            elif _QUESTION.match(sentence) or len(sentence) > 300:
                return
        if self._correction(sentence):
            return
        sentence = _LEAD_IN.sub("", sentence) or sentence
        self._patterns(sentence)
        self._pet_names(sentence)
        self._answer(sentence, first=first)
        m = _SPECIES.search(sentence)
        if m:
            self.last_species = m.group(1).lower()
        hedged = asked
        m = _HEDGE_LEAD.match(sentence)
        if m and len(sentence) > m.end():
            hedged, sentence = True, sentence[m.end() :]
        conditional = bool(re.match(r"^(?:if|unless|in case)\b", sentence, re.I))
        carried: Clause | None = None
        pending_time: TimeRef | None = None
        previous: list[str] = []
        for n, (lead, words) in enumerate(split_clauses(tokenize(sentence))):
            clause = parse_clause(lead, words, self.people, pronoun=self.pronoun)
            if lead in ("if", "unless"):
                conditional = True
            if lead in ("who", "that") and words[0].lower() in ("who", "that"):
                antecedent = self._last_named(previous)
                if antecedent:
                    clause.subject, clause.name = "person", antecedent
            if clause.elided and carried is not None and lead != ",":
                clause.subject, clause.name = carried.subject, carried.name
                clause.modal = clause.modal or carried.modal
                clause.negated = clause.negated or (carried.negated and lead == "or")
            elif clause.elided and carried is not None and carried.subject in ("self", "person"):
                clause.subject, clause.name = carried.subject, carried.name
            elif clause.elided and (first or carried is None) and self.ctx.role != "system":
                clause.subject = "self"
            previous = words
            if not clause.verb:
                self._kin_mentions(clause)
                when = resolve_time(clause.text, self.ctx.observed_at)
                if when is not None and len(words) <= 4:
                    pending_time = when
                self._fragment(clause, carried, opening=first and n == 0)
                continue
            self._kin_mentions(clause)
            if clause.subject == "imperative":
                self._advice(clause)
                continue
            self._clause(clause, hedged=hedged or conditional, time=pending_time)
            pending_time = None
            if clause.subject in ("self", "person"):
                carried = clause
                if clause.subject == "person":
                    self.pronoun = clause.name
            self._track_pronoun(words)
        for name, etype in named:
            if etype in ("person", "animal") and name.casefold() not in (
                self.speaker.casefold(),
                self.addressee.casefold(),
            ):
                self.pronoun = name

    def _advice(self, clause: Clause) -> None:
        """"Keep believing in yourself!" said to a person (not to an assistant): advice."""
        person = self.addressee and self.addressee.casefold() not in ("assistant", "user")
        if not person or self.ctx.role != "user" or clause.negated or clause.verb in _NOT_ADVICE:
            return
        what = _habit_phrase(clause)
        if len(what.split()) >= 2:
            self.out.actions.append(
                RawAction(self._speaker(), "recommend", what, f"{self.speaker}: {clause.text}"[:240])
            )

    def _ages(self, words: list[str]) -> None:
        """"me 28, my brother Tevita 31": ages given in a list."""
        for i in range(len(words) - 1):
            if not (words[i + 1].isdigit() and 0 < int(words[i + 1]) < 120):
                continue
            if i + 2 < len(words) and words[i + 2] not in (",", ";"):
                continue
            who = words[i]
            if who.lower() == "me":
                self.out.attribute(self._speaker(), "age", words[i + 1])
            elif who.casefold() in self.people and who.casefold() != self.speaker.casefold():
                self.out.attribute(self.people[who.casefold()], "age", words[i + 1])

    def _last_named(self, words: list[str]) -> str:
        for w in reversed(words):
            if w.casefold() in self.people and w.casefold() != self.speaker.casefold():
                return self.people[w.casefold()]
        return ""

    def _track_pronoun(self, words: list[str]) -> None:
        named = self._last_named(words)
        if named and named.casefold() != self.addressee.casefold():
            self.pronoun = named

    def _fragment(self, clause: Clause, carried: Clause | None, *, opening: bool) -> None:
        """A verbless piece ("from Alexandria", "married to Lena", "single again", "just a
        senior analyst") continues the clause before it, or describes the speaker when it
        opens a user's turn."""
        if self.ctx.role == "user":
            self._ages(clause.words)
        words = [w for w in clause.words if w.lower() not in _FILLERS]
        words = [w for w in words if w.lower() not in ("now", "again", "originally")]
        if not words or len(words) > 8:
            return
        first = words[0].lower()
        starts = (
            first in _COPULA_STARTS
            or first in v.NATIONALITIES
            or (first in ("a", "an") and len(words) > 1)
            or words[-1].lower() in gz.JOB_WORDS
        )
        if not starts:
            return
        if carried is not None and carried.subject in ("self", "person"):
            who = self._who(carried)
        elif opening and self.ctx.role == "user":
            who = self._speaker()
        else:
            return
        if who is not None:
            self._copula(clause, who, words)

    _ANSWERS = (
        (re.compile(r"\bwhere (?:are you|r you|you) (?:from|originally from)\b", re.I), "hometown"),
        (re.compile(r"\bwhere do you live\b|\bwhere are you (?:based|living)\b", re.I), "location"),
        (re.compile(r"\bhow old are you\b", re.I), "age"),
        (re.compile(r"\bwhere do you work\b|\bwho do you work for\b", re.I), "employer"),
    )

    def _answer(self, sentence: str, *, first: bool) -> None:
        """A short reply to the question just asked ("where are you from?" - "chennai!")."""
        if not first or not self.ctx.history or self.ctx.role != "user":
            return
        asked = self.ctx.history[-1][1]
        words = [w for w in tokenize(sentence) if w.lower() not in v.DISCOURSE and w.isalnum()]
        if not words or len(words) > 3 or "?" not in asked:
            return
        for pattern, key in self._ANSWERS:
            if not pattern.search(asked):
                continue
            if key == "age" and words[0].isdigit():
                self.out.attribute(self._speaker(), "age", words[0])
            elif key in ("hometown", "location") and words[0][:1].isupper():
                place = self.out.entity(" ".join(words), "place")
                self.out.attribute(self._speaker(), key, place)
                self.out.relation(
                    self._speaker(), "from" if key == "hometown" else "lives_in", place
                )
            elif key == "employer" and words[0][:1].isupper():
                self._employer(self._speaker(), words)
            return

    # -- corrections ---------------------------------------------------------------------------

    def _correction(self, sentence: str) -> bool:
        """ "I meant Lille, not Lyon", "sorry, Vodacom not MTN", "oops, 33": say again, with the
        new value, what the speaker said earlier in the session; reconciliation then records
        the correction."""
        body = sentence.strip().rstrip(".!")
        if len(body) > 200 or not self.ctx.history or self.restating:
            return False
        m = _CORRECTION.search(body)
        if m:
            return self._restate(old=m.group(2), new=m.group(1))
        r = _CORRECTION_REVERSED.match(body)
        if r:
            return self._restate(old=r.group(1), new=r.group(2))
        lead = _CORRECTION_LEAD.match(body)
        if not lead:
            return False
        rest = body[lead.end() :].strip()
        pair = re.match(r"^(.{1,40}?),?\s+not\s+([^,]{1,40}?)\s*(?:,.*)?$", rest, re.I)
        if pair and len(pair.group(1).split()) <= 4 and not _starts_subject(
            pair.group(1).split()[0], self.people
        ):
            return self._restate(old=pair.group(2), new=pair.group(1))
        if 0 < len(rest.split()) <= 3:
            return self._restate_value(rest)
        return False

    def _history_sentences(self) -> list[str]:
        """The speaker's earlier sentences in the session, newest first."""
        out: list[str] = []
        for who, said in reversed(self.ctx.history):
            if who.casefold() == self.speaker.casefold():
                out += reversed(sentences(normalize(said)[:2000]))
        return out

    def _restate(self, *, old: str, new: str) -> bool:
        old, new = old.strip(" ,"), new.strip(" ,")
        if not old or not new or old.casefold() == new.casefold():
            return False
        pattern = re.compile(rf"\b{re.escape(old)}\b", re.I)
        for earlier in self._history_sentences():
            if pattern.search(earlier):
                value = new if new[:1].isupper() or not old[:1].isupper() else _cap(new)
                fixed = _DOUBLED.sub(r"\1", pattern.sub(value, earlier, count=1))
                self.restating = True
                self._sentence(fixed, first=True)
                self.restating = False
                return True
        return False

    def _restate_value(self, new: str) -> bool:
        """A bare new value ("33", "june 13"): it replaces the earlier value of the same shape."""
        shape = _shape(new)
        alone = replace(self.ctx, history=())
        for earlier in self._history_sentences():
            said = _Turn(alone).run(earlier)
            for a in said.attributes:
                if a.key in SINGLE_VALUED and _shape(a.value) == shape and a.value in earlier:
                    fixed = earlier.replace(a.value, new, 1)
                    self.restating = True
                    self._sentence(fixed, first=True)
                    self.restating = False
                    return True
        return False

    # -- whole-sentence patterns ----------------------------------------------------------------

    def _patterns(self, sentence: str) -> None:
        low = sentence.lower()
        if self.ctx.role == "user" and len(sentence) < 400:
            self._idioms(sentence)
        m = re.search(r"\b(?i:my (?:full )?name is) ([A-Z][\w'-]*(?: [A-Z][\w'-]*){0,3})", sentence)
        if m:
            self.out.attribute(self._speaker(), "name", m.group(1))
        m = _EMAIL.search(sentence)
        if m and re.search(r"\b(?:my|me|I)\b", sentence, re.I):
            self.out.attribute(self._speaker(), "email", m.group(0))
        m = _PHONE.search(sentence)
        if m and re.search(
            r"\b(my (?:phone|number|cell|mobile)|call me at|reach me at|text me)", low
        ):
            self.out.attribute(self._speaker(), "phone", " ".join(m.group(0).split()))
        m = re.search(r"\bmy birthday is (?:on )?(.{3,40})", sentence, re.I) or re.search(
            r"\bI was born on (.{3,40})", sentence
        )
        if m:
            when = " ".join(_words_of(m.group(1))[:4]).strip(" ,.")
            when = re.split(r"\s+(?:and|but|so|,)\s+", when)[0]
            self.out.attribute(self._speaker(), "birthday", when)
        m = re.search(
            r"(?:\bmy |^|[,:] ?)(?:all[- ]time )?favorite ([a-z]+(?: [a-z]+)?) (?:is|are|has to be|"
            r"would be|=) "
            r"(.{1,60})",
            sentence,
            re.I,
        )
        if m:
            what = m.group(1).lower().replace(" ", "_")
            value = " ".join(noun_phrase(_words_of(m.group(2)), 5))
            self.out.attribute(self._speaker(), f"favorite_{what}", value)
        m = re.search(r"\bmy hobb(?:y is|ies are|ies include) (.{1,120})", sentence, re.I)
        if m:
            for item in _list_items(_words_of(m.group(1))):
                self.out.attribute(self._speaker(), "hobbies", item)
        m = re.search(
            r"\bmy (?:new )?(?:job title|title|role|position|job) is (?:now )?(.{1,60})",
            sentence,
            re.I,
        )
        if m:
            title = noun_phrase(_words_of(m.group(1)), 5)
            if title and title[-1].lower() in gz.JOB_WORDS:
                self.out.attribute(self._speaker(), "job_title", " ".join(title))
        for m in re.finditer(
            r"\b(?:my|our) (" + "|".join(sorted(gz.PETS, key=len, reverse=True)) + r")s?,? "
            r"(?:named |called )?([A-Z][a-z]+)(?: and ([A-Z][a-z]+))?",
            sentence,
        ):
            for name in (m.group(2), m.group(3)):
                if name and name.lower() not in gz.NOT_NAMES:
                    self._pet(self._speaker(), m.group(1).lower(), name)
        if self.ctx.role == "assistant" and self.addressee:
            for m in _YOU_HAVE_PET.finditer(sentence):
                owner = self.out.entity(self.addressee, "person")
                for name in (m.group(2), m.group(3)):
                    if name:
                        self._pet(owner, m.group(1).lower(), name)

    def _idioms(self, sentence: str) -> None:
        """Set phrases of chat that state a fact about the speaker: "here's a pic of my new
        bike", "your support means a lot", "painting is so relaxing", "my dream is to ..."."""
        m = _PHOTO.search(sentence)
        if m:
            what = noun_phrase(tokenize(m.group(1)), 6)
            if what and not _pronoun_object(what):
                self.out.actions.append(
                    RawAction(self._speaker(), "share", f"photo of {' '.join(what)}",
                              f"{self.speaker} shared a photo of {' '.join(what)}")
                )
        m = _MEANS_A_LOT.search(sentence)
        if m:
            what = _strip_articles(tokenize(m.group(1)))
            if what and len(what) <= 6 and not _pronoun_object(what):
                self.out.actions.append(
                    RawAction(self._speaker(), "appreciate", " ".join(what),
                              f"{self.speaker} appreciates {' '.join(what)}")
                )
        m = _GERUND_PRAISE.match(sentence) or _THING_PRAISE.match(sentence)
        if m and m.group(1).split()[0].lower() not in v.PRONOUN_OBJECTS | v.SUBJECT_PRONOUNS:
            self.out.attribute(self._speaker(), "likes", m.group(1).lower())
        m = _IT_IS_GREAT.match(sentence)
        if m:
            doing = _gerund(lemma(m.group(1).lower())) if m.group(1) else m.group(2).lower()
            rest = _habit_phrase(Clause(words=[], verb=doing, rest=tokenize(m.group(3) or "")))
            if rest and not _pronoun_object(rest.split()[1:] or ["x"]):
                self.out.attribute(self._speaker(), "likes", rest)
        m = _DREAM.search(sentence)
        if m:
            goal = _habit_phrase(
                Clause(words=[], verb=lemma(m.group(1).lower()), rest=tokenize(m.group(2)))
            )
            if goal and len(goal.split()) >= 2:
                self.out.attribute(self._speaker(), "goals", goal)

    def _pet_names(self, sentence: str) -> None:
        """ "her name is Luna" after a pet was mentioned; "Sora (6)" gives an age."""
        m = re.search(r"\b(?:her|his|its|their) names? (?:is|are) ([A-Z][a-z]+)", sentence)
        if m and self.last_species:
            self._pet(self._speaker(), self.last_species, m.group(1))
        for m in re.finditer(r"\b([A-Z][a-z]+) \((\d{1,2})\)", sentence):
            if m.group(1).casefold() in self.people:
                self.out.attribute(self.people[m.group(1).casefold()], "age", m.group(2))

    def _pet(self, owner: str, species: str, name: str) -> None:
        pet = self.out.entity(name, "animal")
        self.out.entities[pet.casefold()] = RawEntity(pet, "animal")  # not a person after all
        species = _SPECIES_OF.get(species, species)
        self.used.add(pet.casefold())
        self.out.relation(owner, "has_pet", pet)
        self.out.attribute(pet, "species", species)

    def _kin_mentions(self, clause: Clause) -> None:
        """ "my husband and kids", "my brother Felix", "Emma, my sister": family and relations."""
        words = clause.words
        if self.ctx.role != "user" or self.speaker in ("user", "assistant"):
            return
        for i, w in enumerate(words):
            if w.lower() not in ("my", "our") or i + 1 >= len(words):
                continue
            j = i + 1
            while j < len(words) and words[j].lower() in (
                "little",
                "older",
                "younger",
                "big",
                "baby",
                "twin",
                "best",
                "two",
                "three",
            ):
                j += 1
            if j >= len(words):
                continue
            kin = words[j].lower()
            if kin in v.FAMILY_WORDS:
                count = words[i + 1].lower() if words[i + 1].lower() in ("two", "three") else ""
                self.out.attribute(self._speaker(), "family", f"{count} {kin}".strip())
            status = _STATUS_OF_KIN.get(kin)
            if status and not (i > 0 and words[i - 1].lower() in ("ex", "former", "late")):
                self.out.attribute(self._speaker(), "relationship_status", status)
            if kin not in v.KIN:
                continue
            k = j + 1
            if k < len(words) and words[k] == ",":
                k += 1
            if k < len(words) and words[k].casefold() in self.people:
                self._kin_relation(v.KIN[kin], self.people[words[k].casefold()])
            elif kin in v.FAMILY_WORDS and k < len(words) and words[k].lower() == "and":
                nxt = words[k + 1].lower() if k + 1 < len(words) else ""
                if nxt in v.FAMILY_WORDS:
                    self.out.attribute(self._speaker(), "family", nxt)
        for i in range(len(words) - 3):
            if (
                words[i].casefold() in self.people
                and words[i + 1] == ","
                and words[i + 2].lower() == "my"
                and words[i + 3].lower() in v.KIN
            ):
                self._kin_relation(v.KIN[words[i + 3].lower()], self.people[words[i].casefold()])

    def _kin_relation(self, kind: str, other_name: str) -> None:
        me = self._speaker()
        other = self.out.entity(other_name, "person")
        self.used.add(other.casefold())
        if other.casefold() == me.casefold():
            return
        if kind == "sibling":
            self.out.relation(me, "sibling_of", other)
        elif kind == "parent":
            self.out.relation(other, "parent_of", me)
        elif kind == "child":
            self.out.relation(me, "parent_of", other)
        elif kind == "spouse":
            self.out.relation(me, "married_to", other)
        elif kind == "partner":
            self.out.relation(me, "partner_of", other)
        elif kind == "boss":
            self.out.relation(other, "manages", me)
        elif kind == "colleague":
            self.out.relation(me, "colleague_of", other)
        elif kind == "relative":
            self.out.relation(me, "relative_of", other)
        else:
            self.out.relation(me, "friend_of", other)

    # -- one clause ----------------------------------------------------------------------------

    def _who(self, clause: Clause) -> str | None:
        if clause.subject == "self":
            return self._speaker()
        if clause.subject == "person" and clause.name:
            self.used.add(clause.name.casefold())
            if clause.kin and clause.kin in v.KIN:
                self._kin_relation(v.KIN[clause.kin], clause.name)
            return self.out.entity(clause.name, "person")
        if clause.subject == "you" and self.ctx.role == "assistant" and self.addressee:
            self.used.add(self.addressee.casefold())
            return self.out.entity(self.addressee, "person")
        return None

    def _clause(self, clause: Clause, *, hedged: bool, time: TimeRef | None) -> None:
        if clause.subject not in ("self", "person", "you"):
            return
        if clause.modal == "would":
            return  # hypothetical
        if clause.verb in _REPORTING and clause.rest and not clause.negated:
            # "my friend Elif thinks she might be moving", "i heard Thabo got fired": the
            # reported clause, hedged when it is only believed or heard.
            inner = [w for w in clause.rest if w.lower() != "that"]
            if inner and _starts_subject(inner[0], self.people):
                sub = parse_clause("", inner, self.people, pronoun=self._pronoun_for(clause))
                self._clause(sub, hedged=hedged or clause.verb != "say", time=time)
                return
        uncertain = hedged or clause.hedged
        scratch = _Turn.__new__(_Turn)
        scratch.__dict__.update(self.__dict__)
        scratch.out = _Out(self.ctx, entities=self.out.entities)
        who = scratch._who(clause)
        if who is None:
            return
        scratch._facts(clause, who, time)
        self.used |= scratch.used
        if uncertain:
            claims = [f"{a.key.replace('_', ' ')} {a.value}" for a in scratch.out.attributes]
            claims += [f"{r.label.replace('_', ' ')} {r.object}" for r in scratch.out.relations]
            claims += [f"{a.verb} {a.object or a.place or ''}".strip() for a in scratch.out.actions]
            if claims:
                self.out.uncertainties.append(
                    RawUncertainty(who, f"not certain: {claims[0]} ({clause.text[:160]})")
                )
            return
        ended = clause.negated or clause.modal == "used_to" or clause.aspect in ("stop", "quit")
        if ended:
            final = clause.negated and _NO_MORE.search(clause.text) is not None
            for a in scratch.out.attributes:
                if a.key == "likes" and clause.negated and not final:
                    self.out.attribute(a.entity, "dislikes", a.value)
                else:
                    self.out.attribute(a.entity, a.key, a.value, negated=True)
            if not scratch.out.attributes and (final or clause.aspect in ("stop", "quit")):
                habit = _habit_phrase(clause)
                if habit and who == self.speaker:
                    self.out.attribute(who, "habits", habit, negated=True)
            if clause.modal == "used_to":
                self.out.actions += scratch.out.actions
            return
        self.out.attributes += [a for a in scratch.out.attributes if a not in self.out.attributes]
        self.out.relations += [r for r in scratch.out.relations if r not in self.out.relations]
        self.out.actions += scratch.out.actions

    def _pronoun_for(self, clause: Clause) -> str:
        return clause.name if clause.subject == "person" else self.pronoun

    def _facts(self, c: Clause, who: str, time: TimeRef | None) -> None:
        rest = c.rest
        verb = c.verb
        if verb == "be" and not c.passive and not c.progressive:
            self._copula(c, who, rest)
            return
        if c.passive:
            self._passive(c, who, rest)
            return
        np = noun_phrase(rest)
        if verb in ("get", "have", "take") and [w.lower() for w in np[-1:]] in (
            ["chance"], ["opportunity"], ["time"]
        ):
            k = next((i for i, w in enumerate(rest) if w.lower() == "to"), -1)
            if 0 <= k < len(rest) - 1 and is_verb(rest[k + 1]):
                inner = Clause(words=c.words, subject=c.subject, name=c.name, past=c.past,
                               verb=lemma(rest[k + 1].lower()), verb_word=rest[k + 1],
                               rest=rest[k + 2 :], modal=c.modal)
                self._facts(inner, who, time)
            return
        pps = _pp(rest)
        if self._keyed(c, who, verb, rest, np, pps):
            return
        if c.modal == "intent" and c.intent_verb in (
            "want",
            "hope",
            "plan",
            "dream",
            "wish",
            "love",
            "like",
            "aspire",
            "intend",
            "think",
            "consider",
        ):
            when = self._time(c, time, future=True)
            if when is None and (np or pps) and verb not in v.LIGHT_VERBS | {"have"}:
                obj = np or pps[0][1]
                if not _pronoun_object(obj):
                    self.out.attribute(who, "goals", f"{verb} {' '.join(obj)}")
                return
            if when is None:
                return
        self._action(c, who, np, pps, time)

    def _time(self, c: Clause, time: TimeRef | None, *, future: bool = False) -> TimeRef | None:
        ahead = future or c.modal in ("future", "intent") or (c.progressive and not c.past)
        return resolve_time(c.text, self.ctx.observed_at, future=ahead) or time

    def _action(
        self,
        c: Clause,
        who: str,
        np: list[str],
        pps: list[tuple[str, list[str]]],
        time: TimeRef | None,
    ) -> None:
        verb = c.verb + (f" {c.particle}" if c.particle else "")
        if c.verb in v.LIGHT_VERBS and (c.verb not in v.OBJECT_VERBS or _pronoun_object(np)):
            searching = c.verb == "look" and pps and pps[0][0] in ("into", "for")
            if not ((c.verb in ("go", "come") and pps) or searching):
                return
            if searching:
                verb = f"look {pps[0][0]}"
        if _pronoun_object(np) and np:
            return
        place = ""
        obj = list(np)
        for prep, phrase in pps:
            head = phrase[-1].lower()
            typed = self.out.entities.get(" ".join(phrase).casefold())
            is_place = (
                (typed is not None and typed.type in ("place", "organization", "event"))
                or head in gz.PLACE_WORDS
                or " ".join(phrase).lower() in gz.PLACES
                or head
                in (
                    "beach",
                    "park",
                    "museum",
                    "gym",
                    "school",
                    "church",
                    "office",
                    "library",
                    "shelter",
                    "hospital",
                    "center",
                    "centre",
                    "store",
                    "restaurant",
                    "cafe",
                    "bar",
                    "zoo",
                    "theater",
                    "studio",
                    "class",
                )
            )
            if prep in ("in", "at", "to", "near", "into") and is_place and not place:
                place = " ".join(phrase)
            elif not obj and prep not in ("about", "like", "than") and not _pronoun_object(phrase):
                obj = phrase
            elif obj and len(obj) + len(phrase) + 1 <= 8 and prep in ("with", "for", "from"):
                obj = [*obj, prep, *phrase]
        if not obj and not place:
            return
        if obj and _pronoun_object(obj):
            return
        when = self._time(c, time)
        occurred, precision = (when.when, when.precision) if when else (None, None)
        if occurred is None and c.past and re.search(r"\bjust\b", c.text, re.I):
            occurred, precision = self.ctx.observed_at, "day"
        if c.aspect:
            verb = f"{c.aspect} {verb}"
        summary = f"{who} {' '.join(c.words)}"
        self.out.actions.append(
            RawAction(
                who,
                verb,
                " ".join(obj) or None,
                summary[:240],
                occurred,
                place=place or None,
                precision=precision,
            )
        )
        if c.frequency and who.casefold() == self.speaker.casefold():
            self.out.attribute(who, "habits", f"{c.verb} {' '.join(obj or [place])}")

    # -- facts by verb ---------------------------------------------------------------------------

    def _copula(self, c: Clause, who: str, rest: list[str]) -> None:
        words = [
            w
            for w in rest
            if w.lower()
            not in (
                "now",
                "currently",
                "officially",
                "also",
                "still",
                "finally",
                "actually",
                "just",
                "really",
                "so",
                "very",
                "pretty",
                "more",
                "totally",
                "super",
                "definitely",
                "always",
                "kinda",
                "quite",
            )
        ]
        if not words:
            return
        first = words[0].lower()
        nxt = words[1].lower() if len(words) > 1 else ""
        if first.isdigit() and 0 < int(first) < 120:
            unit = nxt in ("years", "year", "yrs", "y/o", "yo")
            said_old = unit and len(words) > 2 and words[2].lower() == "old"
            bare = len(words) == 1 or nxt in ("and", "now", "by", "btw", "soon", "today", "!")
            if not c.past and (bare or said_old or (unit and c.verb == "be" and c.verb_word)):
                self.out.attribute(who, "age", first)
            return
        if first in v.RELATIONSHIP_STATUS:
            if not c.past:
                self.out.attribute(who, "relationship_status", v.RELATIONSHIP_STATUS[first])
            self._spouse(who, first, words[1:])
            self._copula(c, who, _after_first_clause(words[1:]))
            return
        if first == "in" and nxt == "a" and "relationship" in [w.lower() for w in words[:4]]:
            self.out.attribute(who, "relationship_status", "dating")
            return
        if first == "from":
            self._hometown(who, words[1:])
            return
        if first == "in" and len(words) > 1:
            tail = [w.lower() for w in words[2:]]
            if c.past:
                place = self._place(words[1:])
                if place:
                    when = self._time(c, None)
                    self.out.actions.append(
                        RawAction(who, "visit", None, f"{who} {c.text}"[:240],
                                  when.when if when else None, place=place,
                                  precision=when.precision if when else None)
                    )
            elif not (tail[:2] in (["for", "a"], ["for", "the"], ["on", "a"]) or "trip" in tail):
                self._location(who, words[1:])
            return
        if first in v.NATIONALITIES:
            self.out.attribute(who, "nationality", first.capitalize())
            self._copula(c, who, _after_first_clause(words[1:]))
            return
        if first == "at" and len(words) > 1 and words[1][:1].isupper():
            org = noun_phrase(words[1:], 4)
            typed = self.out.entities.get(" ".join(org).casefold())
            if org and org[-1].lower() in v.SCHOOL_WORDS:
                self._school(who, org)
            elif org and ((typed and typed.type == "organization") or " ".join(org).lower()
                          in gz.ORGANIZATIONS):
                self._employer(who, org)
            return
        if first == "in" and any(w.lower() == "at" for w in words):
            school = next((p for prep, p in _pp(words) if prep == "at"), None)
            if school and school[-1].lower() in v.SCHOOL_WORDS:
                self._school(who, school)
                return
        diet = (
            first if first in v.DIETS else (nxt if first in ("a", "an") and nxt in v.DIETS else "")
        )
        if diet:
            self.out.attribute(who, "diet", diet)
            return
        if first == "allergic" and nxt == "to":
            for item in _list_items(words[2:]):
                self.out.attribute(who, "allergies", item)
            return
        if (first, nxt) in (("part", "of"), ("a", "member"), ("member", "of")) and len(words) > 2:
            group = noun_phrase(words[3:] if first == "a" else words[2:], 5)
            if group and not _pronoun_object(group) and group[-1].lower() not in ("it", "this"):
                org = self.out.entity(" ".join(group), "organization")
                self.used.add(org.casefold())
                self.out.relation(who, "member_of", org)
            return
        stance = _STANCE.get((first, nxt))
        if stance and len(words) > 2:
            obj = noun_phrase(words[2:], 7) if not words[2].lower().endswith("ing") else (
                _habit_phrase(Clause(words=[], verb=words[2].lower(), rest=words[3:]))
                .split()
            )
            if obj and not _pronoun_object(obj):
                if stance in ("likes", "skills"):
                    self.out.attribute(who, stance, " ".join(obj))
                else:
                    self.out.actions.append(
                        RawAction(who, stance, " ".join(obj), f"{who} {' '.join(c.words)}"[:240])
                    )
            return
        if first == "all" and nxt == "about" and len(words) > 2:
            for item in _list_items(words[2:]):
                if not _pronoun_object(item.split()):
                    self.out.attribute(who, "likes", item)
            return
        if first in ("keen", "big") and nxt in ("on", "fan"):
            words = words[1:] if first == "big" else ["into", *words[2:]]
            first = words[0].lower()
        if first in ("into", "obsessed", "passionate", "crazy") or (
            first in ("a", "an", "huge", "big") and "fan" in [w.lower() for w in words[:3]]
        ):
            start = 1
            if "fan" in [w.lower() for w in words[:3]]:
                start = [w.lower() for w in words].index("fan") + 2
            elif first in ("obsessed", "passionate", "crazy"):
                start = 2
            for item in _list_items(words[start:]):
                if not _pronoun_object(item.split()):
                    self.out.attribute(who, "likes", item)
            return
        if first in ("based", "living") and nxt == "in":
            self._location(who, words[2:])
            return
        if first in ("pregnant", "sick", "ill") or (first == "recovering" and nxt == "from"):
            self.out.attribute(
                who, "health", " ".join(noun_phrase(words[2:])) if nxt == "from" else first
            )
            return
        if (first in ("a", "an", "the") or True) and self._job(who, words):
            return
        if first in ("a", "an") and nxt in ("student", "freshman", "sophomore", "junior", "senior"):
            school = next((p for prep, p in _pp(words) if prep in ("at", "in")), None)
            if school and school[0][:1].isupper():
                self._school(who, school)
            return
        if first in ("my", "his", "her") and nxt in v.KIN and who != self.speaker:
            if first == "my":
                self._kin_relation(v.KIN[nxt], who)

    def _job(self, who: str, words: list[str]) -> bool:
        """ "a nurse practitioner at Mercy", "head of marketing", "the new CTO": a job title."""
        title = _strip_articles(words[:])
        if title and title[0].lower() in ("new", "former", "full-time", "part-time"):
            title = title[1:] if title[0].lower() == "new" else title
        phrase: list[str] = []
        for i, w in enumerate(title):
            low = w.lower()
            if (
                low in ("at", "for", "with", "in", "from", "on")
                or w in ",;:!?-"
                or low in v.BOUNDARY
                or (low in v.TIME_WORDS and phrase)
            ):
                break
            if low == "of" and not (
                phrase and phrase[-1].lower() in ("head", "director", "vp", "chief", "president")
            ):
                break
            phrase.append(w)
            if len(phrase) >= 5:
                break
        if not phrase:
            return False
        head = phrase[-1].lower().rstrip(".")
        if head not in gz.JOB_WORDS and not (
            len(phrase) >= 3 and phrase[0].lower() in gz.JOB_WORDS and phrase[1].lower() == "of"
        ):
            return False
        if phrase[0].lower() in ("good", "great", "bad", "terrible", "awesome", "amazing"):
            return False
        rest = title[len(phrase) :]
        if head in ("student", "freshman", "sophomore", "undergrad", "undergraduate"):
            school = next((p for prep, p in _pp(rest) if prep in ("at", "in")), None)
            if school and school[0][:1].isupper():
                self._school(who, school)
            return True
        self.out.attribute(who, "job_title", " ".join(phrase))
        called = next(
            (i for i, w in enumerate(rest[:8]) if w.lower() in ("called", "named")), None
        )
        if called is not None and rest[0].lower() in ("of", "at", "for"):
            self._employer(who, rest[called + 1 :])
        elif len(rest) >= 2 and rest[0].lower() in ("at", "for", "with"):
            self._employer(who, rest[1:])
        return True

    def _spouse(self, who: str, status: str, words: list[str]) -> None:
        """"married to Lena", "engaged to Tom": the partner, when named."""
        for i, w in enumerate(words[:8]):
            if w.lower() in ("to", "with") and i + 1 < len(words):
                name = words[i + 1]
                if name.casefold() in self.people or (name[:1].isupper() and name.isalpha()):
                    other = self.out.entity(self.people.get(name.casefold(), name), "person")
                    self.used.add(other.casefold())
                    label = "married_to" if status == "married" else "partner_of"
                    self.out.relation(who, label, other)
                return

    def _employer(self, who: str, words: list[str]) -> None:
        org = noun_phrase(words, 4)
        if org and org[0][:1].isupper() and org[0].lower() not in gz.NOT_NAMES:
            name = self.out.entity(" ".join(org), "organization")
            self.used.add(name.casefold())
            self.out.attribute(who, "employer", name)
            self.out.relation(who, "works_at", name)

    def _place(self, words: list[str]) -> str | None:
        """The place a phrase names, if it names one: capitalized, or any name in a turn
        written all in lower case."""
        place = noun_phrase(words, 4)
        if not place or place[0].lower() in gz.NOT_NAMES or place[0].lower() in v.PRONOUN_OBJECTS:
            return None
        if not place[0][:1].isupper():
            if not self.lowercase or len(place) > 3 or place[-1].lower() in _COMMON_PLACES:
                return None
            place = [_cap(w) for w in place]
        name = self.out.entity(" ".join(place), "place")
        self.used.add(name.casefold())
        return name

    def _location(self, who: str, words: list[str]) -> None:
        name = self._place(words)
        if name:
            self.out.attribute(who, "location", name)
            self.out.relation(who, "lives_in", name)

    def _hometown(self, who: str, words: list[str]) -> None:
        name = self._place(words)
        if name:
            self.out.attribute(who, "hometown", name)
            self.out.relation(who, "from", name)

    def _school(self, who: str, words: list[str]) -> None:
        name = self.out.entity(" ".join(words), "organization")
        self.used.add(name.casefold())
        self.out.attribute(who, "school", name)
        self.out.relation(who, "studies_at", name)

    def _passive(self, c: Clause, who: str, rest: list[str]) -> None:
        verb = c.verb or lemma(
            next(
                (
                    w
                    for w in c.words
                    if w.lower()
                    in (
                        "promoted",
                        "married",
                        "engaged",
                        "hired",
                        "divorced",
                        "born",
                        "raised",
                        "diagnosed",
                        "accepted",
                        "adopted",
                        "transferred",
                    )
                ),
                "",
            )
        )
        if not c.verb:
            # "got promoted to ...": the participle sits before ``rest``.
            idx = next((i for i, w in enumerate(c.words) if lemma(w.lower()) == verb), -1)
            rest = c.words[idx + 1 :] if idx >= 0 else rest
        pps = _pp(rest)
        if verb in ("promote", "make", "name", "appoint") and any(w.lower() == "to" for w in rest):
            self._job(who, rest[[w.lower() for w in rest].index("to") + 1 :])
            return
        if verb in ("make", "name", "appoint", "hire") and rest and rest[0].lower() not in (
            "at", "by", "to"
        ):
            if self._job(who, rest):
                return
        if verb in ("marry", "engage", "divorce"):
            status = {"marry": "married", "engage": "engaged", "divorce": "divorced"}[verb]
            self.out.attribute(who, "relationship_status", status)
            for prep, phrase in pps:
                if prep == "to" and phrase[0].casefold() in self.people:
                    other = self.out.entity(self.people[phrase[0].casefold()], "person")
                    self.out.relation(who, "married_to" if verb == "marry" else "partner_of", other)
            return
        if verb in ("hire", "accept", "transfer"):
            for prep, phrase in pps:
                if prep in ("at", "by", "to") and phrase[0][:1].isupper():
                    if verb == "accept" and phrase[-1].lower() in v.SCHOOL_WORDS:
                        self._school(who, phrase)
                    else:
                        self._employer(who, phrase)
                    return
        if verb in ("bear", "born", "raise"):
            for prep, phrase in pps:
                if prep == "in":
                    self._hometown(who, phrase)
                    return
            return
        if verb == "diagnose":
            for prep, phrase in pps:
                if prep == "with":
                    self.out.attribute(who, "health", " ".join(phrase))
            return
        if verb in ("fire", "lay") and c.verb:
            for prep, phrase in pps:
                if prep in ("from", "at", "by") and phrase[0][:1].isupper():
                    org = self.out.entity(" ".join(phrase), "organization")
                    self.out.attribute(who, "employer", org, negated=True)
        if c.verb:
            self._action(c, who, noun_phrase(rest), pps, None)

    def _keyed(
        self,
        c: Clause,
        who: str,
        verb: str,
        rest: list[str],
        np: list[str],
        pps: list[tuple[str, list[str]]],
    ) -> bool:
        """Facts with a canonical key; True when the clause said one (no action then)."""
        low_np = [w.lower() for w in np]
        prep_of = {p: phrase for p, phrase in reversed(pps)}
        if verb in ("marry", "divorce", "engage") and c.verb_word.lower().endswith("ed") and (
            not np or np[0].lower() in ("for", "since", "to")
        ):
            status = {"marry": "married", "divorce": "divorced", "engage": "engaged"}[verb]
            if not c.past or c.elided:
                self.out.attribute(who, "relationship_status", status)
            self._spouse(who, status, rest)
            return False
        if verb == "date" and np and np[0].casefold() in self.people and not c.past:
            self.out.attribute(who, "relationship_status", "dating")
            other = self.out.entity(self.people[np[0].casefold()], "person")
            self.out.relation(who, "partner_of", other)
            return False
        if verb == "eat" and low_np[:1] and low_np[0] in v.DIETS:
            self.out.attribute(who, "diet", low_np[0])
            return True
        if verb == "diagnose" and "with" in prep_of:
            self.out.attribute(who, "health", " ".join(prep_of["with"]))
            return False
        if verb in ("deal", "suffer", "struggle", "live") and ("with" in prep_of or "from" in
                                                                prep_of):
            cond = prep_of.get("with") or prep_of.get("from") or []
            if cond and _condition(cond):
                self.out.attribute(who, "health", " ".join(_strip_articles(cond)))
                return True
        if verb in ("have", "get", "finish", "earn", "complete", "start", "do", "take",
                    "attend", "begin") and low_np:
            degree = _degree(rest)
            if degree:
                key = "education" if verb in ("have", "finish", "earn", "complete") or c.past \
                    else "learning"
                if verb in ("do", "take", "attend", "start", "begin") and not c.past:
                    key = "learning"
                self.out.attribute(who, key, degree)
                school = prep_of.get("at")
                current = key == "learning" and not (c.modal or self._time(c, None))
                if school and school[0][:1].isupper() and current:
                    self._school(who, school)
                return verb == "have"
        if verb in ("know", "use", "code") and low_np and not c.past:
            skills = [i for i in _list_items(rest) if i.split()[-1].lower() in v.TECH]
            for item in skills:
                word = item.split()[-1]
                self.out.attribute(who, "skills", v.TECH_NAMES.get(word.lower(), word))
            if skills:
                return True
        if verb in ("start", "begin") and "at" in prep_of and not c.modal:
            org = prep_of["at"]
            if org[0][:1].isupper() and org[-1].lower() not in v.SCHOOL_WORDS:
                self._employer(who, org)
                return False
        if verb in ("manage", "lead", "run", "head") and np and np[0][:1].isupper() and not c.past:
            name = " ".join(np)
            team = self.out.entity(name, "organization" if np[-1].lower() in gz.ORG_WORDS
                                   else "other")
            self.used.add(team.casefold())
            self.out.relation(who, "manages", team)
            return True
        if verb == "report" and "to" in prep_of and prep_of["to"][0].lower() == "me":
            self.out.relation(self._speaker(), "manages", who)
            return True
        if verb in ("live", "reside") and "in" in prep_of:
            self._location(who, prep_of["in"])
            return not c.past
        if verb in ("move", "relocate") and not (c.modal or c.progressive):
            for prep in ("to", "into", "in"):
                if prep in prep_of and self._place(prep_of[prep]):
                    self._location(who, prep_of[prep])
                    break
            return False
        if verb in ("grow",) and c.particle == "up" and "in" in prep_of:
            self._hometown(who, prep_of["in"])
            return True
        if verb in ("go", "become", "turn") and low_np[:1] and low_np[0] in v.DIETS:
            self.out.attribute(who, "diet", low_np[0])
            return False
        if verb in _ORG_VERBS and not c.past:
            said = False
            for prep, phrase in pps:
                if prep in ("at", "for") and phrase[0][:1].isupper() and verb == "work":
                    self._employer(who, phrase)
                    said = True
            for i, w in enumerate(rest):
                if w.lower() == "as":
                    said = self._job(who, rest[i + 1 :]) or said
                    break
            if verb == "work" and c.particle == "" and "on" in prep_of and not said:
                project = prep_of["on"]
                if project[0][:1].isupper():
                    name = self.out.entity(" ".join(project), "other")
                    self.used.add(name.casefold())
                    self.out.relation(who, "works_on", name)
                    return False
            return said
        if verb in ("quit", "leave") and np and np[0][:1].isupper():
            name = " ".join(np)
            if name.lower() in gz.ORGANIZATIONS or np[-1].lower() in gz.ORG_WORDS:
                self.out.attribute(
                    who, "employer", self.out.entity(name, "organization"), negated=True
                )
                return False
        if verb == "join" and np and np[0][:1].isupper():
            name = " ".join(np)
            if name.lower() in gz.ORGANIZATIONS:
                self._employer(who, np)
            else:
                org = self.out.entity(name, "organization")
                self.used.add(org.casefold())
                self.out.relation(who, "member_of", org)
            return False
        if verb == "start" and low_np[:2] in (["new", "job"], ["job"]) and "at" in prep_of:
            self._employer(who, prep_of["at"])
            return False
        if verb == "get" and low_np[:1] in (["job"], ["new"]) and "at" in prep_of:
            self._employer(who, prep_of["at"])
            return False
        if verb == "become":
            return self._job(who, rest)
        if verb in ("study", "major") and not c.past:
            said = False
            if "at" in prep_of and prep_of["at"][0][:1].isupper():
                self._school(who, prep_of["at"])
                said = True
            field_ = np or prep_of.get("in", [])
            if field_ and not _pronoun_object(field_) and not field_[0][:1].isupper():
                self.out.attribute(who, "education", " ".join(field_))
                said = True
            return said
        if verb == "graduate":
            for prep, phrase in pps:
                if prep in ("with", "in") and phrase:
                    self.out.attribute(who, "education", " ".join(phrase))
            return False
        if verb == "learn" and np and not c.past:
            for item in _list_items(rest):
                self.out.attribute(who, "learning", item)
            return True
        if verb == "take" and low_np and low_np[-1] in ("lessons", "classes", "class", "lesson"):
            subject = [w for w in np[:-1] if w.lower() not in ("some", "new")]
            if subject and not c.past:
                self.out.attribute(who, "learning", " ".join(subject))
            return False
        if verb == "speak" and np:
            langs = [i.split()[-1] for i in _list_items(rest) if i.split()[-1].lower() in
                     gz.LANGUAGES]
            for lang in langs:
                self.out.attribute(who, "languages", lang.capitalize())
            return bool(langs)
        if (
            verb
            in ("like", "love", "enjoy", "adore", "prefer", "hate", "dislike", "detest", "stand")
            and not c.past
        ):
            key = "dislikes" if verb in ("hate", "dislike", "detest", "stand") else "likes"
            if verb == "stand" and not (c.negated and c.modal == "can"):
                return False
            if verb == "stand":
                c.negated = False
            items = rest
            if rest and rest[0].lower() == "to" and len(rest) > 1:
                items = [_gerund(lemma(rest[1].lower())), *rest[2:]]
            if items and items[0].lower().endswith("ing") and len(items) > 1:
                doing = _habit_phrase(Clause(words=[], verb=items[0].lower(), rest=items[1:]))
                if _pronoun_object(doing.split()[1:] or ["x"]):
                    return False
                if doing:
                    self.out.attribute(who, key, doing)
                    return True
            said = False
            for item in _list_items(items):
                if not _pronoun_object(item.split()) and item.lower() not in ("you", "it"):
                    self.out.attribute(who, key, item)
                    said = True
            return said
        named_pet = _NAMED_PET.search(" ".join(rest)) if low_np else None
        if verb in ("have", "get", "adopt", "own", "rescue") and named_pet:
            for name in (named_pet.group(2), named_pet.group(3)):
                if name and name.lower() not in gz.NOT_NAMES:
                    self._pet(who, named_pet.group(1).lower(), name)
            return verb == "have" and not c.past
        if (
            verb in ("have", "get", "adopt", "own", "rescue")
            and low_np
            and len(_list_items(rest)) > 1
        ):
            said = False
            for item in _list_items(rest):
                words = item.split()
                sub = _Clause_like(c, words)
                said = self._keyed(sub, who, verb, words, words, []) or said
            return said
        if verb in ("have", "get", "adopt", "own", "rescue") and low_np:
            named = _NAMED_PET.search(" ".join(rest))
            if named:
                for name in (named.group(2), named.group(3)):
                    if name and name.lower() not in gz.NOT_NAMES:
                        self._pet(who, named.group(1).lower(), name)
                return verb == "have" and not c.past
            head = low_np[-1]
            if " ".join(low_np[-2:]) in gz.PETS:
                head = " ".join(low_np[-2:])
            if head in gz.PETS or head.rstrip("s") in gz.PETS:
                if not any(w[:1].isupper() for w in np[1:]):
                    count = low_np[0] if low_np[0] in ("two", "three", "2", "3") else ""
                    self.out.attribute(who, "pets", f"{count} {head}".strip())
                return verb == "have" and not c.past
            if head in v.FAMILY_WORDS and verb == "have" and who == self.speaker:
                self.out.attribute(who, "family", " ".join(np))
                return True
            if head in ("allergy", "allergies") and verb == "have":
                what = " ".join(np[:-1])
                if what:
                    self.out.attribute(who, "allergies", what)
                return True
            if _condition(np) and verb in ("have", "get"):
                self.out.attribute(who, "health", " ".join(np))
                return verb == "have"
        if verb in v.INJURY_VERBS and len(low_np) >= 1 and low_np[-1] in v.BODY_PARTS:
            part = low_np[-1]
            state = {
                "break": "broken",
                "sprain": "sprained",
                "tear": "torn",
                "twist": "twisted",
                "fracture": "fractured",
                "dislocate": "dislocated",
            }.get(verb, "injured")
            self.out.attribute(who, "health", f"{state} {part}")
            return False
        if verb == "turn" and low_np and low_np[0].isdigit():
            when = self._time(c, None)
            if c.past or c.perfect:
                self.out.attribute(who, "age", low_np[0])
            if when is not None and when.precision == "day":
                self.out.attribute(who, "birthday", f"{when.when:%B} {when.when.day}")
            return True
        return False
