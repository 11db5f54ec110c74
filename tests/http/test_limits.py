"""One value per limit: the HTTP schemas state the core's `Limits`, the core enforces the
configured ones (not the defaults), and the remote memory reaches what the embedded one does."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest

import turngraph
from turngraph.client import Client
from turngraph.config import Limits, Settings
from turngraph.errors import NotFoundError, ValidationError

from .conftest import Running


def _schema(server: Running) -> dict[str, Any]:
    doc: dict[str, Any] = httpx.get(f"{server.url}/openapi.json").json()
    return doc["components"]["schemas"]


def test_the_http_schemas_state_the_label_limit_the_core_enforces(
    server: Running, tmp_path: Path
) -> None:
    schemas = _schema(server)
    most = Limits().labels_per_turn
    for model in ("TurnIn", "TurnsIn", "FactsRequest", "RecallIn"):
        labels = schemas[model]["properties"]["labels"]
        stated = labels.get("maxItems") or next(
            a["maxItems"] for a in labels["anyOf"] if "maxItems" in a
        )
        assert stated == most, model
    db = turngraph.open(tmp_path / "l.db")
    try:
        mem = db.create_memory("l", retrieval={"embedder": "none"})
        mem.remember("hello", labels=[f"l{i}" for i in range(most)], infer="none")
        with pytest.raises(ValidationError) as info:
            mem.remember("hello", labels=[f"l{i}" for i in range(most + 1)], infer="none")
        assert info.value.field == "labels"
    finally:
        db.close()


def test_the_server_refuses_one_label_over_the_limit_before_the_core(server: Running) -> None:
    server.db.create_memory("labels", retrieval={"embedder": "none"})
    labels = [f"l{i}" for i in range(Limits().labels_per_turn + 1)]
    r = httpx.post(
        f"{server.url}/v1/memories/labels/turns",
        headers={"Authorization": f"Bearer {server.admin_key}"},
        json={"text": "hi", "labels": labels, "infer": "none"},
    )
    assert r.status_code == 400, r.text
    assert r.json()["field"] == "labels"
    assert "invalid request" in r.json()["message"]  # the schema refused it, not the core


def test_the_core_enforces_the_configured_limits_not_the_defaults(tmp_path: Path) -> None:
    small = Limits(
        labels_per_turn=2,
        messages_per_batch=2,
        tags_per_observation=2,
        session_metadata_chars=20,
        speaker_chars=5,
    )
    db = turngraph.open(tmp_path / "s.db", settings=Settings(limits=small))
    try:
        mem = db.create_memory("s", retrieval={"embedder": "none"})
        with pytest.raises(ValidationError, match="at most 2 labels"):
            mem.remember("hi", labels=["a", "b", "c"], infer="none")
        with pytest.raises(ValidationError, match="1 to 2 items"):
            mem.remember_many([{"content": "a"}, {"content": "b"}, {"content": "c"}])
        with pytest.raises(ValidationError) as meta:
            mem.create_session({"note": "x" * 40})
        assert meta.value.field == "metadata"
        with pytest.raises(ValidationError) as who:
            mem.remember("hi", speaker="Bartholomew", infer="none")
        assert who.value.field == "speaker"
        # recall reads the same configured limits as the writes
        with pytest.raises(ValidationError) as tags:
            mem.recall(tags=["a", "b", "c"])
        assert tags.value.field == "tags"
    finally:
        db.close()


def test_the_remote_memory_reads_one_entity_state_as_the_embedded_one_does(
    server: Running,
) -> None:
    mem = server.db.create_memory("estate", retrieval={"embedder": "none"})
    mem.remember("I live in Leeds and I work at Acme.", speaker="Dana")
    with Client(server.url, server.admin_key) as client:
        remote = client.memory("estate")
        assert remote.entity_state("person", "Dana") == mem.entity_state("person", "Dana")
        with pytest.raises(NotFoundError):
            remote.entity_state("person", "Nobody")
