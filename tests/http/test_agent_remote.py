"""The turn protocol against a remote memory (turngraph.Client), and a replay across faces."""

from __future__ import annotations

import asyncio

from turngraph.agent import TurnContext, TurnMemory, with_memory
from turngraph.client import Client

from .conftest import Running


def test_a_turn_stored_embedded_replays_over_http(server: Running) -> None:
    embedded = server.db.create_memory("agent-remote")
    embedded.add_observation(
        title="Harbor",
        content="The Harbor project ships in May.",
        entities=[{"name": "Harbor", "type": "other", "description": "A project"}],
    )
    local = TurnMemory(embedded, conversation_id="chat-9", platform="telegram")
    first = local.open_turn_sync("t1", user_message="When does Harbor ship?")
    with Client(server.url, server.admin_key) as client:
        remote = TurnMemory(
            client.memory("agent-remote"), conversation_id="chat-9", platform="telegram"
        )
        again = remote.open_turn_sync("t1", user_message="When does Harbor ship?")
        assert again.user.replayed
        assert again.user.stored_turn_id == first.user.stored_turn_id
        assert [e.name for e in again.retrieved] == ["Harbor"]

        def agent(message: str, ctx: TurnContext) -> str:
            return "Harbor ships in May."

        turn = with_memory(
            agent,
            memory=client.memory("agent-remote"),
            conversation_id="chat-9",
            platform="telegram",
        )
        result = asyncio.run(turn("And Harbor's owner?"))
        assert result.assistant.refers_to == ["Harbor"]
    turns = embedded.list_turns(local.session_id).turns
    assert [t.content for t in turns] == [
        "When does Harbor ship?",
        "And Harbor's owner?",
        "Harbor ships in May.",
    ]
