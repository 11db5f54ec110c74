"""Named entities in a sentence: capitalized spans, typed by word lists and their context.

A span is a run of capitalized words (with "of", "de", "van" ... between them). Greeting
vocatives ("Thanks, Mel!") and a lone capital that only starts a sentence are not entities;
job titles and languages are attribute values, not entities. Names the session already used
and well-known names are recognized in any case ("my sister emma" -> Emma).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from turngraph.extract import gazetteers as gz
from turngraph.extract.folded import Folded

# A word, with what some names carry: "CS:GO", "C++", "C#".
_TOKEN = re.compile(r"[A-Za-z\u00c0-\u024f0-9][\w'&.-]*(?::[A-Z0-9]+\b)*(?:\+\+|#(?![\w#]))?")
_CONTRACTED = Folded(r"'(t|ve|re|ll|d|m)$")
_CONNECTORS = {"of", "de", "la", "le", "da", "van", "von", "der", "del", "&"}
_GREETING = re.compile(
    r"(^|\b)(hey|hi|hello|thanks|thank you|wow|congrats|congratulations|oh|yes|yeah|sure|aww?|"
    r"haha|sorry|bye|dear|ok|okay|great|cool|nice|good|awesome|so|yep|yup|totally|agreed|"
    r"morning|night|love you|miss you|go)$"
)
_KIN_BEFORE = re.compile(
    r"\b(my|our|his|her|their)\s+(?:\w+\s+)?(sister|brother|mom|mother|dad|father|son|daughter|"
    r"wife|husband|friend|partner|boss|colleague|coworker|cousin|aunt|uncle|grandma|grandpa|"
    r"grandmother|grandfather|kid|child|niece|nephew|neighbou?r|girlfriend|boyfriend|fiance|"
    r"fiancee|roommate|mentor|teacher|manager|sis|bro)(?:s|ren)?\s*,?\s*$"
)
_SPECIES_WORDS = "|".join(sorted(gz.PETS, key=len, reverse=True))
_ANIMAL_BEFORE = re.compile(
    rf"\b({_SPECIES_WORDS})s?\s*,?\s*(?:(?:named|called)\s*)?$|\b({_SPECIES_WORDS})s? (?:\w+ )?"
    r"(?:named|called)\s*$"
)
# A name used as a modifier of these is a work or a brand ("a Harry Potter fan").
_WORK_FOLLOWERS = re.compile(
    r"^\s*(fan|fans|movie|movies|film|films|book|books|series|universe|party|trivia|spots|"
    r"project|theme|world|franchise|show|game|games|novel|novels|merch|store|event|stuff)\b"
)
# A sentence that opens with a name and one of these is about a person ("Takeshi proposed").
_DONE_BY_PERSON = re.compile(
    r"^\s*(said|says|told|texted|called|asked|proposed|thinks|lives|works|moved|got|gets|quit|"
    r"left|loves|hates)\b"
)
_MEETING_BEFORE = re.compile(
    r"\b(meet|meeting|met|see|seeing|saw|hang out with|hung out with|dinner with|lunch with|"
    r"coffee with|"
    r"drinks with|text|texted|me and|chatted with|talked to|talking to)\s*$"
)
_IS_MY = re.compile(r"^\s*(?:is|isn't|is not|was|'s)\s+(?:not\s+)?my\b")
_PARTNER_BEFORE = re.compile(
    r"\b(dating|date|dated|married to|engaged to|marry|marrying|broke up with|in love with)\s*$"
)
# One word with a capital inside it, not after a name's prefix ("McKenzie", "LeBron", "DeKalb").
_BRAND = re.compile(r"(?!Mc|Mac|De|Le|La|Di|Da|Du|Van|Von|O')[A-Z][a-z]+[A-Z][A-Za-z]*")
_ORG_BEFORE = re.compile(
    r"\b(work(?:s|ed|ing)? (?:at|for)|joined|hired by|employed by|intern(?:ing)? at|job at)\s*$"
)
# Words that may follow a place's name without making it a modifier.
_PLACE_FOLLOWERS = frozenset(
    "and or but with for to in on at from by near last next this yesterday today tomorrow "
    "tonight now soon again too later so because when while since after before is was are "
    "were has had will would can could i we it".split()
)
_PLACE_BEFORE = re.compile(
    r"\b(live[sd]? in|living in|moved to|move to|moving to|from|visit(?:ed|ing)?|trip to|"
    r"travel(?:l?ed)? to|in|to|near|based in|grew up in|born in)\s+(?:the\s+)?$"
)
# Gazetteer names that are also everyday words: never recognized in lower case.
_AMBIGUOUS = frozenset(
    [
        "may",
        "will",
        "bill",
        "mark",
        "rose",
        "grace",
        "joy",
        "art",
        "pat",
        "max",
        "amber",
        "april",
        "june",
        "august",
        "hope",
        "faith",
        "sue",
        "jack",
        "ray",
        "dawn",
        "summer",
        "autumn",
        "ruby",
        "lily",
        "daisy",
        "holly",
        "victor",
        "miles",
        "sky",
        "chase",
        "frank",
        "rich",
        "bob",
        "nick",
        "sandy",
        "iris",
        "jade",
        "pearl",
        "violet",
        "ivy",
        "robin",
        "destiny",
        "georgia",
        "austin",
        "turkey",
        "china",
        "jordan",
        "chad",
        "target",
        "apple",
        "meta",
        "amazon",
        "ford",
        "shell",
        "oracle",
        "us",
        "uk",
        "acme",
    ]
)


def is_lowercase(text: str) -> bool:
    """Whether a turn was written without capitals (the first person aside)."""
    first = next((ch for ch in text if ch.isalpha()), "")
    if first.isupper() and not text.lstrip(" \"'(").startswith(("I ", "I'")):
        return False
    return sum(1 for ch in text if ch.isupper()) <= max(2, len(text) // 40)


def autocapitalized(text: str) -> bool:
    """Whether a turn was written in lower case but for the openings of its sentences (a
    phone capitalizes those: "Just moved to lisbon"). Its well-known names are truecased as
    in a turn all in lower case; its other lower-case words are not taken for names."""
    first = next((ch for ch in text if ch.isalpha()), "")
    return first.isupper() and not _inner_capital(text)


def _inner_capital(text: str) -> bool:
    """Whether a capital stands anywhere but at the opening of a sentence or in "I" (each
    capital read with the three characters before it: bounded work on any text)."""
    for m in _CAPITAL.finditer(text):
        i = m.start()
        before = text[max(0, i - 3) : i].rstrip(" \"'(")
        if (not before and i <= 3) or (before and before[-1] in ".!?\n"):
            continue  # opens the turn or a sentence
        if text[i] == "I" and not text[i + 1 : i + 2].isalpha():
            continue  # "I", "I'm"
        return True
    return False


_CAPITAL = re.compile(r"[A-Z]")


def truecase(text: str, known: Iterable[str]) -> str:
    """Capitalize well-known and already-seen names in a turn written in lower case (or
    capitalized only where its sentences open)."""
    if not is_lowercase(text) and not autocapitalized(text):
        return text
    seen = {k.casefold(): k for k in known}

    def fix(m: re.Match[str]) -> str:
        word = m.group(0)
        low = word.lower().removesuffix("'s")  # "daniel's bday": Daniel's
        if low in seen:
            return seen[low] + word[len(low) :]
        if low in _AMBIGUOUS:
            return word
        if low in gz.FIRST_NAMES or low in gz.PLACES or low in gz.ORGANIZATIONS:
            return word[0].upper() + word[1:]
        return word

    return re.sub(r"\b[a-z][a-z'-]+\b", fix, text)


def _capitalized(tokens: list[re.Match[str]], i: int) -> bool:
    word = tokens[i].group(0)
    if not word[0].isupper() or _CONTRACTED.search(word):
        return False
    low = word.lower().rstrip(".")
    if low in gz.NOT_NAMES or low in gz.WEEKDAY_MONTH or low == "i":
        return False
    if low.endswith("'s") and low[:-2] in gz.NOT_NAMES:
        return False
    return not low.isdigit()


# How much context around a name its type is read from: bounded, so a sentence of any
# length costs time in proportion to its length.
_WINDOW = 60


def _vocative(sentence: str, start: int, end: int) -> bool:
    before = sentence[max(0, start - _WINDOW) : start].rstrip().lower()
    after = sentence[end : end + _WINDOW].lstrip()
    greeting = _GREETING.search(before)
    at_start = not before and start <= _WINDOW
    if (greeting or at_start or before.endswith(",")) and (not after or after[0] in ",!?."):
        return True
    return before.endswith(",") and (not after or after[0] in "!?.")


def known_name(name: str, known: set[str]) -> bool:
    low = name.lower()
    return (
        low in gz.FIRST_NAMES
        or low in gz.PLACES
        or low in gz.ORGANIZATIONS
        or low in gz.PRODUCTS
        or name.casefold() in known
        or (name.isupper() and len(name) > 1)
    )


# "<name> is a great trail": what the sentence calls it.
_IS_A = re.compile(r"^\s*(?:is|was|'s)\s+(?:a|an|the|my|our)\s+((?:[a-z-]+\s+){0,3}[a-z]+)")
_PLACE_HEADS = gz.PLACE_WORDS | frozenset(
    "trail town village neighbourhood neighborhood restaurant cafe café bar pub spot place "
    "hike forest hill park garden gym venue suburb country state region".split()
)


def _head(phrase: str) -> str:
    """The last word of a noun phrase, before a preposition: "great trail to hike" -> trail."""
    head = ""
    for w in phrase.split():
        if w in ("to", "for", "in", "on", "at", "with", "near", "of", "and", "but"):
            break
        head = w
    return head


def entity_type(name: str, sentence: str, start: int, end: int, people: set[str]) -> str | None:
    """The type of the span ``name`` at ``sentence[start:end]``; None if it is no entity."""
    low = name.lower()
    words = low.split()
    before = sentence[max(0, start - _WINDOW) : start].lower()
    after = sentence[end : end + _WINDOW].lower()
    if " " in name and _WORK_FOLLOWERS.match(after):
        return "other"
    if _IS_MY.match(after):
        return "person"  # "Felix isn't my brother"
    if name.casefold() in people:
        return "person"
    if all(w.rstrip(".") in gz.JOB_WORDS for w in words) or (
        words[0] in gz.JOB_WORDS and len(words) > 1 and words[1] in ("of", "at")
    ):
        return None  # a job title, recorded as an attribute, not an entity
    if low in gz.LANGUAGES:
        return None
    if low in gz.PRODUCTS:
        return "product"
    if low in gz.ORGANIZATIONS or words[-1].rstrip(".") in gz.ORG_WORDS:
        return "organization"
    core = words[1:] if words[0] == "the" and len(words) > 2 else words
    if len(core) >= 2 and core[0] in gz.PLACES and core[-1].endswith("s"):
        return "organization"  # "(the) Minnesota Wolves": a team
    if low in gz.PLACES or words[-1] in gz.PLACE_WORDS:
        return "place"
    if words[-1] in gz.EVENT_WORDS:
        return "event"
    if _ANIMAL_BEFORE.search(before):
        return "animal"
    if _KIN_BEFORE.search(before) or _PARTNER_BEFORE.search(before):
        return "person"
    if (
        len(words) <= 2
        and _MEETING_BEFORE.search(before)
        and words[0] not in gz.PLACES
        and not any(ch.isdigit() for ch in name)
    ):
        return "person"  # "meeting Priya for lunch", "dinner with Tomás", "me and Jonas"
    if _ORG_BEFORE.search(before):
        return "organization"
    modifier = re.match(r"^\s+([a-z]+)", after)  # "the LGBTQ community": names no place
    if modifier and modifier.group(1) in _PLACE_FOLLOWERS:
        modifier = None
    if _BRAND.fullmatch(name):
        return "organization"  # "MinaLima", "YouTube": a capital inside a word names a brand
    if name.endswith(("++", "#")) or ":" in name:
        return "other"  # "C++", "C#", "CS:GO": languages and games, not places
    said = _IS_A.match(after)
    if said and _head(said.group(1)) in _PLACE_HEADS:
        return "place"  # "Fox Hollow is a great trail to hike"
    if _PLACE_BEFORE.search(before) and len(words) <= 3 and not modifier:
        return "place" if words[0] not in gz.FIRST_NAMES else "person"
    if words[0] in gz.FIRST_NAMES:
        return "person"
    if (
        re.match(
            r"^\s*(said|says|told|texted|called|asked|and i|is my|was my|lives|works|moved|"
            r"thinks|loves|hates|proposed|got|gets|quit|left)\b",
            after,
        )
        and len(words) <= 2
    ):
        return "person"
    return "other"


def _comma_between(sentence: str, a: re.Match[str], b: re.Match[str]) -> bool:
    """ "Pepper, Precious and Panda": a comma parts two names ("Edinburgh, Scotland" is one
    place, its country after the comma)."""
    return "," in sentence[a.end() : b.start()] and b.group(0).lower() not in gz.PLACES


def find_names(sentence: str, known: set[str], people: set[str]) -> list[tuple[str, str]]:
    """(name, type) of each entity the sentence names, in order."""
    tokens = list(_TOKEN.finditer(sentence))
    opening = len(sentence) - len(sentence.lstrip(" \"'(["))  # where the first word starts
    out: list[tuple[str, str]] = []
    last_end = 0  # where the last name found ends
    i = 0
    while i < len(tokens):
        if not _capitalized(tokens, i):
            i += 1
            continue
        j = i
        while (
            j + 1 < len(tokens)
            and j - i < 5
            and not _comma_between(sentence, tokens[j], tokens[j + 1])
            and (
                _capitalized(tokens, j + 1)
                or (
                    tokens[j + 1].group(0).lower() in _CONNECTORS
                    and j + 2 < len(tokens)
                    and _capitalized(tokens, j + 2)
                )
            )
        ):
            j += 1
        start, end = tokens[i].start(), tokens[j].end()
        name = sentence[start:end].rstrip(".'")
        if name.lower().endswith("'s"):
            name = name[:-2]
        i = j + 1
        if not name or _vocative(sentence, start, end):
            continue
        if _job_title(name, sentence[:start]):
            continue  # "a new job as a Financial Analyst": a title, not an entity
        first_word = start <= opening
        etype = entity_type(name, sentence, start, end, people)
        said_of_someone = _DONE_BY_PERSON.match(sentence[end : end + _WINDOW].lower())
        if first_word and " " not in name and not known_name(name, known) and not said_of_someone:
            continue  # a capital that only starts the sentence says nothing
        if etype == "other" and out and _LISTED.match(sentence[last_end:start]):
            # "brands like Nike and Under Armour": an item of a list is of its kind.
            etype = out[-1][1] if out[-1][1] in _LISTED_TYPES else etype
        if etype is not None:
            out.append((name, etype))
            last_end = end
    return out


_AS_A = re.compile(
    r"\b(?:as|be|am|is|was|became|become|promoted to)\s+(?:an?|the|our|their)?\s*$", re.I
)


def _job_title(name: str, before: str) -> bool:
    """A capitalized job title after "as a", "became": "as a Financial Analyst"."""
    last = name.split()[-1].lower()
    return last in gz.JOB_WORDS and _AS_A.search(before) is not None


_LISTED = re.compile(r"^(?:,? and |, | or |,? & )$")
_LISTED_TYPES = frozenset({"organization", "place", "product"})
