"""The assistant side of a turn: a persona definition the turn runner takes, and the bridge
that assembles an assistant's identity, instructions, history and context into one
projection a model harness can take as is.

``define_turn_persona`` is a pass-through factory: it checks the definition when it is made
(memory must be enabled; ids, scopes and times must be well formed) and returns it frozen,
leaving transports and every other choice to the application. ``TurnRunner(persona=...)``
takes its id as the namespace and its ``ttl_days`` as the history's time to live.

``model_responder`` answers a turn with the configured chat model (the managed chat loop's
model, for the runner's lifecycle: the runner saves the pair after delivery).

``assemble_assistant_turn_context`` takes the assistant's id and name, its base
instructions, the turn, the conversation, the history the runner recalled and the context
blocks it collected, and returns them assembled, with ``harness_projection``: the system
prompt (identity, base instructions, then each context block under its label), the history
as chat messages, and the ids that say which turn it was.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from turngraph.agent.runner import ContextBlock, Conversation, HistoryItem, RespondArgs
from turngraph.core.chat import SYSTEM, ChatModel

_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$")


@dataclass(frozen=True)
class PersonaMemory:
    enabled: bool
    scopes: tuple[str, ...] = ("workspace",)
    ttl_days: float | None = None

    @property
    def ttl_seconds(self) -> float | None:
        return None if self.ttl_days is None else self.ttl_days * 86_400


@dataclass(frozen=True)
class TurnPersona:
    id: str
    intent: str
    description: str
    memory: PersonaMemory
    cloud: bool = False
    harness_settings: Mapping[str, Any] = field(default_factory=dict)
    on_event: str | None = None


def define_turn_persona(
    *,
    id: str,
    intent: str,
    description: str,
    memory: Mapping[str, Any],
    cloud: bool = False,
    harness_settings: Mapping[str, Any] | None = None,
    on_event: str | None = None,
) -> TurnPersona:
    """A persona, checked now: ``id`` a lowercase slug, ``memory`` with ``enabled`` true
    (a turn persona requires memory), ``scopes`` non-empty names, ``ttl_days`` a positive
    number or absent. Raises ValueError naming what is wrong."""
    if not isinstance(id, str) or not _ID.match(id):
        raise ValueError(f"persona id must be a lowercase slug (a-z, 0-9, '-'), got {id!r}")
    for part, value in (("intent", intent), ("description", description)):
        if not isinstance(value, str) or not value.strip():
            raise ValueError(f"persona {part} must be a non-empty string")
    if not isinstance(memory, Mapping):
        raise ValueError("persona memory must be a mapping: {'enabled': True, ...}")
    unknown = set(memory) - {"enabled", "scopes", "ttl_days", "ttlDays"}
    if unknown:
        raise ValueError(f"persona memory has unknown settings: {', '.join(sorted(unknown))}")
    if memory.get("enabled") is not True:
        raise ValueError("a turn persona requires enabled memory: memory={'enabled': True}")
    scopes = memory.get("scopes", ["workspace"])
    if (
        isinstance(scopes, str)
        or not isinstance(scopes, Sequence)
        or not scopes
        or not all(isinstance(x, str) and x.strip() for x in scopes)
    ):
        raise ValueError("persona memory scopes must be a non-empty list of names")
    ttl = memory.get("ttl_days", memory.get("ttlDays"))
    if ttl is not None and (
        isinstance(ttl, bool) or not isinstance(ttl, (int, float)) or not 0 < ttl < 36_500
    ):
        raise ValueError(f"persona memory ttl_days must be a positive number of days, got {ttl!r}")
    if on_event is not None and (not isinstance(on_event, str) or not on_event.strip()):
        raise ValueError("persona on_event must be a non-empty string (a handler's path)")
    return TurnPersona(
        id=id,
        intent=intent.strip(),
        description=description.strip(),
        memory=PersonaMemory(True, tuple(s.strip() for s in scopes), ttl),
        cloud=bool(cloud),
        harness_settings=dict(harness_settings or {}),
        on_event=on_event,
    )


@dataclass(frozen=True)
class AssistantTurnContext:
    """An assistant's turn, assembled: who it is, what it was told, what it was given."""

    assistant_id: str
    assistant_name: str
    turn_id: str
    conversation: Conversation
    system_prompt: str
    history: tuple[HistoryItem, ...]
    context: tuple[ContextBlock, ...]
    harness_projection: dict[str, Any]


def assemble_assistant_turn_context(
    *,
    assistant_id: str,
    turn_id: str,
    conversation: Conversation,
    identity: Mapping[str, Any],
    history: Sequence[HistoryItem] = (),
    context: Sequence[ContextBlock] = (),
) -> AssistantTurnContext:
    """Assemble an assistant's turn for its model harness. ``identity`` holds
    ``assistant_name`` and ``base_instructions`` (``{"system_prompt": ...}``); ``history``
    and ``context`` are what the turn runner recalled and collected (the memory's block
    first). Raises ValueError naming a missing or malformed part."""
    for part, value in (("assistant_id", assistant_id), ("turn_id", turn_id)):
        if not isinstance(value, str) or not value.strip():
            raise ValueError(f"{part} must be a non-empty string")
    if not isinstance(identity, Mapping):
        raise ValueError("identity must be a mapping with assistant_name and base_instructions")
    name = identity.get("assistant_name")
    if not isinstance(name, str) or not name.strip():
        raise ValueError("identity.assistant_name must be a non-empty string")
    base = identity.get("base_instructions") or {}
    prompt = base.get("system_prompt") if isinstance(base, Mapping) else None
    if prompt is not None and not isinstance(prompt, str):
        raise ValueError("identity.base_instructions.system_prompt must be a string")
    parts = [f"You are {name.strip()}.", (prompt or "").strip()]
    for block in context:
        if block.content.strip():
            parts.append(f"## {block.label}\n{block.content.strip()}")
    system = "\n\n".join(p for p in parts if p)
    messages = [{"role": "user", "content": h.content} for h in history]
    projection = {
        "assistant_id": assistant_id,
        "turn_id": turn_id,
        "conversation": {
            "transport": conversation.transport,
            "id": conversation.id,
            "session_id": conversation.session_id,
        },
        "system_prompt": system,
        "messages": messages,
        "context": [
            {"id": b.id, "label": b.label, "source": b.source, "category": b.category}
            for b in context
        ],
    }
    return AssistantTurnContext(
        assistant_id=assistant_id,
        assistant_name=name.strip(),
        turn_id=turn_id,
        conversation=conversation,
        system_prompt=system,
        history=tuple(history),
        context=tuple(context),
        harness_projection=projection,
    )


def model_responder(
    model: ChatModel, *, system_prompt: str = SYSTEM
) -> Callable[[RespondArgs], Awaitable[str]]:
    """A ``respond`` for :class:`~turngraph.agent.runner.TurnRunner` that asks ``model`` (an
    OpenAI-compatible chat model, ``ChatModel.from_settings(settings)``): the system prompt
    with each context block under its label (the memory's first), the history, then the
    input. The runner saves the pair only after delivery; a model that fails raises
    ModelError, and then nothing is delivered or saved."""

    async def respond(args: RespondArgs) -> str:
        blocks = [f"## {b.label}\n{b.content.strip()}" for b in args.context if b.content.strip()]
        messages = [{"role": "system", "content": "\n\n".join([system_prompt, *blocks])}]
        messages += [{"role": "user", "content": h.content} for h in args.history]
        messages.append({"role": "user", "content": args.input})
        return await asyncio.to_thread(model.reply, messages)

    return respond
