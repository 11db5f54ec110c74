"""Slack: Events API envelopes in, threaded replies out, through the turn runner.

``url_verification`` is answered with its challenge; ``event_callback`` message events are
turned into turns; bot messages, edits and other subtypes are skipped. A conversation is the
channel plus the root thread's timestamp (a top-level message is its own root), and every
reply goes into that thread with ``chat.postMessage``, whose receipt (``ok`` and ``ts``) is
checked. Talks to the Web API over httpx with a configurable base URL.

Each message is answered once: its channel and timestamp are claimed in an
:class:`~turngraph.agent.ledger.EventLedger` before the turn runs, so Slack's retries
(``X-Slack-Retry-Num``, sent when the first request was not answered within three seconds)
and replays of a signed request are acknowledged and skipped.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeGuard

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
from turngraph.agent.telegram import chunk_text
from turngraph.agent.webhooks import read_json, verify_slack_request

LIMIT = 4000  # Slack's advice for one message


class SlackAPIError(ProviderAPIError):
    """The Web API refused a call; ``retry_after`` is set on rate limiting (429)."""

    provider = "Slack"


@dataclass(frozen=True)
class SlackMessage:
    channel: str
    ts: str
    root_ts: str
    text: str
    user: str | None = None


def _slack_id(value: object) -> TypeGuard[str]:
    """A channel id or a message timestamp as Slack writes them ("C0123ABCD", "1712.000100")."""
    return (
        isinstance(value, str)
        and 0 < len(value) <= 64
        and value.isascii()
        and value.isprintable()
        and " " not in value
    )


def read_slack_event(envelope: Any) -> SlackMessage | str:
    """The message of an Events API envelope, or why it is skipped."""
    if not isinstance(envelope, dict) or envelope.get("type") != "event_callback":
        return "not an event callback"
    event = envelope.get("event")
    if not isinstance(event, dict) or event.get("type") != "message":
        return "not a message event"
    if event.get("bot_id") or event.get("subtype") == "bot_message":
        return "bot message"
    if event.get("subtype") == "message_changed" or event.get("edited"):
        return "edited message"
    if event.get("subtype"):
        return f"message subtype {str(event['subtype'])[:40]!r}"
    channel, ts = event.get("channel"), event.get("ts")
    if not (_slack_id(channel) and _slack_id(ts)):
        return "unusable Slack message"
    text = event.get("text")
    if not isinstance(text, str) or not text.strip():
        return "empty message text"
    thread = event.get("thread_ts")
    root = thread if _slack_id(thread) else ts
    user = event.get("user")
    return SlackMessage(channel, ts, root, text, user if isinstance(user, str) else None)


class SlackWebAPI:
    def __init__(
        self,
        token: str,
        *,
        base_url: str = "https://slack.com/api",
        http: httpx.AsyncClient | None = None,
        timeout: float = 20.0,
    ) -> None:
        self.base = base_url.rstrip("/")
        self.http = http or httpx.AsyncClient(
            timeout=timeout, headers={"Authorization": f"Bearer {token}"}
        )

    async def post_message(self, channel: str, text: str, *, thread_ts: str | None) -> Any:
        payload: dict[str, Any] = {"channel": channel, "text": text}
        if thread_ts:
            payload["thread_ts"] = thread_ts
        response = await self.http.post(f"{self.base}/chat.postMessage", json=payload)
        if response.status_code == 429:
            retry = response.headers.get("retry-after", "")
            raise SlackAPIError(
                "chat.postMessage", 429, "ratelimited", int(retry) if retry.isdigit() else None
            )
        try:
            body = response.json()
        except ValueError:
            body = {"ok": False, "error": response.text[:200]}
        if response.status_code >= 400 or not body.get("ok"):
            raise SlackAPIError(
                "chat.postMessage", response.status_code, str(body.get("error", "error")), None
            )
        return body

    async def aclose(self) -> None:
        await self.http.aclose()


@dataclass
class SlackReceipt:
    ok: bool
    channel: str
    ts: list[str] = field(default_factory=list)


async def send_slack_text(
    api: SlackWebAPI, channel: str, text: str, *, thread_ts: str
) -> SlackReceipt:
    """Post ``text`` into the thread, in pieces of at most 4,000 characters; each post must
    come back with its ``ts``."""
    stamps: list[str] = []
    for chunk in chunk_text(text, LIMIT):
        body = await api.post_message(channel, chunk, thread_ts=thread_ts)
        ts = body.get("ts")
        if not isinstance(ts, str) or not ts:
            raise RuntimeError(f"Slack post to {channel} got no writeback receipt (silent drop)")
        stamps.append(ts)
    return SlackReceipt(True, channel, stamps)


@dataclass
class SlackHandled:
    status: str  # handled | skipped | challenge
    message: SlackMessage | None = None
    reason: str | None = None
    challenge: str | None = None
    result: TurnRunResult | None = None


class SlackTurnAdapter:
    """Runs Slack Events API envelopes through a :class:`TurnRunner`.

    :meth:`handle_request` takes an HTTP request as it arrived and checks its signature with
    ``signing_secret`` first (every request is refused when none is set); :meth:`handle`
    takes an envelope already authenticated (Socket Mode, or a caller's own check).
    ``ledger`` remembers the messages already taken; give it a file
    (``EventLedger("slack-events.sqlite")``) to keep them across restarts.
    """

    def __init__(
        self,
        runner: TurnRunner,
        api: SlackWebAPI,
        *,
        signing_secret: str | None = None,
        ledger: EventLedger | None = None,
    ) -> None:
        self.runner = runner
        self.api = api
        self.signing_secret = signing_secret
        self.ledger = ledger if ledger is not None else EventLedger()

    async def handle_request(
        self, body: bytes, headers: Mapping[str, str], respond: Callable[[RespondArgs], Any]
    ) -> SlackHandled:
        """Verify the request's signature and timestamp, then handle its envelope.

        Raises :class:`~turngraph.agent.webhooks.WebhookRefusedError` for a forged, unsigned
        or stale request and ``ValidationError`` for a body that is not JSON."""
        verify_slack_request(self.signing_secret or "", body=body, headers=headers)
        return await self.handle(read_json(body, "slack"), respond)

    async def handle(self, envelope: Any, respond: Callable[[RespondArgs], Any]) -> SlackHandled:
        if isinstance(envelope, dict) and envelope.get("type") == "url_verification":
            return SlackHandled("challenge", challenge=str(envelope.get("challenge", "")))
        message = read_slack_event(envelope)
        if isinstance(message, str):
            return SlackHandled("skipped", reason=message)
        # The message, not the event_id: a retry or replay carries both unchanged, and a
        # message reaching the app through a second event is still one message.
        taken = f"{message.channel}:{message.ts}"
        if not self.ledger.claim("slack", taken):
            return SlackHandled("skipped", message, "message already taken (a retry or replay)")
        conversation = Conversation("slack", conversation_key(message.channel, message.root_ts))

        async def send(text: str) -> SlackReceipt:
            return await send_slack_text(self.api, message.channel, text, thread_ts=message.root_ts)

        try:
            result = await self.runner.run(
                conversation=conversation,
                input=message.text,
                respond=respond,
                deliver=send,
                acknowledge=send,
                confirm_delivery=lambda r: r.ok and bool(r.ts),
                extra={"message": message},
            )
        except BaseException:
            self.ledger.release("slack", taken)  # Slack's next retry runs it again
            raise
        return SlackHandled("handled", message, result=result)
