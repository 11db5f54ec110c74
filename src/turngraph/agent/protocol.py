"""The turn protocol: bounded retrieval, then both halves of every turn, stored idempotently.

Each message is one atomic ``remember``: the exact text as a turn of the conversation's
session, plus links, in the same write, from a ``conversation_message`` entity (named by its
``turn_key``: ``{platform}:{conversation_id}:{turn_id}``, ``:assistant`` added for a reply,
each part percent-encoded, so no two conversations or turns share one), described with role
and sender kind, PART_OF the ``conversation`` entity and REFERS_TO the entities the message
names (retrieved for a user message; for a reply, those it cites: by default the retrieved
entities its text mentions). The idempotency key is ``conversation:{turn_key}:{role}``: a
replay collapses onto the stored turn, the same key with other content is a conflict, and a
``turn_key`` stored under one role is refused for the other.

It needs only a few calls of a memory (:class:`MemoryCalls`), so it runs against an
embedded :class:`turngraph.Memory` and a remote one (``turngraph.Client(...).memory(name)``)
alike. It never calls a language model.
"""

from __future__ import annotations

import asyncio
import hashlib
import inspect
import logging
import re
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol
from urllib.parse import quote

from pydantic import BaseModel

from turngraph.agent.identifiers import DEFAULT_LIMIT, extract_identifiers
from turngraph.config import Limits
from turngraph.core.ids import entity_ref
from turngraph.core.validate import name_key
from turngraph.errors import ConflictError, NotFoundError, ValidationError
from turngraph.models import (
    Entity,
    MemoryContext,
    RecallResult,
    RememberResult,
    Session,
    TurnPage,
)

log = logging.getLogger("turngraph.agent")
Role = Literal["user", "assistant"]
STRUCTURAL = ("conversation", "conversation_message")


class MemoryCalls(Protocol):
    """What the kit needs of a memory (an embedded Memory and a RemoteMemory both fit)."""

    def get_entity(self, name: str) -> Entity: ...
    def recall(self, query: str | None = None, **options: Any) -> RecallResult: ...
    def context(self, query: str, **options: Any) -> MemoryContext: ...
    def remember(self, text: str | None = None, **fields: Any) -> RememberResult: ...
    def remember_many(self, messages: Sequence[Mapping[str, Any]], **fields: Any) -> Any: ...
    def create_session(self, metadata: Any = None, *, session_id: str | None = None) -> Session: ...
    def get_session(self, session_id: str) -> Session: ...
    def list_turns(
        self, session_id: str, *, limit: int = 100, cursor: str | None = None, offset: int = 0
    ) -> TurnPage: ...


class RetrievedEntity(BaseModel):
    id: str  # entity:<type>/<key>, as the memory's other answers name it
    name: str
    type: str
    description: str
    matched: str  # the identifier in the message that found it


class StoredMessage(BaseModel):
    """One stored half of a turn, as the memory holds it."""

    turn_id: str  # the protocol's turn id
    turn_key: str
    role: Role
    sender_kind: str  # "user" or "assistant" (or what the conversation says its sender is)
    content: str
    stored_turn_id: str  # the memory's id of the stored turn (turn:...)
    session_id: str
    refers_to: list[str]
    replayed: bool = False
    # A message longer than one turn holds (PART_CHARS): the turns that hold the rest.
    continued_turn_ids: list[str] = []


class OpenedTurn(BaseModel):
    turn_id: str
    retrieved: list[RetrievedEntity]
    user: StoredMessage

    @property
    def retrieved_entity_ids(self) -> list[str]:
        """The ids of the entities retrieved for the turn, in order."""
        return [e.id for e in self.retrieved]


class TurnResult(BaseModel):
    """What :func:`with_memory` returns: the reply and both stored messages."""

    reply: str
    retrieved: list[RetrievedEntity]
    user: StoredMessage
    assistant: StoredMessage


@dataclass
class TurnContext:
    """Handed to the agent function: what memory retrieved for this turn, and the context
    payload to put in the model's prompt (standing instructions, current facts, passages;
    None when the memory could not be asked)."""

    conversation_id: str
    turn_id: str
    retrieved: list[RetrievedEntity] = field(default_factory=list)
    memory: MemoryContext | None = None


PART_CHARS = Limits().content_hard_chars  # the most one turn holds


def _parts(text: str, most: int) -> list[str]:
    """``text`` in pieces of at most ``most`` characters, cut after a line break or a space
    where there is one in the piece's second half; joined, they are ``text`` (less any
    whitespace past the last piece's limit)."""
    parts = []
    while len(text) > most and text[most:].strip():
        cut = max(text.rfind("\n", most // 2, most), text.rfind(" ", most // 2, most))
        cut = cut + 1 if cut > 0 else most
        parts.append(text[:cut])
        text = text[cut:]
    # Past the limit only whitespace is left: a turn cannot hold it alone, and it says nothing.
    return [*parts, text[:most]]


def _part(value: str) -> str:
    """``value`` percent-encoded byte by byte (UTF-8): one spelling per value, no ':'."""
    return quote(value, safe="")


_PLATFORM = re.compile(r"[A-Za-z0-9._]{1,60}")
_CONVERSATION = re.compile(r"[A-Za-z0-9._:-]{1,120}")


def _session_id(platform: str, conversation_id: str) -> str:
    """The conversation's session: ``session:conv-{platform}-{conversation_id}`` (as earlier
    versions named it, so a conversation keeps its history across an upgrade) when the
    platform has no "-" and the id only characters a session id may hold; else one named by
    a digest of both."""
    if _PLATFORM.fullmatch(platform) and _CONVERSATION.fullmatch(conversation_id):
        return f"session:conv-{platform}-{conversation_id}"
    digest = hashlib.sha256(f"{platform}\n{conversation_id}".encode()).hexdigest()[:40]
    return f"session:conv-h-{digest}"


def _bounded(key: str, most: int = 180) -> str:
    """``key``, or for a long one its start and a digest of the whole (still one per key)."""
    if len(key) <= most:
        return key
    return f"{key[: most - 41]}~{hashlib.sha256(key.encode()).hexdigest()[:40]}"


class TurnMemory:
    """The turn protocol for one conversation. Async methods, with sync twins
    (``open_turn_sync``, ...)."""

    def __init__(
        self,
        memory: MemoryCalls,
        *,
        conversation_id: str,
        platform: str = "python",
        max_entities: int = DEFAULT_LIMIT,
        sender_kind: str = "user",
    ) -> None:
        if not isinstance(conversation_id, str) or not conversation_id.strip():
            raise ValidationError(
                "conversation_id must be a non-empty string", field="conversation_id"
            )
        self.memory = memory
        self.conversation_id = conversation_id
        self.platform = platform
        self.max_entities = max_entities
        self.sender_kind = sender_kind
        self.conversation = _bounded(f"conversation {platform}:{conversation_id}")
        self.session_id = _session_id(platform, conversation_id)
        self._session_ready = False
        self._open: set[str] = set()

    # -- ids ---------------------------------------------------------------------------------

    @staticmethod
    def new_turn_id(message_id: str | None = None) -> str:
        """A turn id unique across processes and restarts: derived from the platform's
        message id when there is one, else random."""
        return f"m-{message_id}" if message_id else uuid.uuid4().hex

    def turn_key(self, turn_id: str, role: Role) -> str:
        """The message's name: platform, conversation and turn, each part percent-encoded so
        no two of them can spell the same key (``a-b`` / ``c`` and ``a`` / ``b-c`` differ,
        and so do one conversation id on two platforms)."""
        base = f"{_part(self.platform)}:{_part(self.conversation_id)}:{_part(turn_id)}"
        return _bounded(base if role == "user" else f"{base}:assistant")

    def idempotency_key(self, turn_id: str, role: Role) -> str:
        return _bounded(f"conversation:{self.turn_key(turn_id, 'user')}:{role}")

    # -- the protocol ----------------------------------------------------------------------

    async def context_for(self, message: str, **options: Any) -> MemoryContext | None:
        """The context payload for a message (:meth:`turngraph.Memory.context`), or None
        when the memory cannot be asked: like retrieval, a failure is logged, never fatal."""
        try:
            return await asyncio.to_thread(self.memory.context, message, **options)
        except Exception as exc:  # the turn goes on without memory's context
            log.warning("the memory's context for the turn failed: %s", exc)
            return None

    async def open_turn(
        self, turn_id: str | None = None, *, user_message: str, message_id: str | None = None
    ) -> OpenedTurn:
        """Bounded retrieval of what the message names, then the user message stored."""
        return await asyncio.to_thread(
            self.open_turn_sync, turn_id, user_message=user_message, message_id=message_id
        )

    async def close_turn(
        self,
        turn_id: str,
        *,
        assistant_message: str,
        refers_to: Sequence[str] | None = None,
        retrieved: Sequence[RetrievedEntity] | None = None,
    ) -> StoredMessage:
        """Store the reply. ``refers_to`` names what it cites; by default, the retrieved
        entities its text mentions."""
        return await asyncio.to_thread(
            self.close_turn_sync,
            turn_id,
            assistant_message=assistant_message,
            refers_to=refers_to,
            retrieved=retrieved,
        )

    def open_turn_sync(
        self, turn_id: str | None = None, *, user_message: str, message_id: str | None = None
    ) -> OpenedTurn:
        if self._open:
            log.warning(
                "conversation %s: turn(s) %s opened and not closed",
                self.conversation_id,
                ", ".join(sorted(self._open)),
            )
        tid = turn_id or self.new_turn_id(message_id)
        retrieved = self.retrieve(user_message)
        user = self.store_message(tid, "user", user_message, refers_to=[e.name for e in retrieved])
        self._open.add(tid)
        return OpenedTurn(turn_id=tid, retrieved=retrieved, user=user)

    def close_turn_sync(
        self,
        turn_id: str,
        *,
        assistant_message: str,
        refers_to: Sequence[str] | None = None,
        retrieved: Sequence[RetrievedEntity] | None = None,
    ) -> StoredMessage:
        if refers_to is None:
            text = assistant_message.casefold()
            refers_to = [e.name for e in retrieved or () if e.name.casefold() in text]
        stored = self.store_message(turn_id, "assistant", assistant_message, refers_to=refers_to)
        self._open.discard(turn_id)
        return stored

    def retrieve(self, message: str) -> list[RetrievedEntity]:
        """Look up the identifiers the message names (at most ``max_entities``); a failed
        look-up is logged and skipped, never fatal."""
        found: dict[str, RetrievedEntity] = {}
        for ident in extract_identifiers(message, limit=self.max_entities):
            try:
                entity = self._lookup(ident)
            except Exception as exc:  # a refused call, a lost connection, a retry given up
                log.warning("retrieval of %r failed: %s", ident, exc)
                continue
            if entity is not None and entity.name not in found:
                found[entity.name] = RetrievedEntity(
                    id=entity_ref(entity.type, name_key(entity.name)),
                    name=entity.name,
                    type=entity.type,
                    description=entity.description,
                    matched=ident,
                )
        return list(found.values())

    def _lookup(self, ident: str) -> Entity | None:
        """The entity an identifier names: by exact name or alias, then by a phrase without
        its leading words ("Compare Project Falcon" -> "Project Falcon"), then as the best
        lexical entity match that contains it."""
        words = ident.split()
        for start in range(len(words)):
            try:
                entity = self.memory.get_entity(" ".join(words[start:]))
            except NotFoundError:
                continue
            return None if entity.type in STRUCTURAL else entity
        hits = self.memory.recall(ident, k=1, mode="lexical", max_entities=1).entities
        if not hits or ident.casefold() not in hits[0].name.casefold():
            return None
        entity = self.memory.get_entity(hits[0].name)
        return None if entity.type in STRUCTURAL else entity

    def store_message(
        self, turn_id: str, role: Role, content: str, *, refers_to: Sequence[str] = ()
    ) -> StoredMessage:
        """One message in one atomic write (see the module docstring)."""
        if role not in ("user", "assistant"):
            raise ValidationError("role must be user or assistant", field="role")
        key = self.turn_key(turn_id, role)
        self._check_role(key, role)
        session = self._session()
        kind = self.sender_kind if role == "user" else "assistant"
        message = {
            "type": "conversation_message",
            "name": key,
            "description": f"{role} message (sender_kind {kind}) in {self.conversation}",
        }
        links: list[Mapping[str, Any]] = [
            {
                "entity": message,
                "key": "part_of",
                "target": {
                    "type": "conversation",
                    "name": self.conversation,
                    "description": f"{self.platform} conversation {self.conversation_id}",
                },
            }
        ]
        names = list(dict.fromkeys(refers_to))
        for name in names:
            try:
                target = self.memory.get_entity(name)
            except NotFoundError:
                continue
            links.append(
                {
                    "entity": message,
                    "key": "refers_to",
                    "target": {"type": target.type, "name": target.name},
                }
            )
        labels = [f"turn_id={turn_id}", f"turn_key={key}", f"role={role}", f"sender_kind={kind}"]
        first, *more = _parts(content, PART_CHARS)
        result = self.memory.remember(
            first,
            session_id=session,
            role=role,
            labels=[*labels, f"part=1/{len(more) + 1}"] if more else labels,
            links=links,
            idempotency_key=self.idempotency_key(turn_id, role),
        )
        rest: list[str] = []
        if more:
            # A message longer than one turn holds: the rest follows as turns of its own,
            # in order, one write, so the text stored is the text said, whole.
            batch = self.memory.remember_many(
                [{"role": role, "content": part} for part in more],
                session_id=session,
                labels=[*labels, "part=continued"],
                idempotency_key=f"{self.idempotency_key(turn_id, role)}:rest",
            )
            rest = list(batch.turn_ids)
        return StoredMessage(
            turn_id=turn_id,
            turn_key=key,
            role=role,
            sender_kind=kind,
            content=content,
            stored_turn_id=result.turn_id,
            session_id=result.session_id,
            refers_to=[link["target"]["name"] for link in links[1:]],
            replayed=result.replayed,
            continued_turn_ids=rest,
        )

    def _check_role(self, key: str, role: Role) -> None:
        try:
            existing = self.memory.get_entity(key)
        except NotFoundError:
            return
        stored = existing.description.split(" ", 1)[0]
        if existing.type == "conversation_message" and stored != role:
            raise ConflictError(
                f"turn_key {key!r} is stored with role {stored!r}; it cannot hold a {role!r} "
                "message",
                turn_key=key,
            )

    def _session(self) -> str:
        if not self._session_ready:
            self.memory.create_session(
                {"conversation_id": self.conversation_id, "platform": self.platform},
                session_id=self.session_id,
            )
            self._session_ready = True
        return self.session_id

    def open_turns(self) -> list[str]:
        """Turn ids of this conversation with a stored user message and no reply."""
        users: dict[str, None] = {}
        replied: set[str] = set()
        cursor: str | None = None
        while True:
            page = self.memory.list_turns(self._session(), limit=500, cursor=cursor)
            for turn in page.turns:
                labels = dict(label.split("=", 1) for label in turn.labels if "=" in label)
                tid = labels.get("turn_id")
                if tid is None:
                    continue
                if labels.get("role") == "assistant":
                    replied.add(tid)
                else:
                    users.setdefault(tid)
            if not page.has_more or page.next_cursor is None:
                break
            cursor = page.next_cursor
        return [tid for tid in users if tid not in replied]


class AgentReply(BaseModel):
    """What an agent function may return instead of the bare text: the reply and the
    entities it produced or cited, which the stored reply REFERS_TO (by name; names the
    memory does not hold are skipped)."""

    text: str
    refers_to: list[str] = []


AgentFn = Callable[[str, TurnContext], "str | AgentReply | Awaitable[str | AgentReply]"]


def with_memory(
    agent_fn: AgentFn,
    *,
    memory: MemoryCalls,
    conversation_id: str,
    platform: str = "python",
) -> Callable[..., Awaitable[TurnResult]]:
    """Wrap ``agent_fn`` (sync or async, ``(user_message, ctx) -> reply``, the reply as text
    or as an :class:`AgentReply` naming the entities it produced or cited) so that each call
    is one turn with memory: retrieval first (in ``ctx.retrieved``), the user message
    stored, the agent run, the reply stored. ``await turn(user_message, turn_id=None,
    message_id=None)`` returns the reply, what was retrieved and both stored messages. If the
    agent raises, the user message stays stored and the turn stays open (listed by
    ``TurnMemory.open_turns``)."""
    turns = TurnMemory(memory, conversation_id=conversation_id, platform=platform)

    async def turn(
        user_message: str, *, turn_id: str | None = None, message_id: str | None = None
    ) -> TurnResult:
        # Asked before the message is stored: the message itself is no context for itself.
        payload = await turns.context_for(user_message)
        opened = await turns.open_turn(turn_id, user_message=user_message, message_id=message_id)
        ctx = TurnContext(conversation_id, opened.turn_id, list(opened.retrieved), payload)
        answer: Any = agent_fn(user_message, ctx)
        if inspect.isawaitable(answer):
            answer = await answer
        refers_to: list[str] | None = None
        if isinstance(answer, AgentReply):
            reply, refers_to = answer.text, list(answer.refers_to)
        elif isinstance(answer, str):
            reply = answer
        else:
            raise ValidationError(
                "the agent function must return the reply text or an AgentReply", field="reply"
            )
        assistant = await turns.close_turn(
            opened.turn_id, assistant_message=reply, refers_to=refers_to, retrieved=opened.retrieved
        )
        return TurnResult(
            reply=reply, retrieved=opened.retrieved, user=opened.user, assistant=assistant
        )

    return turn
