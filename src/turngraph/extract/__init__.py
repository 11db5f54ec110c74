"""Extraction: what a turn says, as entities, attributes, relations and more.

Which extractor a memory uses is chosen by name through :mod:`turngraph.plugins`.
"""

from turngraph.extract.base import Extractor, RawExtraction, TurnContext
from turngraph.extract.rules import RuleExtractor

__all__ = ["Extractor", "RawExtraction", "RuleExtractor", "TurnContext"]
