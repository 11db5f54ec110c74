"""The Telegram adapter against a local fake of the Bot API over real HTTP (turn-kit.md checks
29-38), with a real turngraph memory behind the runner."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import turngraph
from turngraph.agent.fake_telegram import FakeTelegram, fake_telegram
from turngraph.agent.runner import RespondArgs, TurnRunner, conversation_tag
from turngraph.agent.telegram import (
    TelegramAPIError,
    TelegramBotAPI,
    TelegramTurnAdapter,
    chunk_text,
    read_telegram_message,
)


@pytest.fixture
def tg() -> Iterator[FakeTelegram]:
    with fake_telegram() as fake:
        yield fake


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[turngraph.Memory]:
    db = turngraph.open(tmp_path / "tg.db")
    yield db.create_memory("bot")
    db.close()


def update(
    text: str | None = "hello", *, chat: Any = 8587, chat_type: str = "private", **message: Any
) -> dict[str, Any]:
    body: dict[str, Any] = {
        "message_id": 12,
        "chat": {"id": chat, "type": chat_type},
        "from": {"id": 8587, "is_bot": False, "first_name": "K"},
    }
    if text is not None:
        body["text"] = text
    body.update(message)
    return {"update_id": 1, "message": body}


def handle(
    tg: FakeTelegram,
    mem: turngraph.Memory,
    payload: Any,
    *,
    reply: Any = "Sure.",
    owner: str | None = "8587",
    allow_groups: bool = False,
    seen: list[RespondArgs] | None = None,
    ack: str | None = None,
) -> Any:
    runner = TurnRunner(namespace="life-agent", memory=mem)

    async def go() -> Any:
        api = TelegramBotAPI(tg.token, base_url=tg.base_url)
        adapter = TelegramTurnAdapter(runner, api, owner_chat=owner, allow_groups=allow_groups)

        async def respond(args: RespondArgs) -> Any:
            if seen is not None:
                seen.append(args)
            if ack:
                await args.acknowledge(ack)
            return reply

        try:
            return await adapter.handle(payload, respond)
        finally:
            await api.aclose()

    return asyncio.run(go())


def test_skips_checks_29_to_31(tg: FakeTelegram, mem: turngraph.Memory) -> None:
    seen: list[RespondArgs] = []
    cases = [
        (update(), None, "no owner chat configured"),
        (update(chat=-100555, chat_type="supergroup"), "8587", "not the owner chat"),
        (update(**{"from": {"id": 1, "is_bot": True}}), "8587", "bot message"),
        (update("   "), "8587", "empty message text"),
        (update(None), "8587", "empty message text"),
        (
            {"update_id": 2, "callback_query": {"id": "q", "data": "x"}},
            "8587",
            "unusable Telegram message",
        ),
    ]
    for payload, owner, reason in cases:
        result = handle(tg, mem, payload, owner=owner, seen=seen)
        assert (result.status, result.reason) == ("skipped", reason)
    assert handle(tg, mem, {"update_id": 3, "message": {"chat": {"id": 1}}}).message is None
    assert seen == []
    assert tg.calls == []  # nothing was sent for any skipped update
    # The owner's title suffix is ignored; a group is served only when allowed.
    assert handle(tg, mem, update(), owner="8587__KJG Life Bot").status == "handled"
    group = update(chat=-100555, chat_type="supergroup")
    assert handle(tg, mem, group, owner="-100555").reason == "not a private chat"
    assert handle(tg, mem, group, owner="-100555", allow_groups=True).status == "handled"


def test_reply_target_and_forum_topics_checks_32_33(
    tg: FakeTelegram, mem: turngraph.Memory
) -> None:
    seen: list[RespondArgs] = []
    raw = update("add that", reply_to_message={"message_id": 5, "text": "Call mom"})
    assert handle(tg, mem, raw, seen=seen).status == "handled"
    assert seen[0].extra["message"].reply_text == "Call mom"
    tg.calls.clear()
    topic = update(
        "in the topic",
        chat=-100123,
        chat_type="supergroup",
        message_thread_id=3,
        is_topic_message=True,
    )
    result = handle(tg, mem, topic, owner="-100123", allow_groups=True, seen=seen, ack="On it")
    assert result.status == "handled"
    assert seen[-1].conversation.id == "-100123:3"
    typing, ack, final = tg.calls
    assert typing == (
        "sendChatAction",
        {"chat_id": -100123, "action": "typing", "message_thread_id": 3},
    )
    for method, params in (ack, final):
        assert method == "sendMessage"
        assert params["message_thread_id"] == 3
        assert params["reply_parameters"]["message_id"] == 12
    tag = conversation_tag("life-agent", "telegram", "-100123:3")
    assert tag == "turn:life-agent:telegram:-100123%3A3"
    runner = TurnRunner(namespace="life-agent", memory=mem)
    history = asyncio.run(runner.recall_history(tag))
    assert [h.content for h in history] == ["User: in the topic\nAssistant: Sure."]
    # A reply thread outside a forum is not a topic: it stays in the chat's conversation.
    seen.clear()
    handle(tg, mem, update("threaded", message_thread_id=9), seen=seen)
    assert seen[0].conversation.id == "8587"


def test_long_replies_are_chunked_checks_34_35_37(tg: FakeTelegram, mem: turngraph.Memory) -> None:
    lines = "".join("x" * 99 + "\n" for _ in range(90))
    topic = update(
        "long please",
        chat=-100123,
        chat_type="supergroup",
        message_thread_id=3,
        is_topic_message=True,
    )
    result = handle(tg, mem, topic, reply=lines, owner="-100123", allow_groups=True)
    sent = tg.sent()
    # The runner trims the reply, so its last line loses the final newline.
    assert [len(p["text"]) for p in sent] == [3999, 3999, 999]
    assert [len(c) for c in chunk_text(lines)] == [3999, 3999, 1000]
    assert all(p["text"].endswith("x") for p in sent)  # cut at line boundaries
    assert all(p["message_thread_id"] == 3 for p in sent)  # every chunk stays in the topic
    assert ["reply_parameters" in p for p in sent] == [True, False, False]
    assert len(result.result.receipt.message_ids) == 3
    assert result.result.memory_saved
    assert [len(c) for c in chunk_text("y" * 9000)] == [4096, 4096, 808]
    assert [len(c) for c in chunk_text("y" * 4096)] == [4096]
    assert [len(c) for c in chunk_text("y" * 4097)] == [4096, 1]
    units = [sum(2 if ord(ch) > 0xFFFF else 1 for ch in c) for c in chunk_text("😀" * 3000)]
    assert units == [4096, 1904]  # measured in UTF-16 units, no emoji split


def test_a_missing_receipt_raises_and_saves_nothing_check_36(
    tg: FakeTelegram, mem: turngraph.Memory
) -> None:
    tg.send_answers = [
        (200, {"ok": True, "result": {"message_id": 7}}),
        (200, {"ok": True, "result": {}}),
    ]
    with pytest.raises(RuntimeError, match="returned no receipt for chunk 2"):
        handle(tg, mem, update(), reply="y" * 5000)
    runner = TurnRunner(namespace="life-agent", memory=mem)
    tag = conversation_tag("life-agent", "telegram", "8587")
    assert asyncio.run(runner.recall_history(tag)) == []


def test_flood_control_surfaces_retry_after_check_38(
    tg: FakeTelegram, mem: turngraph.Memory
) -> None:
    tg.send_answers = [
        (
            429,
            {
                "ok": False,
                "error_code": 429,
                "description": "Too Many Requests: retry after 5",
                "parameters": {"retry_after": 5},
            },
        )
    ]
    with pytest.raises(TelegramAPIError) as info:
        handle(tg, mem, update())
    assert (info.value.status, info.value.retry_after) == (429, 5)
    runner = TurnRunner(namespace="life-agent", memory=mem)
    tag = conversation_tag("life-agent", "telegram", "8587")
    assert asyncio.run(runner.recall_history(tag)) == []


def test_webhook_envelope_shape() -> None:
    payload = {
        "data": {
            "telegram": {"chatId": "8587", "messageId": 77, "text": "hi", "messageThreadId": 4},
            "message": {"reply_to_message": {"caption": "photo of a cat"}},
        }
    }
    message = read_telegram_message(payload)
    assert message is not None
    assert (message.chat_id, message.message_id, message.thread_id) == ("8587", "77", "4")
    assert message.reply_text == "photo of a cat"
    assert read_telegram_message("nope") is None
