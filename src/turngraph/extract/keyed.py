"""Facts with a canonical key, said with a verb: lives in, moved to, works at, studies,
speaks, likes, has a pet, has a condition, turned an age..."""

from __future__ import annotations

import re

from turngraph.extract import gazetteers as gz
from turngraph.extract import vocab as v
from turngraph.extract.clauses import Clause
from turngraph.extract.findings import TurnState
from turngraph.extract.lexicon import lemma
from turngraph.extract.phrases import (
    clause_about,
    degree_phrase,
    doing_of,
    gerund,
    is_condition,
    list_items,
    names_nothing,
    noun_phrase,
    strip_articles,
)

_ORG_VERBS = frozenset({"work", "intern", "volunteer", "freelance", "consult"})
_NAMED_PET = re.compile(
    r"\b("
    + "|".join(sorted(gz.PETS, key=len, reverse=True))
    + r")s?\s*,?(?: -)? (?:named |called )?"
    r"([A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+)(?:,? and ([A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+))?"
)


# Words of when that end what is being learnt ("how to play the violin now").
_WHEN_WORDS = frozenset("now lately currently nowadays again too".split())


class KeyedRules(TurnState):
    """Verb-led facts with a canonical key."""

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
        prep_of = dict(reversed(pps))
        if (
            verb in ("marry", "divorce", "engage")
            and c.verb_word.lower().endswith("ed")
            and (not np or np[0].lower() in ("for", "since", "to"))
        ):
            status = {"marry": "married", "divorce": "divorced", "engage": "engaged"}[verb]
            if not c.past or c.elided:
                self.out.attribute(who, "relationship_status", status)
            self._spouse(who, status, rest)
            return False
        if verb == "date" and np and np[0][:1].isupper() and not c.past:
            self._person(np[0])
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
        if verb in ("deal", "suffer", "struggle", "live") and (
            "with" in prep_of or "from" in prep_of
        ):
            cond = prep_of.get("with") or prep_of.get("from") or []
            if cond and is_condition(cond):
                self.out.attribute(who, "health", " ".join(strip_articles(cond)))
                return True
        if (
            verb
            in (
                "have",
                "get",
                "finish",
                "earn",
                "complete",
                "start",
                "do",
                "take",
                "attend",
                "begin",
            )
            and low_np
        ):
            degree = degree_phrase(rest)
            if degree:
                key = (
                    "education"
                    if verb in ("have", "finish", "earn", "complete") or c.past
                    else "learning"
                )
                if verb in ("do", "take", "attend", "start", "begin") and not c.past:
                    key = "learning"
                self.out.attribute(who, key, degree)
                school = prep_of.get("at")
                current = key == "learning" and not (c.modal or self._time(c, None))
                if school and school[0][:1].isupper() and current:
                    self._school(who, school)
                return verb == "have"
        if verb in ("know", "use", "code") and low_np and not c.past:
            skills = [i for i in list_items(rest) if i.split()[-1].lower() in v.TECH]
            for item in skills:
                word = item.split()[-1]
                self.out.attribute(who, "skills", v.TECH_NAMES.get(word.lower(), word))
            if skills:
                return True
        if verb in ("start", "begin") and "at" in prep_of and not c.modal:
            org = prep_of["at"]
            # "started at Doctolib", "started the job at ...", not "started the PgCert at ..."
            begun = not low_np or low_np[-1] in ("job", "work", "role", "position", "there")
            proper = org[0][:1].isupper() or self.lowercase
            if proper and begun and org[-1].lower() not in v.SCHOOL_WORDS:
                self._employer(who, org)
                self._hired_as(who, rest)  # "started at Doctolib last week as a tech lead"
                return False
        if verb in ("start", "begin", "get", "land") and low_np[-1:] == ["job"] and not c.modal:
            self._hired_as(who, rest)  # "I started a new job as a Financial Analyst"
        project = np if np and np[0][:1].isupper() else prep_of.get("on", [])
        if (
            verb in ("build", "develop", "launch", "ship", "design", "work", "take")
            and project
            and project[0][:1].isupper()
            and (verb != "work" or (c.particle == "" and "on" in prep_of))
            and (verb != "take" or c.particle == "over")
            and " ".join(project).lower() not in gz.ORGANIZATIONS | gz.PLACES
        ):
            name = self.out.entity(" ".join(project), "other")
            self.used.add(name.casefold())
            self.out.relation(who, "works_on", name)
            return False
        if verb in ("manage", "lead", "run", "head") and np and np[0][:1].isupper() and not c.past:
            name = " ".join(np)
            team = self.out.entity(
                name, "organization" if np[-1].lower() in gz.ORG_WORDS else "other"
            )
            self.used.add(team.casefold())
            self.out.relation(who, "manages", team)
            return True
        if verb == "report" and "to" in prep_of and prep_of["to"][0].lower() == "me":
            self.out.relation(self._speaker(), "manages", who)
            return True
        if verb in ("live", "reside") and "in" in prep_of:
            self._location(who, prep_of["in"])
            return not c.past
        if verb in ("move", "relocate") and not (c.modal or c.progressive or _habitual(prep_of)):
            # "moved to Sale Water Park on Sundays" is a new habit, not a new home
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
            hired_as = any(w.lower() == "as" for w in rest) and self._job(
                who, rest[[w.lower() for w in rest].index("as") + 1 :]
            )
            if name.lower() in gz.ORGANIZATIONS or hired_as:
                self._employer(who, np)
            else:
                group = self.out.entity(name, "organization")
                self.used.add(group.casefold())
                self.out.relation(who, "member_of", group)
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
            if field_ and not names_nothing(field_) and not field_[0][:1].isupper():
                self.out.attribute(who, "education", " ".join(field_))
                said = True
            return said
        if verb == "graduate":
            for prep, phrase in pps:
                if prep in ("with", "in") and phrase:
                    self.out.attribute(who, "education", " ".join(phrase))
            return False
        if verb == "learn" and np and not c.past:
            if [w.lower() for w in rest[:2]] == ["how", "to"] and len(rest) >= 3:
                # "I'm learning how to play the violin now": what is learnt is the doing
                how_to = list(rest)
                while how_to[-1].lower() in _WHEN_WORDS:
                    how_to.pop()
                if len(how_to) >= 3:
                    self.out.attribute(who, "learning", " ".join(how_to))
                    return True
            for item in list_items(rest):
                if not names_nothing(item.split()):
                    self.out.attribute(who, "learning", item)
            return True
        if verb == "take" and low_np and low_np[-1] in ("lessons", "classes", "class", "lesson"):
            subject = [w for w in np[:-1] if w.lower() not in ("some", "new")]
            if subject and not c.past:
                self.out.attribute(who, "learning", " ".join(subject))
            return False
        if verb == "speak" and np:
            langs = [
                i.split()[-1] for i in list_items(rest) if i.split()[-1].lower() in gz.LANGUAGES
            ]
            for lang in langs:
                self.out.attribute(who, "languages", lang.capitalize())
            return bool(langs)
        if (
            verb
            in ("like", "love", "enjoy", "adore", "prefer", "hate", "dislike", "detest", "stand")
            # "I've always liked turtles": still so; and a work loved is still liked ("I loved
            # Becoming Nicole"), a doing loved may be past ("loved taking lessons as a kid")
            and (
                not c.past
                or (c.perfect and "always" in [w.lower() for w in c.words])
                or (verb in ("love", "like", "enjoy") and _titled(rest, self.people))
            )
        ):
            key = "dislikes" if verb in ("hate", "dislike", "detest", "stand") else "likes"
            if verb == "stand" and not (c.negated and c.modal == "can"):
                return False
            if verb == "stand":
                c.negated = False
            if c.elided and rest and rest[0].lower() in ("the", "your", "that", "this", "those"):
                return True  # "Love the necklace!": a compliment on someone else's thing
            items = rest
            if len(rest) > 2 and rest[0].lower() == "not" and rest[1].lower().endswith("ing"):
                # "I hate not being on the court"
                doing = doing_of(rest[1].lower(), rest[2:])
                if len(doing.split()) >= 2:
                    self.out.attribute(who, key, f"not {doing}")
                    return True
            if rest and rest[0].lower() == "to" and len(rest) > 1:
                items = [gerund(lemma(rest[1].lower())), *rest[2:]]
            gerund_led = bool(items) and items[0].lower().endswith("ing")
            if gerund_led and not items[0][:1].isupper() and len(items) > 1:  # not a title
                doing = doing_of(items[0].lower(), items[1:])
                said_words = doing.split()
                if len(said_words) > 2 and said_words[1].lower() in _DEMONSTRATIVES:
                    # "love making this chocolate cake": making chocolate cake
                    doing = " ".join([said_words[0], *said_words[2:]])
                if names_nothing(doing.split()[1:] or ["x"]):
                    return False
                if doing:
                    self.out.attribute(who, key, doing)
                    return True
            said = False
            for item in list_items(items):
                asked = item.split()[0].lower() in ("how", "what", "why", "when", "where")
                if (
                    not names_nothing(item.split())
                    and item.lower() not in ("you", "it")
                    and not asked
                ):
                    self.out.attribute(who, key, item)
                    said = True
            return said
        if (
            verb == "have"
            and low_np[-1:] in (["love"], ["passion"], ["soft spot"])
            and ("for" in prep_of)
        ):
            self.out.attribute(who, "likes", " ".join(prep_of["for"]))  # "a love for horses"
            return True
        named_pet = _NAMED_PET.search(" ".join(rest)) if low_np else None
        if verb in ("have", "get", "adopt", "own", "rescue") and named_pet:
            for name in (named_pet.group(2), named_pet.group(3)):
                if name and name.lower() not in gz.NOT_NAMES:
                    self._pet(who, named_pet.group(1).lower(), name)
            return verb == "have" and not c.past
        if (
            verb in ("have", "get", "adopt", "own", "rescue")
            and low_np
            and len(list_items(rest)) > 1
        ):
            said = False
            for item in list_items(rest):
                words = noun_phrase(item.split()) or item.split()
                sub = clause_about(c, words)
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
                toy = any(w in ("stuffed", "toy", "plush", "plushie", "cuddly") for w in low_np)
                if not any(w[:1].isupper() for w in np[1:]) and not toy:
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
            if is_condition(np) and verb in ("have", "get"):
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
            when = self._time(c, None, future=not (c.past or c.perfect))
            if c.past or c.perfect:
                self.out.attribute(who, "age", low_np[0])
            if when is not None and when.precision == "day":
                self.out.attribute(who, "birthday", f"{when.when:%B} {when.when.day}")
            return True
        return False

    def _hired_as(self, who: str, rest: list[str]) -> bool:
        """The job title an "as" phrase gives ("... as a senior product designer")."""
        lows = [w.lower() for w in rest]
        if "as" not in lows:
            return False
        return self._job(who, rest[lows.index("as") + 1 :])


_DEMONSTRATIVES = frozenset("this that these those".split())


def _titled(rest: list[str], people: dict[str, str]) -> bool:
    """ "Becoming Nicole by Amy Ellis Nutt": a name that is no person's (a title, a place)."""
    words = [w for w in rest if w not in ('"', "'")]
    return bool(words) and words[0][:1].isupper() and words[0].casefold() not in people


def _habitual(prep_of: dict[str, list[str]]) -> bool:
    """Whether a clause says when by a weekday that recurs ("on Sundays")."""
    return any(
        w.lower().endswith("s") and w.lower()[:-1] in gz.WEEKDAY_MONTH
        for w in prep_of.get("on", [])
    )
