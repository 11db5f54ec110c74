"""The managed chat loop: Memory.chat in process, over the memory API with the official
``surrealdb-memory`` client (plain and streamed), and over the graph API with turngraph's
client, against a local fake that speaks the chat-completions wire format. A failing or slow
model keeps the user's turn and invents no reply."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from surrealdb_memory import Memory as OfficialMemory
from surrealdb_memory import MemoryAPIError

import turngraph
from turngraph.config import Settings

from ..fakes.openai_server import FakeOpenAI, Reply, fake_openai
from .conftest import running


def _settings(fake: FakeOpenAI, timeout: float = 5.0) -> Settings:
    return Settings(llm_base_url=fake.base_url, llm_model="chat-model", llm_timeout_seconds=timeout)


def _prompt(request: dict[str, Any]) -> str:
    return "\n".join(m["content"] for m in request["body"]["messages"])


def test_chat_stores_both_turns_and_gives_the_model_the_memory(tmp_path: Path) -> None:
    with fake_openai() as fake, turngraph.open(tmp_path / "c.db", settings=_settings(fake)) as db:
        mem = db.create_memory("m", retrieval={"embedder": "none"})
        session = mem.create_session({"user": "Dana"}).id
        mem.remember("Always reply in French.", session_id=session)
        mem.remember("I live in Leeds and I work at Acme.", session_id=session)
        fake.replies.append(Reply(content="Vous habitez à Leeds."))
        done = mem.chat("Where do I live these days?", session_id=session)
        assert done.reply == "Vous habitez à Leeds."
        assert done.model == "chat-model"
        request = fake.requests[-1]
        assert request["path"] == "/v1/chat/completions"
        assert request["body"]["model"] == "chat-model"
        messages = request["body"]["messages"]
        assert messages[0]["role"] == "system"
        assert "Always reply in French" in messages[0]["content"]  # the standing instruction
        assert "Leeds" in messages[0]["content"]  # the current fact
        assert [m["role"] for m in messages[1:]] == ["user", "user", "user"]  # history, then it
        assert messages[-1]["content"] == "Where do I live these days?"
        turns = mem.list_turns(session).turns
        assert [(t.role, t.content) for t in turns[-2:]] == [
            ("user", "Where do I live these days?"),
            ("assistant", "Vous habitez à Leeds."),
        ]
        assert (turns[-2].id, turns[-1].id) == (done.turn_id, done.reply_turn_id)
        # What the message taught the memory comes back with the reply.
        fake.replies.append(Reply(content="Noté."))
        moved = mem.chat("I moved to York last week.", session_id=session)
        assert ("location", "York") in {(a.key, a.value) for a in moved.memory_updates.attributes}
        # A model named by the call is the one asked.
        fake.replies.append(Reply(content="ok"))
        assert mem.chat("hi", model="other-model").model == "other-model"
        assert fake.requests[-1]["body"]["model"] == "other-model"


def test_a_failing_or_slow_model_keeps_the_message_and_makes_up_no_reply(tmp_path: Path) -> None:
    with (
        fake_openai() as fake,
        turngraph.open(tmp_path / "c.db", settings=_settings(fake, timeout=0.5)) as db,
    ):
        mem = db.create_memory("m", retrieval={"embedder": "none"})
        session = mem.create_session().id
        fake.replies.append(Reply(status=500, raw='{"error": "overloaded"}'))
        with pytest.raises(turngraph.ModelError, match="answered 500") as failed:
            mem.chat("Book the table for Friday.", session_id=session)
        assert "your message was stored as turn:" in str(failed.value)
        turns = mem.list_turns(session).turns
        assert [(t.role, t.content) for t in turns] == [("user", "Book the table for Friday.")]
        assert failed.value.fields["turn_id"] == turns[0].id

        def slow(path: str, body: dict[str, Any]) -> dict[str, Any]:
            time.sleep(2)
            return {"choices": [{"message": {"role": "assistant", "content": "late"}}]}

        fake.handler = slow
        with pytest.raises(turngraph.ModelError, match=r"did not answer within 0\.5 s"):
            mem.chat("Still there?", session_id=session)
        fake.handler = None
        fake.replies.append(Reply(raw='{"choices": []}'))
        with pytest.raises(turngraph.ModelError, match="not a chat completion"):
            mem.chat("And now?", session_id=session)
        assert [t.role for t in mem.list_turns(session).turns] == ["user", "user", "user"]
        # Bad input and a missing session are refused before anything is stored.
        with pytest.raises(turngraph.ValidationError, match="message"):
            mem.chat("   ", session_id=session)
        with pytest.raises(turngraph.NotFoundError):
            mem.chat("hello", session_id="session:nope")
        assert len(mem.list_turns(session).turns) == 3


def test_chat_without_a_model_configured_says_what_to_set(tmp_path: Path) -> None:
    with turngraph.open(tmp_path / "c.db") as db:
        mem = db.create_memory("m", retrieval={"embedder": "none"})
        with pytest.raises(turngraph.ValidationError, match="TURNGRAPH_LLM_BASE_URL"):
            mem.chat("hello")
        assert mem.info().turns == 0


def test_chat_over_both_http_apis_and_their_clients(tmp_path: Path) -> None:
    with fake_openai() as fake, running(tmp_path / "s.db", core=_settings(fake)) as server:
        server.db.create_memory("chatty", retrieval={"embedder": "none"})
        official = OfficialMemory(
            "chatty", endpoint=server.url, api_key=server.admin_key, max_retries=0
        )
        fake.replies.append(Reply(content="Hello Dana!"))
        answer = official.chat("Hi, I'm Dana and I live in Porto.")
        assert answer.reply == "Hello Dana!"
        assert answer.session_id.startswith("session:")
        assert answer.trace_id.startswith("trace:")
        fake.replies.append(Reply(content="Porto, as you said."))
        chunks = list(official.chat("Where do I live?", stream=True, session_id=answer.session_id))
        assert "".join(c.delta for c in chunks) == "Porto, as you said."
        fake.replies.append(Reply(status=503, raw="down"))
        with pytest.raises(MemoryAPIError) as failed:
            official.chat("Are you there?", session_id=answer.session_id)
        assert failed.value.status_code == 502
        assert "your message was stored as turn:" in str(failed.value)
        turns = server.db.memory("chatty").list_turns(answer.session_id).turns
        assert [t.role for t in turns] == ["user", "assistant", "user", "assistant", "user"]
        with turngraph.Client(server.url, server.admin_key) as client:
            fake.replies.append(Reply(content="Via the graph API."))
            done = client.memory("chatty").chat("And again?", session_id=answer.session_id)
            assert done.reply == "Via the graph API."
            assert done.session_id == answer.session_id


def test_chat_history_steps_past_deleted_turns_and_a_keyed_retry_asks_once(
    tmp_path: Path,
) -> None:
    with fake_openai() as fake, running(tmp_path / "s.db", core=_settings(fake)) as server:
        mem = server.db.create_memory("hist", retrieval={"embedder": "none"})
        session = mem.create_session().id
        for i in range(20):
            mem.remember(f"note {i}", session_id=session, infer="none")
        for t in mem.list_turns(session).turns[10:]:
            mem.delete_observation(t.slug)
        fake.replies.append(Reply(content="ok"))
        mem.chat("what now?", session_id=session)
        history = fake.requests[-1]["body"]["messages"][1:-1]
        assert [m["content"] for m in history] == [f"note {i}" for i in range(10)]
        url = f"{server.url}/api/v1/hist/chat"
        auth = {"Authorization": f"Bearer {server.admin_key}", "Idempotency-Key": "chat-1"}
        fake.replies.append(Reply(content="first answer"))
        with httpx.Client(headers=auth) as http:
            first = http.post(url, json={"message": "hello", "sessionId": session})
            again = http.post(url, json={"message": "hello", "sessionId": session})
        assert first.status_code == again.status_code == 200
        assert again.json()["reply"] == first.json()["reply"] == "first answer"
        assert (
            len([r for r in fake.requests if r["body"]["messages"][-1]["content"] == "hello"]) == 1
        )
