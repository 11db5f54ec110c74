"""The turn protocol against a real memory: each of the seven rules of turn-protocol.md."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest

import turngraph
from turngraph.agent import AgentReply, TurnContext, TurnMemory, extract_identifiers, with_memory
from turngraph.errors import ConflictError, IdempotencyConflictError


@pytest.fixture
def mem(tmp_path: Path) -> turngraph.Memory:
    db = turngraph.open(tmp_path / "agent.db")
    memory = db.create_memory("agent")
    memory.add_observation(
        title="Falcon",
        content="Alice Moreau leads Project Falcon at Acme Corp.",
        entities=[
            {"name": "Alice Moreau", "type": "person", "description": "Engineering lead"},
            {"name": "Project Falcon", "type": "other", "description": "Billing migration"},
            {"name": "Acme Corp", "type": "organization", "description": "A customer"},
        ],
    )
    return memory


def edges(mem: turngraph.Memory, name: str) -> set[tuple[str, str, str]]:
    return {(r.source, r.type, r.target) for r in mem.get_entity(name).relationships}


def test_1_retrieval_finds_what_the_message_names_and_links_it(mem: turngraph.Memory) -> None:
    turns = TurnMemory(mem, conversation_id="c1", platform="test")
    opened = turns.open_turn_sync("t1", user_message="How is Project Falcon going with Acme Corp?")
    assert [e.name for e in opened.retrieved] == ["Project Falcon", "Acme Corp"]
    assert edges(mem, "test:c1:t1") == {
        ("test:c1:t1", "part_of", "conversation test:c1"),
        ("test:c1:t1", "refers_to", "Project Falcon"),
        ("test:c1:t1", "refers_to", "Acme Corp"),
    }
    # A partial name still finds its entity; a miss is skipped, not fatal.
    again = turns.open_turn_sync("t2", user_message='Ask "Falcon" and "Nobody Here" about it')
    assert [e.name for e in again.retrieved] == ["Project Falcon"]


def test_2_default_turn_ids_survive_a_restart(mem: turngraph.Memory) -> None:
    first = TurnMemory(mem, conversation_id="c2")
    a = first.open_turn_sync(user_message="Hello there")
    first.close_turn_sync(a.turn_id, assistant_message="Hi!")
    restarted = TurnMemory(mem, conversation_id="c2")  # a new process, same conversation
    b = restarted.open_turn_sync(user_message="Hello again, with other words")
    assert a.turn_id != b.turn_id
    assert not b.user.replayed
    assert TurnMemory.new_turn_id("msg-77") == TurnMemory.new_turn_id("msg-77") == "m-msg-77"
    contents = [t.content for t in mem.list_turns(restarted.session_id).turns]
    assert contents == ["Hello there", "Hi!", "Hello again, with other words"]


def test_3_message_and_its_edges_are_one_write(mem: turngraph.Memory) -> None:
    turns = TurnMemory(mem, conversation_id="c3")
    opened = turns.open_turn_sync("t1", user_message="Tell Alice Moreau the news")
    turn = mem.list_turns(turns.session_id).turns[0]
    backed = {(r.source, r.type, r.target) for r in mem.get_observation(turn.slug).relationships}
    assert backed == edges(mem, "python:c3:t1")
    assert ("python:c3:t1", "refers_to", "Alice Moreau") in backed
    # Deleting the one write removes the message and both kinds of edge together.
    mem.delete_observation(turn.slug)
    with pytest.raises(turngraph.NotFoundError):
        mem.get_entity(opened.user.turn_key)


def test_4_identifiers() -> None:
    assert extract_identifiers("What did Alice say about Project Falcon?") == [
        "Alice",
        "Project Falcon",
    ]
    text = (
        "Hello! Email bob@acme.com about ABC-123 and #42, see https://x.io/a?b=1 cc @dana, "
        'ticket 550e8400-e29b-41d4-a716-446655440000, ask "Big Blue" and NASA'
    )
    assert extract_identifiers(text, limit=20) == [
        "bob@acme.com",
        "ABC-123",
        "#42",
        "https://x.io/a?b=1",
        "@dana",
        "550e8400-e29b-41d4-a716-446655440000",
        "Big Blue",
        "NASA",
    ]
    assert extract_identifiers("ok") == []
    assert extract_identifiers("What? Why? Hello. Thanks!") == []
    assert extract_identifiers("Alice, alice and ALICE") == ["Alice"]
    assert extract_identifiers("Is Harbor's owner Dana’s friend?") == ["Harbor", "Dana"]
    many = ", ".join(f"Name{i}" for i in range(20))
    assert len(extract_identifiers(many)) == 8


def test_5_replays_collapse_and_conflicts_are_errors(mem: turngraph.Memory) -> None:
    turns = TurnMemory(mem, conversation_id="c5")
    first = turns.open_turn_sync("t1", user_message="ok")  # short turns are stored too
    again = turns.open_turn_sync("t1", user_message="ok")
    assert again.user.replayed
    assert again.user.stored_turn_id == first.user.stored_turn_id
    assert len(mem.list_turns(turns.session_id).turns) == 1
    with pytest.raises(IdempotencyConflictError):
        turns.open_turn_sync("t1", user_message="something else")
    # A user turn id spelled like a reply's key is a turn of its own: the parts of a key
    # are encoded, so it cannot collide.
    reply = turns.close_turn_sync("t1", assistant_message="fine")
    crafted = turns.open_turn_sync("t1:assistant", user_message="collide")
    assert crafted.user.turn_key != reply.turn_key
    assert crafted.user.stored_turn_id != reply.stored_turn_id
    # A turn_key stored under one role is still refused for the other.
    planted = {
        "type": "conversation_message",
        "name": turns.turn_key("t2", "assistant"),
        "description": "user message (human) planted",
    }
    target = {"type": "conversation", "name": turns.conversation, "description": "c5"}
    mem.remember(
        "planted",
        session_id=turns.session_id,
        links=[{"entity": planted, "key": "part_of", "target": target}],
    )
    with pytest.raises(ConflictError, match="stored with role 'user'"):
        turns.close_turn_sync("t2", assistant_message="reply")


def test_keys_are_unambiguous_across_conversations_turns_and_platforms(
    mem: turngraph.Memory,
) -> None:
    """Conversation "a-b" turn "c" and conversation "a" turn "b-c" were one key; so were one
    conversation id on Telegram and on Slack."""
    first = TurnMemory(mem, conversation_id="a-b").open_turn_sync("c", user_message="one")
    second = TurnMemory(mem, conversation_id="a").open_turn_sync("b-c", user_message="two")
    assert first.user.turn_key != second.user.turn_key
    assert not second.user.replayed
    telegram = TurnMemory(mem, conversation_id="42", platform="telegram")
    slack = TurnMemory(mem, conversation_id="42", platform="slack")
    on_telegram = telegram.open_turn_sync("m1", user_message="from telegram")
    on_slack = slack.open_turn_sync("m1", user_message="from slack")
    assert on_telegram.user.turn_key != on_slack.user.turn_key
    assert mem.get_entity(on_telegram.user.turn_key).name != on_slack.user.turn_key
    long = TurnMemory(mem, conversation_id="x" * 400).open_turn_sync("t", user_message="long")
    assert len(long.user.turn_key) <= 180
    assert telegram.idempotency_key("m1", "user") != slack.idempotency_key("m1", "user")


def test_6_results_are_typed_and_their_ids_read_back(mem: turngraph.Memory) -> None:
    turns = TurnMemory(mem, conversation_id="c6")
    opened = turns.open_turn_sync("t1", user_message="Where is Acme Corp based?")
    reply = turns.close_turn_sync(
        "t1", assistant_message="Acme Corp is in Lyon.", retrieved=opened.retrieved
    )
    stored = {t.id: t for t in mem.list_turns(turns.session_id).turns}
    assert stored[opened.user.stored_turn_id].content == "Where is Acme Corp based?"
    assert stored[reply.stored_turn_id].role == "assistant"
    assert stored[reply.stored_turn_id].content == "Acme Corp is in Lyon."
    assert reply.turn_key == "python:c6:t1:assistant"
    assert turns.open_turns() == []


def test_7_the_reply_refers_to_what_it_cites(mem: turngraph.Memory) -> None:
    turns = TurnMemory(mem, conversation_id="c7")
    opened = turns.open_turn_sync(
        "t1", user_message="Compare Project Falcon and Acme Corp for Alice Moreau"
    )
    assert len(opened.retrieved) == 3
    reply = turns.close_turn_sync(
        "t1", assistant_message="Project Falcon is on track.", retrieved=opened.retrieved
    )
    assert reply.refers_to == ["Project Falcon"]
    assert ("python:c7:t1:assistant", "refers_to", "Project Falcon") in edges(
        mem, "python:c7:t1:assistant"
    )
    assert ("python:c7:t1:assistant", "refers_to", "Acme Corp") not in edges(
        mem, "python:c7:t1:assistant"
    )
    explicit = turns.close_turn_sync("t2", assistant_message="Done.", refers_to=["Acme Corp"])
    assert explicit.refers_to == ["Acme Corp"]


def test_with_memory_stores_both_halves_and_reports_open_turns(
    mem: turngraph.Memory, caplog: pytest.LogCaptureFixture
) -> None:
    seen: list[TurnContext] = []

    async def agent(message: str, ctx: TurnContext) -> str:
        seen.append(ctx)
        return f"Noted about {ctx.retrieved[0].name}."

    turn = with_memory(agent, memory=mem, conversation_id="w1")
    result = asyncio.run(turn("Any news on Project Falcon?"))
    assert result.reply == "Noted about Project Falcon."
    assert [e.name for e in seen[0].retrieved] == ["Project Falcon"]
    assert result.assistant.refers_to == ["Project Falcon"]
    turns = TurnMemory(mem, conversation_id="w1")
    contents = [(t.role, t.content) for t in mem.list_turns(turns.session_id).turns]
    assert contents == [("user", "Any news on Project Falcon?"), ("assistant", result.reply)]

    def broken(message: str, ctx: TurnContext) -> str:
        raise RuntimeError("model down")

    # The reply names what it produced: the entity it made is referred to, a name the memory
    # does not hold is skipped.
    def producer(message: str, ctx: TurnContext) -> AgentReply:
        mem.add_observation(
            title="Nova",
            content="Project Nova was set up for the launch.",
            entities=[{"name": "Project Nova", "type": "project", "description": "The launch"}],
        )
        return AgentReply(text="Set up.", refers_to=["Project Nova", "Nowhere Thing"])

    made = asyncio.run(with_memory(producer, memory=mem, conversation_id="w2")("Set up Nova"))
    assert made.reply == "Set up."
    assert made.assistant.refers_to == ["Project Nova"]
    with pytest.raises(turngraph.ValidationError, match="reply text or an AgentReply"):
        asyncio.run(with_memory(lambda m, c: 42, memory=mem, conversation_id="w3")("Hi"))

    with pytest.raises(RuntimeError):
        asyncio.run(
            with_memory(broken, memory=mem, conversation_id="w1")("Hello?", turn_id="t-broken")
        )
    assert turns.open_turns() == ["t-broken"]
    with caplog.at_level(logging.WARNING, logger="turngraph.agent"):
        turns.open_turn_sync("x1", user_message="one")
        turns.open_turn_sync("x2", user_message="two")
    assert "x1" in caplog.text
    assert "opened and not closed" in caplog.text


class _Flaky:
    """A memory whose look-ups fail as a remote one can (a lost connection), while its
    writes go through."""

    def __init__(self, memory: turngraph.Memory) -> None:
        self.memory = memory

    def __getattr__(self, name: str) -> Any:
        return getattr(self.memory, name)

    def get_entity(self, name: str) -> Any:
        if name.startswith("python:"):  # the protocol's own message names still resolve
            return self.memory.get_entity(name)
        raise ConnectionError("connection reset by peer")


def test_a_failed_retrieval_is_never_fatal_and_ids_and_sender_kinds_are_kept(
    mem: turngraph.Memory,
) -> None:
    mem.add_observation(
        title="Acme",
        content="Acme Corp is based in Lyon.",
        entities=[{"name": "Acme Corp", "type": "organization", "description": "A client"}],
    )
    turns = TurnMemory(mem, conversation_id="c8")
    opened = turns.open_turn_sync("t1", user_message="Where is Acme Corp based?")
    assert opened.retrieved_entity_ids == ["entity:organization/acme corp"]
    reply = turns.close_turn_sync("t1", assistant_message="In Lyon.", retrieved=opened.retrieved)
    assert (opened.user.sender_kind, reply.sender_kind) == ("user", "assistant")
    stored = {t.id: t.labels for t in mem.list_turns(turns.session_id).turns}
    assert "sender_kind=user" in stored[opened.user.stored_turn_id]
    assert "sender_kind=assistant" in stored[reply.stored_turn_id]
    flaky = TurnMemory(_Flaky(mem), conversation_id="c9")  # type: ignore[arg-type]
    degraded = flaky.open_turn_sync("t1", user_message="Where is Acme Corp based?")
    assert degraded.retrieved == []
    assert degraded.user.content == "Where is Acme Corp based?"


def test_a_reply_longer_than_a_turn_is_stored_whole_beside_its_message(
    mem: turngraph.Memory,
) -> None:
    """Both halves or neither: a 70,000-character reply used to fail after the user half was
    stored; it is stored whole now, in order, over as many turns as it needs."""
    reply = "\n".join(f"Line {i}: " + "word " * 30 for i in range(450))
    assert len(reply) > 2 * 32_000

    def agent(message: str, ctx: TurnContext) -> str:
        return reply

    turn = with_memory(agent, memory=mem, conversation_id="long")
    result = asyncio.run(turn("Write me the long report.", turn_id="t1"))
    turns = mem.list_turns(TurnMemory(mem, conversation_id="long").session_id).turns
    assert [t.role for t in turns] == ["user", "assistant", "assistant", "assistant"]
    assert "".join(t.content for t in turns[1:]) == reply
    assert result.assistant.continued_turn_ids == [t.id for t in turns[2:]]
    again = asyncio.run(turn("Write me the long report.", turn_id="t1"))  # a replay
    assert again.assistant.replayed
    assert len(mem.list_turns(TurnMemory(mem, conversation_id="long").session_id).turns) == 4
    # A user message as long is kept whole the same way.
    long_question = "Please read this. " * 2_500
    asyncio.run(turn(long_question, turn_id="t2"))
    turns = mem.list_turns(TurnMemory(mem, conversation_id="long").session_id).turns[4:]
    assert [t.role for t in turns][:2] == ["user", "user"]
    assert "".join(t.content for t in turns if t.role == "user") == long_question


def test_a_message_just_over_a_turn_of_whitespace_is_stored_once_and_ids_keep_old_sessions(
    mem: turngraph.Memory,
) -> None:
    turns = TurnMemory(mem, conversation_id="ws")
    stored = turns.store_message("t1", "user", "x" * 32_000 + "\n")
    assert stored.continued_turn_ids == []
    assert turns.store_message("t1", "user", "x" * 32_000 + "\n").replayed  # a retry
    # A conversation id of session characters keeps the session earlier versions named.
    assert TurnMemory(mem, conversation_id="-100123").session_id == "session:conv-python--100123"
    # Percent-encoding is by UTF-8 bytes: no two ids spell one key.
    assert TurnMemory(mem, conversation_id="é0").turn_key("t", "user") != TurnMemory(
        mem, conversation_id="\u0e90"
    ).turn_key("t", "user")


def test_the_entity_list_leaves_the_conversation_entities_out_unless_asked(
    mem: turngraph.Memory,
) -> None:
    turns = TurnMemory(mem, conversation_id="list")
    turns.open_turn_sync("t1", user_message="Ana Lopez runs the Acme account.")
    assert {e.type for e in mem.list_entities()} <= {"person", "organization", "other"}
    assert [e.type for e in mem.list_entities("conversation_message")] == ["conversation_message"]
    assert [e.type for e in mem.list_entities("conversation")] == ["conversation"]
