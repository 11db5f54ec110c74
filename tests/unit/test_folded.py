"""Folded patterns find exactly what the same pattern with re.I finds, in any text."""

from __future__ import annotations

import itertools
import random
import re

import pytest

from turngraph.extract.folded import Folded

SOURCES = [
    r"\b(?:I meant|I mean|correction|it's)\W+([\w' -]{1,40}?)\s*,?\s+not\s+([\w' -]{1,40}?)\s*$",
    r"\b(cat|kitten|guinea pig|snake)s?\b",
    r"(?<![A-Za-z])I'(?:m|ve)\b",
    r"\b(\w+)(?:\s+\1\b)+",
    r"^(?P<Lead>so|well),?\s+(?P=Lead)?(?P<Rest>.{0,20})",
    r"(?<!\s)\s*(?:[,;:]|\s-\s|\bbut\b)\s*",
]
WORDS = ["I", "i", "mean", "MEANT", "correction", "it's", "not", "Cat", "kittens", "guinea",
         "PIG", "snake", "so", "So", "well", "but", "I'm", "i'VE", "x'm", ",", " - ", "the",
         "the", "ſnake", "bırd", "Kat", "Éa", "\u212aitten", "naïve"]  # fmt: skip


def texts() -> list[str]:
    rng = random.Random(7)
    out = [" ".join(c) for c in itertools.product(["I", "so", "cat"], repeat=3)]
    for _ in range(3000):
        words = rng.choices(WORDS, k=rng.randint(1, 9))
        out.append(rng.choice([" ", "", ", "]).join(words))
    return out


@pytest.mark.parametrize("source", SOURCES)
def test_every_method_matches_what_re_i_matches(source: str) -> None:
    folded, plain = Folded(source), re.compile(source, re.I)
    for text in texts():
        for got, want in ((folded.search(text), plain.search(text)),
                          (folded.match(text), plain.match(text))):  # fmt: skip
            assert (got and (got.span(), got.groups())) == (want and (want.span(), want.groups()))
        assert [m.span() for m in folded.finditer(text)] == [m.span() for m in plain.finditer(text)]
        assert folded.sub("#", text) == plain.sub("#", text)
        assert folded.split(text) == plain.split(text)


def test_groups_keep_the_case_of_the_text() -> None:
    m = Folded(r"\bmy (cat|dog) (\w+)").search("Yes, MY Cat Luna!")
    assert m is not None
    assert m.groups() == ("Cat", "Luna")


@pytest.mark.parametrize("source", [r"a\x41", r"\u0042c", r"\N{LATIN CAPITAL LETTER A}", r"\101"])
def test_an_ascii_letter_written_by_its_code_is_refused(source: str) -> None:
    # Lower-casing the pattern would leave it upper case, and the fast path would miss it.
    with pytest.raises(ValueError, match="as the character itself"):
        Folded(source)
