"""Extraction: what a turn says, as entities, attributes, relations and more."""

from turngraph.config import Settings
from turngraph.errors import ValidationError
from turngraph.extract.base import Extractor, RawExtraction, TurnContext
from turngraph.extract.rules import RuleExtractor

__all__ = ["Extractor", "RawExtraction", "RuleExtractor", "TurnContext", "extractor_from_settings"]


def extractor_from_settings(settings: Settings) -> Extractor:
    """The extractor the settings name: the offline rules, or an LLM endpoint."""
    if settings.extractor == "rules":
        return RuleExtractor()
    if settings.extractor == "llm":
        from turngraph.extract.llm import LLMExtractor

        if not settings.llm_base_url or not settings.llm_model:
            raise ValidationError(
                "the llm extractor needs llm_base_url and llm_model (TURNGRAPH_LLM_BASE_URL, "
                "TURNGRAPH_LLM_MODEL)",
                field="extractor",
            )
        return LLMExtractor(
            base_url=settings.llm_base_url,
            model=settings.llm_model,
            api_key=settings.llm_api_key,
            timeout=settings.llm_timeout_seconds,
        )
    raise ValidationError(
        f"unknown extractor {settings.extractor!r}; use 'rules' or 'llm'", field="extractor"
    )
