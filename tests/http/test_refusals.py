"""What was accepted and should have been refused: invisible or punctuation-only names and
speakers, triples with a type the graph API refuses, removing what an observation does not
have, a principal's name with a NUL, a chunked body over the limit."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from ..integration.rows import table_rows
from .conftest import Running, running

INVISIBLE = ["\u200b\u200f", "\u202e", "...", "-- !", "\u2066\u200d\u2069", "\ufeff."]


@pytest.fixture(scope="module")
def names(server: Running) -> Running:
    server.db.create_memory("names", retrieval={"embedder": "none"})
    return server


def _auth(server: Running) -> dict[str, str]:
    return {"Authorization": f"Bearer {server.admin_key}"}


def _rows(server: Running) -> dict[str, int]:
    return table_rows(server.db.store.path)  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", INVISIBLE)
def test_a_name_or_speaker_with_nothing_visible_is_refused(names: Running, name: str) -> None:
    before = _rows(names)
    entity = {"name": name, "type": "person", "description": "Nobody to see"}
    requests = [
        (
            "/v1/memories/names/observations",
            {"title": "T", "content": "C", "entities": [entity]},
            "entities[0].name",
        ),
        ("/v1/memories/names/turns", {"text": "I live in Oslo.", "speaker": name}, "speaker"),
        ("/api/v1/names/facts", {"text": "I live in Oslo.", "speaker": name}, "speaker"),
        (
            "/api/v1/names/facts/batch",
            {"messages": [{"content": "I live in Oslo.", "speaker": name}]},
            "speaker",
        ),
        (
            "/api/v1/names/facts",
            {
                "infer": "triples",
                "triples": [
                    {"entity": {"type": "person", "name": name}, "key": "age", "value": "3"}
                ],
            },
            "triples[0].entity.name",
        ),
    ]
    for path, body, field in requests:
        r = httpx.post(f"{names.url}{path}", headers=_auth(names), json=body)
        assert r.status_code == 400, (path, r.text)
        assert r.json()["field"] == field, (path, r.text)
        assert "no letter" in r.json()["message"]
    assert _rows(names) == before


def test_invisible_marks_do_not_make_another_entity(names: Running) -> None:
    for i, spelling in enumerate(["Alice", "Alice\u200f", "\u202eAlice", "Ali\u200bce"]):
        r = httpx.post(
            f"{names.url}/v1/memories/names/observations",
            headers=_auth(names),
            json={
                "title": f"Alice note {i}",
                "content": "Alice joined.",
                "entities": [{"name": spelling, "type": "person", "description": "Alice"}],
            },
        )
        assert r.status_code == 201, r.text
    alices = [e for e in names.db.memory("names").list_entities() if "lice" in e.name]
    assert [
        (e.name, len(names.db.memory("names").get_entity(e.name).observations)) for e in alices
    ] == [("Alice", 4)]
    r = httpx.post(
        f"{names.url}/api/v1/names/facts",
        headers=_auth(names),
        json={"text": "I am a pilot.", "speaker": "\u202eBob\u200f"},
    )
    assert r.status_code == 200, r.text
    (turn,) = names.db.memory("names").list_turns(r.json()["sessionId"]).turns
    assert turn.speaker == "Bob"


def test_a_triple_entity_type_the_graph_api_refuses_is_refused(names: Running) -> None:
    before = _rows(names)
    graph = httpx.post(
        f"{names.url}/v1/memories/names/observations",
        headers=_auth(names),
        json={
            "title": "T",
            "content": "C",
            "entities": [{"name": "Zed", "type": "per$on", "description": "d"}],
        },
    )
    assert graph.status_code == 400
    triple = {"entity": {"type": "per$on", "name": "Zed"}, "key": "knows", "target": {"name": "Y"}}
    for t in (triple, {**triple, "target": {"type": "9lives", "name": "Y"}}):
        r = httpx.post(
            f"{names.url}/api/v1/names/facts",
            headers=_auth(names),
            json={"infer": "triples", "triples": [t]},
        )
        assert r.status_code == 400, r.text
        assert r.json()["field"] in ("triples[0].entity.type", "triples[0].target.type")
    assert _rows(names) == before


def test_removing_what_an_observation_does_not_have_is_an_error(names: Running) -> None:
    mem = names.db.memory("names")
    slug = mem.add_observation(
        title="Pair",
        content="Ann knows Ben.",
        entities=[
            {"name": "Ann", "type": "person", "description": "Ann"},
            {"name": "Ben", "type": "person", "description": "Ben"},
        ],
        relationships=[{"source": "Ann", "type": "knows", "target": "Ben"}],
    ).observation.slug
    before = _rows(names)
    url = f"{names.url}/v1/memories/names/observations/{slug}"
    for patch, field in [
        ({"remove_entities": ["Ann", "Nobody"]}, "remove_entities"),
        (
            {"remove_relationships": [{"source": "Ben", "type": "knows", "target": "Ann"}]},
            "remove_relationships",
        ),
        ({"title": "Renamed", "remove_entities": ["Alice"]}, "remove_entities"),
    ]:
        r = httpx.patch(url, headers=_auth(names), json=patch)
        assert r.status_code == 400, r.text
        assert r.json()["field"] == field
        assert "not" in r.json()["message"]
    assert _rows(names) == before
    kept = mem.get_observation(slug)
    assert (kept.title, sorted(kept.entities)) == ("Pair", ["Ann", "Ben"])


def test_a_principal_name_with_a_nul_is_refused(server: Running) -> None:
    for body in (
        {"id": "nul-display", "display_name": "Eve\x00Admin"},
        {"id": "nul\x00id"},
    ):
        r = httpx.post(f"{server.url}/v1/admin/principals", headers=_auth(server), json=body)
        assert r.status_code == 400, r.text
        assert r.json()["message"]
    assert "nul-display" not in [p.id for p in server.db.access.list_principals()]


def test_a_chunked_body_over_the_limit_gets_413(tmp_path: Path) -> None:
    with running(tmp_path / "c.db", max_body_bytes=2_000) as srv:
        srv.db.create_memory("c", retrieval={"embedder": "none"})

        def chunks() -> Iterator[bytes]:
            yield b'{"text": "'
            for _ in range(10):
                yield b"x" * 500
            yield b'"}'

        r = httpx.post(
            f"{srv.url}/api/v1/c/facts",
            headers={**_auth(srv), "Content-Type": "application/json"},
            content=chunks(),
        )
        assert r.status_code == 413, r.text
        assert "2000 bytes" in r.json()["message"]
        assert srv.db.memory("c").info().observations == 0
