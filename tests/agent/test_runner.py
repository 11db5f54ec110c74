"""The turn runner: the checks of turn-kit.md section 8 (identity, history, context,
responder and delivery, persistence, confirmed actions), on a real turngraph memory."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import turngraph
from turngraph.agent.runner import (
    ContextBlock,
    Conversation,
    RespondArgs,
    TurnRunner,
    UnconfirmedTurnActionError,
    UnconfirmedTurnDeliveryError,
    conversation_key,
    conversation_tag,
    define_context,
    normalize_history,
    run_confirmed_action,
)

CHAT = Conversation("telegram", "8587")


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[turngraph.Memory]:
    db = turngraph.open(tmp_path / "runner.db")
    yield db.create_memory("agent")
    db.close()


class Spy:
    """Wraps a memory, records the calls the runner makes, and can be told to fail."""

    def __init__(self, memory: turngraph.Memory, calls: list[str]) -> None:
        self.memory = memory
        self.calls = calls
        self.fail_recall = False
        self.no_receipt = False

    def __getattr__(self, name: str) -> Any:
        return getattr(self.memory, name)

    def get_session(self, session_id: str) -> Any:
        self.calls.append("recall")
        if self.fail_recall:
            raise turngraph.StoreError("memory offline")
        return self.memory.get_session(session_id)

    def remember(self, *args: Any, **kwargs: Any) -> Any:
        self.calls.append("save")
        return None if self.no_receipt else self.memory.remember(*args, **kwargs)

    def remember_many(self, *args: Any, **kwargs: Any) -> Any:
        self.calls.append("save")
        return None if self.no_receipt else self.memory.remember_many(*args, **kwargs)


def turn(
    runner: TurnRunner, text: str, reply: Any = "ok", conversation: Conversation = CHAT, **kw: Any
) -> Any:
    seen: dict[str, Any] = {}

    def respond(args: RespondArgs) -> Any:
        seen["args"] = args
        return reply

    result = asyncio.run(
        runner.run(
            conversation=conversation,
            input=text,
            respond=respond,
            deliver=kw.pop("deliver", lambda r: {"ok": True}),
            **kw,
        )
    )
    return result, seen.get("args")


# -- identity -------------------------------------------------------------------------------


def test_identity_checks_1_to_5() -> None:
    assert conversation_key("a:b", "c") == "a%3Ab:c"
    assert conversation_key("a", "b:c") == "a:b%3Ac"
    assert conversation_key("C123") == conversation_key("C123", None) == "C123"
    assert conversation_key("C123", "  ") == "C123"
    assert conversation_key("8587", 42) == "8587:42"
    assert conversation_key("8587", 0) == "8587:0"
    with pytest.raises(ValueError, match="conversation root cannot be empty"):
        conversation_key("  ")
    tag = conversation_tag("life-agent", "telegram", conversation_key("8587", 42))
    assert tag == "turn:life-agent:telegram:8587%3A42"
    assert conversation_tag("life-agent", "slack", "8587:42") != tag
    for bad in ("Not Valid", "a" * 64, "-x"):
        with pytest.raises(ValueError, match="lowercase slug"):
            TurnRunner(namespace=bad, memory=False)


# -- history --------------------------------------------------------------------------------


def test_history_is_this_conversation_only_oldest_first_and_bounded(
    mem: turngraph.Memory,
) -> None:
    runner = TurnRunner(namespace="life-agent", memory=mem)
    for i in range(10):
        turn(runner, f"message {i}", reply=f"reply {i}")
    turn(runner, "elsewhere", conversation=Conversation("telegram", "999"))
    turn(runner, "other transport", conversation=Conversation("slack", "8587"))
    _, args = turn(runner, "now")
    contents = [h.content for h in args.history]
    assert len(contents) == 8  # the default limit
    assert contents[0] == "User: message 2\nAssistant: reply 2"
    assert contents[-1] == "User: message 9\nAssistant: reply 9"
    assert not any("elsewhere" in c or "other transport" in c for c in contents)


def test_normalize_history_checks_7_to_9() -> None:
    dated = [
        {"content": "c", "createdAt": "2026-01-01T12:03:00Z"},
        {"content": "a", "createdAt": "2026-01-01T12:01:00Z"},
        {"content": "b", "createdAt": "2026-01-01T12:02:00Z"},
    ]
    assert [h.content for h in normalize_history(dated)] == ["a", "b", "c"]
    assert [h.content for h in normalize_history(["newest", "middle", "oldest"])] == [
        "oldest",
        "middle",
        "newest",
    ]
    assert [h.content for h in normalize_history(["a", "b"], "oldest-first")] == ["a", "b"]
    assert normalize_history([" ", {"content": 3}, {"x": 1}, None]) == []
    assert normalize_history("not a list") == []


def test_recall_failure_and_limits_checks_10_11(
    mem: turngraph.Memory, caplog: pytest.LogCaptureFixture
) -> None:
    calls: list[str] = []
    spy = Spy(mem, calls)
    spy.fail_recall = True
    delivered: list[str] = []
    runner = TurnRunner(namespace="bot", memory=spy)
    with caplog.at_level(logging.INFO, logger="turngraph.turn"):
        _, args = turn(runner, "hi", deliver=delivered.append)
    assert args.history == []
    assert delivered == ["ok"]
    assert "turn-kit.memory-recall-failed" in caplog.text
    strict = TurnRunner(namespace="bot", memory=spy, required_memory=True)
    with pytest.raises(turngraph.StoreError):
        turn(strict, "hi", deliver=delivered.append)
    assert delivered == ["ok"]
    calls.clear()
    with pytest.raises(ValueError, match="turn memory limit must be positive"):
        asyncio.run(TurnRunner(namespace="bot", memory=spy, history_limit=0).recall_history("t"))
    assert calls == []


# -- context --------------------------------------------------------------------------------


def test_context_checks_12_to_15(mem: turngraph.Memory, caplog: pytest.LogCaptureFixture) -> None:
    delivered: list[str] = []
    responded: list[RespondArgs] = []

    def boom(**_: Any) -> Any:
        raise RuntimeError("calendar down")

    def respond(args: RespondArgs) -> str:
        responded.append(args)
        return "fine"

    required = TurnRunner(namespace="bot", memory=mem, context=[define_context("cal", boom)])
    with pytest.raises(RuntimeError, match="calendar down"):
        asyncio.run(
            required.run(conversation=CHAT, input="hi", respond=respond, deliver=delivered.append)
        )
    assert (responded, delivered) == ([], [])
    optional = TurnRunner(
        namespace="bot", memory=mem, context=[define_context("cal", boom, optional=True)]
    )
    with caplog.at_level(logging.WARNING, logger="turngraph.turn"):
        asyncio.run(
            optional.run(conversation=CHAT, input="hi", respond=respond, deliver=delivered.append)
        )
    assert [b.id for b in responded[-1].context if b.id != "memory"] == []  # dropped out
    assert delivered == ["fine"]
    assert "turn-kit.context-provider-failed" in caplog.text
    same = [
        define_context(n, lambda **_: {"id": "x", "label": "L", "content": "c"}) for n in ("a", "b")
    ]
    with pytest.raises(ValueError, match="duplicate turn context id: x"):
        turn(TurnRunner(namespace="bot", memory=mem, context=same), "hi")
    got: list[Any] = []

    def first(**kw: Any) -> Any:
        got.append(kw["history"])
        return [{"id": " a1 ", "label": " A ", "content": " one "}, ContextBlock("a2", "A", "two")]

    ordered = [
        define_context("a", first),
        define_context("b", lambda **_: None),
        define_context("c", lambda **_: {"id": "c1", "label": "C", "content": "three"}),
    ]
    _, args = turn(TurnRunner(namespace="bot", memory=mem, context=ordered), "hi")
    assert [(b.id, b.label, b.content) for b in args.context if b.id != "memory"] == [
        ("a1", "A", "one"),
        ("a2", "A", "two"),
        ("c1", "C", "three"),
    ]
    assert [h.content for h in got[0]] == [h.content for h in args.history]
    with pytest.raises(ValueError, match="name is required"):
        define_context(" ", first)


# -- responder, acknowledgements, delivery --------------------------------------------------


def test_order_and_acknowledgements_checks_16_to_18(
    mem: turngraph.Memory, caplog: pytest.LogCaptureFixture
) -> None:
    calls: list[str] = []
    spy = Spy(mem, calls)
    provider = define_context("p", lambda **_: calls.append("context"))
    runner = TurnRunner(namespace="bot", memory=spy, context=[provider])

    async def respond(args: RespondArgs) -> str:
        calls.append("respond")
        assert await args.acknowledge("working on it") is True
        assert await args.acknowledge("   ") is False
        return "done"

    async def ack(text: str) -> None:
        calls.append("ack")

    result = asyncio.run(
        runner.run(
            conversation=CHAT,
            input="hi",
            respond=respond,
            acknowledge=ack,
            deliver=lambda r: calls.append("deliver") or {"ok": True},
        )
    )
    assert calls == ["recall", "context", "respond", "ack", "deliver", "save"]
    assert result.acknowledgements == 1

    def failing_ack(text: str) -> None:
        raise RuntimeError("network")

    delivered: list[str] = []

    async def respond2(args: RespondArgs) -> str:
        assert await args.acknowledge("hold on") is False
        return "still delivered"

    with caplog.at_level(logging.WARNING, logger="turngraph.turn"):
        result = asyncio.run(
            runner.run(
                conversation=CHAT,
                input="hi",
                respond=respond2,
                acknowledge=failing_ack,
                deliver=delivered.append,
            )
        )
    assert (result.acknowledgements, delivered) == (0, ["still delivered"])
    assert "turn-kit.acknowledgement-failed" in caplog.text

    async def respond3(args: RespondArgs) -> str:
        assert await args.acknowledge("no ack function") is False
        return "ok"

    result = asyncio.run(
        runner.run(conversation=CHAT, input="hi", respond=respond3, deliver=delivered.append)
    )
    assert result.acknowledgements == 0


def test_input_reply_and_delivery_checks_19_to_21(
    mem: turngraph.Memory, caplog: pytest.LogCaptureFixture
) -> None:
    calls: list[str] = []
    spy = Spy(mem, calls)
    runner = TurnRunner(namespace="bot", memory=spy)
    with pytest.raises(ValueError, match="turn input cannot be empty"):
        turn(runner, "  ")
    assert calls == []
    delivered: list[str] = []
    with pytest.raises(ValueError, match="turn response cannot be empty"):
        turn(runner, "hi", reply="  ", deliver=delivered.append)
    assert delivered == []
    calls.clear()
    with (
        caplog.at_level(logging.ERROR, logger="turngraph.turn"),
        pytest.raises(
            UnconfirmedTurnDeliveryError, match="bot final turn delivery returned an unconfirmed"
        ),
    ):
        turn(runner, "hi", deliver=lambda r: {"ok": False}, confirm_delivery=lambda r: r["ok"])
    assert "save" not in calls
    assert "turn-kit.delivery-unconfirmed" in caplog.text

    def broken(reply: str) -> None:
        raise ConnectionError("socket closed")

    with pytest.raises(ConnectionError):
        turn(runner, "hi", deliver=broken)
    assert "save" not in calls


# -- persistence ----------------------------------------------------------------------------


def test_persistence_checks_22_to_25(
    mem: turngraph.Memory, caplog: pytest.LogCaptureFixture
) -> None:
    runner = TurnRunner(
        namespace="life-agent", memory=mem, user_label="Khaliq", assistant_label="life-agent"
    )
    result, _ = turn(runner, "remind me to call mom", reply="Will do.")
    assert result.memory_saved
    tag = conversation_tag("life-agent", "telegram", "8587")
    turns = mem.list_turns(runner.session_for(tag)).turns
    # The pair is two turns with their roles (only the user's words make facts about them),
    # and history shows it as the one entry the labels name.
    assert [(t.role, t.speaker, t.content) for t in turns] == [
        ("user", "Khaliq", "remind me to call mom"),
        ("assistant", None, "Will do."),
    ]
    history = asyncio.run(runner.recall_history(tag))
    assert [h.content for h in history] == ["Khaliq: remind me to call mom\nlife-agent: Will do."]
    calls: list[str] = []
    spy = Spy(mem, calls)
    spy.no_receipt = True
    lax = TurnRunner(namespace="bot", memory=spy)
    with caplog.at_level(logging.WARNING, logger="turngraph.turn"):
        assert turn(lax, "hi")[0].memory_saved is False
    assert "turn-kit.memory-save-unconfirmed" in caplog.text
    with pytest.raises(RuntimeError, match="no receipt"):
        turn(TurnRunner(namespace="bot", memory=spy, required_memory=True), "hi")
    plain = TurnRunner(namespace="plain", memory=mem)
    assert turn(plain, "x", reply={"reply": "y", "remember": False})[0].memory_saved is False
    assert turn(plain, "x", reply={"reply": "y", "remember": "custom text"})[0].memory_saved
    ptag = conversation_tag("plain", "telegram", "8587")
    assert [t.content for t in mem.list_turns(plain.session_for(ptag)).turns] == ["custom text"]
    with pytest.raises(ValueError, match="explicit turn memory cannot be empty"):
        turn(plain, "x", reply={"reply": "y", "remember": "  "})
    off = TurnRunner(namespace="off", memory=False)
    off_result, off_args = turn(off, "x")
    assert (off_result.memory_saved, off_args.history) == (False, [])
    assert asyncio.run(runner.remember_assistant_message(CHAT, "⏰ Call Mom", label="my-agent"))
    _, args = turn(runner, "what's next?")
    assert args.history[-1].content == "my-agent: ⏰ Call Mom"
    with pytest.raises(ValueError, match="turn memory message cannot be empty"):
        asyncio.run(runner.remember_assistant_message(CHAT, " "))


def test_ttl_check_26(mem: turngraph.Memory) -> None:
    now = [1_800_000_000.0]
    runner = TurnRunner(namespace="ttl", memory=mem, ttl_seconds=60, clock=lambda: now[0])
    turn(runner, "short-lived", reply="noted")
    tag = conversation_tag("ttl", "telegram", "8587")
    now[0] += 59
    assert len(asyncio.run(runner.recall_history(tag))) == 1
    now[0] += 2
    assert asyncio.run(runner.recall_history(tag)) == []


# -- confirmed actions ----------------------------------------------------------------------


def test_confirmed_actions_checks_27_28(caplog: pytest.LogCaptureFixture) -> None:
    built: list[Any] = []
    with (
        caplog.at_level(logging.ERROR, logger="turngraph.turn"),
        pytest.raises(
            UnconfirmedTurnActionError, match='turn action "track" returned an unconfirmed'
        ),
    ):
        asyncio.run(
            run_confirmed_action(
                name="track",
                perform=lambda: {"id": None},
                confirm=lambda r: r["id"],
                confirmed=built.append,
            )
        )
    assert built == []
    assert "turn-kit.action-unconfirmed" in caplog.text
    text = asyncio.run(
        run_confirmed_action(
            name="track",
            perform=lambda: {"id": "t1", "title": "Call Mom"},
            confirm=lambda r: r["id"],
            confirmed=lambda r: f"Tracked: {r['title']}",
        )
    )
    assert text == "Tracked: Call Mom"
    performed: list[int] = []
    with pytest.raises(ValueError, match="turn action name is required"):
        asyncio.run(
            run_confirmed_action(
                name=" ", perform=lambda: performed.append(1), confirm=bool, confirmed=str
            )
        )
    assert performed == []


def test_the_model_is_given_what_memory_holds_first(mem: turngraph.Memory) -> None:
    mem.remember("Always answer in Spanish.", speaker="Dana")
    mem.remember("I moved to Porto last month.", speaker="Dana")
    provider = define_context("p", lambda **_: {"id": "p1", "label": "P", "content": "x"})
    _, args = turn(TurnRunner(namespace="bot", memory=mem, context=[provider]), "where do I live?")
    first = args.context[0]
    assert (first.id, first.label) == ("memory", "What memory holds")
    assert "Always answer in Spanish." in first.content
    assert "Dana location: Porto" in first.content
    assert [b.id for b in args.context] == ["memory", "p1"]
    off = TurnRunner(namespace="bot", memory=mem, context=[provider], memory_context_tokens=0)
    assert [b.id for b in turn(off, "hi")[1].context] == ["p1"]


def test_a_reply_never_makes_facts_about_the_user(mem: turngraph.Memory) -> None:
    """Saved as one user turn, "User: ...\nAssistant: I work at Google" made the user an
    employee of Google; the reply is the assistant's turn now."""
    runner = TurnRunner(namespace="bot", memory=mem, user_label="Dana")
    turn(runner, "I live in Leeds.", reply="I work at Google as an engineer and I live in Paris.")
    facts = {(a.entity, a.key, a.value) for a in mem.state().identity.attributes}
    facts |= {(a.entity, a.key, a.value) for a in mem.state().knowledge.attributes}
    assert ("Dana", "location", "Leeds") in facts
    assert not any(value in ("Google", "Paris", "engineer") for _, _, value in facts)


def test_a_session_id_joins_conversations_and_a_history_query_picks_entries(
    mem: turngraph.Memory,
) -> None:
    """A conversation that names a session (resolved elsewhere, for affinity across
    surfaces) shares its history; ``history_query`` picks the entries recall finds."""
    runner = TurnRunner(namespace="bot", memory=mem)
    mem.create_session(session_id="session:person-dana")
    on_telegram = Conversation("telegram", "8587", session_id="session:person-dana")
    on_slack = Conversation("slack", "C42", session_id="session:person-dana")
    turn(runner, "My flight to Lisbon is on Friday.", reply="Noted.", conversation=on_telegram)
    _, args = turn(runner, "What did I say about my flight?", conversation=on_slack)
    assert [h.content for h in args.history] == [
        "User: My flight to Lisbon is on Friday.\nAssistant: Noted."
    ]
    for i in range(6):
        turn(runner, f"Small talk number {i}.", reply="Sure.", conversation=on_slack)
    picky = TurnRunner(namespace="bot", memory=mem, history_limit=3, history_query="flight Lisbon")
    _, args = turn(picky, "Remind me of the flight?", conversation=on_slack)
    assert any("Lisbon" in h.content for h in args.history)
    plain = TurnRunner(namespace="bot", memory=mem, history_limit=3)
    _, args = turn(plain, "And now?", conversation=on_slack)
    assert not any("Lisbon" in h.content for h in args.history)  # the newest three only


def test_the_lifecycle_parts_are_public(mem: turngraph.Memory) -> None:
    """remember_turn and collect_turn_context, for agents with a lifecycle of their own."""
    provider = define_context(
        "notes", lambda **_: {"id": "notes", "label": "Notes", "content": "open: ship v2"}
    )
    runner = TurnRunner(namespace="own", memory=mem, context=[provider])
    tag = conversation_tag("own", "telegram", "1")
    assert asyncio.run(runner.remember_turn(tag, "I live in Leeds.", "Nice!"))
    assert asyncio.run(runner.remember_turn(tag, "x", "y", remember="Dana's birthday is May 2"))
    history = asyncio.run(runner.recall_history(tag))
    assert [h.content for h in history] == [
        "User: I live in Leeds.\nAssistant: Nice!",
        "Dana's birthday is May 2",
    ]
    blocks = asyncio.run(
        runner.collect_turn_context(Conversation("telegram", "1"), "where do I live?", history)
    )
    assert [b.id for b in blocks] == ["memory", "notes"]
    assert "Leeds" in blocks[0].content
    with pytest.raises(ValueError, match="explicit turn memory cannot be empty"):
        asyncio.run(runner.remember_turn(tag, "x", "y", remember=" "))


def test_a_reply_whose_message_fell_outside_the_window_is_labelled_the_assistants(
    mem: turngraph.Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    from turngraph.agent import runner as runner_module

    monkeypatch.setattr(runner_module, "HISTORY_WINDOW", 3)
    runner = TurnRunner(namespace="win", memory=mem)
    tag = conversation_tag("win", "telegram", "1")
    for i in range(2):
        asyncio.run(runner.remember_turn(tag, f"question {i}", f"answer {i}"))
    history = asyncio.run(runner.recall_history(tag))  # the window starts on "answer 0"
    assert [h.content for h in history] == [
        "Assistant: answer 0",
        "User: question 1\nAssistant: answer 1",
    ]
