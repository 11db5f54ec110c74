"""The persona a turn runner takes, checked when it is defined, and the bridge that assembles
an assistant's turn for its model harness."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

import turngraph
from turngraph.agent.assistant import assemble_assistant_turn_context, define_turn_persona
from turngraph.agent.runner import (
    ContextBlock,
    Conversation,
    HistoryItem,
    RespondArgs,
    TurnRunner,
    conversation_tag,
)


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[turngraph.Memory]:
    with turngraph.open(tmp_path / "assistant.db") as db:
        yield db.create_memory("agent", retrieval={"embedder": "none"})


def test_a_persona_is_checked_when_defined_and_the_runner_takes_it(
    mem: turngraph.Memory,
) -> None:
    persona = define_turn_persona(
        id="my-agent",
        intent="relay-orchestrator",
        description="A multi-turn assistant.",
        cloud=True,
        memory={"enabled": True, "scopes": ["workspace"], "ttlDays": 30},
        harness_settings={"reasoning": "low", "timeoutSeconds": 300},
        on_event="./agent.py",
    )
    assert (persona.memory.scopes, persona.memory.ttl_seconds) == (("workspace",), 30 * 86_400)
    bad = {
        "requires enabled memory": {"enabled": False},
        "scopes must be": {"enabled": True, "scopes": []},
        "ttl_days must be": {"enabled": True, "ttl_days": 0},
        "unknown settings: ttl": {"enabled": True, "ttl": 3},
    }
    for message, memory in bad.items():
        with pytest.raises(ValueError, match=message):
            define_turn_persona(id="a", intent="i", description="d", memory=memory)
    with pytest.raises(ValueError, match="lowercase slug"):
        define_turn_persona(id="My Agent", intent="i", description="d", memory={"enabled": True})
    runner = TurnRunner(memory=mem, persona=persona)
    assert (runner.namespace, runner.ttl_seconds) == ("my-agent", 30 * 86_400)
    with pytest.raises(ValueError, match="needs a namespace"):
        TurnRunner(memory=mem)


def test_the_bridge_assembles_identity_instructions_history_and_context(
    mem: turngraph.Memory,
) -> None:
    mem.remember("Always answer briefly.", speaker="Dana")
    runner = TurnRunner(namespace="helper", memory=mem)
    chat = Conversation("telegram", "77")
    seen: dict[str, RespondArgs] = {}

    def respond(args: RespondArgs) -> str:
        seen["args"] = args
        return "ok"

    tag = conversation_tag("helper", "telegram", "77")
    asyncio.run(runner.remember_turn(tag, "I live in Leeds.", "Noted."))
    asyncio.run(
        runner.run(
            conversation=chat, input="Where do I live?", respond=respond, deliver=lambda r: {}
        )
    )
    args = seen["args"]
    assembly = assemble_assistant_turn_context(
        assistant_id="helper",
        turn_id="m-1",
        conversation=chat,
        identity={
            "assistant_name": "Helper",
            "base_instructions": {"system_prompt": "You help Dana plan her week."},
        },
        history=args.history,
        context=args.context,
    )
    projection = assembly.harness_projection
    assert projection["system_prompt"].startswith("You are Helper.\n\nYou help Dana plan")
    assert "## What memory holds" in projection["system_prompt"]
    assert "Always answer briefly" in projection["system_prompt"]
    assert projection["messages"] == [
        {"role": "user", "content": "User: I live in Leeds.\nAssistant: Noted."}
    ]
    assert (projection["turn_id"], projection["conversation"]["id"]) == ("m-1", "77")
    assert [c["id"] for c in projection["context"]] == ["memory"]
    with pytest.raises(ValueError, match="assistant_name"):
        assemble_assistant_turn_context(
            assistant_id="helper", turn_id="m-1", conversation=chat, identity={}
        )
    plain = assemble_assistant_turn_context(
        assistant_id="a",
        turn_id="t",
        conversation=chat,
        identity={"assistant_name": "A"},
        history=[HistoryItem("hi")],
        context=[ContextBlock("notes", "Notes", "ship v2", source="file")],
    )
    assert plain.system_prompt == "You are A.\n\n## Notes\nship v2"


def test_a_runner_answers_with_the_configured_chat_model(mem: turngraph.Memory) -> None:
    """The managed chat loop in the agent kit: the runner's turn answered by the model, with
    the memory's context and the history in its prompt; a failing model delivers and saves
    nothing."""
    from turngraph.agent.assistant import model_responder
    from turngraph.config import Settings
    from turngraph.core.chat import ChatModel

    from ..fakes.openai_server import Reply, fake_openai

    mem.remember("Always reply in French.", speaker="Dana")
    with fake_openai() as fake:
        model = ChatModel.from_settings(Settings(llm_base_url=fake.base_url, llm_model="m"))
        runner = TurnRunner(namespace="fr", memory=mem)
        chat = Conversation("telegram", "5")
        delivered: list[str] = []
        fake.replies.append(Reply(content="Bonjour !"))
        result = asyncio.run(
            runner.run(
                conversation=chat,
                input="Hello!",
                respond=model_responder(model),
                deliver=delivered.append,
            )
        )
        assert (result.reply, delivered, result.memory_saved) == ("Bonjour !", ["Bonjour !"], True)
        prompt = fake.requests[-1]["body"]["messages"]
        assert "Always reply in French" in prompt[0]["content"]
        assert prompt[-1] == {"role": "user", "content": "Hello!"}
        fake.replies.append(Reply(status=500, raw="boom"))
        with pytest.raises(turngraph.ModelError, match="answered 500"):
            asyncio.run(
                runner.run(
                    conversation=chat,
                    input="Again?",
                    respond=model_responder(model),
                    deliver=delivered.append,
                )
            )
        assert delivered == ["Bonjour !"]
        tag = conversation_tag("fr", "telegram", "5")
        assert len(asyncio.run(runner.recall_history(tag))) == 1
