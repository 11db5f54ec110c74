"""Receiving Slack and Telegram webhooks: authenticate the request before reading it.

A webhook URL is public, so anyone can post to it. Slack signs each request: the header
``X-Slack-Signature`` is ``v0=`` and the hex HMAC-SHA256 of ``v0:{timestamp}:{body}`` under
the app's signing secret, with the timestamp in ``X-Slack-Request-Timestamp``; a request
whose timestamp is more than five minutes from now is refused, so a captured request cannot
be replayed later; within them, a retry or replay is skipped by the adapter's ledger
(:mod:`turngraph.agent.ledger`). Telegram sends the secret token given to ``setWebhook`` in
``X-Telegram-Bot-Api-Secret-Token``; it carries no timestamp, so a replay is recognised by its
``update_id`` and skipped (Telegram numbers updates in order and retries with the same id).

:func:`webhook_app` serves an adapter over HTTP: 401 for a refused request, 400 for a body
that is not JSON, 200 otherwise (with Slack's challenge when it asks for one).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from turngraph.agent.runner import RespondArgs
from turngraph.errors import AuthenticationError, ValidationError

SLACK_WINDOW_SECONDS = 300


class WebhookRefusedError(AuthenticationError):
    """A webhook request failed authentication (``provider``, ``reason``); nothing was done."""


def verify_slack_request(
    signing_secret: str,
    *,
    body: bytes,
    headers: Mapping[str, str],
    now: float | None = None,
    window: int = SLACK_WINDOW_SECONDS,
) -> None:
    """Check Slack's v0 signature and timestamp; raise :class:`WebhookRefusedError` if either
    is missing, malformed, outside ``window`` seconds of ``now`` or wrong."""
    if not signing_secret:
        raise WebhookRefusedError(
            "no Slack signing secret is configured: refusing unsigned requests",
            provider="slack",
            reason="no secret",
        )
    stamp = _header(headers, "x-slack-request-timestamp")
    signature = _header(headers, "x-slack-signature")
    if not stamp or not signature:
        raise WebhookRefusedError(
            "the request is not signed (X-Slack-Signature and X-Slack-Request-Timestamp)",
            provider="slack",
            reason="unsigned",
        )
    # Seconds since 1970 in ASCII digits: a few thousand digits would not even parse, and
    # "²" passes str.isdigit.
    if not (stamp.isascii() and stamp.isdigit() and len(stamp) <= 12):
        raise WebhookRefusedError(
            "X-Slack-Request-Timestamp is not a number", provider="slack", reason="bad timestamp"
        )
    current = time.time() if now is None else now
    if abs(current - int(stamp)) > window:
        raise WebhookRefusedError(
            f"the request's timestamp is more than {window} s from now (a replay?)",
            provider="slack",
            reason="stale",
        )
    base = b"v0:" + stamp.encode() + b":" + body
    expected = "v0=" + hmac.new(signing_secret.encode(), base, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected.encode(), signature.encode("utf-8", "replace")):
        raise WebhookRefusedError(
            "the Slack signature does not match", provider="slack", reason="bad signature"
        )


def verify_telegram_request(secret_token: str, *, headers: Mapping[str, str]) -> None:
    """Check Telegram's webhook secret token; raise :class:`WebhookRefusedError` if it is
    missing or wrong (or none is configured)."""
    if not secret_token:
        raise WebhookRefusedError(
            "no Telegram webhook secret token is configured: refusing the request",
            provider="telegram",
            reason="no secret",
        )
    given = _header(headers, "x-telegram-bot-api-secret-token") or ""
    if not hmac.compare_digest(secret_token.encode(), given.encode("utf-8", "replace")):
        raise WebhookRefusedError(
            "the Telegram secret token is missing or wrong",
            provider="telegram",
            reason="bad token",
        )


def _header(headers: Mapping[str, str], name: str) -> str | None:
    for key, value in headers.items():
        if key.lower() == name:
            return value
    return None


class RequestAdapter(Protocol):
    async def handle_request(
        self, body: bytes, headers: Mapping[str, str], respond: Callable[[RespondArgs], Any]
    ) -> Any: ...


def read_json(body: bytes, provider: str) -> Any:
    try:
        return json.loads(body)
    except ValueError as exc:
        raise ValidationError(
            f"the {provider} request body is not JSON", provider=provider
        ) from exc
    except RecursionError:
        raise ValidationError(
            f"the {provider} request body is nested too deep", provider=provider
        ) from None


def webhook_app(adapter: RequestAdapter, respond: Callable[[RespondArgs], Any]) -> Any:
    """A small ASGI app that hands every POST to ``adapter.handle_request``."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    class _Ascii(JSONResponse):
        # What a request sent may come back in a reason or a challenge: escaped, so that a
        # lone surrogate cannot fail the answer.
        def render(self, content: Any) -> bytes:
            return json.dumps(content, separators=(",", ":")).encode()

    async def receive(request: Request) -> JSONResponse:
        body = await request.body()
        try:
            outcome = await adapter.handle_request(body, request.headers, respond)
        except WebhookRefusedError as exc:
            return _Ascii({"message": exc.message}, status_code=401)
        except ValidationError as exc:
            return _Ascii({"message": exc.message}, status_code=400)
        challenge = getattr(outcome, "challenge", None)
        if challenge is not None:
            return _Ascii({"challenge": challenge})
        return _Ascii({"status": outcome.status, "reason": outcome.reason})

    return Starlette(routes=[Route("/", receive, methods=["POST"])])
