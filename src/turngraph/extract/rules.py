"""RuleExtractor: offline, deterministic extraction from casual English, clause by clause.

For each turn: the text is normalized (``normalize``), names are found and typed (``names``),
and each sentence is read as an instruction, a correction, a question (which asserts
nothing) or a series of clauses (``clauses``). A clause yields facts about whom it is about:
the speaker ("I", "we", a dropped subject), a named person ("my brother Felix", "she" for
the person last named in the session), never "you" except in an assistant's turn. How the
clause was said decides what its facts become: stated (attributes, relations, actions with
their time), negated (ends the value it names), hedged or reported (an uncertainty),
conditional (nothing), wished or planned without a date (a goal), habitual (a habit). The
rules are split by job: ``patterns`` (set phrases), ``facts`` (a clause's verb),
``descriptions`` (copulas), ``keyed`` (facts with a canonical key); ``phrases`` reads noun
phrases.
"""

from __future__ import annotations

import functools
import re
from dataclasses import replace

from turngraph.extract import gazetteers as gz
from turngraph.extract import item_filter
from turngraph.extract import vocab as v
from turngraph.extract.base import (
    SINGLE_VALUED,
    RawAction,
    RawExtraction,
    RawInstruction,
    RawUncertainty,
    TurnContext,
)
from turngraph.extract.changes import ChangeRules
from turngraph.extract.clauses import Clause, is_verb, parse_clause, sentences, split_clauses
from turngraph.extract.clauses import tokens as tokenize
from turngraph.extract.descriptions import DescriptionRules
from turngraph.extract.facts import ClauseFacts
from turngraph.extract.findings import Findings
from turngraph.extract.folded import Folded
from turngraph.extract.instructions import STOP_CALLING, find_instruction, may_instruct
from turngraph.extract.keyed import KeyedRules
from turngraph.extract.names import find_names, is_lowercase, truecase
from turngraph.extract.normalize import normalize
from turngraph.extract.opinions import OpinionRules
from turngraph.extract.patterns import PatternRules
from turngraph.extract.phrases import capitalize, doing_phrase, starts_subject, value_shape
from turngraph.extract.timeref import TimeRef, resolve_time

# Extraction reads at most this much of a turn (the most a turn may hold through the API):
# work is linear in it, so any turn extracts in bounded time.
MAX_EXTRACT_CHARS = 32_000
# What a turn says in brackets ("[shares a photo: ...]") describes it; it is not said.
_BRACKETS = re.compile(r"\[[^\[\]]{0,400}\]")
_CORRECTION = Folded(
    r"\b(?:I meant|I mean|meant to say|I misspoke|correction|it's|it is|it was)\W+"
    r"([\w' -]{1,40}?)\s*,?\s+not\s+([\w' -]{1,40}?)\s*$",
)
_CORRECTION_REVERSED = Folded(
    r"^(?:sorry\W+)?not\s+([\w' -]{1,40}?)\s*,\s*(?:I meant\s+|it's\s+)?([\w' -]{1,40}?)\s*$",
)
_HEDGE_LEAD = Folded(
    r"^(?:(?:and|but|so|well|also)\s+)?(?:I think|I guess|I suppose|I believe|I heard|I'm not "
    r"sure(?: if| whether)?|not sure(?: if| whether)?|I wonder if|it seems like|seems like|"
    r"apparently|maybe|perhaps|probably|I doubt|rumou?r is|rumou?r has it|word is|"
    r"supposedly|hopefully|fingers crossed|I could be wrong but(?: I think)?|not confirmed but)"
    r"\b(?:\s+that)?\s*",
)
_QUESTION = Folded(
    r"^\W*(?:\w+\W+){0,2}?(?:what|where|when|why|how|who|whom|which|whose|is|are|am|was|were|"
    r"do|does|did|have|has|had|can|could|will|would|should|shall|may|might|any|anything|"
    r"you|u|ya|wanna|want|got|ever|right|or)\b",
)
_BARE = re.compile(r"[A-Za-z]+")  # the words of a bare "nah." or "yes!"
_SELF_QUESTION = Folded(r"^(am|do|did|have|was)\s+(I)\s+(.+?)(?:\s+or\s+.*)?\W*$")
# Leads that mark a bare value as a correction ("oops, 33"); "no" or "actually" alone do not.
_BARE_VALUE_LEAD = Folded(
    r"^(?:sorry|oops|whoops|typo|correction|my bad|I meant|I mean|wait no|scratch that|"
    r"(?:well )?technically)\b",
)
_CORRECTION_LEAD = Folded(
    r"^(?:(?:sorry|oops|wait|no|nah|correction|actually|my bad|typo|scratch that|I mean|"
    r"I meant|sorry I meant|whoops|well technically|technically)\b\W*)+",
)
_DOUBLED = Folded(r"\b(\w+)(?:\s+\1\b)+")
_PARTS = Folded(r"(?<!\s)\s*(?:[,;:]|\s-\s|\bbut\b)\s*")
_TRAILING_QUESTION = Folded(
    r"(?:,|\s-+)\s*(?:any|anything|anyone|anybody|thoughts|what|how|did|do|does|is|are|was|"
    r"were|have|has|can|could|would|will|want|wanna|where|when|why|who|huh|right|eh|yeah|"
    r"no)\b[^,-]*\?$",
)
_SARCASM = Folded(r"^(?:oh\s+)?(?:sure|yeah right|riiight)\b\W")
_LEAD_IN = Folded(
    r"^(?:remember|fyi|just so you know|note that|for the record|for context|quick update|"
    r"as of (?:today|now|this week|this month)|starting (?:today|now|this week)|from today)"
    r"\W+(?:that\s+)?",
)
# "..., wanted to let you know I joined a travel club": what follows is the news.
_NEWS_LEAD = Folded(
    r"(?:^|(?<=, ))(?:I )?(?:just )?want(?:ed)? to (?:let you know|tell you) (?:that )?"
)
_FILLERS = v.DISCOURSE | v.ADVERBS
_JOB_HEAD = Folded(r"^(?:a |an )?[\w -]{0,30}\b(?:head of|director of|vp of|chief)\b")
_TIME_OPENERS = frozenset("last this yesterday today tonight".split())
_NOT_ADVICE = frozenset(
    (
        "look check take let see tell wish guess say thank excuse pardon hang talk hit "
        "send show give come go keep get have"
    ).split()
)
# A sentence whose subject is a gerund phrase: "Having a supportive team is priceless".
_GERUND_SUBJECT = Folded(
    r"^(?:(?:honestly|really|seriously|tbh|ok|so|but|and|yeah|plus),? )?(?!being\b)"
    r"[A-Za-z]+ing\b[^,.;!?]{0,80}?\b(?:is|was|are|were|can be|has been|must be)\b",
)
# "it felt awesome to score ...": an infinitive said of no one in particular.
_IT_IS_GOOD_TO = Folded(
    r"\bit(?:'s|\s+(?:is|was|felt|feels|seems|seemed))\s+(?:\w+\s+){0,2}?\w+\s+to\s+\w+"
)
_MINE = Folded(r"\b(?:my|our|me|I)\b")
# Life events that terse news may tell of the person the sentence before named.
_LIFE_EVENTS = frozenset(
    "move relocate start join quit leave graduate finish transfer land settle marry".split()
)
_WORK_TALK = Folded(
    r"\b(?:new job|first day|first week|job|jobs|hired|joined|started|offer|onboarding|"
    r"colleagues|coworkers|my team|my manager|my boss)\b"
)


def _generic_gerund(sentence: str) -> bool:
    """ "Having a supportive team is priceless" is about anyone; "Starting my own store was
    scary" and "Painting is my escape" are about the speaker."""
    return _GERUND_SUBJECT.match(sentence) is not None and not _MINE.search(sentence)


MAX_SENTENCE_TOKENS = 1_000
_POSSESSIVES = frozenset("my our your his her their".split())
_COPULA_STARTS = frozenset(
    "big huge fan from allergic single married engaged divorced widowed separated dating "
    "based living in into vegan vegetarian pescatarian keto".split()
)


@functools.lru_cache(maxsize=256)
def _names_said(text: str) -> tuple[tuple[str, str], ...]:
    """The names an earlier turn said (each turn is read again as history by the next few:
    cached by its text)."""
    found: list[tuple[str, str]] = []
    text = _BRACKETS.sub(" ", text)[:2000]
    if is_lowercase(text):
        text = _KIN_NAMED.sub(_capitalize_kin_name, text)
    for sentence in sentences(text):
        found += find_names(sentence, set(), set())
    return tuple(found)


# A short reply that agrees with what was just said to the speaker ("yep", "all correct!").
_CONFIRMS = Folded(
    r"^\W*(?:yes|yep|yeah|yup|yes+|correct|exactly|right|that's right|that's correct|"
    r"all correct|spot on|indeed|true|perfect|bingo)\b[^?]{0,40}$",
)


def _confirmed_recap(text: str, ctx: TurnContext) -> RawExtraction | None:
    """What the assistant's last turn said about the speaker ("You live in Cork and work as
    a vet"), when the speaker confirms it: then it is theirs to have said. Only the facts
    about the speaker are taken."""
    if not ctx.history or not _CONFIRMS.match(text.strip()):
        return None
    said_by, said = ctx.history[-1]
    if said_by.casefold() != "assistant" or said.rstrip().endswith("?"):
        return None
    heard = replace(ctx, speaker="assistant", role="assistant", addressee=ctx.speaker)
    found = _Turn(heard).run(said)
    me = ctx.speaker.casefold()
    attributes = tuple(a for a in found.attributes if a.entity.casefold() == me)
    relations = tuple(
        r for r in found.relations if me in (r.subject.casefold(), r.object.casefold())
    )
    named = {a.value.casefold() for a in attributes}
    named |= {n.casefold() for r in relations for n in (r.subject, r.object)}
    # A pet's species is said of the pet the speaker has.
    pets = {r.object.casefold() for r in relations if r.label == "has_pet"}
    attributes += tuple(a for a in found.attributes if a.entity.casefold() in pets)
    entities = tuple(e for e in found.entities if e.name.casefold() in named | pets | {me})
    return RawExtraction(entities=entities, attributes=attributes, relations=relations)


def _joined(a: RawExtraction, b: RawExtraction) -> RawExtraction:
    return replace(
        a,
        entities=a.entities + tuple(e for e in b.entities if e not in a.entities),
        attributes=a.attributes + tuple(x for x in b.attributes if x not in a.attributes),
        relations=a.relations + tuple(x for x in b.relations if x not in a.relations),
    )


# "my brother kunle needs help": in a turn written in lower case, the word after a kin word
# is their name when it is no common word.
_KIN_NAMED = re.compile(
    r"\b((?:my|our|his|her) (?:little |older |younger |big |baby |twin |best |new |)"
    r"(?:sister|brother|mom|mum|mother|dad|father|son|daughter|wife|husband|boyfriend|"
    r"girlfriend|partner|fiance|fiancee|cousin|aunt|uncle|friend|bestie|roommate|boss|"
    r"manager|supervisor|colleague|coworker|niece|nephew|grandma|grandpa),? )([a-z][a-z'-]{2,})"
)
_COMMON = (
    v.PREPOSITIONS
    | v.DETERMINERS
    | v.SUBJECT_PRONOUNS
    | v.PRONOUN_OBJECTS
    | v.DISCOURSE
    | v.ADVERBS
    | v.ADJECTIVES
    | v.STATES
    | v.FEELINGS
    | v.TIME_WORDS
    | v.MODALS
    | v.BE
    | v.HAVE
    | v.DO
    | v.FREQUENCY
    | v.INTENSIFIERS
    | frozenset("and or but so just also who that which is was has had says said".split())
)


def _capitalize_kin_name(m: re.Match[str]) -> str:
    word = m.group(2)
    bare = word.removesuffix("'s")
    if (
        bare in _COMMON
        or bare in gz.NOT_NAMES
        or is_verb(bare)
        or bare.endswith(("ing", "ed", "ly"))
        or bare in v.KIN
    ):
        return m.group(0)
    return m.group(1) + word[0].upper() + word[1:]


# A turn of names alone ("Max and Daisy.", "Luna!"), and a question asking a pet's names.
_NAMES_ONLY = re.compile(
    r"^((?:[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+)(?:(?:, | and |, and | & )[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+){0,5})\W*$"
)
_NAME_LIST = re.compile(r", and |, | and | & ")
_ASKED_NAMES = Folded(
    r"\b(?:what(?:'s| is| are)|what're)\s+(?:your|their|his|her)\s+(?:\w+\s+)?"
    r"(pets|pet|dogs|dog|cats|cat|puppies|puppy|kittens|kitten|rabbits|rabbit|birds|bird|"
    r"horses|horse|hamsters|hamster)(?:'s|s'|')?\s+names?\b"
)


class RuleExtractor:
    """The default extractor: English clauses read with word lists, no model, ~1 ms a turn."""

    name = "rules-en-v2"

    def __init__(self, *, filtered: bool = True) -> None:
        self.filtered = filtered  # the learned item filter (off to train it)

    def extract(self, text: str, context: TurnContext) -> RawExtraction:
        found = _Turn(context).run(text)
        if context.role == "assistant":
            # What an assistant says states no fact about anyone: its "I" is no person, and
            # what it repeats or asks of the user is the user's to say. The names it uses
            # stay findable.
            me = context.speaker.casefold()
            return RawExtraction(
                entities=tuple(e for e in found.entities if e.name.casefold() != me)
            )
        if self.filtered:
            found = _kept(found, text)
        recap = _confirmed_recap(text, context)
        return _conflicts_flagged(_joined(found, recap) if recap is not None else found)


def _kept(found: RawExtraction, text: str) -> RawExtraction:
    """What the learned item filter keeps of a turn's attributes and actions: endings and
    facts of the keys that say who someone is always. The turn is read once, as far as the
    extraction read it."""
    if not found.attributes and not found.actions:
        return found
    turn = item_filter.TurnText(text[:MAX_EXTRACT_CHARS])
    return replace(
        found,
        attributes=tuple(
            a
            for a in found.attributes
            if a.negated or item_filter.keep("attr", a.key, a.value, turn)
        ),
        actions=tuple(
            a
            for a in found.actions
            if item_filter.keep(
                "action",
                a.verb,
                f"{a.object or ''} {a.place or ''}".strip(),
                turn,
                timed=a.occurred_at is not None,
            )
        ),
    )


def _conflicts_flagged(found: RawExtraction) -> RawExtraction:
    """ "I work at Initech. I work at Globex.": one turn giving two values of a key that holds
    one is a conflicting signal; the later value still stands (as a correction would), and
    the conflict is flagged as an uncertainty."""
    said: dict[tuple[str, str], list[str]] = {}
    for a in found.attributes:
        if a.key in SINGLE_VALUED and not a.negated:
            values = said.setdefault((a.entity, a.key), [])
            if a.value.casefold() not in (x.casefold() for x in values):
                values.append(a.value)
    flagged = tuple(
        RawUncertainty(who, f"conflicting: {key.replace('_', ' ')} {' or '.join(values)}")
        for (who, key), values in said.items()
        if len(values) > 1
    )
    return replace(found, uncertainties=found.uncertainties + flagged) if flagged else found


class _Turn(PatternRules, ChangeRules, ClauseFacts, DescriptionRules, KeyedRules, OpinionRules):
    """One turn being read: the sentence loop, fragments, answers and corrections."""

    def __init__(self, ctx: TurnContext) -> None:
        self.ctx = ctx
        self.out = Findings(ctx)
        self.speaker = ctx.speaker
        self.addressee = ctx.addressee or next(
            (s for s, _ in reversed(ctx.history) if s.casefold() != ctx.speaker.casefold()), ""
        )
        self.known: set[str] = {ctx.speaker.casefold()}
        self.people: dict[str, str] = {}  # lower-cased name or first name -> person
        self.pronoun = ""  # whom "he" / "she" points to
        self.used: set[str] = set()
        self.lowercase = False
        self.work_talk = False
        self.said_of = ""  # the person the sentence before opened with ("Ingrid finished.")
        self.opened_with = ""
        self.restating = False  # an earlier sentence is being said again: no corrections
        self.hedge = ""  # what made the sentence uncertain ("I think", "maybe", "asked")
        self.dated = False  # the sentence being read names a time
        self.last_species = ""  # the kind of pet last mentioned, for "her name is Luna"
        self.topic = ""  # what the turn last spoke of: "it was so calming"
        for name in (ctx.speaker, self.addressee):
            if name and name not in ("user", "assistant"):
                self._person(name)
        for name in ctx.known_names:
            if name.casefold() not in ("user", "assistant") and name.lower() not in gz.NOT_NAMES:
                self._person(name)
        # Names the session used just before: "she" may point to them, lower case may say them.
        for _, said in ctx.history[-2:]:
            for name, etype in _names_said(said):
                self.known.add(name.casefold())
                if etype in ("person", "animal"):
                    self._person(name)
                    if name.casefold() not in (ctx.speaker.casefold(), self.addressee.casefold()):
                        self.pronoun = name

    def _person(self, name: str) -> None:
        self.people[name.casefold()] = name
        self.people.setdefault(name.split()[0].casefold(), name)
        self.known.add(name.casefold())

    # -- the turn ---------------------------------------------------------------------------

    def run(self, text: str) -> RawExtraction:
        text = normalize(_BRACKETS.sub(" ", text[:MAX_EXTRACT_CHARS]))
        self.lowercase = is_lowercase(text)
        self.work_talk = _WORK_TALK.search(text) is not None
        text = truecase(text, self.known)
        if self.lowercase:
            text = _KIN_NAMED.sub(_capitalize_kin_name, text)
        said = sentences(text)
        # A reply's answer is its first sentence, or the one after a bare "nah." or "yes."
        bare = bool(said) and all(w.lower() in v.DISCOURSE for w in _BARE.findall(said[0]))
        answering = 1 if bare and len(said) > 1 else 0
        for i, sentence in enumerate(said):
            self._sentence(sentence, first=i == answering)
        self._named_answer(text)
        self._turn_patterns(text)  # after the sentences: the people they named are known
        self._turn_changes(text)
        return self.out.result(self.used)

    def _named_answer(self, text: str) -> None:
        """ "Max and Daisy." after "What are your pets' names?": the names answer the question
        the turn before asked the speaker, and are of the kind it asked about."""
        if self.ctx.role != "user" or not self.ctx.history:
            return
        said_by, asked = self.ctx.history[-1]
        if said_by.casefold() == self.speaker.casefold() or not asked.rstrip().endswith("?"):
            return
        m = _NAMES_ONLY.match(text.strip())
        kind = _ASKED_NAMES.search(asked)
        if not m or not kind:
            return
        species = kind.group(1).lower().rstrip("s")
        for name in _NAME_LIST.split(m.group(1)):
            if species in ("pet", "pup"):
                pet = self.out.retype(name, "animal")
                self.used.add(pet.casefold())
                self.out.relation(self._speaker(), "has_pet", pet)
            else:
                self._pet(self._speaker(), species, name)

    def _speaker(self) -> str:
        self.used.add(self.speaker.casefold())
        return self.out.entity(self.speaker, "person")

    def _sentence(self, sentence: str, *, first: bool) -> None:
        named = find_names(sentence, self.known, set(self.people))
        for name, etype in named:
            self.out.entity(name, etype)
            if etype in ("person", "animal"):
                self._person(name)
        if self.ctx.role in ("user", "system") and may_instruct(sentence):
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
                    self.out.attribute(self._speaker(), "preferred_name", capitalize(call_me))
            stop = STOP_CALLING.search(sentence)
            if stop:  # "stop calling me T": that name is no longer the one to use
                name = capitalize(stop.group(1))
                self.out.attribute(self._speaker(), "preferred_name", name, negated=True)
            if whole:
                return
        if _SARCASM.match(sentence):
            return  # "oh sure, ..." says the opposite of what it says
        tail = _TRAILING_QUESTION.search(sentence)
        if tail and tail.start() > 3 and len(sentence) < 1000:
            # "Love the necklace, any special meaning to it?": a statement, then a question.
            sentence = sentence[: tail.start()].rstrip(" ,") + "."
        self.said_of, self.opened_with = self.opened_with, ""
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
        sentence = _NEWS_LEAD.sub("", _LEAD_IN.sub("", sentence)) or sentence
        self._patterns(sentence)
        self._changes(sentence)
        self._pet_names(sentence)
        self._answer(sentence, first=first)
        hedged = asked
        self.hedge = "asked" if asked else ""
        self.dated = resolve_time(sentence, self.ctx.observed_at, future=True) is not None
        m = _HEDGE_LEAD.match(sentence)
        if m and len(sentence) > m.end():
            hedged, sentence = True, sentence[m.end() :]
            self.hedge = m.group(0).strip(" ,")
        conditional = bool(re.match(r"^(?:if|unless|in case)\b", sentence, re.I))
        carried: Clause | None = None
        pending_time: TimeRef | None = None
        previous: list[str] = []
        # A "sentence" of thousands of words is no sentence a person wrote: its clauses are
        # read up to a bound, so such text costs little.
        said = tokenize(sentence)[:MAX_SENTENCE_TOKENS]
        for n, (lead, words) in enumerate(split_clauses(said)):
            clause = parse_clause(lead, words, self.people, pronoun=self.pronoun)
            if lead in ("if", "unless") or (
                lead in ("when", "once", "until") and not clause.past and clause.modal != "used_to"
            ):
                conditional = True
            relative = lead in ("who", "that") and (
                clause.elided or words[0].lower() in ("who", "that")
            )
            if relative:
                antecedent = self._last_named(previous)
                if not antecedent:
                    continue  # "people who've been through the same": about them, not us
                clause.subject, clause.name = "person", antecedent
            if clause.elided and lead == "and" and _IT_IS_GOOD_TO.search(" ".join(previous)):
                continue  # "it felt awesome to score and have the crowd going wild": no one's
            if clause.elided and carried is not None and lead != ",":
                clause.subject, clause.name = carried.subject, carried.name
                clause.modal = clause.modal or carried.modal
                clause.negated = clause.negated or (carried.negated and lead == "or")
            elif clause.elided and carried is not None and carried.subject in ("self", "person"):
                clause.subject, clause.name = carried.subject, carried.name
                # "I'm going to chat with them, get support and ...": the same plan goes on
                # ("I used to work at Google, joined Spotify": each says its own)
                if carried.modal == "future" and not (clause.modal or clause.past):
                    clause.modal = "future"
            elif (
                clause.elided
                and (first or carried is None)
                and self.ctx.role != "system"
                and not (lead in ("and", "or") and n > 0)
                and not (n == 0 and _generic_gerund(sentence))
                # "Need help with anything?" asks about the listener; "thinking about
                # trying keto??" is the speaker unsure.
                and not (asked and clause.verb_word.lower() == clause.verb)
            ):
                clause.subject = "self"
                if n == 0 and self.said_of and clause.verb in _LIFE_EVENTS:
                    # "Ingrid finished. Moved to Oslo.": terse news goes on about her
                    clause.subject, clause.name = "person", self.said_of
            if n == 0:
                self.opened_with = clause.name if clause.subject == "person" else ""
            previous = words
            topic = self.topic
            if not conditional and self._opinion(clause):
                carried = None  # "... it's been a dream to have a family and give ...": not ours
                continue
            if not clause.verb:
                said = [w for w in words if w.lower() not in _FILLERS]
                thing = self.out.entities.get(" ".join(said).casefold()) if said else None
                if thing is not None and thing.type != "person":
                    self.topic = thing.name  # "Definitely Star Wars! It's my favorite"
                self._kin_mentions(clause)
                when = resolve_time(clause.text, self.ctx.observed_at)
                if when is not None and len(words) <= 4:
                    pending_time = when
                self._fragment(clause, carried, opening=first and n == 0)
                continue
            if clause.subject not in ("self", "person") and words[0].lower() in _TIME_OPENERS:
                # "Last week was wild - I volunteered ...": the time is the next clause's.
                pending_time = resolve_time(clause.text, self.ctx.observed_at) or pending_time
                continue
            self._kin_mentions(clause)
            if clause.subject == "imperative":
                self._advice(clause)
                continue
            if conditional and not hedged:
                # "for when I have kids", "if I get the job": a supposition, neither said
                # as fact nor doubted; what depends on it is not recorded.
                pending_time = None
                continue
            before = len(self.out.actions), len(self.out.attributes), topic
            self._clause(clause, hedged=hedged or conditional, time=pending_time)
            self._follow_topic(
                *before,
                about_listener=clause.subject == "you",
                # "I can make a special experience ...": not yet a thing; "trying to get a
                # petition going" is under way
                planned=clause.modal in ("can", "future", "intent", "would", "should")
                and clause.intent_verb != "try",
            )
            pending_time = None
            if clause.subject in ("self", "person"):
                carried = clause
                if clause.subject == "person":
                    self.pronoun = clause.name
            elif not clause.elided:
                carried = None  # "it's been a dream to ... and give ...": not the speaker's
            self._track_pronoun(words)
        for name, etype in named:
            if etype in ("person", "animal") and name.casefold() not in (
                self.speaker.casefold(),
                self.addressee.casefold(),
            ):
                self.pronoun = name

    def _advice(self, clause: Clause) -> None:
        """ "Keep believing in yourself!" said to a person (not to an assistant): advice."""
        person = self.addressee and self.addressee.casefold() not in ("assistant", "user")
        if not person or self.ctx.role != "user" or clause.negated or clause.verb in _NOT_ADVICE:
            return
        what = doing_phrase(clause)
        if len(what.split()) >= 2:
            self.out.actions.append(
                RawAction(
                    self._speaker(), "recommend", what, f"{self.speaker}: {clause.text}"[:240]
                )
            )

    def _ages(self, words: list[str]) -> None:
        """ "me 28, my brother Tevita 31": ages given in a list."""
        for i in range(len(words) - 1):
            age = words[i + 1]
            if not (age.isdigit() and len(age) <= 3 and 0 < int(age) < 120):
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
        now = clause.words[0].lower() in ("now", "currently", "still") if clause.words else False
        words = [w for w in clause.words if w.lower() not in _FILLERS]
        words = [w for w in words if w.lower() not in ("now", "again", "originally")]
        if not words or len(words) > 8 or (words[0].lower() == "from" and "to" in words[2:4]):
            return  # "from contemporary to hip-hop" is a range, not an origin
        first = words[0].lower()
        if first in _POSSESSIVES or (first == "the" and not opening):
            return  # "our director, Helena Marques, ...": someone else, named after the comma
        job = any(w.lower() in gz.JOB_WORDS for w in words[:3]) or bool(
            _JOB_HEAD.match(" ".join(words))
        )
        age = first.isdigit() and (len(words) == 1 or words[1].lower() in ("years", "yrs"))
        starts = (
            first in _COPULA_STARTS
            or first in v.NATIONALITIES
            or (first in ("a", "an") and len(words) > 1)
            or job
            or age
            or (now and first == "in")
        )
        if not starts:
            return
        linking = (
            carried is not None
            and carried.subject in ("self", "person")
            and (carried.verb == "be" or (job and carried.verb in ("start", "join", "work")) or now)
        )
        if linking and carried is not None:
            who = self._who(carried)
        elif (opening or now or age or job) and self.ctx.role == "user" and carried is None:
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
        # "Are you still on weekend shifts at the bakery?" - "nah. POS agent now"
        (
            re.compile(
                r"\b(?:are |r )?you still\b[^?]*\b(?:work|working|job|shifts?)\b|"
                r"\b(?:are |r )?you still at (?-i:[A-Z])|"
                r"\bwhat do you do\b|\bwhat(?:'s| is) your (?:new )?(?:job|role|title|position)\b",
                re.I,
            ),
            "job",
        ),
    )

    def _answer(self, sentence: str, *, first: bool) -> None:
        """A short reply to the question just asked ("where are you from?" - "chennai!")."""
        if not first or not self.ctx.history or self.ctx.role != "user":
            return
        asked = self.ctx.history[-1][1]
        words = [w for w in tokenize(sentence) if w.lower() not in v.DISCOURSE and w.isalnum()]
        while words and words[-1].lower() in ("now", "still", "anymore"):
            words.pop()  # "POS agent now"
        if [w.lower() for w in words[:2]] == ["i", "at"]:
            words = words[2:]  # "I'm at Feedzai now"
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
            elif key == "job" and words[-1].lower() in gz.JOB_WORDS:
                self._job(self._speaker(), words)
            elif key == "job" and (words[0][:1].isupper() or self.lowercase):
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
        if (
            pair
            and len(pair.group(1).split()) <= 4
            and not starts_subject(pair.group(1).split()[0], self.people)
        ):
            return self._restate(old=pair.group(2), new=pair.group(1))
        # "oops, 33", "well technically Tripoli, i just say Beirut": the value before any comma
        value = rest.split(",")[0].strip()
        if 0 < len(value.split()) <= 3 and _BARE_VALUE_LEAD.match(body):
            return self._restate_value(value)
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
                value = new if new[:1].isupper() or not old[:1].isupper() else capitalize(new)
                fixed = _DOUBLED.sub(r"\1", pattern.sub(value, earlier, count=1))
                self.restating = True
                self._sentence(fixed, first=True)
                self.restating = False
                return True
        return False

    def _restate_value(self, new: str) -> bool:
        """A bare new value ("33", "june 13"): it replaces the earlier value of the same shape."""
        shape = value_shape(new)
        if shape == "words":
            return False  # only a number, a date or a name stands for a value by itself
        alone = replace(self.ctx, history=())
        for earlier in self._history_sentences():
            said = _Turn(alone).run(earlier)
            for a in said.attributes:
                if a.key in SINGLE_VALUED and value_shape(a.value) == shape and a.value in earlier:
                    fixed = earlier.replace(a.value, new, 1)
                    self.restating = True
                    self._sentence(fixed, first=True)
                    self.restating = False
                    return True
        return False

    # -- whole-sentence patterns ----------------------------------------------------------------
