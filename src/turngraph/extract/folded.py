"""Case-insensitive patterns that search ASCII text quickly.

Python's ``re`` tries a case-insensitive pattern at every position of the text, and its quick
first-character checks work only for case-sensitive literals: an alternation of words searched
with ``re.I`` costs several times what the same search costs on lower-cased text. On ASCII
text, lower-casing moves nothing and makes case-insensitive matching the same as matching the
lower-cased pattern, so :meth:`Folded.search` finds where the leftmost match starts that way
and then matches the pattern itself there: the same ``Match`` (groups in the text's own case)
that ``re.I`` would have found. The other methods ask the lower-cased pattern whether there is
a match at all, and only then run the pattern itself. Other text takes the plain ``re.I`` way.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

# What lower-casing a pattern keeps as written (an escape: \W is not \w; a group's name), or
# an upper-case letter, which it lower-cases.
_KEPT_OR_UPPER = re.compile(r"\\.|\(\?P<[^>]*>|\(\?P=[^)]*\)|[A-Z]")
# A character written by its code, which lower-casing would not change.
_CODED = re.compile(r"\\(?:x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|N|0|[0-7]{3})")


class Folded:
    """A pattern compiled with ``re.I`` whose ``search``, ``match``, ``finditer``, ``sub`` and
    ``split`` are fast on ASCII text. ``pattern`` is the compiled pattern itself."""

    __slots__ = ("_lower", "pattern")

    def __init__(self, source: str, flags: int = 0) -> None:
        for m in _CODED.finditer(source):
            code = next((g for g in m.groups() if g), None)
            if code is None or chr(int(code, 16)).isascii():
                raise ValueError(f"write {m.group(0)!r} as the character itself: {source!r}")
        self.pattern = re.compile(source, flags | re.I)
        lower = _KEPT_OR_UPPER.sub(
            lambda m: m.group(0).lower() if len(m.group(0)) == 1 else m.group(0), source
        )
        self._lower = re.compile(lower, flags & ~re.I)

    def search(self, text: str) -> re.Match[str] | None:
        if text.isascii():
            m = self._lower.search(text.lower())
            return None if m is None else self.pattern.match(text, m.start())
        return self.pattern.search(text)

    def _absent(self, text: str) -> bool:
        """Whether ``text`` surely holds no match (known only for ASCII text)."""
        return text.isascii() and self._lower.search(text.lower()) is None

    def match(self, text: str) -> re.Match[str] | None:
        if text.isascii() and self._lower.match(text.lower()) is None:
            return None
        return self.pattern.match(text)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        return iter(()) if self._absent(text) else self.pattern.finditer(text)

    def sub(self, repl: str | Callable[[re.Match[str]], str], text: str) -> str:
        return text if self._absent(text) else self.pattern.sub(repl, text)

    def split(self, text: str) -> list[str | Any]:
        return [text] if self._absent(text) else self.pattern.split(text)
