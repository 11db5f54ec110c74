"""The identifiers in a message that bounded retrieval looks up: no model, just patterns.

Taken, in order of appearance and without duplicates (case-insensitive): double-quoted
strings (2-80 characters, straight or curly quotes), emails, URLs, UUIDs, ids such as
``ABC-123``, ``#42`` and ``#hashtags``, ``@mentions``, acronyms, and capitalized phrases of up
to four words (a lone sentence-initial word such as "What" or "Hello" is not a name).
"""

from __future__ import annotations

import re

DEFAULT_LIMIT = 8

_QUOTED = re.compile(r'"([^"\n]{2,80})"|\u201c([^\u201d\n]{2,80})\u201d')
_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
_URL = re.compile(r"\bhttps?://[^\s<>\"')\]]+")
_UUID = re.compile(
    r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"
)
_CODE = re.compile(r"\b[A-Z][A-Z0-9]{1,9}-\d{1,9}\b")
_TAG = re.compile(r"(?<![\w&])#(\d+|[A-Za-z][\w-]{1,50})")
_MENTION = re.compile(r"(?<![\w.])@([A-Za-z0-9_][\w.-]{0,50}[A-Za-z0-9_])")
_PHRASE = re.compile(r"\b[A-Z][\w'&-]*(?:[ \t]+(?:(?:of|the|de|van|von)[ \t]+)?[A-Z][\w'&-]*){0,3}")
STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "for",
        "from",
        "had",
        "has",
        "have",
        "hello",
        "hey",
        "hi",
        "how",
        "i",
        "i'd",
        "i'll",
        "i'm",
        "i've",
        "if",
        "in",
        "is",
        "it",
        "it's",
        "let's",
        "may",
        "me",
        "might",
        "my",
        "no",
        "not",
        "of",
        "ok",
        "okay",
        "on",
        "or",
        "our",
        "please",
        "should",
        "so",
        "sure",
        "thanks",
        "thank",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "us",
        "was",
        "we",
        "well",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "would",
        "yes",
        "you",
        "your",
        "yeah",
        "yep",
        "good",
        "great",
        "morning",
        "evening",
        "afternoon",
        "also",
        "just",
        "maybe",
        "ask",
        "call",
        "check",
        "email",
        "find",
        "give",
        "help",
        "let",
        "look",
        "make",
        "remind",
        "send",
        "show",
        "tell",
        "today",
        "tomorrow",
        "yesterday",
    ]
)


def extract_identifiers(text: str, *, limit: int = DEFAULT_LIMIT) -> list[str]:
    """At most ``limit`` identifiers found in ``text``, first seen first."""
    found: list[tuple[int, str]] = []
    taken: list[tuple[int, int]] = []

    def add(start: int, end: int, value: str) -> None:
        value = re.sub(r"['\u2019]s$", "", value.strip(" \t.,;:!?")).strip("'\u2019")
        if len(value) < 2 or any(s < end and start < e for s, e in taken):
            return
        taken.append((start, end))
        found.append((start, value))

    for m in _QUOTED.finditer(text):
        add(m.start(), m.end(), m.group(1) or m.group(2))
    for pattern in (_EMAIL, _URL, _UUID, _CODE):
        for m in pattern.finditer(text):
            add(m.start(), m.end(), m.group(0))
    for m in _TAG.finditer(text):
        add(m.start(), m.end(), "#" + m.group(1))
    for m in _MENTION.finditer(text):
        add(m.start(), m.end(), "@" + m.group(1))
    for m in _PHRASE.finditer(text):
        words = m.group(0).split()
        start = m.start()
        # A sentence-initial stop word is not part of a name ("What Acme said" -> "Acme").
        while words and words[0].lower().strip("'\u2019") in STOP:
            start += text[start:].index(words[0]) + len(words[0])
            words = words[1:]
            while start < len(text) and text[start].isspace():
                start += 1
        if not words:
            continue
        phrase = " ".join(words)
        add(start, start + len(phrase), phrase)
    seen: set[str] = set()
    out: list[str] = []
    for _, value in sorted(found):
        key = value.casefold()
        if key not in seen:
            seen.add(key)
            out.append(value)
    return out[:limit]
