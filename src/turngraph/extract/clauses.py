"""Sentences into clauses, and each clause into who, what verb, how said, and the rest.

No tagger: a clause is read left to right with closed word classes (auxiliaries, modals,
negations, adverbs) and a list of common verbs. A sentence splits at punctuation and at
conjunctions that start a new clause ("and lives in Frankfurt", "because I moved"), never
inside a list ("the kids and work"). Every step is a single pass over the tokens.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from turngraph.extract import gazetteers as gz
from turngraph.extract import vocab as v
from turngraph.extract.folded import Folded
from turngraph.extract.lexicon import IRREGULAR, lemma

# A sentence ends at . ! ? followed by a space or the end ("a@b.com" and "3.5" stay whole).
# A run of other characters is taken whole and never given back (++): a sentence cannot end
# inside one, and giving it back a character at a time is what makes a pattern backtrack.
_SENTENCE = re.compile(r"(?:[^.!?\n]++|[.!?](?=[^\s.!?]))+(?:[.!?]+|$)|[.!?]+")
_TOKEN = re.compile(
    r"\d{1,3}(?:,\d{3})+(?!\d)|"  # "1,300" is one number, not "1" and "300"
    r"n't|'(?:m|re|ve|ll|d|s)\b|[A-Za-z\u00c0-\u024f0-9]+(?:[.&/-][A-Za-z\u00c0-\u024f0-9]+"
    r"|:[A-Z0-9]+\b)*(?:\+\+|#(?![\w#]))?"  # "CS:GO", "C++", "C#" are one word
    r"(?:'(?!(?:m|re|ve|ll|d|s)\b)[A-Za-z]+)?|[$%]?\d+(?:[.,:]\d+)*|[,;:()\"!?-]"
)
_NT = re.compile(r"(?<=[A-Za-z])n't\b")
_CLITIC = re.compile(r"(?<=[A-Za-z])'(m|re|ve|ll|d|s)\b")
_CONTRACTION = Folded(r"\b(ca|wo|ai|sha)n't\b")
_FULL = {"ca": "can", "wo": "will", "ai": "is", "sha": "shall"}
MAX_CLAUSE_TOKENS = 60
_PAST_IRREGULAR = frozenset(
    w for w, base in IRREGULAR.items() if w not in ("am", "is", "are", "has", "does", "goes")
)
_PARTICIPLES = frozenset(
    [
        "promoted",
        "married",
        "engaged",
        "hired",
        "divorced",
        "accepted",
        "fired",
        "laid",
        "diagnosed",
        "elected",
        "selected",
        "injured",
        "bitten",
        "stuck",
        "born",
        "raised",
        "admitted",
        "transferred",
        "offered",
        "adopted",
        "named",
        "called",
        "involved",
        "based",
        "located",
        "invited",
        "drawn",
        "tempted",
        "nominated",
        "awarded",
        "robbed",
        "scammed",
        "dumped",
    ]
)
# Verbs whose past is their base form: with a past time they state, not ask ("quit the bank
# in december").
_SAME_IN_PAST = frozenset("quit put cut hit let set read hurt cost shut bet spread split".split())
_MONTHS = frozenset(
    "january february march april may june july august september october november december".split()
)


def capitalize_day(word: str) -> str:
    return word.capitalize() if word.lower() in _TIME_LEADS - {"today", "tonight"} else word


def _month_after(words: list[str], i: int) -> bool:
    return any(w.lower() in _MONTHS for w in words[i + 1 : i + 10])


# Bare verbs that open a statement about oneself rather than an imperative: "love it!",
# "miss you", "hope you're well".
_SAID_OF_ONESELF = frozenset(
    (
        "love like hate miss need hope wish guess think appreciate agree want feel know "
        "bet wonder enjoy adore prefer"
    ).split()
)
_EVERY = frozenset(
    "day morning night evening week weekend month year sunday monday tuesday wednesday "
    "thursday friday saturday summer winter time".split()
)
_TIME_LEADS = frozenset(
    "yesterday today tonight tomorrow recently lately monday tuesday wednesday thursday friday "
    "saturday sunday".split()
)
_TIME_NOUNS = frozenset(
    (
        "week weekend month year night morning monday tuesday wednesday thursday friday "
        "saturday sunday summer winter spring fall"
    ).split()
)
_GLUE = re.compile(r" ('(?:m|re|ve|ll|d|s)\b|n't\b|[,;:!?])")
_CUTS = frozenset(',;:()"-')
# Words that open a verbless description of someone: "single again", "brazilian living in
# lisbon", "allergic to peanuts", "from Lviv".
FRAGMENT_STARTS = frozenset(
    (
        "single married engaged divorced widowed separated allergic vegan vegetarian "
        "pescatarian from"
    ).split()
)


def sentences(text: str) -> list[str]:
    """Sentences of ``text``: split at . ! ? before a space, and at line breaks."""
    out = []
    for m in _SENTENCE.finditer(text):
        s = m.group(0).strip()
        if s and any(ch.isalnum() for ch in s):
            out.append(s)
    return out


def tokens(sentence: str) -> list[str]:
    """Word tokens with contractions split ("I'm" -> "I", "'m"; "can't" -> "can", "n't")."""
    if "'" not in sentence:  # every contraction has one
        return _TOKEN.findall(sentence)
    text = _CONTRACTION.sub(lambda m: _FULL[m.group(1).lower()] + " n't", sentence)
    text = _NT.sub(" n't", text)
    # "'" + clitic becomes " '" + clitic. split() returns the text between matches and each
    # match's clitic: joined, that is the substitution without a call per match.
    parts = _CLITIC.split(text)
    parts[1::2] = [f" '{clitic}" for clitic in parts[1::2]]
    return _TOKEN.findall("".join(parts))


def is_verb(word: str) -> bool:
    low = word.lower()
    return low in IRREGULAR or lemma(low) in v.VERBS


def is_ing_verb(word: str) -> bool:
    """An -ing form that is a verb in progress ("wrapping", "looking"), not "amazing"."""
    low = word.lower()
    return len(low) > 4 and low.endswith("ing") and low not in v.ING_WORDS


def is_finite(word: str) -> bool:
    """A verb form that can head a clause with its own subject (not a bare -ing form)."""
    low = word.lower()
    if low in v.BE or low in v.HAVE or low in v.DO or low in v.MODALS:
        return low != "being"
    if low.endswith("ing"):
        return False
    if low in _PAST_IRREGULAR:
        return True
    base = lemma(low)
    return base in v.VERBS and (low.endswith("ed") or (low.endswith("s") and low != base))


def is_past(word: str) -> bool:
    """A past tense or participle: a listed verb's, an irregular one, or any other -ed word
    that is no known adjective ("developed", "wrapped"; not "tired", "excited")."""
    low = word.lower()
    if low in _PAST_IRREGULAR:
        return True
    if not low.endswith("ed") or len(low) < 5 or low in gz.NOT_ACTIONS:
        return False
    return lemma(low) in v.VERBS or low[-3] not in "e"  # "need", "speed" are not pasts


@dataclass
class Clause:
    """One clause: who it is about, its verb, how it was said, and what follows the verb."""

    words: list[str]
    subject: str = ""  # "self", "person", "you", "kin", "other" or "" (none found)
    name: str = ""  # the person a "person" subject names
    kin: str = ""  # "sister" in "my sister Emma ..."
    elided: bool = False
    verb: str = ""  # lemma of the main verb; "be" for a copula
    verb_word: str = ""
    particle: str = ""
    rest: list[str] = field(default_factory=list)
    negated: bool = False
    hedged: bool = False
    modal: str = ""  # future | intent | would | can | must | used_to
    intent_verb: str = ""
    intent_past: bool = False  # "I wanted to": a wish then, not one now
    aspect: str = ""  # start | stop | keep | continue | finish
    progressive: bool = False
    perfect: bool = False
    passive: bool = False
    past: bool = False
    frequency: bool = False
    often: str = ""  # a frequency said before the subject ("every friday I call grandma")
    lead: str = ""  # the conjunction that opened it (because, if, which, ...)

    @functools.cached_property
    def text(self) -> str:
        """The clause as written (its words are not changed once it is read)."""
        return glue(" ".join(self.words))


def glue(text: str) -> str:
    """Tokens joined by spaces, written back as text: "someone 's life" -> "someone's life"."""
    return "".join(_GLUE.split(text))  # each match gives way to its group: sub(r"\1", text)


_BETWEEN_AUXILIARIES = v.ADVERBS | v.NEGATIONS | v.FREQUENCY | {"not", "n't"}
# After these, "so" grades what follows ("I felt so inspired"), it does not open a clause.
_DEGREE = frozenset(
    "feel feels felt feeling am 'm is 's are 're was were been be get gets got getting".split()
)


def split_clauses(words: list[str]) -> list[tuple[str, list[str]]]:
    """(opening conjunction or punctuation, tokens) per clause, lists kept whole."""
    parts: list[tuple[str, list[str]]] = []
    lead, current = "", list[str]()
    for i, w in enumerate(words):
        if w in _CUTS or w in "!?":
            if current:
                parts.append((lead, current))
            lead, current = ("," if w not in "!?" else ""), []
            continue
        low = w.lower()
        if low in v.BOUNDARY and current and not (low == "so" and current[-1].lower() in _DEGREE):
            nxt = words[i + 1 : i + 8]  # what follows, as far as any test looks
            if _opens_clause(nxt, low) or (
                low == "and" and (_opens_infinitive(current, nxt) or _shares_subject(current, nxt))
            ):
                parts.append((lead, current))
                lead, current = low, []
                continue
        if (
            low in ("i", "we")
            and len(current) >= 2
            and current[-1].lower() in ("much", "how", "why")
        ):
            # "reminds me how much I love performing", "that's why I love volunteering": the
            # clause after "how (much)" or "why" says something of its own.
            parts.append((lead, current))
            lead, current = ("why" if current[-1].lower() == "why" else "how"), []
        if (
            low in ("i", "we")
            and current
            and current[0].lower() in ("after", "before", "since", "when", "while", "once", "if")
            and len(current) > 1
        ):
            parts.append((lead, current[1:]))
            lead, current = current[0].lower(), []
        current.append(w)
        if len(current) >= MAX_CLAUSE_TOKENS:
            parts.append((lead, current))
            lead, current = "", []
    if current:
        parts.append((lead, current))
    merged: list[tuple[str, list[str]]] = []
    for lead, part in parts:
        # A comma-cut piece that opens no clause continues a list: "running, reading, or ...".
        before = merged[-1][1] if merged else []
        # "a safe, inviting place": a comma between two adjectives of one noun.
        between_adjectives = (
            len(before) >= 2
            and before[-2].lower() in ("a", "an", "the")
            and before[-1].lower() in v.ADJECTIVES
        )
        if (
            merged
            and lead == ","
            and len(before) + len(part) < MAX_CLAUSE_TOKENS
            and (between_adjectives or (not _opens_clause(part, ",") and _is_list_item(part)))
        ):
            before += [",", *part]  # in place: a long list costs time in proportion
        else:
            merged.append((lead, part))
    return merged


def _is_list_item(part: list[str]) -> bool:
    first = part[0].lower()
    if first in ("or", "and"):
        return not _opens_clause(part[1:], first)
    if first in v.BOUNDARY or first in v.SUBJECT_PRONOUNS or first in v.DISCOURSE:
        return False
    if first in v.ADVERBS or first in v.PREPOSITIONS or first in FRAGMENT_STARTS:
        return False
    lows = [w.lower() for w in part]
    if not gz.JOB_WORDS.isdisjoint(lows):
        return False  # "..., backend developer": a description, not a list item
    # "spanish, english and a little french": a longer item still continues a list when it
    # joins more items with "and" / "or".
    limit = 6 if "and" in lows or "or" in lows else 4
    return len(part) <= limit and not any(is_finite(w) for w in part)


_LEADING_ADVERBS = v.ADVERBS | {"then", "also", "now"}


# Words of a time said at the head of a clause ("on Saturday", "last week", "this morning").
_TIME_LEAD = gz.WEEKDAY_MONTH | frozenset(
    "on in at last next this that the yesterday today morning afternoon evening night week "
    "weekend month year ago early late".split()
)


def _opens_clause(nxt: list[str], conj: str) -> bool:
    """Whether the words after a conjunction start a clause of their own."""
    i = 0
    while i < len(nxt) and nxt[i].lower() in _LEADING_ADVERBS:
        i += 1
    if i >= len(nxt):
        return False
    w, low = nxt[i], nxt[i].lower()
    if conj in ("because", "if", "although", "though", "unless", "whereas", "which", "who"):
        return True
    if low in ("i", "we", "he", "she", "they", "you", "it", "there"):
        return True
    # "..., and on Saturday we picked up the Enyaq": a time said before the subject
    j = i
    while j < len(nxt) and j - i < 4 and (nxt[j].lower() in _TIME_LEAD or nxt[j].isdigit()):
        j += 1
    if i < j < len(nxt) and nxt[j].lower() in ("i", "we", "he", "she", "they"):
        return True
    if low in ("my", "our", "his", "her"):
        return any(is_finite(x) for x in nxt[i + 1 : i + 5])
    if w[:1].isupper() and i + 1 < len(nxt) and is_finite(nxt[i + 1]):
        return True
    if conj in ("and", "but", "then", "so", "or"):
        # "... but live in copenhagen now": a bare verb and its preposition start a clause too
        bare = (
            conj == "but"
            and is_verb(w)
            and i + 1 < len(nxt)
            and nxt[i + 1].lower() in (v.PREPOSITIONS)
        )
        # "staying resilient and focused is key": an adjective of the subject, not a verb
        adjective = i + 1 < len(nxt) and nxt[i + 1].lower() in ("is", "are", "'s", "was")
        return (is_finite(w) and not adjective) or (bare and not low.endswith("ing"))
    return False


def _shares_subject(before: list[str], nxt: list[str]) -> bool:
    """ "I live in Kreuzberg and work at Zalando": a bare verb and its preposition after
    "and", in a clause the speaker opened, is a second clause of the same subject."""
    return (
        len(before) >= 2
        and before[0].lower() in ("i", "we")
        and len(nxt) >= 2
        and is_verb(nxt[0])
        and not nxt[0].lower().endswith(("ing", "ed", "s"))
        and nxt[1].lower() in ("at", "for", "in", "with", "as", "from", "on")
    )


def _opens_infinitive(before: list[str], nxt: list[str]) -> bool:
    """ "... going to continue my studies and check out careers": a bare verb after "and"
    continues an infinitive or a modal, and so starts a clause that shares its subject."""
    if not nxt or not is_verb(nxt[0]) or nxt[0].lower().endswith(("ing", "ed")):
        return False
    return any(w.lower() in ("to", "will", "'ll", "can", "should", "must") for w in before)


def parse_clause(
    lead: str, words: list[str], people: dict[str, str], *, pronoun: str = ""
) -> Clause:
    """Read a clause's subject and verb group. ``people`` maps a lower-cased name to the
    person it names; ``pronoun`` is whom "he" or "she" points back to ("" if no one)."""
    c = Clause(words=words, lead=lead)
    i, n = 0, len(words)
    while i < n:
        low = words[i].lower()
        if low in ("every", "each") and i + 1 < n and words[i + 1].lower() in _EVERY:
            c.frequency, c.often = True, f"every {capitalize_day(words[i + 1])}"
            i += 2
        elif (
            low in ("since", "because")
            and i + 1 < n
            and words[i + 1].lower() in ("i", "we", "my", "our")
        ):
            c.lead, i = c.lead or low, i + 1  # "Since I lost my job at Door Dash, ..."
        elif low in v.DISCOURSE or low in v.ADVERBS or low in _TIME_LEADS:
            i += 1
        elif (
            low in ("next", "last", "this", "on")
            and i + 1 < n
            and (words[i + 1].lower() in _TIME_NOUNS)
        ):
            i += 2  # "next Tuesday I'm meeting Jake": the time, then the clause
        elif (
            i + 2 < n
            and words[i + 2].lower() == "ago"
            and words[i + 1].lower().rstrip("s") in ("day", "week", "month", "year")
        ):
            i += 3  # "two days ago I finally called my landlord"
        else:
            break
    if 0 < i < n and words[i].lower() in ("was", "is", "'s", "has", "had", "been"):
        c.subject = "other"  # "Last week was wild": the time itself is the subject
        return c
    i = _subject(c, words, i, people, pronoun)
    if not c.verb:
        _verb_group(c, words, i)
    return c


def _subject(c: Clause, words: list[str], i: int, people: dict[str, str], pronoun: str) -> int:
    n = len(words)
    if i >= n:
        return i
    w, low = words[i], words[i].lower()
    if low == "we" and i + 1 < n and words[i + 1].lower() in ("all", "both", "humans"):
        c.subject = "other"  # "we all face the same challenges": everyone, not the speaker
        return i + 2
    if low in ("i", "we"):
        c.subject = "self"
        return i + 1
    if low == "me" and i + 2 < n and words[i + 1].lower() == "and":
        c.subject = "self"  # "me and my twin sister Yasmin are opening a bakery"
        return _skip_noun_phrase(words, i + 2)
    if low in ("he", "she"):
        c.subject, c.name = ("person", pronoun) if pronoun else ("other", "")
        return i + 1
    if low in ("you", "ya"):
        c.subject = "you"
        return i + 1
    if low in v.SUBJECT_PRONOUNS or low in ("everyone", "everybody", "someone", "nobody"):
        c.subject = "other"
        return i + 1
    if low in ("my", "our") and i + 1 < n:
        j = i + 1
        while (
            j < n
            and j < i + 3
            and words[j].lower()
            in ("little", "older", "younger", "big", "best", "new", "old", "baby")
        ):
            j += 1
        kin = words[j].lower() if j < n else ""
        if kin in gz.PETS and j + 1 < n and words[j + 1].lower() in people:
            c.subject, c.name = "person", people[words[j + 1].lower()]
            return _skip_name(words, j + 1)
        if kin in v.KIN:
            k = j + 1
            if k < n and words[k] == ",":
                k += 1
            if k < n and words[k].lower() in people:
                c.subject, c.name, c.kin = "person", people[words[k].lower()], kin
                return _skip_name(words, k)
            c.subject, c.kin = "kin", kin
            return j + 1
        c.subject = "other"
        return _skip_noun_phrase(words, i + 1)
    if low in people and not (i + 1 < n and words[i + 1] == "'s" and _possessive(words, i + 2)):
        end = _skip_name(words, i)
        if end + 1 < n and words[end].lower() == "and" and words[end + 1].lower() == "i":
            c.subject = "self"
            return end + 2
        c.subject, c.name = "person", people[low]
        return end
    if w[:1].isupper() and not is_verb(w) and low not in v.NEGATIONS and low not in v.ADVERBS:
        c.subject = "other"  # a name ("Not" or "Still" opening a sentence is none)
        return _skip_noun_phrase(words, i)
    nxt_low = words[i + 1].lower() if i + 1 < n else ""
    if low == "like" and c.lead == ",":
        c.subject = "other"  # "..., like characters and spells": an example, not a liking
        return n
    if low in gz.JOB_WORDS and nxt_low == "of":
        return n  # "head of marketing as of today": a title, no verb
    noun_subject = (
        nxt_low in v.BE
        or nxt_low in v.MODALS
        or (is_finite(nxt_low) and not is_past(low) and low not in ("got", "just", "finally"))
    )
    if (is_verb(w) or low in ("just", "got", "going", "finally", "gonna")) and not noun_subject:
        later = words[i + 1 : i + 10]
        if is_ing_verb(low) and any(is_finite(x) for x in later):
            # "Creating a family for those kids is so lovely": a gerund is the subject, and
            # the clause is about the speaker's own doing only when it says so ("my").
            about_me = any(x.lower() in ("my", "me", "i") for x in later)
            if not about_me and not (low == "being" and nxt_low in ("a", "an")):
                c.subject = "other"
                return _skip_noun_phrase(words, i)
        past_said = any(x.lower() in ("ago", "yesterday", "last") for x in words[i + 1 : i + 12])
        if (
            c.lead == ""
            and lemma(low) == low
            and low not in _SAID_OF_ONESELF
            and low not in v.BE
            and not (low in _SAME_IN_PAST and (past_said or _month_after(words, i)))
        ):
            c.subject = "imperative"  # "check out my new bike": asks, states nothing
            return i
        c.subject, c.elided = "", True
        return i
    after = words[i + 1].lower() if i + 1 < n else ""
    nationality = low in v.NATIONALITIES and after in (
        "",
        ",",
        "and",
        "living",
        "from",
        "based",
        "by",
        "born",
        "btw",
        "here",
        "too",
    )
    if (low in FRAGMENT_STARTS or nationality) and c.subject == "":
        c.elided, c.verb, c.verb_word = True, "be", ""
        c.rest = words[i:]
        return n
    if low == "do" and i + 2 < n and words[i + 1] == "n't" and c.lead == "":
        c.subject = "imperative"  # "don't stop dreaming": advice, not a statement
        return i
    if (low in v.NEGATIONS or low == "no") and i + 1 < n and is_verb(words[i + 1]):
        c.subject, c.elided = "", True
        return i
    if low in v.DETERMINERS or not is_verb(w):
        c.subject = "other"
        return _skip_noun_phrase(words, i)
    return i


def _possessive(words: list[str], i: int) -> bool:
    """After "Name 's": a noun follows (possessive), not a complement or verb ("is")."""
    if i >= len(words):
        return False
    low = words[i].lower()
    if low in ("a", "an", "the", "not", "from", "in", "at", "so", "really", "been", "got"):
        return False
    return not (low.endswith("ing") or is_past(low) or low.isdigit())


def _skip_name(words: list[str], i: int) -> int:
    i += 1
    while i < len(words) and words[i][:1].isupper() and words[i].lower() not in ("i",):
        i += 1
    return i


def _skip_noun_phrase(words: list[str], i: int) -> int:
    n = len(words)
    start = i
    while i < n and i - start < 6:
        low = words[i].lower()
        if (
            i > start
            and (is_finite(words[i]) or low in v.MODALS or low in v.NEGATIONS)
            and low not in ("'s",)
        ):
            return i
        if low in v.BOUNDARY or words[i] in _CUTS:
            return i
        i += 1
    return i


def _perfect_after(words: list[str], i: int) -> bool:
    """Whether a participle follows "have" from ``i``, past any adverbs ("I've only been to
    Rome once", "have never tried")."""
    while i < len(words) and words[i].lower() in _BETWEEN_AUXILIARIES:
        i += 1
    return i < len(words) and (is_past(words[i].lower()) or words[i].lower() in ("been", "gotten"))


def _emphatic(nxt: str, nxt2: str) -> bool:
    """ "I do spot them", "I did finish it": an emphatic "do" before a verb no list knows,
    seen by the object pronoun or article after it."""
    return (
        nxt.isalpha()
        and nxt not in v.DETERMINERS
        and nxt not in v.PRONOUN_OBJECTS
        and nxt not in v.ADVERBS
        and nxt not in v.PREPOSITIONS
        and nxt2 in ("them", "it", "him", "her", "us", "me", "the", "a", "an", "my", "this")
    )


def _ing_after_hedge(words: list[str], i: int) -> bool:
    """An -ing verb at ``i``, perhaps after a hedge or adverb ("about maybe getting")."""
    while i < len(words) and (words[i].lower() in v.HEDGES or words[i].lower() in v.ADVERBS):
        i += 1
    return i < len(words) and is_ing_verb(words[i].lower())


def _verb_group(c: Clause, words: list[str], i: int) -> None:
    n = len(words)
    copula = ""  # a form of "be" still waiting for what follows its adverbs or negation
    while i < n:
        w, low = words[i], words[i].lower()
        nxt = words[i + 1].lower() if i + 1 < n else ""
        nxt2 = words[i + 2].lower() if i + 2 < n else ""
        if copula and not (
            low in v.FREQUENCY or low in v.HEDGES or low in v.ADVERBS or low in v.NEGATIONS
        ):
            if low == "going" and nxt == "to" and i + 2 < n and is_verb(words[i + 2]):
                c.modal, copula = "future", ""  # "I'm definitely going to keep up with ..."
                i += 2
                continue
            if is_ing_verb(low):
                c.progressive = True
            elif low in _PARTICIPLES:
                c.passive = True
            else:
                c.verb, c.verb_word, c.rest = "be", copula, words[i:]
                return
        if low in v.FREQUENCY or (low in ("every", "each") and nxt in _EVERY):
            c.frequency = True
        elif low in v.HEDGES:
            c.hedged = True
        elif low in v.ADVERBS:
            pass
        elif low in v.NEGATIONS:
            c.negated = True
        elif low == "no" and nxt == "longer":
            c.negated = True
            i += 1
        elif low in ("will", "'ll", "shall"):
            c.modal = c.modal or "future"
        elif low in ("would", "'d"):
            if nxt in ("love", "like") and nxt2 == "to":
                c.modal, c.intent_verb = "intent", nxt
                i += 3
                continue
            if is_past(nxt) and nxt not in ("had",):
                c.perfect = True
            else:
                c.modal = "would"
        elif low in ("can", "could") and nxt == "n't" and nxt2 == "stop":
            c.aspect = "keep"  # "can't stop thinking about it": keeps doing it
            i += 3
            continue
        elif low in ("can", "could"):
            c.modal = c.modal or "can"
        elif low == "should":
            c.modal = "should"  # advice or a suggestion ("we should plan a session")
        elif low == "must":
            c.modal = "must"
        elif low in ("might", "may"):
            c.hedged = True
        elif low in v.BE and nxt == "off" and nxt2 == "to":
            c.modal = "future"
            i += 3
            if i < n and words[i].lower() == "go" and i + 1 < n and is_ing_verb(words[i + 1]):
                i += 1  # "off to go swimming"
            continue
        elif low in v.BE:
            if nxt == "going" and nxt2 == "to" and i + 3 < n and is_verb(words[i + 3]):
                c.modal = "future"
                i += 3
                continue
            if nxt == "about" and nxt2 == "to":
                c.modal = "future"
                i += 3
                continue
            if low in ("was", "were"):
                c.past = True
            elif low == "been":
                c.perfect = True  # "been to Rome once", its "have" dropped
            if is_ing_verb(nxt):
                c.progressive = True
            elif nxt in _PARTICIPLES or (is_past(nxt) and nxt2 in ("to", "by", "at", "in", "as")):
                c.passive = True
            elif nxt in v.NEGATIONS or nxt in v.ADVERBS or nxt in v.FREQUENCY or nxt in v.HEDGES:
                copula = w
            elif nxt == "no" and nxt2 == "longer":
                copula, c.negated = w, True
                i += 3
                continue
            elif nxt != "being":
                c.verb, c.verb_word = "be", w
                c.rest = words[i + 1 :]
                return
        elif low in v.HAVE and _perfect_after(words, i + 1):
            c.perfect = True
        elif low in v.HAVE and nxt == "to":
            c.modal = "must"
            i += 2
            continue
        elif low in v.DO and (
            nxt in v.NEGATIONS or (is_verb(nxt) and nxt not in ("it", "so")) or _emphatic(nxt, nxt2)
        ):
            if low == "did":
                c.past = True
        elif low == "going" and nxt == "to" and not c.aspect and is_verb(nxt2):
            c.modal = "future"
            i += 2
            continue
        elif low == "used" and nxt == "to":
            c.modal = "used_to"
            i += 2
            continue
        elif low in ("tend", "tends", "tended") and nxt == "to":
            c.frequency = True
            i += 2
            continue
        elif (lemma(low) in v.INTENT_VERBS or low in ("need", "needs", "needed")) and nxt == "to":
            c.modal, c.intent_verb = "intent", lemma(low)
            c.intent_past = is_past(low) and lemma(low) == "want"
            i += 2
            continue
        elif low in ("thinking", "considering", "dreaming") and (
            (nxt in ("about", "of") and _ing_after_hedge(words, i + 2)) or is_ing_verb(nxt)
        ):
            c.modal, c.intent_verb = "intent", lemma(low)
            i += 2 if nxt in ("about", "of") else 1
            continue
        elif (low == "got" or low == "get" or low == "gets") and nxt in _PARTICIPLES:
            c.passive = True
        elif (
            lemma(low) in v.ASPECT_VERBS
            and (nxt.endswith("ing") or nxt == "to")
            and (is_verb(nxt2 if nxt == "to" else nxt))
        ):
            c.aspect = lemma(low)
            if is_past(low):
                c.past = True
            i += 2 if nxt == "to" else 1
            continue
        elif low == "been" and nxt.endswith("ing"):
            c.progressive = True
        elif low == "been":
            c.verb, c.verb_word = "be", w
            c.rest = words[i + 1 :]
            return
        elif (low.endswith("ly") and len(low) > 4 and not is_verb(low)) or (
            not is_verb(low)
            and low.isalpha()
            and nxt
            and is_verb(nxt)
            and nxt not in v.BE
            and low not in v.DETERMINERS
            and low not in v.PREPOSITIONS
        ):
            pass  # an adverb, or a misspelt one: "I absolutley love DIYs"
        elif (
            not low[:1].isalpha()
            or ((low in v.BOUNDARY or low in v.PREPOSITIONS) and not is_verb(low))
            or (low in v.DETERMINERS and low not in ("own",))
        ):
            return  # punctuation, a number or a function word where a verb should be
        else:
            c.verb_word = w
            c.verb = "be" if low in v.BE else lemma(low)
            if low.endswith("ing"):
                c.progressive = True
            elif is_past(low):
                c.past = True
            j = i + 1
            if j < n and words[j].lower() in v.PARTICLES:
                c.particle = words[j].lower()
                j += 1
            c.rest = words[j:]
            return
        i += 1
