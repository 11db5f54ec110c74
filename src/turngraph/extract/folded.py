"""Case-insensitive patterns that search ASCII text quickly.

Python's ``re`` tries a case-insensitive pattern at every position of the text, and its quick
first-character checks work only for case-sensitive literals: an alternation of words searched
with ``re.I`` costs several times what the same search costs on lower-cased text. On ASCII
text, lower-casing moves nothing and makes case-insensitive matching the same as matching the
lower-cased pattern, so :meth:`Folded.search` finds where the leftmost match starts that way
and then matches the pattern itself there: the same ``Match`` (groups in the text's own case)
that ``re.I`` would have found. Other text takes the plain ``re.I`` search.
"""

from __future__ import annotations

import re

# An escape (kept as written: \W is not \w) or an upper-case letter (lower-cased).
_ESCAPE_OR_UPPER = re.compile(r"\\.|[A-Z]")


class Folded:
    """A pattern compiled with ``re.I`` whose ``search`` is fast on ASCII text."""

    __slots__ = ("_lower", "pattern")

    def __init__(self, source: str, flags: int = 0) -> None:
        self.pattern = re.compile(source, flags | re.I)
        lower = _ESCAPE_OR_UPPER.sub(
            lambda m: m.group(0) if m.group(0)[0] == "\\" else m.group(0).lower(), source
        )
        self._lower = re.compile(lower, flags & ~re.I)

    def search(self, text: str) -> re.Match[str] | None:
        if text.isascii():
            m = self._lower.search(text.lower())
            return None if m is None else self.pattern.match(text, m.start())
        return self.pattern.search(text)
