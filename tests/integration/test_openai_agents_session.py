"""turngraph for the OpenAI Agents SDK: TurngraphSession and recall_tool with the real
``openai-agents`` package, its agent running against a local fake that speaks the
chat-completions wire format (tracing off: nothing leaves the machine)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import turngraph

pytest.importorskip("agents")  # the openai-agents extra; `make test` installs it

from agents import Agent, OpenAIChatCompletionsModel, Runner, set_tracing_disabled
from openai import AsyncOpenAI

from turngraph.integrations.openai_agents import TurngraphSession, recall_tool

from ..fakes.openai_server import FakeOpenAI, fake_openai

set_tracing_disabled(True)


@pytest.fixture
def mem(tmp_path: Path) -> Iterator[turngraph.Memory]:
    with turngraph.open(tmp_path / "agents.db") as db:
        yield db.create_memory("agent")


def _agent(fake: FakeOpenAI, **kw: Any) -> Agent:
    client = AsyncOpenAI(base_url=fake.base_url, api_key="test-key", max_retries=0)
    return Agent(
        name="helper",
        instructions="You are helpful.",
        model=OpenAIChatCompletionsModel(model="fake-model", openai_client=client),
        **kw,
    )


def _message(content: str) -> dict[str, Any]:
    return {"choices": [{"index": 0, "finish_reason": "stop", "message": _said(content)}]}


def _said(content: str) -> dict[str, Any]:
    return {"role": "assistant", "content": content}


def test_a_session_keeps_the_conversation_for_the_next_run(mem: turngraph.Memory) -> None:
    with fake_openai() as fake:
        replies = iter(["Nice to meet you, Dana!", "You live in Leeds."])
        fake.handler = lambda path, body: {
            "id": "c",
            "object": "chat.completion",
            "created": 0,
            "model": "fake-model",
            **_message(next(replies)),
        }
        session = TurngraphSession("dana-chat", mem)
        agent = _agent(fake)
        first = Runner.run_sync(agent, "Hi, I'm Dana and I live in Leeds.", session=session)
        assert first.final_output == "Nice to meet you, Dana!"
        second = Runner.run_sync(agent, "Where do I live?", session=session)
        assert second.final_output == "You live in Leeds."
        sent = fake.requests[-1]["body"]["messages"]
        assert [m["role"] for m in sent] == ["system", "user", "assistant", "user"]
        assert sent[1]["content"] == "Hi, I'm Dana and I live in Leeds."
    # The items come back as the SDK stored them; the memory holds them as turns.
    items = asyncio.run(session.get_items())
    assert len(items) == 4
    assert items[0] == {"content": "Hi, I'm Dana and I live in Leeds.", "role": "user"}
    assert asyncio.run(session.get_items(limit=1)) == items[-1:]
    turns = mem.list_turns(session.turngraph_session).turns
    assert [(t.role, t.content) for t in turns] == [
        ("user", "Hi, I'm Dana and I live in Leeds."),
        ("assistant", "Nice to meet you, Dana!"),
        ("user", "Where do I live?"),
        ("assistant", "You live in Leeds."),
    ]
    known = {(a.key, a.value) for a in mem.entity_state("person", "user").attributes}
    assert ("location", "Leeds") in known  # the user's words taught the memory
    popped = asyncio.run(session.pop_item())
    assert popped == items[-1]
    assert len(mem.list_turns(session.turngraph_session).turns) == 3
    asyncio.run(session.clear_session())
    assert asyncio.run(session.get_items()) == []
    assert asyncio.run(session.pop_item()) is None
    with pytest.raises(turngraph.NotFoundError):
        mem.get_session(session.turngraph_session)


def test_tool_calls_round_trip_and_the_recall_tool_answers_from_memory(
    mem: turngraph.Memory,
) -> None:
    mem.remember("Always answer in French.", speaker="Dana")
    mem.remember("My dog is called Pixel.", speaker="Dana")
    with fake_openai() as fake:
        calls = {"n": 0}

        def answer(path: str, body: dict[str, Any]) -> dict[str, Any]:
            calls["n"] += 1
            head = {"id": "c", "object": "chat.completion", "created": 0, "model": "fake-model"}
            if calls["n"] == 1:  # the model asks the memory first
                call = {
                    "id": "call_1",
                    "type": "function",
                    "function": {
                        "name": "recall_memory",
                        "arguments": json.dumps({"query": "dog name"}),
                    },
                }
                message = {"role": "assistant", "content": None, "tool_calls": [call]}
                return {
                    **head,
                    "choices": [{"index": 0, "finish_reason": "tool_calls", "message": message}],
                }
            tool_result = next(m for m in body["messages"] if m["role"] == "tool")
            assert "Pixel" in tool_result["content"]
            assert "Always answer in French" in tool_result["content"]
            return {**head, **_message("Il s'appelle Pixel.")}

        fake.handler = answer
        session = TurngraphSession("tools", mem)
        agent = _agent(fake, tools=[recall_tool(mem)])
        result = Runner.run_sync(agent, "What's my dog called?", session=session)
        assert result.final_output == "Il s'appelle Pixel."
    items = asyncio.run(session.get_items())
    kinds = [i.get("type", "message") for i in items]
    assert kinds == ["message", "function_call", "function_call_output", "message"]
    # The call and its output are kept exactly, and in the memory as tool turns.
    assert items[1]["name"] == "recall_memory"
    turns = mem.list_turns(session.turngraph_session).turns
    assert [t.role for t in turns] == ["user", "tool", "tool", "assistant"]
    assert turns[1].content.startswith("recall_memory(")


def test_the_example_runs(tmp_path: Path) -> None:
    example = Path(__file__).resolve().parents[2] / "examples" / "openai_agents_session.py"
    done = subprocess.run(
        [sys.executable, str(example), str(tmp_path / "example.db")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "second answer: You live in Leeds." in done.stdout


def test_an_item_with_no_text_is_kept_and_a_batch_is_not_cut(mem: turngraph.Memory) -> None:
    session = TurngraphSession("odd", mem)
    blank = {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "\n"}],
    }
    asyncio.run(
        session.add_items(
            [{"role": "user", "content": "hi"}, blank, {"role": "user", "content": "bye"}]
        )
    )
    assert asyncio.run(session.get_items()) == [
        {"role": "user", "content": "hi"},
        blank,
        {"role": "user", "content": "bye"},
    ]
