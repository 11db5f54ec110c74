"""A clause into facts: whom it is about, how it was said (stated, negated, hedged, reported,
wished, habitual) and what it says (keyed facts first, then an action)."""

from __future__ import annotations

from turngraph.extract import gazetteers as gz
from turngraph.extract import vocab as v
from turngraph.extract.base import RawAction, RawUncertainty
from turngraph.extract.clauses import Clause, is_verb, parse_clause
from turngraph.extract.findings import Findings, TurnState
from turngraph.extract.folded import Folded
from turngraph.extract.lexicon import lemma
from turngraph.extract.phrases import (
    doing_of,
    doing_phrase,
    names_nothing,
    noun_phrase,
    prep_phrases,
    starts_subject,
)
from turngraph.extract.timeref import TimeRef, resolve_time

# Things done to someone that are events in their life ("got fired from Vodacom").
_PASSIVE_EVENTS = frozenset(
    "fire lay hire promote invite accept reject elect award arrest injure hurt bite rob "
    "admit transfer select nominate diagnose".split()
)
_HABITUAL = Folded(
    r"\b(?:every|each) (?:single )?(?:day|morning|night|evening|week|weekend|month|sunday|"
    r"monday|tuesday|wednesday|thursday|friday|saturday)\b|\b(?:\w+|\d+) times a (?:day|week|"
    r"month)\b|\bon weekends\b|\b(?:daily|weekly|nightly)\b|\bmost (?:days|mornings|nights)\b",
)
# Verbs whose present tense with a time speaks of a plan ("starts school in September").
# Nouns that say little without what follows them: "love for dance", "fear of heights".
_RELATIONAL = frozenset("love passion passions interest fear knack taste eye".split())
_SCHEDULED = frozenset(
    "start begin open leave arrive fly land return move graduate finish end launch turn "
    "close visit come go commence".split()
)
# Events that need no object: with a time they are worth an action ("Takeshi proposed").
_INTRANSITIVE_EVENTS = frozenset(
    "propose graduate retire resign marry divorce move relocate arrive return quit win lose "
    "travel emigrate".split()
)
# Activities that are an event without an object once they have a time ("ran a lot last week").
_ACTIVITIES = frozenset(
    "read write run swim paint draw cook bake hike practice train dance study exercise "
    "volunteer perform compete jog bike cycle climb surf ski skate".split()
)
# Prepositions whose phrase stays with the object: "turning my love of dance into a business".
_JOINED = frozenset("with for from by into".split())
# "had a blast at the Pride fest": a good time somewhere is enjoying it there.
_GOOD_TIMES = (["blast"], ["great", "time"], ["good", "time"], ["fun"], ["lot", "of", "fun"])
# Verbs whose "from" says where they started: "moved from my home country".
_MOVING = frozenset("move come fly drive travel relocate emigrate return escape".split())
# Words of manner that can stand where an object would: "worked hard on ...".
_MANNER = frozenset("hard really lots non-stop nonstop overtime".split())
# Verbs whose "to" + verb says what was done, not why: "volunteered to help".
_TO_COMPLEMENT = frozenset(
    "volunteer learn offer agree decide choose help contribute try start begin continue "
    "promise manage afford vote sign".split()
)
# "for about four months": "about" before a number is no topic.
_NUMBERS = frozenset("a an one two three four five six seven eight nine ten few".split())
# Nouns that take a purpose: "a place to open my dance studio".
_NEEDS_PURPOSE = frozenset(
    "place spot location venue space way time money project program campaign initiative".split()
)
# Words after "to" that are places, not verbs: "went to work", "back to school".
_TO_PLACES = frozenset("work school church bed class court camp practice".split())
# Verbs whose "to" phrase is where the object was brought: "took my kids to a workshop".
_BRINGING = frozenset("take bring drive send invite walk carry".split())
_REPORTING = frozenset({"think", "believe", "guess", "suppose", "hear", "say", "reckon", "know"})
_BELIEVING = frozenset({"think", "believe", "reckon", "suppose"})  # "I don't think ..."


def _graded(lows: list[str], i: int) -> int:
    """Where the words that grade a feeling ("so", "kind of", "a bit") end, from ``i``."""
    while i < len(lows):
        if lows[i] in ("kind", "sort") and lows[i + 1 : i + 2] == ["of"]:
            i += 2
        elif lows[i] in v.INTENSIFIERS:
            i += 1
        else:
            break
    return i


_NOW_WORDS = frozenset("now again today soon someday".split())
# Nouns whose "in" phrase says what field they are in: "a degree in psychology".
_FIELDS = frozenset(
    "opportunities opportunity job jobs role roles position positions career careers degree "
    "degrees course courses class classes interest internship internships major".split()
)
_HARD = frozenset("tough hard difficult rough rocky".split())
# What a feeling about the listener or an unnamed thing is about says nothing alone.
_YOU_AND_IT = frozenset("you your it this that them they him her".split())
_NO_MORE = Folded(r"\b(?:anymore|any more|no longer|these days)\b")


def _just_did(c: Clause) -> bool:
    """ "I just finished it": "just" right before the verb, after "I" or "we", means now."""
    words = [w.lower() for w in c.words]
    for i in range(2, len(words)):
        if (
            words[i] == c.verb_word.lower()
            and words[i - 1] == "just"
            and words[i - 2]
            in (
                "i",
                "we",
            )
        ):
            return True
    return False


def _habit(c: Clause) -> str:
    """ "go for a run after work", "run every morning": the verb and what follows it, up to
    the end of the clause (adverbs of frequency like "always" left out)."""
    out = [c.verb + (f" {c.particle}" if c.particle else "")]
    for w in c.rest:
        low = w.lower()
        stop = low in v.BOUNDARY and low not in ("after", "before")
        if w in ",;:!?()-" or stop or low in ("honestly", "lol", "though"):
            break
        if low in v.FREQUENCY or low in ("usually", "always"):
            continue
        out.append(w)
        if len(out) >= 8:
            break
    while len(out) > 1 and out[-1].lower() in ("rain", "or", "shine", "and"):
        out.pop()
    if c.often and c.often.lower() not in " ".join(out).lower():
        out.append(c.often)
    return " ".join(out)


_EATS = frozenset(("eat", "have", "drink", "tolerate", "digest"))
# What "can't eat X" makes a diet of.
_FREE_OF = {
    "gluten": "gluten-free",
    "wheat": "gluten-free",
    "dairy": "dairy-free",
    "lactose": "lactose-free",
    "milk": "dairy-free",
    "meat": "vegetarian",
    "pork": "no pork",
    "sugar": "sugar-free",
}


class ClauseFacts(TurnState):
    """Facts from one clause, by its verb."""

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
        if clause.subject == "kin" and clause.kin and not hedged and not clause.negated:
            self._kin_loss(clause, time)
        if clause.subject not in ("self", "person", "you"):
            return
        said = [w.lower() for w in clause.words]
        suggested = clause.modal == "should" and (
            clause.subject != "self" or ("we" in said and "should" in said)
        )
        # hypothetical, a suggestion ("we should plan a session"), or what one ought to do
        # ("I really should start a cork board"); not "I should be starting at Spotify next
        # week", an expectation with a date
        ought = clause.modal == "should" and not (self.dated or hedged or clause.hedged)
        if clause.modal == "would" or suggested or ought:
            return
        doubted = clause.negated and clause.verb in _BELIEVING and clause.subject == "self"
        if clause.verb in _REPORTING and clause.rest and (not clause.negated or doubted):
            # "my friend Elif thinks she might be moving", "i heard Thabo got fired": the
            # reported clause, hedged when it is only believed or heard.
            inner = [w for w in clause.rest if w.lower() != "that"]
            if [w.lower() for w in inner[:3]] == ["for", "a", "fact"]:
                inner = inner[3:]  # "I know for a fact my brother Tiago lives in Faro"
            elif [w.lower() for w in inner[:2]] == ["for", "sure"]:
                inner = inner[2:]
            if inner and starts_subject(inner[0], self.people):
                sub = parse_clause("", inner, self.people, pronoun=self._pronoun_for(clause))
                believed = clause.verb in ("think", "believe", "guess", "suppose", "hear", "reckon")
                if doubted:
                    self.hedge = self.hedge or f"don't {clause.verb}"
                self._clause(sub, hedged=hedged or believed, time=time)
                return
        uncertain = hedged or clause.hedged
        scratch = type(self).__new__(type(self))  # the same turn, writing elsewhere
        scratch.__dict__.update(self.__dict__)
        scratch.out = Findings(self.ctx, entities=self.out.entities)
        who = scratch._who(clause)
        if who is None:
            return
        if not uncertain and self._cannot_eat(clause, who):
            return
        scratch._facts(clause, who, time)
        self.used |= scratch.used
        weighed = clause.modal == "intent" and clause.intent_verb in ("think", "consider")
        if weighed and not uncertain:
            # "We're considering adopting a rescue dog": weighed, not decided; a fact it would
            # set is in doubt, the goal it names stays a goal
            in_doubt = [a for a in scratch.out.attributes if a.key != "goals"]
            if in_doubt or scratch.out.relations:
                self.out.attributes += [a for a in scratch.out.attributes if a.key == "goals"]
                scratch.out.attributes = in_doubt
                uncertain = True
        if uncertain:
            claims = [
                f"{'no longer ' if a.negated else ''}{a.key.replace('_', ' ')} {a.value}"
                for a in scratch.out.attributes
            ]
            claims += [f"{r.label.replace('_', ' ')} {r.object}" for r in scratch.out.relations]
            if self._hedge_of(clause) != "reported":
                # A hedged or asked event says doubt; a reported one keeps only its facts.
                claims += [
                    f"{a.verb} {a.object or a.place or ''}".strip() for a in scratch.out.actions
                ]
            if claims:
                self.out.uncertainties.append(
                    RawUncertainty(
                        who, f"{self._hedge_of(clause)}: {claims[0]} ({clause.text[:160]})"
                    )
                )
            return
        ended = clause.negated or clause.modal == "used_to" or clause.aspect in ("stop", "quit")
        if ended:
            final = clause.negated and _NO_MORE.search(clause.text) is not None
            if clause.negated and not final and scratch.out.attributes:
                # "I'm not a doctor": a denial, flagged as the seed's negated statements are
                # (an ending says "anymore" or "no longer"); it still ends a value it names
                a = scratch.out.attributes[0]
                self.out.uncertainties.append(
                    RawUncertainty(
                        who, f"negated: {a.key.replace('_', ' ')} {a.value} ({clause.text[:160]})"
                    )
                )
            for a in scratch.out.attributes:
                if a.key == "likes" and clause.negated and not final:
                    self.out.attribute(a.entity, "dislikes", a.value)
                else:
                    self.out.attribute(a.entity, a.key, a.value, negated=True)
            if not scratch.out.attributes and (final or clause.aspect in ("stop", "quit")):
                habit = doing_phrase(clause)
                if habit and who == self.speaker:
                    self.out.attribute(who, "habits", habit, negated=True)
            if clause.modal == "used_to":
                self.out.actions += scratch.out.actions
            return
        self.out.attributes += [a for a in scratch.out.attributes if a not in self.out.attributes]
        self.out.relations += [r for r in scratch.out.relations if r not in self.out.relations]
        self.out.actions += scratch.out.actions

    def _cannot_eat(self, clause: Clause, who: str) -> bool:
        """ "i cant eat gluten", "I can't have dairy": a diet, not an ended fact."""
        if not (clause.negated and clause.modal == "can" and clause.verb in _EATS):
            return False
        free = _FREE_OF.get(" ".join(w.lower() for w in noun_phrase(clause.rest, 2)))
        if free:
            self.out.attribute(who, "diet", free)
        return free is not None

    def _kin_loss(self, clause: Clause, time: TimeRef | None) -> None:
        """ "my grandma passed away last week": the speaker lost her."""
        died = clause.verb == "die" or (clause.verb == "pass" and clause.particle == "away")
        if not died or not clause.past:
            return
        when = self._time(clause, time)
        self.out.actions.append(
            RawAction(
                self._speaker(),
                "lose",
                clause.kin,
                f"{self.speaker} {clause.text}"[:240],
                when.when if when else None,
                precision=when.precision if when else None,
            )
        )

    def _hedge_of(self, clause: Clause) -> str:
        """Why a claim is uncertain, in the speaker's words where they gave them."""
        if self.hedge == "asked":
            return "asked, not stated"
        if self.hedge:
            return f"hedged ({self.hedge!r})"
        if clause.hedged:
            marker = next((w for w in clause.words if w.lower() in v.HEDGES), "")
            return f"hedged ({marker!r})" if marker else "hedged"
        return "reported"

    def _pronoun_for(self, clause: Clause) -> str:
        return clause.name if clause.subject == "person" else self.pronoun

    def _facts(self, c: Clause, who: str, time: TimeRef | None) -> None:
        rest = c.rest
        verb = c.verb
        if verb == "die" and c.progressive:
            return  # "dying at work", "dying to see it": a way of speaking
        if verb == "be" and not c.passive and not c.progressive:
            found = len(self.out.actions) + len(self.out.attributes) + len(self.out.relations)
            self._copula(c, who, rest)
            if found == len(self.out.actions) + len(self.out.attributes) + len(self.out.relations):
                self._feeling(c, who, rest, time, states=False)  # "I was so nervous"
            return
        drawn = c.passive or c.verb_word.lower() in ("drawn", "tempted")  # "Also tempted to"
        if verb in ("draw", "tempt") and drawn and [w.lower() for w in rest[:1]] == ["to"]:
            self._drawn(c, who, rest[1:])
            return
        wedded = verb in ("marry", "engage", "divorce") and c.verb_word.lower().endswith("ed")
        if c.passive or (
            wedded and c.subject == "self" and rest[:1] and rest[0].lower() in v.PREPOSITIONS
        ):
            # "(I'm) happily married for 10 years to ...": the state, as the passive says it
            self._passive(c, who, rest)
            return
        if (
            verb == "get"
            and rest
            and rest[0].lower() in ("married", "engaged", "divorced", "promoted", "hired", "fired")
        ):
            # "is getting married next month": the event, passive in form
            c.verb, c.verb_word, c.rest, c.passive = lemma(rest[0].lower()), rest[0], rest[1:], True
            self._passive(c, who, c.rest)
            return
        if verb == "propose" and c.subject == "person" and not c.negated and not c.modal:
            # "Takeshi proposed last night": he and the speaker are a couple now
            to_me = [w.lower() for w in rest[:2]] == ["to", "me"]
            if to_me or not (noun_phrase(rest) or prep_phrases(rest)):
                self.out.relation(self._speaker(), "partner_of", who)
        if verb in ("feel", "get") and self._feeling(c, who, rest, time):
            return
        if verb in ("get", "be") and [w.lower() for w in rest[:2]] == ["ready", "for"]:
            # "I'm getting ready for a dance comp next month": preparing for it
            c.verb, c.verb_word, rest = "prepare", "preparing", rest[1:]
            self._action(c, who, [], prep_phrases(rest), time)
            return
        if verb == "take" and [w.lower() for w in rest[:2]] == ["part", "in"]:
            c.particle, rest = "part", rest[1:]  # "took part in a charity run"
            self._action(c, who, noun_phrase(rest), prep_phrases(rest), time)
            return
        np = noun_phrase(rest)
        lows = [w.lower() for w in rest]
        # "had a great time throwing a party": the noun phrase ran on into the doing
        spent = verb == "have" and "time" in lows[:4] and lows.index("time") + 1 < len(lows)
        if spent and lows[lows.index("time") + 1].endswith("ing"):
            np = np[: [w.lower() for w in np].index("time") + 1] if "time" in np else np
        if verb in ("get", "have", "take") and [w.lower() for w in np[-1:]] in (
            ["chance"],
            ["opportunity"],
            ["time"],
            ["times"],
        ):
            j = lows.index(np[-1].lower()) + 1 if np[-1].lower() in lows else len(lows)
            after = lows[j : j + 1]
            if verb == "have" and after and after[0].endswith("ing") and is_verb(after[0]):
                k = j - 1  # "we had a great time throwing a small party": what was done
            elif verb == "have" and after == ["with"] and _HARD.intersection(lows[:j]):
                # "I had a tough time with my English lit class": a struggle with it
                c.verb, c.verb_word = "struggle", "struggled"
                self._action(c, who, [], prep_phrases(rest[j:]), time)
                return
            else:
                k = next((i for i, w in enumerate(rest) if w.lower() == "to"), -1)
            if 0 <= k < len(rest) - 1 and is_verb(rest[k + 1]):
                inner = Clause(
                    words=c.words,
                    subject=c.subject,
                    name=c.name,
                    past=c.past,
                    verb=lemma(rest[k + 1].lower()),
                    verb_word=rest[k + 1],
                    rest=rest[k + 2 :],
                    modal=c.modal,
                )
                self._facts(inner, who, time)
                return
            # "we had a great time at the beach" goes on: enjoyed, and where; so do "been
            # having some tough times lately"
            if not (verb == "have" and [w.lower() for w in np] in _GOOD_TIMES) and (
                np[-1].lower() != "times"
            ):
                return
        pps = prep_phrases(rest)
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
            entering = verb in ("go", "get") and any(prep == "into" for prep, _ in pps)
            if (
                when is None
                and (np or pps)
                and (verb not in v.LIGHT_VERBS | {"have"} or entering)  # "go into policymaking"
            ):
                obj = np or (["into", *pps[0][1]] if entering else pps[0][1])
                if np and pps and np[-1].lower() in _RELATIONAL and len(np) + len(pps[0][1]) < 8:
                    obj = [*np, pps[0][0], *pps[0][1]]  # "blend my love for dance and fashion"
                # "I wanted to capture everyone's unity" said why something was done then;
                # "I've always wanted to", "I want to" are wishes now.
                then = c.intent_past and not c.perfect and "always" not in c.text.lower()
                if not names_nothing(obj) and not then:
                    self.out.attribute(who, "goals", f"{verb} {' '.join(obj)}")
                return
            if when is None:
                return
        said = [w.lower() for w in c.words[:4]]
        needed = (c.modal == "must" and not c.past and "had" not in said) or (
            c.modal == "intent" and c.intent_verb == "need"
        )
        offered = c.modal == "can" and ("we" in said or "could" in said)
        if offered or (needed and self._time(c, time, future=True) is None):
            # "we can play slot machines", "I could use some help", "I need to find a spot",
            # "I have to clean": an offer, a wish or a need is no event (a dated need is a
            # plan: "I have to work Friday"; "I had to dig deep" was done; "I can write
            # better now" says what the speaker can do)
            return
        if (
            c.modal == "future"
            and not (c.hedged or self.hedge)  # "Hopefully we'll find a place": in doubt
            and not self.dated  # "Tomorrow I'll fly to Rome and visit the Vatican"
            and self._time(c, time, future=True) is None
            and not _goes_on(c)
        ):
            return  # "I'll make a list", "I'm gonna chat with them": no date, no event yet
        self._action(c, who, np, pps, time)

    def _feeling(
        self, c: Clause, who: str, rest: list[str], time: TimeRef | None, *, states: bool = True
    ) -> bool:
        """ "I felt so proud and grateful", "been feeling kinda low on confidence", "getting
        stressed", "I'm determined to make it work": how the person felt, as an action ("feel |
        proud and grateful"), with what it was about when a short phrase says so. True when
        the clause said a feeling. Without ``states``, a state the copula reads with what it
        is about ("curious about") is left to it."""
        lows = [w.lower() for w in rest]
        i = _graded(lows, 0)
        if i < len(lows) and not states and lows[i] in v.STATES:
            return False
        felt: list[str] = []
        while i < len(lows) and lows[i] in v.FEELINGS:
            felt.append(lows[i])
            i += 1
            if (
                i + 1 < len(lows)
                and lows[i] in ("and", "but", "yet", "or")
                and (lows[i + 1] in v.FEELINGS or lows[i + 1] in v.INTENSIFIERS)
            ):
                felt.append(lows[i])
                i = _graded(lows, i + 1)
        if not felt or felt[-1] in ("and", "but", "yet", "or"):
            return False
        if c.negated or c.modal:
            return True  # "I don't feel ready", "you'll feel better": nothing to keep
        i = _graded(lows, i)  # "stressed lately"
        if i + 1 < len(lows) and lows[i] in v.PREPOSITIONS and lows[i + 1] in _YOU_AND_IT:
            return True  # "so proud of you", "happy for them": said to someone
        said = len(felt)
        about = next(iter(prep_phrases(rest[i:])), None)
        if i + 1 < len(lows) and lows[i] == "to" and is_verb(lows[i + 1]):
            verb, np = lemma(lows[i + 1]), noun_phrase(rest[i + 2 :], 5)
            # "lucky to have such a great support system", "determined to make it work"
            doing = [verb, *np] if np else doing_of(verb, rest[i + 2 :]).split()[:5]
            if not names_nothing(doing[1:]) and doing[0] not in ("hear", "see", "help", "be"):
                felt += ["to", *doing]
        elif about and rest[i:][:1] == [about[0]]:
            phrase = noun_phrase(about[1], 4)
            if about[0] in ("about", "on", "with", "by", "for") and not names_nothing(phrase):
                felt += [about[0], *phrase]
        if not states and len(felt) == said and set(felt) <= v.MILD_FEELINGS | {"and", "but"}:
            return False  # "I'm happy": left to the copula
        when = self._time(c, time)
        self.out.actions.append(
            RawAction(
                who,
                "feel",
                " ".join(felt),
                f"{who} {c.text}"[:240],
                when.when if when else None,
                precision=when.precision if when else None,
            )
        )
        return True

    def _time(self, c: Clause, time: TimeRef | None, *, future: bool = False) -> TimeRef | None:
        # "she starts on Monday", "I commence on the 1st of June": a present that is planned
        scheduled = (
            not c.past
            and not c.perfect
            and c.verb in _SCHEDULED
            and (c.verb_word.lower().endswith("s") or c.verb_word.lower() == c.verb)
        )
        ahead = (
            future or scheduled or c.modal in ("future", "intent") or (c.progressive and not c.past)
        )
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
        habitual = c.frequency or bool(_HABITUAL.search(c.text))
        if habitual and not c.past and c.modal in ("", "used_to"):
            # "I run every morning": a habit, not an event.
            habit = _habit(c)
            if len(habit.split()) >= 2:
                self.out.attribute(who, "habits", habit)
            return
        if c.verb == "try" and [w.lower() for w in np] == ["hand"]:
            np = []  # "tried my hand at surfing": what was tried is after "at"
        returning = c.particle == "back" and c.verb in ("get", "come", "fly", "drive")
        where = [pp for pp in pps if pp[0] in ("at", "in", "on", "during")]
        if c.verb == "have" and [w.lower() for w in np] in _GOOD_TIMES and where:
            # "we had a blast at the Pride fest": enjoyed it, and where
            verb, np, pps = "enjoy", [], where
        if [w.lower() for w in np] == ["time"] and pps and pps[0][0] == "with":
            np = ["time", "with", *pps[0][1]]  # "I cherish time with family"
            pps = pps[1:]
        enjoyed = verb == "enjoy" and bool(pps)
        if (
            c.verb in v.LIGHT_VERBS
            and (c.verb not in v.OBJECT_VERBS or names_nothing(np))
            and not enjoyed
        ):
            searching = c.verb == "look" and pps and pps[0][0] in ("into", "for")
            phrasal = bool(c.particle and pps)  # "keep up with my German lessons"
            if not (
                (c.verb in ("go", "come") and pps) or searching or (returning and pps) or phrasal
            ):
                return
            if searching:
                verb = f"look {pps[0][0]}"
        if len(np) == 1 and np[0].lower() in _MANNER and pps:
            np = []  # "worked hard on my online store": the manner, then the object
        if [w.lower() for w in np] in (["lot"], ["a", "lot"]) and c.verb in _ACTIVITIES:
            np = []  # "I've been reading a lot": how much, not what
        if names_nothing(np) and np:
            return
        place = ""
        obj = list(np)
        for prep, phrase in pps:
            if (
                prep == "to"
                and obj
                and obj[-1].lower() in _NEEDS_PURPOSE
                and is_verb(phrase[0])
                and len(obj) + len(phrase) < 8
            ):
                obj = [*obj, "to", *phrase]  # "a place to open my dance studio"
                continue
            if (
                prep == "to"
                and (obj or c.verb not in _TO_COMPLEMENT)
                and is_verb(phrase[0])
                and not phrase[0].lower().endswith("ing")
                and phrase[0].lower() not in _TO_PLACES
            ):
                continue  # "searching for a place to open a studio": a purpose, not a place
            if prep == "about" and (phrase[0][:1].isdigit() or phrase[0].lower() in _NUMBERS):
                continue  # "for about four months"
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
            brought = prep == "to" and c.verb in _BRINGING and bool(obj)
            if prep in ("in", "at", "to", "near", "into") and (is_place or brought) and not place:
                place = " ".join(phrase)  # "took my kids to a pottery workshop"
            elif (
                not obj
                and (prep != "about" or c.verb not in v.LIGHT_VERBS)  # "blogging about politics"
                and prep
                not in (
                    "like",
                    "than",
                    "since",
                    "after",
                    "before",
                    "until",
                    "without",
                    "during",
                )
                and not names_nothing(phrase)
                # "in the past week", not "for my next video game tournament"
                and not (len(phrase) <= 2 and phrase[0].lower() in ("past", "last", "next"))
            ):
                obj = phrase
                if prep == "about" or (prep == "from" and c.verb in _MOVING):
                    verb = f"{verb} {prep}"  # "writing about fantasy novels", "moved from"
            elif obj and len(obj) + len(phrase) + 1 <= 8 and prep in _JOINED:
                obj = [*obj, prep, *phrase]
            elif obj and obj[-1].lower() in _FIELDS and prep == "in" and len(obj) + len(phrase) < 8:
                obj = [*obj, prep, *phrase]  # "opportunities in the tech industry"
            elif (
                c.verb == "have" and obj == np and 0 < len(obj) <= 3 and prep in ("in", "on", "at")
            ):
                obj = [*obj, prep, *phrase[:4]]  # "had a letdown in a video game tourney"
        if obj and names_nothing(obj):
            return
        if (
            not obj
            and not place
            and not (
                c.verb in _INTRANSITIVE_EVENTS | _ACTIVITIES and self._time(c, time) is not None
            )
        ):
            return
        when = self._time(c, time)
        occurred, precision = (when.when, when.precision) if when else (None, None)
        if occurred is None and c.past and _just_did(c):
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

    # -- facts by verb ---------------------------------------------------------------------------

    def _drawn(self, c: Clause, who: str, after: list[str]) -> None:
        """ "I'm drawn to turtles": a liking; "I'm tempted to try dairy-free flavors": a
        goal."""
        if c.verb == "tempt" and after and is_verb(after[0]):
            doing = doing_of(lemma(after[0].lower()), after[1:]).split()
            cut = next((k for k, w in enumerate(doing) if w.lower() in _NOW_WORDS), len(doing))
            if not c.negated and not names_nothing(doing[1:cut]):
                self.out.attribute(who, "goals", " ".join(doing[:cut]))
        elif c.verb == "draw":
            liked = noun_phrase(after, 5)
            if not names_nothing(liked):
                self.out.attribute(who, "likes", " ".join(liked))  # negated: a dislike

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
        pps = prep_phrases(rest)
        if verb in ("promote", "make", "name", "appoint") and any(w.lower() == "to" for w in rest):
            title = rest[[w.lower() for w in rest].index("to") + 1 :]
            if self._job(who, title):
                when = self._time(c, None)
                if when is not None:  # a promotion with a date is an event too
                    self.out.actions.append(
                        RawAction(
                            who,
                            "promote",
                            " ".join(noun_phrase(title, 5)),
                            f"{who} {c.text}"[:240],
                            when.when,
                            precision=when.precision,
                        )
                    )
            return
        if (
            verb in ("make", "name", "appoint", "hire")
            and rest
            and rest[0].lower() not in ("at", "by", "to")
            and self._job(who, rest)
        ):
            return
        if verb in ("marry", "engage", "divorce"):
            status = {"marry": "married", "engage": "engaged", "divorce": "divorced"}[verb]
            when = self._time(c, None)
            if when is not None:
                self.out.actions.append(
                    RawAction(
                        who,
                        verb,
                        None,
                        f"{who} {c.text}"[:240],
                        when.when,
                        precision=when.precision,
                    )
                )
            if when is not None and when.when > self.ctx.observed_at:
                return  # "getting married next month": a plan, not yet a status
            self.out.attribute(who, "relationship_status", status)
            lows = [w.lower() for w in rest]
            spouse = rest[lows.index("to") + 1 :][:1] if "to" in lows else []  # "to Thandi"
            for word in spouse:
                named = word.casefold() in self.people or word.casefold() in self.out.entities
                if named and word.lower() not in gz.PLACES:
                    # one married to a name is married to a person, whatever "to" suggested
                    name = self.out.retype(self.people.get(word.casefold(), word), "person")
                    self.out.relation(who, "married_to" if verb == "marry" else "partner_of", name)
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
        if c.verb in _PASSIVE_EVENTS:
            self._action(c, who, noun_phrase(rest), pps, None)
        elif c.verb_word.lower() in v.STATES and pps and not names_nothing(pps[0][1]):
            # "I've been involved in some charity work"
            state = f"be {c.verb_word.lower()} {pps[0][0]}"
            said = [w.lower() for w in rest]
            whose = said[said.index(pps[0][0]) + 1] if pps[0][0] in said[:-1] else ""
            obj = " ".join(pps[0][1])
            if whose == "your":
                # "impressed by your willingness to take risks": the listener's
                if not self.addressee or self.addressee.casefold() in ("user", "assistant"):
                    return
                obj = f"{self.addressee}'s {obj}"
            self.out.actions.append(RawAction(who, state, obj, f"{who} {c.text}"[:240]))


def _goes_on(c: Clause) -> bool:
    """A future that is already under way: what one is off to do now ("I'm off to go
    swimming"), or keeps doing ("I'll keep pursuing my passion for writing", "gonna continue
    my edu")."""
    said = [w.lower() for w in c.words]
    off = any(said[i : i + 2] == ["off", "to"] for i in range(len(said) - 1))
    return off or c.aspect in ("keep", "continue") or c.verb in ("continue", "keep")
