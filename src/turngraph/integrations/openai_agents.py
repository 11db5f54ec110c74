"""turngraph for the OpenAI Agents SDK: ``TurngraphSession(session_id, memory)`` is a Session
(``get_items``, ``add_items``, ``pop_item``, ``clear_session``), so
``Runner.run(agent, text, session=TurngraphSession("dana", mem))`` keeps the conversation in
turngraph, and ``recall_tool(memory)`` is a tool the agent may call to ask the memory.

Each item the SDK adds is kept twice, in the session ``session:agents-<session id>``:

- exactly, as an appendix file ``openai-agents/<session id>/<seq>.json``, so ``get_items``
  gives the SDK back what it stored (messages, function calls and their outputs, reasoning)
  in order;
- as a turn of the memory, so the conversation is recalled, extracted and inspected like any
  other: a message as its text with its role (the user's words teach the memory facts about
  the user), anything else as a ``tool`` turn holding the item's text, stored without
  extraction.

``pop_item`` removes the newest item with its turn; ``clear_session`` removes them all.

Needs the ``openai-agents`` extra: ``pip install 'turngraph[openai-agents]'``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any

from agents import FunctionTool, function_tool
from agents.memory import SessionABC

from turngraph.core.memory import Memory
from turngraph.errors import NotFoundError, ValidationError

ROOT = "openai-agents"
TEXT_CHARS = 32_000
_PLAIN = re.compile(r"[A-Za-z0-9._-]{1,120}")
_ROLES = {"user": "user", "assistant": "assistant", "system": "system", "developer": "system"}


def _folder(session_id: str) -> str:
    """A session's folder: its id when plain, else a digest of it."""
    if _PLAIN.fullmatch(session_id) and session_id not in (".", ".."):
        return f"{ROOT}/{session_id}"
    return f"{ROOT}/h-{hashlib.sha256(session_id.encode()).hexdigest()[:40]}"


def _text(item: Mapping[str, Any]) -> str:
    """What an item says, as text: a message's text, a call with its arguments, an output."""
    content = item.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            str(p.get("text") or p.get("refusal") or "") for p in content if isinstance(p, Mapping)
        ]
        if any(parts):
            return "\n".join(p for p in parts if p)
    if item.get("type") == "function_call":
        return f"{item.get('name')}({item.get('arguments', '')})"
    if item.get("type") == "function_call_output":
        output = item.get("output")
        return output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)
    return json.dumps(dict(item), ensure_ascii=False, default=str)


class TurngraphSession(SessionABC):
    """An Agents SDK session kept in a turngraph memory (see the module)."""

    def __init__(self, session_id: str, memory: Memory) -> None:
        if not isinstance(session_id, str) or not session_id.strip():
            raise ValidationError("session_id must be a non-empty string", field="session_id")
        self.session_id = session_id
        self.memory = memory
        self.folder = _folder(session_id)
        digest = hashlib.sha256(session_id.encode()).hexdigest()[:32]
        self.turngraph_session = f"session:agents-{digest}"

    # -- the protocol ----------------------------------------------------------------------

    async def get_items(self, limit: int | None = None) -> list[Any]:
        return await asyncio.to_thread(self._get, limit)

    async def add_items(self, items: list[Any]) -> None:
        await asyncio.to_thread(self._add, list(items))

    async def pop_item(self) -> Any | None:
        return await asyncio.to_thread(self._pop)

    async def clear_session(self) -> None:
        await asyncio.to_thread(self._clear)

    # -- the work --------------------------------------------------------------------------

    def _files(self) -> list[str]:
        listed = self.memory.list_files(prefix=self.folder)
        return sorted((f.path for f in listed), key=lambda p: int(p.rsplit("/", 1)[1][:-5]))

    def _get(self, limit: int | None) -> list[Any]:
        paths = self._files()
        if limit is not None:
            paths = paths[-limit:] if limit > 0 else []
        return [json.loads(self.memory.get_file(p).data)["item"] for p in paths]

    def _add(self, items: list[Any]) -> None:
        if not items:
            return
        self.memory.create_session(
            {"openai_agents_session": self.session_id}, session_id=self.turngraph_session
        )
        paths = self._files()
        seq = int(paths[-1].rsplit("/", 1)[1][:-5]) if paths else 0
        for item in items:
            if not isinstance(item, Mapping):
                raise ValidationError("each session item must be a mapping", field="items")
            seq += 1
            role = _ROLES.get(str(item.get("role")), "tool")
            is_message = role != "tool" and item.get("type") in (None, "message")
            said = self.memory.remember(
                _text(item)[:TEXT_CHARS].strip() or "(empty)",
                session_id=self.turngraph_session,
                role=role if is_message else "tool",
                infer="full" if is_message else "none",
                labels=[f"agents_item={seq}", f"agents_type={item.get('type', 'message')}"],
            )
            record = {"item": dict(item), "turn_id": said.turn_id}
            self.memory.put_file(
                f"{self.folder}/{seq}.json",
                json.dumps(record, ensure_ascii=False, default=str),
                description=f"Agents SDK session {self.session_id}, item {seq}",
                content_type="application/json",
            )

    def _pop(self) -> Any | None:
        paths = self._files()
        if not paths:
            return None
        record = json.loads(self.memory.get_file(paths[-1]).data)
        self._forget_turn(record.get("turn_id"))
        self.memory.delete_file(paths[-1])
        return record["item"]

    def _clear(self) -> None:
        for path in self._files():
            self.memory.delete_file(path)
        with contextlib.suppress(NotFoundError):  # nothing was ever added
            self.memory.delete_session(self.turngraph_session)

    def _forget_turn(self, turn_id: str | None) -> None:
        if not turn_id:
            return
        with contextlib.suppress(NotFoundError):  # removed by other means already
            self.memory.delete_observation(self.memory.get_turn(turn_id).turn.slug)


def recall_tool(memory: Memory, *, max_tokens: int = 800) -> FunctionTool:
    """A tool an agent can call to ask the memory: it answers with the memory's context for
    the query (standing instructions, current facts, passages), within ``max_tokens``."""

    @function_tool(name_override="recall_memory")
    def recall_memory(query: str) -> str:
        """Look up what the long-term memory holds about a question: the user's standing
        instructions, current facts about the people it names, and the passages that
        answer it.

        Args:
            query: the question or topic to look up.
        """
        found = memory.context(query, max_tokens=max_tokens)
        return found.text or "The memory holds nothing about that."

    return recall_memory
