"""Instructions to the assistant, wherever they stand in a sentence.

"Please keep your answers short", "Whenever I ask for code, use Python", "from now on call me
Sam", "I'd like you to reply in French", "don't use emoji": a standing rule for how the
assistant should behave. A statement about oneself ("I always go for a run") is not one, and
neither is a one-off request that names nothing about the assistant's replies ("take a look
at this", "keep it up").
"""

from __future__ import annotations

import re

from turngraph.extract import gazetteers as gz
from turngraph.extract import vocab as v
from turngraph.extract.folded import Folded

# "Can you" as people who mix in their own language ask it ("pode responder em português").
_CAN_YOU_ELSEWHERE = (
    r"(?:pode|podes|poderia|puedes|puede|podrías|kannst du|können sie|könntest du|"
    r"peux-tu|pouvez-vous|puoi|potresti)\s+"
)
_PREFIX = Folded(
    r"^(?:(?:ok(?:ay)?|also|and|oh|ooh|ah|um|yeah|btw|by the way|one more thing|hey|hi|actually|"
    r"scratch that|sorry|wait|quick thing|two things|one thing|so|but|just|simply|"
    r"before we (?:begin|start)|if (?:it is |it.s )?possible)\W+)*"
    r"(?P<lead>(?:please\s+)?(?:(?:can|could|would|will) you(?: please)?(?: always| never)?\s+|"
    r"you (?:can|should)\s+|you (?:may|could) (?=(?:call|address) me\b)|"
    + _CAN_YOU_ELSEWHERE
    + r"|"
    r"I (?:want|need|would like|'d like|'d prefer|prefer|would prefer) (?:you|it if you) to\s+|"
    r"I'd prefer (?:it )?if you\s+|"
    r"I(?: should| would|'d) be (?:obliged|grateful) if (?:from now on,? )?"
    r"you(?: would| could)?\s+|"
    r"I(?: would|'d) appreciate (?:it )?if you(?: would| could)?\s+|"
    r"I would ask that you\s+|"
    r"I(?: would|'d) prefer (?:that|it if) you\s+|"
    r"(?:from now on|going forward|in (?:the )?future|for the rest of (?:this|our) "
    r"(?:chat|conversation)|for all (?:future )?(?:answers|replies|responses)|in general)"
    r"\W+(?:please\s+)?|"
    r"(?:whenever|every time|each time|when|if) (?:I|we|you)\b[^,]{1,80}?(?:,\s*|\s+(?=(?:please|"
    r"always|never|don't|keep|use|make|write|answer|reply|respond)\b))(?:please\s+)?|"
    r"please\s+|pls\s+|plz\s+|kindly\s+)?)",
)
# Every instruction has one of these words. Tested word by word: a set lookup per word is
# several times faster than a regular expression trying each word at every word start.
_CUE_WORDS = frozenset(
    "please pls plz kindly always never dont stop avoid no call keep make prefer want need like "
    "remember bear whenever every each when if future can could would will you".split()
) | frozenset(w for w in v.INSTRUCTION_VERBS if w.isalpha())
# "From now on" as people who mix in their own language say it.
_FROM_NOW_ELSEWHERE = (
    r"a partir de ahora|de ahora en adelante|desde ahora|ab jetzt|ab sofort|von nun an|"
    r"à partir de maintenant|dorénavant|désormais|a partir de agora|daqui pra frente|"
    r"daqui para a frente|d'ora in poi|vanaf nu"
)
# A language named the way its own speakers say "in Spanish" ("en español", "auf Deutsch").
_IN_OWN_WORDS = (
    r"en (?:español|castellano|inglés|francés|alemán|portugués|italiano|français|anglais|"
    r"espagnol|allemand|italien|portugais)|auf (?:deutsch|englisch|französisch|spanisch|"
    r"italienisch)|em (?:português|inglês|espanhol|francês|alemão|italiano)|"
    r"in (?:italiano|inglese|francese|tedesco|spagnolo)|in het (?:nederlands|engels|duits|frans)"
)
# A tag that asks for agreement does not make a request a question ("..., ok?", "¿sí?").
_TAG = re.compile(r",\s*¿?(?:ok|okay|right|yeah|yes|sí|si|ja|oui|né|tá|vale|alright)\?$", re.I)
_CUE_PHRASES = Folded(
    r"\b(?:don'?t|do not|from now|going forward|"
    + _FROM_NOW_ELSEWHERE
    + "|"
    + "|".join(sorted(w for w in v.INSTRUCTION_VERBS if not w.isalpha()))
    + r")\b",
)
_WORDS = re.compile(r"\w+")
_ASCII_WORDS = re.compile(r"\w+", re.ASCII)  # the same words in ASCII text, found faster
# Case-insensitive matching folds a few letters beyond lower() (the long s, U+017F, is "s"):
# a word with a letter past ASCII is tested by the regular expression itself.
_CUE_WORD = re.compile("|".join(sorted(_CUE_WORDS)), re.I)
_STANDING = Folded(
    r"\b(from now on|going forward|in (?:the )?future|always|never|whenever|every time|"
    r"each time|for the rest of|" + _FROM_NOW_ELSEWHERE + r")\b",
)
# A request put to the assistant ("could you", "would you") and one that holds from here on.
_ASKED_OF_YOU = Folded(
    r"^(?:please\s+)?(?:(?:can|could|would|will) you\b|" + _CAN_YOU_ELSEWHERE + ")"
)
_FROM_NOW = Folded(r"\b(?:from now on|going forward|from here on|" + _FROM_NOW_ELSEWHERE + r")\b")
_CALL_ME = Folded(
    r"^(?:just\s+)?(?:call|address) me(?: as)?\s+"
    r"((?:(?:mr|mrs|ms|miss|dr|prof)\.?\s+)?[A-Za-z][\w'-]{0,30})\b"
)
_STOP_WITH = Folded(
    r"^(?:stop|quit|enough|no more)\s+(?:with\s+)?(?:the\s+|all\s+the\s+|those\s+|your\s+)?"
    r"(\w+)"
)
_EXPLAIN_LIKE = Folded(
    r"^explain\s+(?:everything|things|it|stuff|them)?\s*(?:to me\s+)?(?:like|as if)\s+I'm\b"
)
STOP_CALLING = Folded(r"\bstop calling me\s+([A-Za-z][\w'-]{0,30})\b")
_NEGATIVE = Folded(r"^(always|never|don't|do not|do n't|stop|avoid|no more|no)\s+(\w+)")
_ONE_OFF = Folded(r"^\w+\s+(?:this|that|these|the following)\b|\"")
_REMEMBER = Folded(r"^remember (?:that )?.{1,200}\bwhen(?:ever)? you\b")
_KEEP_IN_MIND = Folded(r"^(?:keep|bear) (?:that|this|it) in mind\b")
_MANNER = (
    r"short|shorter|brief|concise|detailed|longer|long|full|thorough|simple|plain|casual|formal"
)
_PREFER = Folded(
    r"^I (?:prefer|like|want|need|(?:should|would|'d) (?:like|prefer)) "
    r"(?:(?:" + _MANNER + r")(?:,? and |,? ))*(?:answers|replies|responses|explanations|"
    r"summaries)\b",
)
# How the answers should be from now on, asked of the assistant ("could you make the
# answers shorter?").
_MAKE_IT = Folded(
    r"^(?:make|keep)\s+(?:your\s+|the\s+)?(?:answers?|replies|reply|responses?|explanations?)"
    r"\s+(?:a (?:bit|little) )?(?:shorter|longer|simpler|more detailed|less detailed|short|"
    r"brief|simple|detailed)\b"
)
_KEEP_SHORT = Folded(
    r"^(?:keep|make)\s+(?:your\s+|the\s+)?(?:answers|replies|responses|messages|it|them|"
    r"things|explanations)\s+(?:short|brief|concise|simple|sweet|casual|formal|under|to|in)\b",
)


def may_instruct(text: str) -> bool:
    """Whether ``text`` has a word every instruction has (a cheap test before reading it)."""
    if text.isascii():  # lower-casing ASCII text changes no word boundary
        cued = not _CUE_WORDS.isdisjoint(_ASCII_WORDS.findall(text.lower()))
    else:
        cued = any(
            w.lower() in _CUE_WORDS or (not w.isascii() and _CUE_WORD.fullmatch(w))
            for w in _WORDS.findall(text)
        )
    return cued or bool(_CUE_PHRASES.search(text))


# A request after a clause ("Your long replies have become hard work, so please keep them
# short"): read from "please" on.
_PLEASE_AFTER = Folded(r"[,;]\s*(?:(?:so|and|but|then)\s+)?(?=(?:please|kindly)\b)")


def find_instruction(sentence: str) -> tuple[str, str, str | None] | None:
    """(label, description, name for "call me X") if ``sentence`` instructs the assistant."""
    found = _instruction(sentence)
    if found is None:
        after = _PLEASE_AFTER.search(sentence)
        if after is not None:
            found = _instruction(sentence[after.end() :])
    return found


def _instruction(sentence: str) -> tuple[str, str, str | None] | None:
    if not may_instruct(sentence):
        return None  # every instruction below has one of these words
    text = _TAG.sub(".", " ".join(sentence.strip().split()))
    body = text.rstrip(".!? ")
    m = _PREFIX.match(body)
    lead = (m.group("lead") or "") if m else ""
    core = body[m.end() :] if m else body
    question = text.endswith("?")
    standing = bool(_STANDING.search(body))
    if question and not standing and not (_ASKED_OF_YOU.match(lead) and _MAKE_IT.match(core)):
        return None  # "could you make the answers shorter?" asks for good, though
    call = _CALL_ME.match(core)
    if call:
        name = call.group(1)
        return f"call the user {name}", f"{body}.", name
    stop = _STOP_WITH.match(core)
    if stop and stop.group(1).lower() in v.OUTPUT_NOUNS:
        return _label(core), f"{body}.", None
    if _EXPLAIN_LIKE.match(core) or STOP_CALLING.search(core):
        return _label(core), f"{body}.", None
    if (
        _PREFER.match(core)
        or _KEEP_SHORT.match(core)
        or _KEEP_IN_MIND.match(core)
        or _REMEMBER.match(core)
    ):
        return _label(core), f"{body}.", None
    if _ONE_OFF.match(core):
        return None  # a request about this text, not a standing rule
    neg = _NEGATIVE.match(core)
    if neg:
        verb = neg.group(2).lower()
        after = core[neg.end() :].split()
        if verb in ("up",) or (after and after[0].lower() in ("up", "worrying")):
            return None
        if neg.group(1).lower() == "no":
            return (_label(core), f"{body}.", None) if _mentions_output(core) else None
        stop_doing = neg.group(1).lower() == "stop" and verb.endswith("ing")
        if verb in v.INSTRUCTION_VERBS or stop_doing or (lead and verb.endswith("ing")):
            if verb in ("give", "stop", "be") and not _mentions_output(core) and not lead:
                return None
            return _label(core), f"{body}.", None
        return None
    first = core.split()[0].lower() if core.split() else ""
    said_of_someone = first in _SUBJECTS or first in v.KIN
    if (
        _ASKED_OF_YOU.match(lead)
        and _FROM_NOW.search(body)
        and (first in v.INSTRUCTION_VERBS or instruction_topic(core) is not None)
    ):
        # "Would you number the steps for me from now on?": asked of the assistant, for good
        return _label(_FROM_NOW.sub("", core)), f"{body}.", None
    if (
        standing
        and not question
        and (first in v.INSTRUCTION_VERBS or (_mentions_output(core) and not said_of_someone))
    ):
        # "write normal paragraphs from now on", "so detailed answers from now on, please";
        # not "my boss always tells me to keep emails short"
        return _label(core), f"{body}.", None
    if first in v.INSTRUCTION_VERBS:
        after = core.split()[1:2]
        if after and after[0].lower() in ("up", "it", "in") and first in ("keep", "check"):
            return None
        if lead and (first in v.DIRECT_INSTRUCTION_VERBS or _mentions_output(core) or standing):
            return _label(core), f"{body}.", None
        if first in v.DIRECT_INSTRUCTION_VERBS and _mentions_output(core):
            return _label(core), f"{body}.", None
    return None


_LANGUAGE_NAMES = "|".join(sorted(gz.LANGUAGES))
# What a standing instruction is about (the one named first): a newer instruction on the same
# topic replaces the older one ("switch back to English" after "always reply in French").
TOPICS = (
    ("name", Folded(r"\b(?:call|calling|address|addressing) (?:me|the user)\b|\bmy name\b")),
    (
        "language",
        Folded(
            rf"\b(?:in|into|to)\s+(?:{_LANGUAGE_NAMES})\b|\blanguage\b|\b(?:{_IN_OWN_WORDS})\b",
        ),
    ),
    (
        "format",
        Folded(
            r"\b(?:bullets?|bullet points?|paragraphs?|prose|lists?|tables?|markdown|headings|"
            r"headers|numbered|number (?:the|your|each) (?:steps|points|items)|"
            r"(?:normal|full|complete|proper|plain) sentences)\b"
        ),
    ),
    (
        "level",
        Folded(
            r"\b(?:beginner|beginners|simple|simply|technical|jargon|analog(?:y|ies)|basics|"
            r"expert|eli5|five)\b"
        ),
    ),
    (
        "units",
        Folded(
            r"\b(?:metric|imperial|grams|cups|ounces|celsius|fahrenheit|kilomet(?:re|er)s|miles|"
            r"units)\b"
        ),
    ),
    (
        "length",
        Folded(
            r"\b(?:short|shorter|brief|briefly|concise|concisely|long|longer|lengthy|detailed|"
            r"details?|in depth|in-depth|sentences?|one line|verbose|length)\b"
        ),
    ),
    ("tone", Folded(r"\b(?:formal|formally|casual|casually|friendly|emojis?|jokes|tone)\b")),
)


def instruction_topic(text: str) -> str | None:
    """What an instruction is about (name, language, format, level, units, length, tone),
    or None when it is about something else ("keep that in mind for recipes")."""
    # The topic named first: "keep your replies short: a paragraph or two" is about length.
    found = [(m.start(), i) for i, (_, p) in enumerate(TOPICS) if (m := p.search(text))]
    return TOPICS[min(found)[1]][0] if found else None


_SUBJECTS = frozenset(
    "my his her their our your the he she they we i it this that there someone everyone".split()
)


def _mentions_output(core: str) -> bool:
    words = set(re.findall(r"[a-z]+", core.lower()))
    return bool(words & v.OUTPUT_NOUNS) or bool(
        re.search(
            r"\b(in (?:english|french|spanish|german|bullet)|briefly|concisely|"
            + _IN_OWN_WORDS
            + r")\b",
            core,
            re.I,
        )
    )


def _label(core: str) -> str:
    words = core.split()[:6]
    return " ".join(words).lower().rstrip(",.;:")
