"""LLMExtractor against a local fake of the chat-completions API, over real HTTP."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import turngraph
from turngraph.config import Settings
from turngraph.extract.llm import OUTPUT_SCHEMA, LLMExtractor

from ..fakes.openai_server import FakeOpenAI, Reply, fake_openai
from .rows import table_rows

GOOD = {
    "entities": [{"name": "Alice", "type": "person"}, {"name": "Acme", "type": "organization"}],
    "attributes": [{"entity": "Alice", "key": "job_title", "value": "CTO", "negated": False}],
    "relations": [{"subject": "Alice", "label": "works_at", "object": "Acme"}],
    "actions": [
        {
            "actor": "Alice",
            "verb": "promoted",
            "object": None,
            "summary": "Alice was promoted",
            "occurred_at": "2024-05-19T00:00:00Z",
        }
    ],
    "instructions": [],
    "uncertainties": [{"about": "Bob", "reason": "might leave"}],
}


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with fake_openai() as server:
        yield server


@pytest.fixture
def llm_db(fake: FakeOpenAI, tmp_path: Path) -> Iterator[turngraph.Database]:
    settings = Settings(
        extractor="llm",
        llm_base_url=fake.base_url,
        llm_model="test-model",
        llm_api_key="sk-test",
        llm_timeout_seconds=5,
    )
    db = turngraph.open(tmp_path / "llm.db", settings=settings)
    yield db
    db.close()


def test_a_valid_completion_becomes_the_turns_extraction(
    fake: FakeOpenAI, llm_db: turngraph.Database
) -> None:
    mem = llm_db.create_memory("m")
    fake.reply_json(GOOD)
    r = mem.remember(
        "Got promoted to CTO at Acme!", speaker="Alice", observed_at="2024-05-20T10:00:00Z"
    )
    assert [(a.key, a.value) for a in r.extraction.attributes] == [("job_title", "CTO")]
    assert [(x.label, x.object) for x in r.extraction.relations] == [
        ("works_at", "entity:organization/acme")
    ]
    assert r.extraction.uncertainties[0].about == "Bob"
    assert r.extraction.actions[0].occurred_at is not None
    (request,) = fake.requests
    assert request["path"] == "/v1/chat/completions"
    body: dict[str, Any] = request["body"]
    assert body["model"] == "test-model"
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["strict"] is True
    assert body["response_format"]["json_schema"]["schema"] == OUTPUT_SCHEMA
    assert body["max_tokens"] == 1024  # a looping model is cut by the server, not by us
    assert '"speaker": "Alice"' in body["messages"][1]["content"]
    assert fake.headers[0]["Authorization"] == "Bearer sk-test"


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (Reply(content="this is not json"), "does not match the extraction schema"),
        (Reply(content='{"entities": []}'), "does not match the extraction schema"),
        (
            Reply(
                content='{"entities": [{"name": 1, "type": "person"}], "attributes": [], '
                '"relations": [], "actions": [], "instructions": [], '
                '"uncertainties": [], "extra": 1}'
            ),
            "does not match",
        ),
        (Reply(status=500, raw='{"error": "boom"}'), "answered 500"),
        (Reply(raw='{"choices": []}'), "no chat completion"),
        (
            Reply(
                raw=json.dumps(
                    {
                        "choices": [
                            {
                                "finish_reason": "length",
                                "message": {"role": "assistant", "content": '{"entities": ['},
                            }
                        ]
                    }
                )
            ),
            "cut at max_tokens",
        ),
    ],
)
def test_a_failed_or_malformed_completion_stores_the_turn_unextracted(
    fake: FakeOpenAI, llm_db: turngraph.Database, tmp_path: Path, reply: Reply, message: str
) -> None:
    mem = llm_db.create_memory("m")
    before = table_rows(tmp_path / "llm.db")
    fake.replies.append(reply)
    with pytest.raises(turngraph.ExtractionError, match=message) as err:
        mem.remember("I work at Acme as Head of Platform.", speaker="Alice")
    after = table_rows(tmp_path / "llm.db")
    # The turn (a session, a turn row, its observation) is kept; no fact half-written.
    search = ("fts_", "index_queue", "vectors")  # the turn's text is indexed for recall
    grew = {t for t in after if after[t] != before[t] and not t.startswith(search)}
    assert grew == {"sessions", "turns", "observations"}
    (turn,) = mem.list_turns(err.value.session_id).turns
    assert turn.extracted == "failed"
    assert turn.id == err.value.turn_id
    assert mem.list_entities() == []


def test_a_slow_endpoint_times_out_with_a_message_that_says_so(
    fake: FakeOpenAI, tmp_path: Path
) -> None:
    def slow(path: str, body: dict[str, Any]) -> dict[str, Any]:
        time.sleep(1.5)
        return {"choices": []}

    fake.handler = slow
    extractor = LLMExtractor(base_url=fake.base_url, model="m", timeout=0.5)
    with turngraph.open(tmp_path / "slow.db", extractor=extractor) as db:
        mem = db.create_memory("m")
        with pytest.raises(turngraph.ExtractionError, match=r"timed out after 0.5s"):
            mem.remember("hello there")
        assert mem.info().observations == 1


def test_an_unreachable_endpoint_is_an_extraction_error(tmp_path: Path) -> None:
    extractor = LLMExtractor(base_url="http://127.0.0.1:9/v1", model="m", timeout=2)
    with turngraph.open(tmp_path / "x.db", extractor=extractor) as db:
        mem = db.create_memory("m")
        with pytest.raises(turngraph.ExtractionError, match="unreachable"):
            mem.remember("hello there")
        assert mem.info().observations == 1


def test_the_llm_extractor_needs_its_endpoint_settings(tmp_path: Path) -> None:
    with pytest.raises(turngraph.ValidationError, match="llm_base_url"):
        turngraph.open(tmp_path / "x.db", settings=Settings(extractor="llm"))
    with pytest.raises(turngraph.ValidationError, match="unknown extractor"):
        turngraph.open(tmp_path / "x.db", settings=Settings(extractor="magic"))
