"""LLMExtractor: extraction by any OpenAI-compatible chat-completions endpoint.

The request asks for JSON-schema structured output; the reply is validated strictly against
the same schema. Anything else (a transport error, a non-2xx status, a refusal, text that is
not JSON, JSON that breaks the schema) raises :class:`~turngraph.errors.ExtractionError`, and
the caller stores the turn without extracted facts.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import httpx
from pydantic import BaseModel, ConfigDict
from pydantic import ValidationError as PydanticValidationError

from turngraph.core.validate import parse_datetime
from turngraph.errors import ExtractionError, ValidationError
from turngraph.extract.base import (
    ENTITY_TYPES,
    RawAction,
    RawAttribute,
    RawEntity,
    RawExtraction,
    RawInstruction,
    RawRelation,
    RawUncertainty,
    TurnContext,
    canonical_type,
)

SYSTEM_PROMPT = """You extract structured memory from one message of a conversation.
The speaker of the message is given; "I", "me" and "my" refer to the speaker.
Return only facts the message states. Put hedged, speculative, questioned or negated claims in
"uncertainties" (with what they are about and why), never in attributes or relations.
- entities: people, organizations, places, products, dates, events, animals named in the
  message; type is one of: {types}.
- attributes: scalar facts about an entity (key in snake_case such as job_title, employer,
  location, age, email, phone, birthday, relationship_status, likes, dislikes, pets, hobbies);
  negated=true only when the message ends a previously true value ("I don't like X anymore").
- relations: directed, label in snake_case (works_at, lives_in, manages, married_to,
  sibling_of, parent_of, friend_of, member_of).
- actions: who did what; occurred_at as an ISO-8601 datetime resolved against the message
  time when the message gives a time, else null.
- instructions: standing rules for how the assistant should behave ("always reply in French").
"""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Entity(_Strict):
    name: str
    type: str


class _Attribute(_Strict):
    entity: str
    key: str
    value: str
    negated: bool


class _Relation(_Strict):
    subject: str
    label: str
    object: str


class _Action(_Strict):
    actor: str
    verb: str
    object: str | None
    summary: str
    occurred_at: str | None


class _Instruction(_Strict):
    label: str
    description: str


class _Uncertainty(_Strict):
    about: str
    reason: str


class LLMOutput(_Strict):
    """The JSON the endpoint must return (every field required, nothing extra)."""

    entities: list[_Entity]
    attributes: list[_Attribute]
    relations: list[_Relation]
    actions: list[_Action]
    instructions: list[_Instruction]
    uncertainties: list[_Uncertainty]


def _strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Inline $defs and mark every object closed with all properties required."""
    defs = schema.pop("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" in node:
                return walk(defs[node["$ref"].rsplit("/", 1)[-1]])
            out = {k: walk(v) for k, v in node.items() if k != "title"}
            if out.get("type") == "object":
                out["additionalProperties"] = False
                out["required"] = list(out.get("properties", {}))
            return out
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    result: dict[str, Any] = walk(schema)
    return result


OUTPUT_SCHEMA = _strict_schema(LLMOutput.model_json_schema())


class LLMExtractor:
    """Extraction by a chat-completions endpoint (``{base_url}/chat/completions``)."""

    name = "llm"

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = 30.0,
        max_tokens: int = 1024,
        client: httpx.Client | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        # A reply longer than this is cut by the server; it is refused as cut, not parsed.
        self.max_tokens = max_tokens
        self.timeout = timeout
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = client or httpx.Client(timeout=timeout)

    def close(self) -> None:
        self._client.close()

    def extract(self, text: str, context: TurnContext) -> RawExtraction:
        payload = {
            "model": self.model,
            "temperature": 0,
            "max_tokens": self.max_tokens,
            "messages": [
                {"role": "system", "content": SYSTEM_PROMPT.format(types=", ".join(ENTITY_TYPES))},
                {
                    "role": "user",
                    "content": json.dumps(
                        {
                            "speaker": context.speaker,
                            "role": context.role,
                            "message_time": context.observed_at.isoformat(),
                            "message": text,
                        }
                    ),
                },
            ],
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "turn_extraction", "strict": True, "schema": OUTPUT_SCHEMA},
            },
        }
        try:
            response = self._client.post(
                f"{self.base_url}/chat/completions", json=payload, headers=self._headers
            )
        except httpx.TimeoutException as exc:
            raise ExtractionError(
                f"extraction endpoint timed out after {self.timeout:g}s", extractor=self.name
            ) from exc
        except httpx.HTTPError as exc:
            raise ExtractionError(
                f"extraction endpoint unreachable: {exc}", extractor=self.name
            ) from exc
        if response.status_code // 100 != 2:
            raise ExtractionError(
                f"extraction endpoint answered {response.status_code}: {response.text[:200]}",
                extractor=self.name,
                status=response.status_code,
            )
        return self._parse(response)

    def _parse(self, response: httpx.Response) -> RawExtraction:
        try:
            choice = response.json()["choices"][0]
            message = choice["message"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise ExtractionError(
                "extraction endpoint returned no chat completion", extractor=self.name
            ) from None
        if isinstance(choice, dict) and choice.get("finish_reason") == "length":
            raise ExtractionError(
                f"the model's reply was cut at max_tokens ({self.max_tokens}) before it ended",
                extractor=self.name,
            )
        if message.get("refusal"):
            raise ExtractionError(f"the model refused: {message['refusal']}", extractor=self.name)
        content = message.get("content")
        if not isinstance(content, str):
            raise ExtractionError("the completion has no text content", extractor=self.name)
        try:
            output = LLMOutput.model_validate_json(content)
        except PydanticValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first.get("loc", ()))
            raise ExtractionError(
                f"the model's output does not match the extraction schema "
                f"({where or 'root'}: {first.get('msg')})",
                extractor=self.name,
            ) from None
        return RawExtraction(
            entities=tuple(RawEntity(e.name, canonical_type(e.type)) for e in output.entities),
            attributes=tuple(
                RawAttribute(a.entity, a.key, a.value, a.negated) for a in output.attributes
            ),
            relations=tuple(RawRelation(r.subject, r.label, r.object) for r in output.relations),
            actions=tuple(
                RawAction(a.actor, a.verb, a.object, a.summary, _when(a.occurred_at))
                for a in output.actions
            ),
            instructions=tuple(RawInstruction(i.label, i.description) for i in output.instructions),
            uncertainties=tuple(RawUncertainty(u.about, u.reason) for u in output.uncertainties),
        )


def _when(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        return parse_datetime(value, field="occurred_at")
    except ValidationError:  # a bad date from the model drops the date, not the turn
        return None
