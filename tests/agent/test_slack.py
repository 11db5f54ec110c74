"""The Slack adapter against a local fake of the Web API over real HTTP."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import turngraph
from turngraph.agent.runner import RespondArgs, TurnRunner, conversation_tag
from turngraph.agent.slack import SlackAPIError, SlackTurnAdapter, SlackWebAPI

from ..fakes.slack_api import FakeSlack, fake_slack


@pytest.fixture
def slack() -> Iterator[FakeSlack]:
    with fake_slack() as fake:
        yield fake


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[turngraph.Memory]:
    db = turngraph.open(tmp_path / "slack.db")
    yield db.create_memory("bot")
    db.close()


def event(text: str = "hello", **fields: Any) -> dict[str, Any]:
    body = {"type": "message", "channel": "C0123ABCD", "user": "U1", "text": text, "ts": "171.2"}
    body.update(fields)
    return {"type": "event_callback", "event": body}


def handle(
    slack: FakeSlack,
    mem: turngraph.Memory,
    envelope: Any,
    reply: str = "Sure.",
    seen: list[RespondArgs] | None = None,
) -> Any:
    async def go() -> Any:
        api = SlackWebAPI("xoxb-test", base_url=slack.base_url)
        adapter = SlackTurnAdapter(TurnRunner(namespace="helper", memory=mem), api)

        def respond(args: RespondArgs) -> str:
            if seen is not None:
                seen.append(args)
            return reply

        try:
            return await adapter.handle(envelope, respond)
        finally:
            await api.aclose()

    return asyncio.run(go())


def test_envelopes_and_filters(slack: FakeSlack, mem: turngraph.Memory) -> None:
    challenge = handle(slack, mem, {"type": "url_verification", "challenge": "abc"})
    assert (challenge.status, challenge.challenge) == ("challenge", "abc")
    for envelope, reason in [
        (event(bot_id="B1"), "bot message"),
        (event(subtype="bot_message"), "bot message"),
        (event(subtype="message_changed"), "edited message"),
        (event("  "), "empty message text"),
        ({"type": "event_callback", "event": {"type": "reaction_added"}}, "not a message event"),
        ({"type": "app_rate_limited"}, "not an event callback"),
    ]:
        assert handle(slack, mem, envelope).reason == reason
    assert slack.posts == []


def test_threads_receipts_and_history(slack: FakeSlack, mem: turngraph.Memory) -> None:
    seen: list[RespondArgs] = []
    top = handle(slack, mem, event("first question"), seen=seen)
    assert top.status == "handled"
    assert seen[0].conversation.id == "C0123ABCD:171.2"
    assert slack.posts[0]["thread_ts"] == "171.2"  # a top-level message roots its thread
    assert slack.auth[0] == "Bearer xoxb-test"
    reply = handle(slack, mem, event("follow-up", ts="175.9", thread_ts="171.2"), seen=seen)
    assert reply.result.receipt.ts
    assert slack.posts[1]["thread_ts"] == "171.2"  # the root's ts, never the reply's
    assert [h.content for h in seen[1].history] == ["User: first question\nAssistant: Sure."]
    other = handle(slack, mem, event("elsewhere", ts="180.1"), seen=seen)
    assert other.status == "handled"
    assert seen[2].history == []  # another thread is another conversation
    long = handle(slack, mem, event("long", ts="190.1"), reply="z" * 9000)
    assert [len(p["text"]) for p in slack.posts[-3:]] == [4000, 4000, 1000]
    assert len(long.result.receipt.ts) == 3


def test_no_receipt_and_rate_limits_save_nothing(slack: FakeSlack, mem: turngraph.Memory) -> None:
    slack.answers = [(200, {"ok": True}, {})]
    with pytest.raises(RuntimeError, match="got no writeback receipt"):
        handle(slack, mem, event())
    slack.answers = [(429, {"ok": False, "error": "ratelimited"}, {"Retry-After": "7"})]
    with pytest.raises(SlackAPIError) as info:
        handle(slack, mem, event())
    assert info.value.retry_after == 7
    slack.answers = [(200, {"ok": False, "error": "not_in_channel"}, {})]
    with pytest.raises(SlackAPIError, match="not_in_channel"):
        handle(slack, mem, event())
    runner = TurnRunner(namespace="helper", memory=mem)
    tag = conversation_tag("helper", "slack", "C0123ABCD:171.2")
    assert asyncio.run(runner.recall_history(tag)) == []
