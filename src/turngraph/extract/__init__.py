"""Extraction: what a turn says, as entities, attributes, relations and more."""

from turngraph.extract.base import Extractor, RawExtraction, TurnContext
from turngraph.extract.rules import RuleExtractor

__all__ = ["Extractor", "RawExtraction", "RuleExtractor", "TurnContext"]
