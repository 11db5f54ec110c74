"""Webhooks over real HTTP: forged, unsigned and replayed requests are refused before any
turn is run; good ones pass. The providers' Web APIs are local fakes."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

import turngraph
from turngraph.agent.fake_telegram import FakeTelegram, fake_telegram
from turngraph.agent.ledger import EventLedger
from turngraph.agent.runner import RespondArgs, TurnRunner
from turngraph.agent.slack import SlackTurnAdapter, SlackWebAPI
from turngraph.agent.telegram import TelegramBotAPI, TelegramTurnAdapter
from turngraph.agent.webhooks import WebhookRefusedError, verify_slack_request, webhook_app

from ..fakes.slack_api import FakeSlack, fake_slack
from ..http.conftest import free_port

SECRET = "8f742231b10e8888abcd99yyyzzz85a5"
TOKEN = "s3cret-Token_1"


def respond(args: RespondArgs) -> str:
    return "Sure."


@contextmanager
def serve(app: Any) -> Iterator[str]:
    port = free_port()
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started:
        assert thread.is_alive(), "the webhook server stopped"
        assert time.monotonic() < deadline, "the webhook server did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        srv.should_exit = True
        thread.join(10)


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[turngraph.Memory]:
    db = turngraph.open(tmp_path / "hooks.db")
    yield db.create_memory("bot", retrieval={"embedder": "none"})
    db.close()


def turns(mem: turngraph.Memory) -> int:
    return mem.info().observations


def slack_event(text: str, ts: str) -> bytes:
    event = {"type": "message", "channel": "C0123ABCD", "user": "U1", "text": text, "ts": ts}
    return json.dumps({"type": "event_callback", "event": event}).encode()


def signed(body: bytes, *, secret: str = SECRET, at: float | None = None) -> dict[str, str]:
    stamp = str(int(time.time() if at is None else at))
    digest = hmac.new(secret.encode(), f"v0:{stamp}:".encode() + body, hashlib.sha256)
    return {
        "X-Slack-Request-Timestamp": stamp,
        "X-Slack-Signature": "v0=" + digest.hexdigest(),
        "Content-Type": "application/json",
    }


@pytest.fixture
def slack_hook(mem: turngraph.Memory) -> Iterator[tuple[str, FakeSlack]]:
    with fake_slack() as fake:
        api = SlackWebAPI("xoxb-test", base_url=fake.base_url)
        runner = TurnRunner(namespace="helper", memory=mem)
        adapter = SlackTurnAdapter(runner, api, signing_secret=SECRET)
        with serve(webhook_app(adapter, respond)) as url:
            yield url, fake


def test_a_signed_slack_request_passes(
    slack_hook: tuple[str, FakeSlack], mem: turngraph.Memory
) -> None:
    url, fake = slack_hook
    challenge = json.dumps({"type": "url_verification", "challenge": "abc"}).encode()
    r = httpx.post(url, content=challenge, headers=signed(challenge))
    assert (r.status_code, r.json()) == (200, {"challenge": "abc"})
    body = slack_event("hello there", "171.2")
    r = httpx.post(url, content=body, headers=signed(body))
    assert (r.status_code, r.json()["status"]) == (200, "handled")
    assert [p["text"] for p in fake.posts] == ["Sure."]


def test_forged_unsigned_and_replayed_slack_requests_are_refused(
    slack_hook: tuple[str, FakeSlack], mem: turngraph.Memory
) -> None:
    url, fake = slack_hook
    before = turns(mem)
    body = slack_event("transfer the money", "171.2")
    good = signed(body)
    attempts = {
        "wrong secret": signed(body, secret="not-the-secret"),
        "body changed after signing": good,
        "no signature": {"Content-Type": "application/json"},
        "replayed after 6 minutes": signed(body, at=time.time() - 360),
        "timestamp from the future": signed(body, at=time.time() + 360),
        "timestamp not a number": {**good, "X-Slack-Request-Timestamp": "soon"},
        "timestamp of 5,000 digits": {**good, "X-Slack-Request-Timestamp": "9" * 5000},
        "timestamp in other digits": {**good, "X-Slack-Request-Timestamp": b"\xb2" * 10},
    }
    for what, headers in attempts.items():
        content = body + b" " if what == "body changed after signing" else body
        r = httpx.post(url, content=content, headers=headers)
        assert r.status_code == 401, what
        assert r.json()["message"], what
    assert fake.posts == []
    assert turns(mem) == before


def test_a_slack_message_is_answered_once_across_retries_replays_and_a_restart(
    mem: turngraph.Memory, tmp_path: Path
) -> None:
    failures = [RuntimeError("the model timed out")]

    def flaky(args: RespondArgs) -> str:
        if failures:
            raise failures.pop()
        return f"Noted: {args.input}"

    body = slack_event("my sister is called Ines", "1712.000100")
    taken = tmp_path / "slack-events.sqlite"
    with fake_slack() as fake:

        def adapter() -> SlackTurnAdapter:
            api = SlackWebAPI("xoxb-test", base_url=fake.base_url)
            runner = TurnRunner(namespace="helper", memory=mem)
            return SlackTurnAdapter(runner, api, signing_secret=SECRET, ledger=EventLedger(taken))

        before = turns(mem)
        with serve(webhook_app(adapter(), flaky)) as url:
            # The first try fails before any reply: its claim is given back.
            r = httpx.post(url, content=body, headers=signed(body))
            assert r.status_code == 500
            assert (fake.posts, turns(mem)) == ([], before)
            # Slack's retry of it runs the turn.
            retry = {**signed(body), "X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_error"}
            r = httpx.post(url, content=body, headers=retry)
            assert (r.status_code, r.json()["status"]) == (200, "handled")
            stored = turns(mem)
            assert stored > before
            # The same signed request again, and Slack's second retry: acknowledged, skipped.
            for headers in (signed(body), {**retry, "X-Slack-Retry-Num": "2"}):
                r = httpx.post(url, content=body, headers=headers)
                assert r.status_code == 200
                assert r.json() == {
                    "status": "skipped",
                    "reason": "message already taken (a retry or replay)",
                }
        # After a restart the ledger on disk still knows the message.
        with serve(webhook_app(adapter(), flaky)) as url:
            r = httpx.post(url, content=body, headers=signed(body))
            assert r.json()["status"] == "skipped"
            other = slack_event("and my brother is Tomas", "1712.000200")
            r = httpx.post(url, content=other, headers=signed(other))
            assert r.json()["status"] == "handled"
        assert [p["text"] for p in fake.posts] == [
            "Noted: my sister is called Ines",
            "Noted: and my brother is Tomas",
        ]
    assert turns(mem) == stored + (stored - before)


def test_a_slack_adapter_without_a_signing_secret_refuses_every_request() -> None:
    body = slack_event("hi", "1.1")
    with pytest.raises(WebhookRefusedError, match="no Slack signing secret"):
        verify_slack_request("", body=body, headers=signed(body))


def telegram_update(update_id: int, text: str) -> bytes:
    message = {
        "message_id": update_id + 10,
        "chat": {"id": 8587, "type": "private"},
        "from": {"id": 8587, "is_bot": False, "first_name": "K"},
        "text": text,
    }
    return json.dumps({"update_id": update_id, "message": message}).encode()


@pytest.fixture
def telegram_hook(mem: turngraph.Memory) -> Iterator[tuple[str, FakeTelegram]]:
    with fake_telegram() as fake:
        api = TelegramBotAPI(fake.token, base_url=fake.base_url)
        runner = TurnRunner(namespace="life-agent", memory=mem)
        adapter = TelegramTurnAdapter(runner, api, owner_chat="8587", secret_token=TOKEN)
        with serve(webhook_app(adapter, respond)) as url:
            yield url, fake


def test_telegram_webhooks_need_the_secret_token_and_replays_are_skipped(
    telegram_hook: tuple[str, FakeTelegram], mem: turngraph.Memory
) -> None:
    url, fake = telegram_hook
    header = "X-Telegram-Bot-Api-Secret-Token"
    before = turns(mem)
    body = telegram_update(1, "hello")
    for headers in ({}, {header: "guess"}, {header: TOKEN + "x"}, {header: ""}):
        r = httpx.post(url, content=body, headers=headers)
        assert r.status_code == 401, headers
    assert fake.sent() == []
    assert turns(mem) == before

    r = httpx.post(url, content=body, headers={header: TOKEN})
    assert (r.status_code, r.json()["status"]) == (200, "handled")
    after_one = turns(mem)
    assert after_one > before
    assert [m["text"] for m in fake.sent()] == ["Sure."]

    replay = httpx.post(url, content=body, headers={header: TOKEN})
    assert replay.status_code == 200
    assert replay.json()["reason"] == "update already received (a retry or replay)"
    assert turns(mem) == after_one
    assert len(fake.sent()) == 1

    r = httpx.post(url, content=b"{not json", headers={header: TOKEN})
    assert r.status_code == 400


def test_hostile_webhook_requests_never_answer_5xx(
    slack_hook: tuple[str, FakeSlack], telegram_hook: tuple[str, FakeTelegram]
) -> None:
    """Every field of a signed Slack event and of a Telegram update, and the headers that
    authenticate them, holding each hostile value of the route fuzz: refused (400, 401) or
    handled or skipped (200), never a 5xx."""
    from ..http.test_fuzz_routes import DEEP, DEEP_JSON, HOSTILE

    def encode(value: Any) -> bytes:
        return json.dumps(value).replace(json.dumps(DEEP), DEEP_JSON).encode()

    slack_url, _ = slack_hook
    telegram_url, _ = telegram_hook
    statuses: dict[int, int] = {}

    def post(url: str, body: bytes, headers: dict[str, str]) -> None:
        r = httpx.post(url, content=body, headers=headers, timeout=30)
        assert r.status_code < 500, (url, body[:120], r.text[:200])
        statuses[r.status_code] = statuses.get(r.status_code, 0) + 1

    event = {"type": "message", "channel": "C1", "user": "U1", "text": "hi", "ts": "1.1"}
    for i, value in enumerate(HOSTILE):
        for name in ("type", "channel", "user", "text", "ts", "thread_ts", "subtype", "bot_id"):
            body = encode({"type": "event_callback", "event": {**event, name: value}})
            post(slack_url, body, signed(body))
        for name in ("type", "event", "challenge"):
            body = encode({"type": "event_callback", "event": event, name: value})
            post(slack_url, body, signed(body))
        if (
            isinstance(value, str)
            and value.isascii()
            and value.isprintable()
            and value == value.strip()
        ):
            good = signed(b"{}")
            post(slack_url, b"{}", {**good, "X-Slack-Request-Timestamp": value})
            post(slack_url, b"{}", {**good, "X-Slack-Signature": value})
            post(telegram_url, b"{}", {"X-Telegram-Bot-Api-Secret-Token": value})
        token = {"X-Telegram-Bot-Api-Secret-Token": TOKEN}
        message = json.loads(telegram_update(1000 + i, "hi"))["message"]
        for name in ("text", "chat", "from", "message_id", "reply_to_message", "date"):
            update = {"update_id": 5000 + 10 * i, "message": {**message, name: value}}
            post(telegram_url, encode(update), token)
        post(telegram_url, encode({"update_id": value, "message": message}), token)
        post(telegram_url, encode({"update_id": 9000 + i, "message": value}), token)
    for whole in (b"[" * 50_000 + b"]" * 50_000, b"\xff\xfe not json", b"null", b"[]"):
        post(slack_url, whole, signed(whole))
        post(telegram_url, whole, {"X-Telegram-Bot-Api-Secret-Token": TOKEN})
    assert set(statuses) == {200, 400, 401}, statuses
