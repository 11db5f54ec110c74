"""Phrases inside a clause: the noun phrase after a verb, its prepositional phrases, list
items, and small helpers the fact rules share. Each reads a bounded window of tokens."""

from __future__ import annotations

import re

from turngraph.extract import vocab as v
from turngraph.extract.clauses import Clause, is_finite, is_past, is_verb
from turngraph.extract.lexicon import lemma

MAX_OBJECT_WORDS = 6
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
_TIME_UNITS = frozenset(
    (
        "week weekend month year morning evening afternoon night time summer winter "
        "spring fall autumn semester season day monday tuesday wednesday thursday "
        "friday saturday sunday january february march april may june july august "
        "september october november december"
    ).split()
)
_COUNTS = frozenset(("a few couple several two three four five six ten many some").split())
_VAGUE_OBJECTS = frozenset(
    (
        "well great fine badly ok okay smoothly good bad better worse awesome amazing "
        "wild crazy home lot lots bit time fun blast birthday day night chance "
        "opportunity longer more less again around everywhere anywhere somewhere there "
        "here all tight hard closer creative ready started ton tons how"
    ).split()
)


def strip_articles(words: list[str]) -> list[str]:
    while words and (words[0].lower() in _ARTICLES or words[0].lower() in v.ADVERBS):
        words = words[1:]
    if len(words) > 2 and words[0].lower() in ("all", "kinds", "sorts", "types"):
        # "all kinds of music", "kinds of dances": the music, the dances
        at = 1 if words[0].lower() != "all" else 2
        kinds = at + 1 < len(words) and words[at - 1].lower() in ("kinds", "sorts", "types")
        if kinds and words[at].lower() == "of":
            words = words[at + 1 :]
    return words


# Two-word adverbs of time that end a phrase: "right now", "just now".
_TIME_PAIRS = {"right": ("now", "away", "then"), "just": ("now", "then")}


def ends_phrase(words: list[str], i: int) -> bool:
    """Whether ``words[i]`` opens a two-word adverb of time that ends a phrase."""
    after = _TIME_PAIRS.get(words[i].lower(), ())
    return bool(after) and i + 1 < len(words) and words[i + 1].lower() in after


def noun_phrase(words: list[str], limit: int = MAX_OBJECT_WORDS) -> list[str]:
    """The noun phrase at the start of ``words``: up to a preposition, a conjunction, a time
    word or punctuation, at most ``limit`` words, without its leading article."""
    out: list[str] = []
    for i, w in enumerate(words):
        low = w.lower()
        if low in ("and", "or", "&") and out and i + 1 < len(words):
            nxt = words[i + 1].lower()
            # "offers and promotions" is one phrase; "... and went home" is not.
            after = words[i + 2].lower() if i + 2 < len(words) else ""
            if (
                nxt in v.SUBJECT_PRONOUNS
                or nxt in v.ADVERBS
                or nxt in ("one", "then", "so", "maybe", "perhaps")
                or is_verb(nxt)
                or (nxt.endswith("ing") and not out[-1].lower().endswith("ing"))
                or is_finite(after)
                or nxt in v.BOUNDARY
                or len(out) >= 4
            ):
                break
            out.append(w)
            continue
        if i == 0 and low in ("that", "those") and len(words) > 1 and words[1][:1].isalpha():
            continue  # "painted that lake sunrise": a determiner, not a clause
        if w in ',;:()"!?-' or low in v.BOUNDARY or (low in ("'s",) and not out):
            break
        if (
            low == "'s"
            and out[-1][:1].isupper()
            and words[i + 1 : i + 2] != []
            and (words[i + 1][:1].isupper())
        ):
            out[-1] += "'s"  # "King's College Hospital": a possessive inside a name
            continue
        determiner = low in ("this", "that", "these", "those", "last", "next") and not (
            i + 1 < len(words) and words[i + 1].lower().removesuffix("s") in _TIME_UNITS
        )
        if out and not determiner and low in ("this", "these", "that", "last", "next"):
            break  # "work these days"
        counted = low in ("day", "week", "month", "year") and out and out[-1].isdigit()
        if (
            low in v.TIME_WORDS
            and not determiner
            and not counted
            and (out or low not in ("morning", "evening", "weekend"))
        ):
            break
        if low in v.PREPOSITIONS and not (
            low == "of" and out and i + 1 < len(words) and words[i + 1][:1].isalpha()
        ):
            break
        if low in v.NEGATIONS or low in ("anymore", "too", "either", "again", "though"):
            break
        if out and ends_phrase(words, i):
            break  # "into The Witcher 3 right now"
        if out and (
            low in v.BE
            or low in v.MODALS
            or low in ("originally", "now", "btw", "i", "we", "you", "he", "she", "they")
        ):
            break
        if (
            out
            and (low in _COUNTS or low.isdigit())
            and any(
                x.lower().rstrip("s") in ("day", "week", "month", "year", "hour", "minute")
                for x in words[i + 1 : i + 3]
            )
        ):
            break
        if out and out[-1].lower() in ("a", "an", "the") and low in ("really", "pretty", "so"):
            continue  # "a really big tournament"
        if out and (low in v.FREQUENCY or low in ("pretty", "really", "so", "them", "me", "us")):
            break
        if (
            out
            and i + 1 < len(words)
            and words[i + 1].lower() in v.PRONOUN_OBJECTS
            and (is_finite(low) or (low.endswith("ing") and is_verb(low)))
        ):
            break  # "book helps me", "fashion combining them": a verb, not the phrase
        if (
            out
            and is_past(low)
            and lemma(low) in v.VERBS
            and low not in ("used", "named", "called")
        ):
            break
        out.append(w)
        if len(out) >= limit + 2:
            break
    out = strip_articles(out)
    while len(out) > 1 and out[-1].lower() in ("more", "much", "lately"):
        out.pop()  # "mental health work more"
    out = out[:limit]
    while len(out) > 1 and out[-1].lower() in ("of", "and", "&"):
        out.pop()  # cut short: "St John's College of"
    return out


def prep_phrases(words: list[str]) -> list[tuple[str, list[str]]]:
    """(preposition, noun phrase) pairs in ``words``, in order."""
    out = []
    for i, w in enumerate(words):
        low = w.lower()
        if low in ("i", "we", "he", "she", "they", "you") and i > 0:
            break  # "with a fan I met in CA": what follows is the fan's clause
        if low in v.PREPOSITIONS and low != "of":
            after = words[i + 1 : i + 2]
            skip = 1 if after and after[0].lower() in ("that", "this", "these", "those") else 0
            np = noun_phrase(words[i + 1 + skip :])
            if np and np[0].lower() not in ("i", "we", "he", "she", "they", "you"):
                out.append((low, np))
    return out


def gerund(verb: str) -> str:
    if verb in ("be", "see", "flee", "agree"):
        return verb + "ing"
    if verb.endswith("ie"):
        return verb[:-2] + "ying"
    if verb.endswith("e") and not verb.endswith(("ee", "ye", "oe")):
        return verb[:-1] + "ing"
    # "unplug" -> "unplugging": a short stem ending consonant-vowel-consonant doubles its last
    # letter, after a prefix too.
    stem = next((verb[len(p) :] for p in ("un", "re", "up", "out") if verb.startswith(p)), verb)
    if (
        len(stem) >= 3
        and stem[-1] not in "aeiouwxy"
        and stem[-2] in "aeiou"
        and stem[-3] not in "aeiou"
        and len(stem) <= 4
        and not (len(stem) == 4 and stem[0] in "aeiou")  # "open", "edit": stress before
    ):
        return verb + verb[-1] + "ing"
    return verb + "ing"


def list_items(words: list[str]) -> list[str]:
    """Items of "hiking, biking and swimming" (each a short phrase)."""
    items: list[list[str]] = [[]]
    for i, w in enumerate(words):
        low = w.lower()
        if ends_phrase(words, i):
            break  # "The Witcher 3 right now"
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
        while item and (item[-1].lower() in _DANGLING or item[-1].lower() in _DETERMINERS):
            item = item[:-1]  # "awesome food of this city" cut at "this": no "of this" at the end
        np = strip_articles(item)
        if np and len(np) <= MAX_OBJECT_WORDS:
            out.append(" ".join(np))
    return out[:6]


def names_nothing(np: list[str]) -> bool:
    """An object that names nothing by itself: "it", "them all", "well", "fine"."""
    return (
        not np
        or np[0].lower() in v.PRONOUN_OBJECTS
        or (len(np) == 1 and (np[0].lower() in _VAGUE_OBJECTS or np[0].lower() in v.ADJECTIVES))
    )


def clause_about(c: Clause, words: list[str]) -> Clause:
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


def starts_subject(word: str, people: dict[str, str]) -> bool:
    low = word.lower()
    return low in ("i", "we", "he", "she", "they", "my", "our", "his", "her") or low in people


_DETERMINERS = frozenset("this that these those".split())
_COUNTS = frozenset("a an one two three four five six seven eight nine ten few couple".split())
_SPANS = frozenset("day week month year decade ago".split())
_DANGLING = frozenset("a an the and or of to for with my your our their his her some".split())


def doing_of(verb: str, rest: list[str]) -> str:
    """The doing phrase of ``verb`` and the words after it: ("making", ["this", "cake"])."""
    return doing_phrase(Clause(words=[], verb=verb, rest=rest))


def doing_phrase(c: Clause) -> str:
    """What a habitual clause says one does: "bike to work", "go for a run after work"."""
    out = [c.verb + (f" {c.particle}" if c.particle else "")] if c.verb else []
    if c.aspect in ("stop", "quit") and c.verb_word.lower().endswith("ing"):
        out = [c.verb_word.lower()]
    rest = c.rest
    for i, w in enumerate(rest):
        low = w.lower()
        nxt = rest[i + 1].lower() if i + 1 < len(rest) else ""
        joined = low in ("and", "or") and nxt and not is_verb(nxt) and nxt not in v.BOUNDARY
        if not joined and (
            w in ',;:!?()"-' or low in v.BOUNDARY or low in ("anymore", "lol", "though")
        ):
            break
        if low in v.NEGATIONS or low in v.FREQUENCY or low in ("ago", "since"):
            break
        if low.isdigit() and out and len(out) > 1:
            break
        if (low.isdigit() or low in _COUNTS) and any(
            x.lower().rstrip("s") in _SPANS for x in rest[i + 1 : i + 3]
        ):
            break  # "quit smoking 6 months ago": how long ago, not what
        out.append(w)
        if len(out) >= 8:
            break
    while out and out[-1].lower() in _DANGLING:
        out.pop()  # "creating a ..." cut short: no phrase ends on "a", "and", "of"
    if len(out) >= 2 and out[-2].lower() in ("a", "an", "the") and out[-1].lower() in v.ADJECTIVES:
        return ""  # "creating a safe, inviting place" read up to the comma
    return " ".join(strip_articles(out)) if len(out) > 0 else ""


def value_shape(value: str) -> str:
    """What kind of value this is: a number, a date, a name or other words."""
    low = value.lower()
    if re.fullmatch(r"\d{1,3}", low):
        return "number"
    if re.search(r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b", low):
        return "date"
    return "name" if value[:1].isupper() else "words"


def description_after(words: list[str]) -> list[str]:
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


def is_condition(np: list[str]) -> bool:
    """Whether a noun phrase names a health condition ("celiac disease", "a headache")."""
    if not np:
        return False
    head = np[-1].lower().removesuffix("'s")
    return head in v.HEALTH_CONDITIONS or head in (
        "disease",
        "syndrome",
        "disorder",
        "intolerance",
        "infection",
        "pain",
    )


def degree_phrase(words: list[str]) -> str:
    """ "a master's in social work", "my PhD in chemistry", "a data science bootcamp"."""
    np = strip_articles(list(words))
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


def capitalize(name: str) -> str:
    return " ".join(w[:1].upper() + w[1:] for w in name.split())
