"""`turngraph copy SRC DST`: whole memories between SQLite and PostgreSQL, exactly. A memory
with every kind of row is copied SQLite -> PostgreSQL -> SQLite; every public read of the
copies compares equal to the original's."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import turngraph
from turngraph.errors import ConflictError

from ..conformance.helpers import entity, rel

pytest.importorskip("psycopg")  # the postgres extra; `make test` installs it


def _build(path: Path) -> None:
    with turngraph.open(path) as db:
        mem = db.create_memory("acme", visibility="organization")
        db.create_memory("quiet", retrieval={"embedder": "none"}).remember("Only words here.")
        kept = mem.add_observation(
            title="Kickoff",
            content="Bob Smith leads the Acme rollout with Dana.",
            tags=["meeting", "q3"],
            entities=[
                entity("Bob Smith", "Rollout lead", retrieval_queries=["who leads the rollout"]),
                entity("Dana", "Engineer"),
                entity("Acme", "Customer", type="organization"),
            ],
            relationships=[
                rel("Bob Smith", "works_with", "Dana", description="on the rollout"),
                rel("Bob Smith", "works_at", "Acme", weight=0.7),
            ],
            idempotency_key="kickoff-1",
        ).observation.slug
        mem.update_observation(kept, content="Bob Smith leads the Acme rollout with Dana, now.")
        gone = mem.add_observation(title="Draft", content="A draft to drop.").observation.slug
        mem.delete_observation(gone)
        mem.add_observation(
            title="Later",
            content="Robert Smith and Smith, Bob both came up.",
            entities=[entity("Robert Smith", "Rollout lead"), entity("Smith, Bob", "Lead")],
        )
        first, *rest = mem.consolidate()
        mem.accept_proposal(first.id)
        if rest:
            mem.reject_proposal(rest[0].id)
        session = mem.remember("I live in Leeds and I work at Globex.", speaker="Maya").session_id
        mem.remember("Remind me to call Dana on Friday.", speaker="Maya", session_id=session)
        mem.remember("We moved to York last month!", speaker="Maya", session_id=session)
        mem.remember("Noted.", role="assistant", session_id=session, labels=["ack"])
        mem.put_file("notes/plan.md", "# Plan\nship it\n", description="the plan")
        mem.add_observation(title="Dana", content="Dana again.", entities=[entity("Dana", "Lead")])
        db.access.create_principal("bot", organization="default")
        _, _key = db.access.create_key("bot")
        old, _ = db.access.create_key("bot", name="old")
        db.access.revoke_key(old.id)
        row = db.store.get_memory("acme")
        assert row is not None
        db.access.grant("bot", row, "read_write")


def _dump(url: str | Path) -> dict[str, Any]:
    """Everything the public API reads of the database, ids of the store's own left out."""
    with turngraph.open(url) as db:
        out: dict[str, Any] = {"memories": {}}
        for info in db.list_memories():
            mem = db.memory(info.name)
            entities = [mem.get_entity(e.name) for e in mem.list_entities(limit=1000)]
            slugs = sorted({s for e in entities for s in e.observations})
            sessions = mem.list_sessions(limit=100).sessions
            out["memories"][info.name] = {
                "info": info.model_dump(mode="json"),
                "entities": [e.model_dump(mode="json") for e in entities],
                "observations": [mem.get_observation(s).model_dump(mode="json") for s in slugs],
                "state": mem.state(limit=500).model_dump(mode="json"),
                "history": [
                    v.model_dump(mode="json")
                    for e in entities
                    for key in ("location", "employer")
                    for v in mem.entity_history(e.type, e.name, key)
                ],
                "sessions": [s.model_dump(mode="json") for s in sessions],
                "turns": [
                    mem.get_turn(t.id).model_dump(mode="json")
                    for s in sessions
                    for t in mem.list_turns(s.id).turns
                ],
                "files": [f.model_dump(mode="json") for f in mem.list_files()]
                + [mem.get_file("notes/plan.md").model_dump(mode="json")]
                if mem.list_files()
                else [],
                "proposals": [p.model_dump(mode="json") for p in mem.list_proposals()],
            }
        out["principals"] = [_plain(p) for p in db.access.list_principals()]
        out["keys"] = [_plain(k) for k in db.access.list_keys()]
        out["grants"] = [_plain(g) for g in db.access.list_grants()]
        return out


def _recall(url: str | Path, *, scores: bool = True) -> list[Any]:
    with turngraph.open(url) as db:
        found = db.memory("acme").recall("Where does Maya live?", k=5)
    if scores:
        return [found.model_dump(mode="json", exclude={"took_ms"})]
    return [[e.name for e in found.entities], [h.text for h in found.hits]]


def _plain(row: Any) -> Any:
    if hasattr(row, "model_dump"):
        return row.model_dump(mode="json")
    return json.loads(json.dumps(dataclasses.asdict(row), default=str))


def _copy(src: str | Path, dst: str | Path, *more: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "turngraph.cli", "copy", str(src), str(dst), *more],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_a_round_trip_through_postgresql_compares_equal(tmp_path: Path, postgres_url: str) -> None:
    original = tmp_path / "original.db"
    _build(original)
    there = _copy(original, postgres_url)
    assert there.returncode == 0, there.stderr
    back = tmp_path / "back.db"
    again = _copy(postgres_url, back, "--json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout) == ["acme", "quiet"]
    expected = _dump(original)
    assert _dump(postgres_url) == expected
    assert _dump(back) == expected
    # Recall ranks the same rows; its scores are the backend's own (FTS5's BM25 or
    # PostgreSQL's), so they are compared between the two SQLite files.
    assert _recall(back) == _recall(original)
    assert _recall(postgres_url, scores=False) == _recall(original, scores=False)
    # A copy carries on where the original left off: a new assertion is the newest.
    for url in (postgres_url, back):
        with turngraph.open(url) as db:
            mem = db.memory("acme")
            mem.add_observation(title="Update", content="x", entities=[entity("Dana", "Manager")])
            assert mem.get_entity("Dana").description == "Manager"


def test_copying_onto_a_memory_of_the_same_name_changes_nothing(
    tmp_path: Path, postgres_url: str
) -> None:
    original = tmp_path / "original.db"
    _build(original)
    with turngraph.open(postgres_url) as db:
        db.create_memory("quiet")
    refused = _copy(original, postgres_url)
    assert refused.returncode == 1
    assert "already has memories named 'quiet'" in refused.stderr
    with turngraph.open(postgres_url) as db:
        assert [m.name for m in db.list_memories()] == ["quiet"]
        assert db.memory("quiet").info().turns == 0
    assert ConflictError.__name__ in refused.stderr or "already" in refused.stderr
