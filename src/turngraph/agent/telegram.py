"""Telegram: Bot API updates in, threaded replies out, through the turn runner.

The adapter normalizes an update (``message``, ``edited_message``, ``business_message``,
``channel_post``; callback queries are not messages and are skipped), filters it to the owner
chat (which must be a private chat unless groups are allowed; it fails closed), keeps forum
topic identity (the thread id is used only for topic messages), passes the text being replied
to, sends a "typing" action and threaded acknowledgements, chunks replies at 4096 UTF-16
units on line boundaries, and checks a receipt for every chunk. It talks to the Bot API over
httpx with a configurable base URL.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

from turngraph.agent.ledger import EventLedger
from turngraph.agent.runner import (
    Conversation,
    ProviderAPIError,
    RespondArgs,
    TurnRunner,
    TurnRunResult,
    conversation_key,
)
from turngraph.agent.webhooks import read_json, verify_telegram_request

log = logging.getLogger("turngraph.telegram")
LIMIT = 4096
MESSAGE_KEYS = ("message", "edited_message", "business_message", "channel_post")


class TelegramAPIError(ProviderAPIError):
    """The Bot API refused a call; ``retry_after`` is set on flood control (429)."""

    provider = "Telegram"


@dataclass(frozen=True)
class TelegramMessage:
    chat_id: str
    message_id: str
    text: str
    thread_id: str | None = None
    is_topic: bool = False
    reply_text: str | None = None
    from_is_bot: bool = False
    chat_type: str | None = None


def _value(*candidates: Any) -> str | None:
    for c in candidates:
        if isinstance(c, bool):
            continue
        if isinstance(c, int | float) or (isinstance(c, str) and c != ""):
            return str(c)
    return None


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def read_telegram_message(payload: Any) -> TelegramMessage | None:
    """The message in a Bot API update (or a webhook envelope around one); None if unusable."""
    if not isinstance(payload, dict):
        return None
    envelope = payload["data"] if isinstance(payload.get("data"), dict) else payload
    normalized = _dict(envelope.get("telegram")) or _dict(payload.get("telegram"))
    raw: dict[str, Any] = next(
        (envelope[k] for k in MESSAGE_KEYS if isinstance(envelope.get(k), dict)), {}
    )
    data = normalized or raw or envelope
    chat = _dict(raw.get("chat")) or _dict(data.get("chat"))
    chat_id = _value(data.get("chatId"), chat.get("id"))
    message_id = _value(data.get("messageId"), data.get("message_id"))
    if chat_id is None or message_id is None:
        return None
    reply = _dict(raw.get("reply_to_message"))
    sender = _dict(raw.get("from")) or _dict(data.get("from"))
    return TelegramMessage(
        chat_id=chat_id,
        message_id=message_id,
        text=_value(data.get("text"), raw.get("text"), data.get("caption"), raw.get("caption"))
        or "",
        thread_id=_value(
            data.get("messageThreadId"),
            data.get("message_thread_id"),
            raw.get("message_thread_id"),
        ),
        is_topic=bool(raw.get("is_topic_message") or data.get("is_topic_message")),
        reply_text=_value(reply.get("text"), reply.get("caption")),
        from_is_bot=bool(sender.get("is_bot", data.get("fromIsBot", False))),
        chat_type=_value(chat.get("type")),
    )


def bare(chat_id: Any) -> str:
    """A chat id without the ``__<title>`` suffix some relays append."""
    return str(chat_id).split("__")[0].strip()


def telegram_skip_reason(
    message: TelegramMessage, owner_chat: str | None, *, allow_groups: bool = False
) -> str | None:
    """Why this message is not for the agent (None: it is). Fails closed."""
    if message.from_is_bot:
        return "bot message"
    if owner_chat is None or not str(owner_chat).strip():
        return "no owner chat configured"
    if bare(message.chat_id) != bare(owner_chat):
        return "not the owner chat"
    if not allow_groups and message.chat_type not in (None, "private"):
        return "not a private chat"
    if not message.text.strip():
        return "empty message text"
    return None


def _units(ch: str) -> int:
    return 2 if ord(ch) > 0xFFFF else 1


def chunk_text(text: str, limit: int = LIMIT) -> list[str]:
    """Pieces of at most ``limit`` UTF-16 units (Telegram's measure), cut at the last line
    break in the second half of the window, else hard, never inside a character; blank
    pieces are dropped."""
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ValueError("Telegram chunk limit must be a positive integer")
    chunks: list[str] = []
    rest = text
    while sum(_units(c) for c in rest) > limit:
        used, cut, newline = 0, 0, -1
        for i, ch in enumerate(rest):
            if used + _units(ch) > limit:
                break
            used += _units(ch)
            cut = i + 1
            if ch == "\n":
                newline = i
        half = limit // 2
        newline_units = sum(_units(c) for c in rest[:newline]) if newline >= 0 else -1
        split = newline if newline >= 0 and newline_units >= half else cut
        chunks.append(rest[:split].rstrip())
        rest = rest[split:]
        if rest.startswith("\n"):
            rest = rest[1:]
    if rest or not chunks:
        chunks.append(rest)
    return [c for c in chunks if c.strip()] or [text[:0]]


class TelegramBotAPI:
    """The few Bot API methods the adapter uses, over httpx."""

    def __init__(
        self,
        token: str,
        *,
        base_url: str = "https://api.telegram.org",
        http: httpx.AsyncClient | None = None,
        timeout: float = 20.0,
    ) -> None:
        self.base = f"{base_url.rstrip('/')}/bot{token}"
        self.http = http or httpx.AsyncClient(timeout=timeout)

    async def call(self, method: str, params: Mapping[str, Any]) -> Any:
        response = await self.http.post(f"{self.base}/{method}", json=dict(params))
        try:
            body = response.json()
        except ValueError:
            body = {"ok": False, "description": response.text[:200]}
        if response.status_code >= 400 or not body.get("ok"):
            retry = _dict(body.get("parameters")).get("retry_after")
            raise TelegramAPIError(
                method,
                response.status_code,
                str(body.get("description") or body.get("error_code") or "error"),
                int(retry) if isinstance(retry, int) else None,
            )
        return body.get("result")

    async def send_message(
        self, chat_id: str, text: str, *, reply_to: str | None = None, thread_id: str | None = None
    ) -> Any:
        params: dict[str, Any] = {"chat_id": _chat(chat_id), "text": text}
        if thread_id is not None and thread_id.isdigit() and int(thread_id) > 0:
            params["message_thread_id"] = int(thread_id)
        if reply_to is not None and reply_to.isdigit() and int(reply_to) > 0:
            params["reply_parameters"] = {
                "message_id": int(reply_to),
                "allow_sending_without_reply": True,
            }
        return await self.call("sendMessage", params)

    async def send_typing(self, chat_id: str, *, thread_id: str | None = None) -> None:
        params: dict[str, Any] = {"chat_id": _chat(chat_id), "action": "typing"}
        if thread_id is not None and thread_id.isdigit():
            params["message_thread_id"] = int(thread_id)
        await self.call("sendChatAction", params)

    async def get_updates(self, offset: int | None = None, timeout: int = 30) -> list[Any]:
        params: dict[str, Any] = {"timeout": timeout, "allowed_updates": list(MESSAGE_KEYS)}
        if offset is not None:
            params["offset"] = offset
        result = await self.call("getUpdates", params)
        return list(result or [])

    async def aclose(self) -> None:
        await self.http.aclose()


def _chat(chat_id: str) -> int | str:
    value = bare(chat_id)
    return int(value) if value.lstrip("-").isdigit() else value


@dataclass
class Receipt:
    ok: bool
    chat_id: str
    message_ids: list[str] = field(default_factory=list)


async def send_telegram_text(
    api: TelegramBotAPI,
    chat_id: str,
    text: str,
    *,
    reply_to: str | None = None,
    thread_id: str | None = None,
) -> Receipt:
    """Send ``text`` in chunks: every chunk in the thread, the first replying to
    ``reply_to``; each must come back with a message id."""
    target = bare(chat_id)
    ids: list[str] = []
    for n, chunk in enumerate(chunk_text(text), start=1):
        result = await api.send_message(
            target, chunk, reply_to=reply_to if n == 1 else None, thread_id=thread_id
        )
        message_id = _value(_dict(result).get("message_id"))
        if message_id is None:
            raise RuntimeError(f"Telegram delivery to {target} returned no receipt for chunk {n}")
        ids.append(message_id)
    return Receipt(True, target, ids)


@dataclass
class Handled:
    status: str  # handled | skipped
    message: TelegramMessage | None
    reason: str | None = None
    result: TurnRunResult | None = None


class TelegramTurnAdapter:
    """Runs Telegram updates through a :class:`TurnRunner`.

    :meth:`handle_request` takes a webhook request as it arrived and checks its secret token
    first (every request is refused when none is set); :meth:`handle` takes an update from
    a trusted source (``getUpdates`` long polling).
    """

    def __init__(
        self,
        runner: TurnRunner,
        api: TelegramBotAPI,
        *,
        owner_chat: str | None,
        allow_groups: bool = False,
        secret_token: str | None = None,
        ledger: EventLedger | None = None,
    ) -> None:
        self.runner = runner
        self.api = api
        self.owner_chat = owner_chat
        self.allow_groups = allow_groups
        self.secret_token = secret_token
        self.ledger = ledger if ledger is not None else EventLedger()

    async def handle_request(
        self, body: bytes, headers: Mapping[str, str], respond: Callable[[RespondArgs], Any]
    ) -> Handled:
        """Check the webhook's secret token, skip an update already taken (a retry or
        replay), then handle it.

        Raises :class:`~turngraph.agent.webhooks.WebhookRefusedError` for a missing or wrong
        token and ``ValidationError`` for a body that is not JSON."""
        verify_telegram_request(self.secret_token or "", headers=headers)
        update = read_json(body, "telegram")
        update_id = update.get("update_id") if isinstance(update, dict) else None
        if not isinstance(update_id, int) or isinstance(update_id, bool):
            return await self.handle(update, respond)
        if not self.ledger.claim("telegram", str(update_id)):
            return Handled("skipped", None, "update already received (a retry or replay)")
        try:
            return await self.handle(update, respond)
        except BaseException:
            self.ledger.release("telegram", str(update_id))  # a failed one may be retried
            raise

    async def handle(self, update: Any, respond: Callable[[RespondArgs], Any]) -> Handled:
        message = read_telegram_message(update)
        if message is None:
            return Handled("skipped", None, "unusable Telegram message")
        reason = telegram_skip_reason(message, self.owner_chat, allow_groups=self.allow_groups)
        if reason is not None:
            return Handled("skipped", message, reason)
        thread = message.thread_id if message.is_topic else None
        conversation = Conversation("telegram", conversation_key(bare(message.chat_id), thread))
        try:
            await self.api.send_typing(message.chat_id, thread_id=thread)
        except (TelegramAPIError, httpx.HTTPError) as exc:
            log.warning("typing action failed: %s", exc)

        async def send(text: str) -> Receipt:
            return await send_telegram_text(
                self.api, message.chat_id, text, reply_to=message.message_id, thread_id=thread
            )

        result = await self.runner.run(
            conversation=conversation,
            input=message.text,
            respond=respond,
            deliver=send,
            acknowledge=send,
            confirm_delivery=lambda r: r.ok and bool(r.message_ids),
            extra={"message": message},
        )
        return Handled("handled", message, result=result)
