"""Names that look alike: the confusable skeleton of Unicode Technical Standard #39.

"Alice" spelled with a Cyrillic capital A (U+0410) and with a Latin one are two keys, so two
entities; to a reader they are one name. :func:`skeleton` maps each character to the
prototype it is confusable with (``confusables.tsv``, from Unicode's ``confusables.txt``),
so the two skeletons are equal. Consolidation proposes such pairs for a merge
(core/consolidate.py) when one of the names mixes scripts: a spoof or a keyboard slip, not
two people. Two names each written in one script ("Вова" in Cyrillic, "Boba" in Latin) can
share a skeleton and still be different names, so they are left alone.
"""

from __future__ import annotations

import functools
import unicodedata
from importlib.resources import files


@functools.cache
def _prototypes() -> dict[str, str]:
    table: dict[str, str] = {}
    text = files("turngraph.core").joinpath("confusables.tsv").read_text(encoding="utf-8")
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        source, target = line.split("\t")
        table[chr(int(source, 16))] = "".join(chr(int(cp, 16)) for cp in target.split())
    return table


def skeleton(key: str) -> str:
    """The skeleton of an entity's name key (already NFKC and case-folded): decomposed, each
    character mapped to its prototype, decomposed and case-folded again."""
    table = _prototypes()
    mapped = "".join(table.get(ch, ch) for ch in unicodedata.normalize("NFD", key))
    return unicodedata.normalize("NFD", mapped).casefold()


def scripts(name: str) -> set[str]:
    """The scripts of a name's letters, by the first word of each letter's Unicode name
    (LATIN, CYRILLIC, GREEK, ...)."""
    found = set()
    for ch in name:
        if ch.isalpha():
            found.add(unicodedata.name(ch, "UNKNOWN").split(" ", 1)[0])
    return found


def lookalike_letters(a: str, b: str) -> list[str]:
    """The letters of ``a`` and ``b`` that read as another one, described for a reason:
    ``'\u0410' (U+0410 CYRILLIC CAPITAL LETTER A) looks like 'A'`` (the first quoted
    character is the Cyrillic one)."""
    table = _prototypes()
    out: list[str] = []
    for ch in dict.fromkeys(unicodedata.normalize("NFD", a + b)):
        if ch in table and not ch.isascii() and ch.isalpha():
            name = unicodedata.name(ch, "?")
            out.append(f"{ch!r} (U+{ord(ch):04X} {name}) looks like {table[ch]!r}")
    return out
