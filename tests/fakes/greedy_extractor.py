"""An extractor that, for a turn containing GREEDY, does what a pathological pattern does:
one long call into the regular-expression engine, which holds the interpreter throughout.
Everything else it reads with the rules. Used to show that such work, wherever it comes
from, neither stalls other requests nor runs past the time limit of a turn."""

from __future__ import annotations

import re

from turngraph.extract.base import RawExtraction, TurnContext
from turngraph.extract.rules import RuleExtractor

_NESTED = re.compile(r"(a+)+$")  # exponential on "aaaa...b"


class GreedyExtractor:
    name = "greedy-test"

    def extract(self, text: str, context: TurnContext) -> RawExtraction:
        if "GREEDY" in text:
            _NESTED.match("a" * 40 + "b")  # minutes of backtracking in one call
        return RuleExtractor().extract(text, context)
