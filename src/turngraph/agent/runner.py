"""The turn runner: one turn of a chat agent, transport-neutral, in a fixed order.

recall this conversation's history (oldest first) > collect context (required providers fail
closed, optional ones warn and drop out) > respond (which may acknowledge) > deliver and check
the receipt > save the turn only after confirmed delivery. History lives in turngraph: each
conversation tag is one session, its turns the history; a saved turn may carry a TTL after
which it is no longer recalled. Events are logged on the ``turngraph.turn`` logger with the
event name as the message (``turn.started``, ``turn.memory-recalled``, ...), its fields in
``record.turn``.
"""

from __future__ import annotations

import asyncio
import hashlib
import inspect
import logging
import re
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import turngraph
from turngraph.agent.protocol import MemoryCalls

TURN_KIT_VERSION = turngraph.__version__
if TYPE_CHECKING:
    from turngraph.agent.assistant import TurnPersona

log = logging.getLogger("turngraph.turn")
_NAMESPACE = re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$")
HISTORY_WINDOW = 200  # newest turns of a session read to build the history
PAIR_LABEL = "pair"  # a turn's user message and reply, saved together as two turns


class UnconfirmedTurnDeliveryError(RuntimeError):
    """The transport's receipt did not confirm the reply was delivered."""


class UnconfirmedTurnActionError(RuntimeError):
    """A provider action's receipt did not confirm the action happened."""


class ProviderAPIError(RuntimeError):
    """A chat provider's API refused a call; ``retry_after`` (seconds) is set when it asked
    the caller to slow down (HTTP 429)."""

    provider = "provider"

    def __init__(self, method: str, status: int, detail: str, retry_after: int | None) -> None:
        super().__init__(f"{self.provider} {method} failed ({status}): {detail}"[:300])
        self.status = status
        self.detail = detail
        self.retry_after = retry_after


def _event(level: int, name: str, **fields: Any) -> None:
    log.log(level, name, extra={"turn": fields})


def _enc(value: str) -> str:
    return quote(value, safe="!*'()")


def conversation_key(root: str | int, thread: str | int | None = None) -> str:
    """A conversation's id from its root (chat, channel) and optional thread; parts are
    percent-encoded, so ids with delimiters cannot collide."""
    base = str(root).strip()
    if not base:
        raise ValueError("conversation root cannot be empty")
    if thread is None or not str(thread).strip():
        return _enc(base)
    return f"{_enc(base)}:{_enc(str(thread).strip())}"


def _check_namespace(namespace: str) -> str:
    ns = str(namespace).strip()
    if not _NAMESPACE.match(ns):
        raise ValueError("turn namespace must be a lowercase slug")
    return ns


def conversation_tag(namespace: str, transport: str, conversation_id: str) -> str:
    ns = _check_namespace(namespace)
    if not str(transport).strip():
        raise ValueError("conversation transport cannot be empty")
    if not str(conversation_id).strip():
        raise ValueError("conversation id cannot be empty")
    return f"turn:{ns}:{_enc(str(transport).strip())}:{_enc(str(conversation_id).strip())}"


@dataclass(frozen=True)
class Conversation:
    """Where a turn happens: the transport and its conversation id, and optionally a
    session id resolved elsewhere (affinity across surfaces: the same session for the
    person's Telegram and Slack conversations); without one, the conversation's own."""

    transport: str
    id: str
    session_id: str | None = None


@dataclass(frozen=True)
class HistoryItem:
    content: str
    created_at: str | None = None


@dataclass(frozen=True)
class ContextBlock:
    id: str
    label: str
    content: str
    importance: float | None = None
    source: str | None = None
    category: str | None = None
    metadata: dict[str, Any] | None = None


Collect = Callable[..., "Any | Awaitable[Any]"]


@dataclass(frozen=True)
class ContextProvider:
    name: str
    collect: Collect
    optional: bool = False


def define_context(name: str, collect: Collect, *, optional: bool = False) -> ContextProvider:
    if not str(name).strip():
        raise ValueError("turn context provider name is required")
    return ContextProvider(str(name).strip(), collect, optional)


def normalize_history(recalled: Any, recall_order: str = "newest-first") -> list[HistoryItem]:
    """Recalled items, oldest first: dated items sorted by time, else by ``recall_order``."""
    if not isinstance(recalled, list):
        return []
    items: list[HistoryItem] = []
    for item in recalled:
        if isinstance(item, str):
            if item.strip():
                items.append(HistoryItem(item.strip()))
        elif isinstance(item, dict):
            content = item.get("content")
            if isinstance(content, str) and content.strip():
                created = item.get("createdAt", item.get("created_at"))
                items.append(
                    HistoryItem(
                        content, created if isinstance(created, str) and created.strip() else None
                    )
                )
    times = [_parse(i.created_at) for i in items]
    dated = [t for t in times if t is not None]
    if items and len(dated) == len(items):
        order = sorted(range(len(items)), key=lambda i: dated[i])
        return [items[i] for i in order]
    return items[::-1] if recall_order == "newest-first" else items


def _parse(value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


@dataclass
class TurnRunResult:
    reply: str
    receipt: Any
    context: list[ContextBlock]
    acknowledgements: int
    memory_saved: bool


@dataclass
class RespondArgs:
    conversation: Conversation
    input: str
    history: list[HistoryItem]
    context: list[ContextBlock]
    acknowledge: Callable[[str], Awaitable[bool]]
    extra: dict[str, Any] = field(default_factory=dict)


async def _maybe(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


class TurnRunner:
    """Runs turns of one agent (``namespace``) over turngraph memory (``memory=False``
    turns memory off)."""

    def __init__(
        self,
        *,
        namespace: str | None = None,
        memory: MemoryCalls | bool | None,
        context: Sequence[ContextProvider] = (),
        history_limit: int = 8,
        ttl_seconds: float | None = None,
        required_memory: bool = False,
        user_label: str | None = None,
        assistant_label: str | None = None,
        clock: Callable[[], float] = time.time,
        memory_context_tokens: int = 800,
        history_query: str | None = None,
        persona: TurnPersona | None = None,
    ) -> None:
        if persona is not None:  # its id names the agent; its memory's ttl_days bounds history
            namespace = namespace or persona.id
            if ttl_seconds is None:
                ttl_seconds = persona.memory.ttl_seconds
        if namespace is None:
            raise ValueError("a turn runner needs a namespace (or a persona to take it from)")
        self.persona = persona
        self.namespace = _check_namespace(namespace)
        self.memory = None if memory is False or memory is True else memory
        if memory is True:
            raise ValueError("memory must be a turngraph memory, or False to turn it off")
        self.context = list(context)
        self.history_limit = history_limit
        self.ttl_seconds = ttl_seconds
        self.required_memory = required_memory
        self.user_label = user_label
        self.assistant_label = assistant_label
        self.clock = clock
        self.memory_context_tokens = memory_context_tokens  # 0 turns the memory block off
        self.history_query = history_query
        self._sessions: dict[str, str] = {}

    # -- memory ----------------------------------------------------------------------------

    def session_for(self, tag: str) -> str:
        """The session that holds a conversation's history: the one a conversation named
        (``Conversation.session_id``, or ``session_id`` given to a public call), else one
        derived from its tag."""
        named = self._sessions.get(tag)
        return named or "session:tag-" + hashlib.sha256(tag.encode()).hexdigest()[:40]

    def _bind(self, tag: str, session_id: str | None) -> None:
        if session_id is not None:
            self._sessions[tag] = session_id

    async def recall_history(
        self, tag: str, *, limit: int | None = None, session_id: str | None = None
    ) -> list[HistoryItem]:
        """The conversation's history, oldest first: its newest ``limit`` entries (a saved
        pair is one entry), or with ``history_query`` the entries recall finds for that
        query among them."""
        self._bind(tag, session_id)
        limit = self.history_limit if limit is None else limit
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise ValueError("turn memory limit must be positive")
        if self.memory is None:
            return []
        try:
            items = await asyncio.to_thread(self._recall, tag, limit)
        except Exception as exc:
            _event(logging.WARNING, "turn-kit.memory-recall-failed", error=str(exc))
            if self.required_memory:
                raise
            return []
        _event(logging.INFO, "turn-kit.memory-recalled", entries=len(items))
        return normalize_history(items, "oldest-first")

    async def memory_context(self, text: str) -> ContextBlock | None:
        """The memory's context payload for the message (standing instructions, current
        facts, passages; :meth:`turngraph.Memory.context`) as the first context block, id
        ``memory``; None when memory is off, has nothing, or fails (a failure is logged and
        only fatal with ``required_memory``)."""
        if self.memory is None or not self.memory_context_tokens:
            return None
        try:
            found = await asyncio.to_thread(
                self.memory.context, text, max_tokens=self.memory_context_tokens
            )
        except Exception as exc:
            _event(logging.WARNING, "turn-kit.memory-context-failed", error=str(exc))
            if self.required_memory:
                raise
            return None
        if not found.text.strip():
            return None
        return ContextBlock("memory", "What memory holds", found.text, source="turngraph")

    def _recall(self, tag: str, limit: int) -> list[dict[str, Any]]:
        assert self.memory is not None
        session = self.session_for(tag)
        try:
            count = self.memory.get_session(session).turn_count
        except turngraph.NotFoundError:
            return []
        page = self.memory.list_turns(
            session, limit=HISTORY_WINDOW, offset=max(0, count - HISTORY_WINDOW)
        )
        now = datetime.fromtimestamp(self.clock(), UTC)
        live: list[dict[str, Any]] = []
        user, assistant = self.user_label or "User", self.assistant_label or "Assistant"
        for turn in page.turns:
            labels = dict(label.split("=", 1) for label in turn.labels if "=" in label)
            expires = _parse(labels.get("expires_at"))
            if expires is not None and expires <= now:
                continue
            paired = PAIR_LABEL in turn.labels
            if paired and turn.role == "assistant" and live and live[-1].get("pair"):
                # the reply joins its user message: one entry, as the pair was said
                live[-1] = {
                    **live[-1],
                    "content": f"{live[-1]['content']}\n{assistant}: {turn.content}",
                    "pair": False,
                    "ids": [*live[-1]["ids"], turn.id],
                }
                continue
            # a reply whose user half fell outside the window is still the assistant's
            speaker = assistant if turn.role == "assistant" else user
            content = f"{speaker}: {turn.content}" if paired else turn.content
            live.append(
                {
                    "content": content,
                    "createdAt": turn.observed_at.isoformat(),
                    "pair": paired,
                    "ids": [turn.id],
                }
            )
        if self.history_query:
            live = self._relevant(session, live, limit)
        return [{"content": x["content"], "createdAt": x["createdAt"]} for x in live[-limit:]]

    def _relevant(
        self, session: str, live: list[dict[str, Any]], limit: int
    ) -> list[dict[str, Any]]:
        """The ``limit`` entries holding the turns recall ranks best for ``history_query`` in
        this session, oldest first; all of them when recall finds none."""
        assert self.memory is not None
        assert self.history_query
        found = self.memory.recall(
            self.history_query, k=max(limit * 2, 10), session_id=session, include=("passages",)
        )
        rank = {h.source.turn_id: i for i, h in reversed(list(enumerate(found.hits)))}
        ranked = sorted(
            (min(rank.get(t, len(rank)) for t in x["ids"]), place)
            for place, x in enumerate(live)
            if any(t in rank for t in x["ids"])
        )
        best = sorted(place for _, place in ranked[:limit])  # the best, oldest first
        return [live[p] for p in best] or live

    async def save(self, tag: str, content: str, *, role: str = "user") -> bool:
        """Save one record into the conversation's history (the same semantics as the
        pair: events, a receipt checked, fatal only with ``required_memory``)."""
        text = content.strip()
        if not text:
            raise ValueError("turn memory content cannot be empty")
        if self.memory is None:
            return False
        return await self._saved(self._save, tag, text, role)

    async def save_pair(self, tag: str, text: str, reply: str) -> bool:
        """Save a turn's user message and reply as two turns with their roles, in one atomic
        write: only the user's words make facts about the user (a reply that says "I live in
        Paris" is the assistant's), and history shows the pair as one entry."""
        if not text.strip() or not reply.strip():
            raise ValueError("turn memory content cannot be empty")
        if self.memory is None:
            return False
        return await self._saved(self._save_pair, tag, text.strip(), reply.strip())

    async def _saved(self, call: Callable[..., Any], *args: Any) -> bool:
        try:
            receipt = await asyncio.to_thread(call, *args)
        except Exception as exc:
            _event(logging.WARNING, "turn-kit.memory-save-failed", error=str(exc))
            if self.required_memory:
                raise
            return False
        ids = getattr(receipt, "turn_ids", None) or [getattr(receipt, "turn_id", None)]
        if receipt is None or not all(ids):
            _event(logging.WARNING, "turn-kit.memory-save-unconfirmed")
            if self.required_memory:
                raise RuntimeError("turn memory save returned no receipt")
            return False
        _event(logging.INFO, "turn-kit.memory-saved", id=ids[0])
        return True

    def _labels(self, tag: str, now: datetime) -> tuple[str, list[str]]:
        """The conversation's session, created if new, and the labels a saved turn gets."""
        assert self.memory is not None
        session = self.session_for(tag)
        self.memory.create_session({"tag": tag}, session_id=session)
        labels = [f"namespace={self.namespace}"]
        if self.ttl_seconds is not None:
            expires = now + timedelta(seconds=self.ttl_seconds)
            labels.append(f"expires_at={expires.isoformat()}")
        return session, labels

    def _save(self, tag: str, text: str, role: str) -> Any:
        assert self.memory is not None
        now = datetime.fromtimestamp(self.clock(), UTC)
        session, labels = self._labels(tag, now)
        return self.memory.remember(
            text, session_id=session, role=role, labels=labels, observed_at=now
        )

    def _save_pair(self, tag: str, text: str, reply: str) -> Any:
        assert self.memory is not None
        now = datetime.fromtimestamp(self.clock(), UTC)
        session, labels = self._labels(tag, now)
        user: dict[str, Any] = {"role": "user", "content": text, "ts": now.isoformat()}
        if self.user_label:
            user["speaker"] = self.user_label
        return self.memory.remember_many(
            [user, {"role": "assistant", "content": reply, "ts": now.isoformat()}],
            session_id=session,
            labels=[*labels, PAIR_LABEL],
        )

    async def remember_assistant_message(
        self, conversation: Conversation, text: str, *, label: str | None = None
    ) -> bool:
        """Save proactive output (a reminder, say) into the conversation's history."""
        message = str(text).strip()
        if not message:
            raise ValueError("turn memory message cannot be empty")
        name = label.strip() if label and label.strip() else "Assistant"
        tag = conversation_tag(self.namespace, conversation.transport, conversation.id)
        return await self.save(tag, f"{name}: {message}", role="assistant")

    # -- context ---------------------------------------------------------------------------

    async def remember_turn(
        self,
        tag: str,
        input: str,
        reply: str,
        *,
        remember: str | None = None,
        session_id: str | None = None,
    ) -> bool:
        """Save a turn as the runner does after delivery: ``remember`` (an explicit record)
        when given, else the user's input and the reply as a pair. For agents with their own
        lifecycle; the same events, receipt check and ``required_memory`` rule."""
        self._bind(tag, session_id)
        if remember is not None:
            if not remember.strip():
                raise ValueError("explicit turn memory cannot be empty")
            return await self.save(tag, remember)
        return await self.save_pair(tag, input, reply)

    async def collect_turn_context(
        self, conversation: Conversation, input: str, history: Sequence[HistoryItem] = ()
    ) -> list[ContextBlock]:
        """The context blocks a turn gets: the memory's context payload first (block id
        ``memory``), then each provider's, in order (required providers fail closed)."""
        known = await self.memory_context(input)
        blocks = await self._collect(conversation, input, list(history))
        return [known, *blocks] if known is not None else blocks

    async def _collect(
        self, conversation: Conversation, text: str, history: list[HistoryItem]
    ) -> list[ContextBlock]:
        async def one(provider: ContextProvider) -> list[ContextBlock]:
            try:
                out = await _maybe(
                    provider.collect(conversation=conversation, input=text, history=history)
                )
                blocks = [] if out is None else out if isinstance(out, list) else [out]
                checked = []
                for block in blocks:
                    b = block if isinstance(block, ContextBlock) else ContextBlock(**block)
                    bid, label, content = b.id.strip(), b.label.strip(), b.content.strip()
                    if not (bid and label and content):
                        raise ValueError(
                            f"turn context provider {provider.name} returned an empty section"
                        )
                    checked.append(
                        ContextBlock(
                            bid,
                            label,
                            content,
                            b.importance,
                            b.source.strip() if b.source else b.source,
                            b.category,
                            b.metadata,
                        )
                    )
                return checked
            except Exception as exc:
                _event(
                    logging.WARNING if provider.optional else logging.ERROR,
                    "turn-kit.context-provider-failed",
                    provider=provider.name,
                    optional=provider.optional,
                    error=str(exc),
                )
                if not provider.optional:
                    raise
                return []

        groups = await asyncio.gather(*(one(p) for p in self.context))
        blocks = [b for group in groups for b in group]
        seen: set[str] = set()
        for b in blocks:
            if b.id in seen:
                raise ValueError(f"duplicate turn context id: {b.id}")
            seen.add(b.id)
        _event(
            logging.INFO,
            "turn-kit.context-collected",
            providers=len(self.context),
            sections=len(blocks),
        )
        return blocks

    # -- the turn --------------------------------------------------------------------------

    async def run(
        self,
        *,
        conversation: Conversation,
        input: str,
        respond: Callable[[RespondArgs], Any],
        deliver: Callable[[str], Any],
        acknowledge: Callable[[str], Any] | None = None,
        confirm_delivery: Callable[[Any], Any] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> TurnRunResult:
        text = str(input).strip()
        if not text:
            raise ValueError("turn input cannot be empty")
        tag = conversation_tag(self.namespace, conversation.transport, conversation.id)
        _event(
            logging.INFO,
            "turn-kit.started",
            version=TURN_KIT_VERSION,
            namespace=self.namespace,
            transport=conversation.transport,
        )
        self._bind(tag, conversation.session_id)
        history = await self.recall_history(tag)
        context = await self.collect_turn_context(conversation, text, history)
        acks = 0

        async def ack(message: str) -> bool:
            nonlocal acks
            body = str(message).strip()
            if not body or acknowledge is None:
                return False
            try:
                await _maybe(acknowledge(body))
            except Exception as exc:
                _event(
                    logging.WARNING,
                    "turn-kit.acknowledgement-failed",
                    namespace=self.namespace,
                    error=str(exc),
                )
                return False
            acks += 1
            _event(logging.INFO, "turn-kit.acknowledged", namespace=self.namespace)
            return True

        answer = await _maybe(
            respond(RespondArgs(conversation, text, history, context, ack, dict(extra or {})))
        )
        remember: str | bool | None = None
        if isinstance(answer, dict):
            reply, remember = answer.get("reply"), answer.get("remember")
        else:
            reply = answer
        reply = str(reply or "").strip()
        if not reply:
            raise ValueError("turn response cannot be empty")
        if isinstance(remember, str) and not remember.strip():
            raise ValueError("explicit turn memory cannot be empty")
        receipt = await _maybe(deliver(reply))
        if confirm_delivery is not None and not await _maybe(confirm_delivery(receipt)):
            _event(logging.ERROR, "turn-kit.delivery-unconfirmed", namespace=self.namespace)
            raise UnconfirmedTurnDeliveryError(
                f"{self.namespace} final turn delivery returned an unconfirmed receipt"
            )
        saved = False
        if self.memory is not None and isinstance(remember, str):
            saved = await self.save(tag, remember)
        elif self.memory is not None and remember is not False:
            saved = await self.save_pair(tag, text, reply)
        _event(
            logging.INFO,
            "turn-kit.completed",
            namespace=self.namespace,
            acknowledgements=acks,
            context=len(context),
            memory_saved=saved,
        )
        return TurnRunResult(reply, receipt, context, acks, saved)


async def run_confirmed_action(
    *,
    name: str,
    perform: Callable[[], Any],
    confirm: Callable[[Any], Any],
    confirmed: Callable[[Any], Any],
) -> Any:
    """Perform a provider action; only a confirmed receipt builds the success text."""
    action = str(name).strip()
    if not action:
        raise ValueError("turn action name is required")
    receipt = await _maybe(perform())
    if not await _maybe(confirm(receipt)):
        _event(logging.ERROR, "turn-kit.action-unconfirmed", action=action)
        raise UnconfirmedTurnActionError(
            f'turn action "{action}" returned an unconfirmed provider receipt'
        )
    _event(logging.INFO, "turn-kit.action-confirmed", action=action)
    return await _maybe(confirmed(receipt))
