"""What a copula says of someone: age, status, origin, nationality, diet, job and employer,
school, where they live, what they are into, proud of or good at."""

from __future__ import annotations

from turngraph.extract import gazetteers as gz
from turngraph.extract import vocab as v
from turngraph.extract.base import RawAction
from turngraph.extract.clauses import Clause, is_verb
from turngraph.extract.findings import TurnState
from turngraph.extract.lexicon import lemma
from turngraph.extract.phrases import (
    capitalize,
    description_after,
    doing_of,
    doing_phrase,
    ends_phrase,
    list_items,
    names_nothing,
    noun_phrase,
    prep_phrases,
    strip_articles,
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
    ("tempted", "to"): "be tempted to",
    ("looking", "forward"): "look forward to",
    ("great", "at"): "skills",
}
_COMMON_PLACES = frozenset(
    [
        "home",
        "work",
        "school",
        "town",
        "city",
        "place",
        "office",
        "house",
        "flat",
        "apartment",
        "country",
        "area",
        "bed",
        "uni",
        "college",
        "hospital",
        "gym",
        "park",
        "beach",
        "store",
        "shop",
    ]
)


# The last word of a school's name: moving to one changes school, not home.
_SCHOOL_HEADS = frozenset(
    "school college university academy gymnasium kindergarten elementary high".split()
)
# Schools only children attend: starting at one is never a job.
_CHILDREN_SCHOOLS = frozenset("elementary primary kindergarten preschool nursery".split())
# Words that end an organization's name said in lower case ("at kuda here in lagos").
_NOT_ORG = frozenset(
    "here there now today now, and but so in on at for with since because when as right "
    "lol haha".split()
) | frozenset(_COMMON_PLACES)


# Words before "fan" that say how much, not of what: "a huge Harry Potter fan".
_FAN_WORDS = frozenset("a an huge big total massive true die-hard diehard real".split())
_DEGREE_WORDS = frozenset(
    "now currently officially also still finally actually just really so very pretty more "
    "totally super definitely always kinda quite".split()
)
_DESCRIPTION_STARTS = frozenset(
    "a an from living based in married single engaged divorced allergic vegan vegetarian "
    "into".split()
)


def _descriptions(words: list[str]) -> list[list[str]]:
    """The comma-separated descriptions in a copula's complement, when each part is one
    ("27, nurse, living in Graz"); else the whole complement as one."""
    parts: list[list[str]] = [[]]
    for w in words:
        if w == ",":
            parts.append([])
        else:
            parts[-1].append(w)
    parts = [p for p in parts if p]
    if len(parts) < 2:
        return [words]

    def describes(p: list[str]) -> bool:
        low = p[0].lower()
        return (
            low in _DESCRIPTION_STARTS
            or low in v.NATIONALITIES
            or low.isdigit()
            or p[-1].lower() in gz.JOB_WORDS
        )

    return parts if all(describes(p) for p in parts[1:]) else [words]


_ORDINALS = frozenset("first second third fourth final last junior senior".split())


class DescriptionRules(TurnState):
    """Facts from "X is ..." and the places, employers and schools they name."""

    def _copula(self, c: Clause, who: str, rest: list[str]) -> None:
        end = next((i for i in range(1, len(rest)) if ends_phrase(rest, i)), len(rest))
        words = [w for w in rest[:end] if w.lower() not in _DEGREE_WORDS]  # "... right now"
        if [w.lower() for w in words[:1]] == ["real"] and any(
            w.lower() in v.ADJECTIVES | v.STATES for w in words[1:2]
        ):
            words = words[1:]  # "been real busy": "real" grades, as "really" would
        parts = _descriptions(words)
        if len(parts) > 1:
            # "I'm Lukas, carpenter, living in Graz": one description after another.
            for part in parts:
                self._copula(c, who, part)
            return
        if not words:
            return
        first = words[0].lower()
        nxt = words[1].lower() if len(words) > 1 else ""
        if first.isdigit() and len(first) <= 3 and 0 < int(first) < 120:
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
            self._copula(c, who, description_after(words[1:]))
            return
        if first == "in" and nxt == "a" and "relationship" in [w.lower() for w in words[:4]]:
            self.out.attribute(who, "relationship_status", "dating")
            return
        if first == "from":
            self._hometown(who, words[1:])
            return
        if first == "to" and len(words) > 1 and (c.past or c.perfect) and not c.negated:
            self._visit(c, who, words[1:])  # "I've been to Paris"
            return
        lows = [w.lower() for w in words]
        if first == "in" and "at" in lows and {"year", "semester", "term"} & set(lows):
            # "my son Cian is in his first year at Trinity College"
            school = next((p for prep, p in prep_phrases(words) if prep == "at"), None)
            if school and school[-1].lower() in v.SCHOOL_WORDS:
                self._school(who, school)
                return
        if first == "in" and len(words) > 1:
            tail = [w.lower() for w in words[2:]]
            if c.past:
                self._visit(c, who, words[1:])  # "I was in Lisbon last week"
            elif not (tail[:2] in (["for", "a"], ["for", "the"], ["on", "a"]) or "trip" in tail):
                self._location(who, words[1:])
            return
        if first in v.NATIONALITIES:
            self.out.attribute(who, "nationality", first.capitalize())
            self._copula(c, who, description_after(words[1:]))
            return
        if first == "at" and len(words) > 1 and (words[1][:1].isupper() or self.lowercase):
            org = noun_phrase(words[1:], 4)
            cut = [i for i, w in enumerate(org[:-1]) if w.lower() == "and" and org[i + 1].islower()]
            org = org[: cut[0]] if cut else org  # "at Deloitte and its busy season"
            typed = self.out.entities.get(" ".join(org).casefold())
            if org and org[-1].lower() in v.SCHOOL_WORDS:
                self._school(who, org)
            elif org and (
                (typed and typed.type == "organization")
                or " ".join(org).lower() in gz.ORGANIZATIONS
                # "new job!! I'm at moniepoint now": where one works, said of a job
                or (self.work_talk and not c.past and not (typed and typed.type == "place"))
            ):
                self._employer(who, org)
            return
        diet = (
            first if first in v.DIETS else (nxt if first in ("a", "an") and nxt in v.DIETS else "")
        )
        if diet:
            self.out.attribute(who, "diet", diet)
            return
        if first == "allergic" and nxt == "to":
            for item in list_items(words[2:]):
                self.out.attribute(who, "allergies", item)
            return
        if (first, nxt) in (("part", "of"), ("a", "member"), ("member", "of")) and len(words) > 2:
            group = noun_phrase(words[3:] if first == "a" else words[2:], 5)
            if group and not names_nothing(group) and group[-1].lower() not in ("it", "this"):
                club = self.out.entity(" ".join(group), "organization")
                self.used.add(club.casefold())
                self.out.relation(who, "member_of", club)
            return
        stance = _STANCE.get((first, nxt))
        if stance and len(words) > 2:
            obj = (
                noun_phrase(words[2:], 7)
                if not words[2].lower().endswith("ing")
                else (doing_of(words[2].lower(), words[3:]).split())
            )
            if nxt == "to":
                # "excited to see the new show": the verb and what follows it, or nothing
                obj = doing_phrase(
                    Clause(words=[], verb=lemma(words[2].lower()), rest=words[3:])
                ).split()
                obj = obj if len(obj) >= 2 else []
            if obj and not names_nothing(obj):
                if stance in ("likes", "skills"):
                    self.out.attribute(who, stance, " ".join(obj))
                else:
                    self.out.actions.append(
                        RawAction(who, stance, " ".join(obj), f"{who} {' '.join(c.words)}"[:240])
                    )
            return
        if first == "about" and "all" in [w.lower() for w in c.words]:
            words = ["all", *words]  # "I'm all about these desserts" ("all" read as an adverb)
            first, nxt = "all", "about"
        if first == "all" and nxt == "about" and len(words) > 2:
            for item in list_items(words[2:]):
                if not names_nothing(item.split()):
                    self.out.attribute(who, "likes", item)
            return
        if first == "keen" and nxt == "on":
            words = ["into", *words[2:]]
            first = words[0].lower()
        lows = [w.lower() for w in words]
        if "fan" in lows[1:5] and lows[lows.index("fan") + 1 : lows.index("fan") + 2] != ["of"]:
            # "a total movie fan", "a huge Harry Potter fan": a fan of what comes before
            what = [w for w in words[: lows.index("fan")] if w.lower() not in _FAN_WORDS]
            if what and not names_nothing(what):
                self.out.attribute(who, "likes", " ".join(what))
                return
        fan = "fan" in lows[:3]
        if first in ("into", "obsessed", "passionate", "crazy") or (
            first in ("a", "an", "huge", "big", "fan") and fan
        ):
            start = 1
            if "fan" in [w.lower() for w in words[:3]]:
                start = [w.lower() for w in words].index("fan") + 2
            elif first in ("obsessed", "passionate", "crazy"):
                start = 2
            if (
                len(words) > start + 1
                and words[start + 1].lower() in v.PRONOUN_OBJECTS
                and words[start + 2 : start + 3] != ["days"]  # "into hiking these days"
            ):
                return  # "into making this lately": what "this" is was said elsewhere
            for item in list_items(words[start:]):
                if not names_nothing(item.split()):
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
        if self._job(who, words):
            return
        if first in ("a", "an") and nxt in ("student", "freshman", "sophomore", "junior", "senior"):
            school = next((p for prep, p in prep_phrases(words) if prep in ("at", "in")), None)
            if school and school[0][:1].isupper():
                self._school(who, school)
            return
        if first == "my" and nxt in v.KIN and who != self.speaker:
            self._kin_relation(v.KIN[nxt], who)
            return
        if nxt == "intolerant" or first in ("diabetic", "celiac", "coeliac", "asthmatic"):
            self.out.attribute(who, "health", f"{first} {nxt}" if nxt == "intolerant" else first)
            return
        if first == "able" and nxt == "to" and len(words) > 2 and is_verb(words[2]):
            # "we were able to raise some money": what was done
            done = Clause(
                words=c.words,
                subject=c.subject,
                name=c.name,
                past=c.past,
                verb=lemma(words[2].lower()),
                verb_word=words[2],
                rest=words[3:],
            )
            self._facts(done, who, None)
            return
        self._state_with(c, who, words)

    def _visit(self, c: Clause, who: str, words: list[str]) -> None:
        """A visit to the place ``words`` name, when they name one, dated as the clause."""
        place = self._place(words)
        if not place:
            return
        when = self._time(c, None)
        self.out.actions.append(
            RawAction(
                who,
                "visit",
                None,
                f"{who} {c.text}"[:240],
                when.when if when else None,
                place=place,
                precision=when.precision if when else None,
            )
        )

    def _state_with(self, c: Clause, who: str, words: list[str]) -> None:
        """ "I'm curious about dairy-free baking", "swamped with the kids and work": a state
        the speaker is in and what it is about, as an action ("be curious about")."""
        if len(words) < 3 or c.modal or c.negated:
            return
        first, prep = words[0].lower(), words[1].lower()
        preps = ("about", "with", "by", "for", "in", "on", "of") + (
            ("at",) if first == "busy" else ()
        )
        if first in ("busy", "swamped") and prep.endswith("ing") and is_verb(prep):
            # "been real busy tackling a project to support veterans": what keeps them busy
            busy_with = Clause(
                words=c.words,
                subject=c.subject,
                name=c.name,
                past=c.past,
                progressive=True,
                verb=lemma(prep),
                verb_word=words[1],
                rest=words[2:],
            )
            self._facts(busy_with, who, None)
            return
        if first not in v.STATES or prep not in preps:
            return
        obj = noun_phrase(words[2:], 6)
        if words[2].lower().endswith("ing") and is_verb(words[2]):
            # "inspired by chatting to people"
            doing = doing_of(words[2].lower(), words[3:])
            obj = doing.split()[:6]
        if not obj or names_nothing(obj) or obj[0].lower() in v.SUBJECT_PRONOUNS:
            return
        if words[2].lower() == "your":
            if not self.addressee or self.addressee.casefold() in ("user", "assistant"):
                return
            obj = [f"{self.addressee}'s", *obj]  # "impressed by your willingness": theirs
        self.out.actions.append(
            RawAction(who, f"be {first} {prep}", " ".join(obj), f"{who} {c.text}"[:240])
        )
        lows = [w.lower() for w in words]
        after = lows.index("and", 2) + 1 if "and" in lows[2:] else 0
        if 0 < after < len(words) and lows[after] in v.STATES:
            self._state_with(c, who, words[after:])  # "... and curious about rust"

    def _job(self, who: str, words: list[str]) -> bool:
        """ "a nurse practitioner at Mercy", "head of marketing", "the new CTO": a job title."""
        title = strip_articles(words[:])
        if title and title[0].lower() in ("new", "former", "full-time", "part-time"):
            title = title[1:] if title[0].lower() == "new" else title
        phrase: list[str] = []
        for w in title:
            low = w.lower()
            counted = phrase and (phrase[-1][:1].isdigit() or phrase[-1].lower() in _ORDINALS)
            if (
                low in ("at", "for", "with", "in", "from", "on", "by")
                or w in ",;:!?-"
                or low in v.BOUNDARY
                or (low in v.TIME_WORDS and phrase and not counted)
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
            len(phrase) >= 3
            and phrase[0].lower() in gz.JOB_WORDS
            and phrase[1].lower() in ("of", "de")  # "head of design", "chef de cuisine"
        ):
            return False
        if phrase[0].lower() in ("good", "great", "bad", "terrible", "awesome", "amazing"):
            return False
        rest = title[len(phrase) :]
        if head in ("student", "freshman", "sophomore", "undergrad", "undergraduate"):
            school = next((p for prep, p in prep_phrases(rest) if prep in ("at", "in")), None)
            if school and school[0][:1].isupper():
                self._school(who, school)
            return True
        self.out.attribute(who, "job_title", " ".join(phrase))
        called = next((i for i, w in enumerate(rest[:8]) if w.lower() in ("called", "named")), None)
        if called is not None and rest[0].lower() in ("of", "at", "for"):
            self._employer(who, rest[called + 1 :])
        elif len(rest) >= 2 and rest[0].lower() in ("at", "for", "with"):
            self._employer(who, rest[1:])
        return True

    def _spouse(self, who: str, status: str, words: list[str]) -> None:
        """ "married to Lena", "engaged to Tom": the partner, when named."""
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
        org = noun_phrase(words, 5)  # "St John's College of Nursing"
        if org and not org[0][:1].isupper() and self.lowercase:
            # "a backend dev at kuda": in a turn written in lower case, any short name
            org = org[: next((i for i, w in enumerate(org) if w.lower() in _NOT_ORG), len(org))]
            if not org or len(org) > 3 or org[-1].lower() in _COMMON_PLACES:
                return
            org = [capitalize(w) for w in org]
        if org and org[0][:1].isupper() and org[0].lower() not in gz.NOT_NAMES:
            head = org[-1].lower()
            if head in _CHILDREN_SCHOOLS or (
                head in _SCHOOL_HEADS and who.casefold() != self.speaker.casefold()
            ):
                # "ava started at hanby elementary on monday": a child's school, not a job
                self._school(who, org)
                return
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
        if len(place) == 1 and place[0].lower() in gz.LANGUAGES:
            return None  # "everything I write is in French": a language, not a place
        if not place[0][:1].isupper():
            if not self.lowercase or len(place) > 3 or place[-1].lower() in _COMMON_PLACES:
                return None
            place = [capitalize(w) for w in place]
        name = self.out.entity(" ".join(place), "place")
        self.used.add(name.casefold())
        return name

    def _location(self, who: str, words: list[str]) -> None:
        named = noun_phrase(words, 5)
        if named and named[0][:1].isupper() and named[-1].lower() in _SCHOOL_HEADS:
            self._school(who, named)  # "Hana moved to Nishijin Junior High School"
            return
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
