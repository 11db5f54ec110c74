"""The reads the inspector uses, over HTTP: sessions paged, one turn with what it taught, an
entity's neighborhood as a bounded graph, a delete's preview, the fuller counts; and the
security headers of the page itself."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.browser.seed import MEMORY, seed

from .conftest import Running, running


@pytest.fixture(scope="module")
def srv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    with running(tmp_path_factory.mktemp("inspect") / "t.db") as s:
        seed(s.db)
        s.principal("reader")
        s.grant("reader", MEMORY, "read")
        yield s


def _get(srv: Running, path: str, key: str | None = None, **params: object) -> httpx.Response:
    return httpx.get(
        f"{srv.url}/v1/memories/{MEMORY}{path}",
        params=params,  # type: ignore[arg-type]
        headers={"Authorization": f"Bearer {key or srv.admin_key}"},
    )


def test_memory_counts_sessions_turns_and_open_proposals(srv: Running) -> None:
    info = _get(srv, "").json()
    mem = srv.db.memory(MEMORY)
    sessions = mem.list_sessions(limit=200).sessions
    assert info["sessions"] == len(sessions) == 2
    assert info["turns"] == sum(s.turn_count for s in sessions)
    assert info["open_proposals"] == len(mem.list_proposals("open")) > 0


def test_sessions_are_paged_newest_first(srv: Running) -> None:
    first = _get(srv, "/sessions", limit=1).json()
    second = _get(srv, "/sessions", limit=1, offset=1).json()
    assert first["has_more"] is True
    assert second["has_more"] is False
    a, b = first["sessions"][0], second["sessions"][0]
    assert a["created_at"] >= b["created_at"]
    assert {a["id"], b["id"]} == {"session:kickoff", "session:followup"}


def test_a_turn_comes_with_what_it_taught_and_the_correction_it_made(srv: Running) -> None:
    mem = srv.db.memory(MEMORY)
    turns = mem.list_turns("session:followup").turns
    promoted = next(t for t in turns if "promoted" in t.content)
    body = _get(srv, f"/turns/{promoted.id}").json()
    assert body["turn"]["content"] == promoted.content
    assert [(c["key"], c["old_value"], c["new_value"]) for c in body["corrections"]] == [
        ("job_title", "Head of Platform", "CTO")
    ]
    assert [(a["entity"], a["key"], a["value"]) for a in body["attributes"]] == [
        ("Maya", "job_title", "CTO")
    ]
    assert "Maya" in [e["name"] for e in body["entities"]]
    # The instruction and the hedge of the first session come back with their turns.
    kickoff = mem.list_turns("session:kickoff").turns
    french = next(t for t in kickoff if "French" in t.content)
    assert _get(srv, f"/turns/{french.id}").json()["instructions"]
    hedge = next(t for t in kickoff if "might" in t.content)
    assert _get(srv, f"/turns/{hedge.id}").json()["uncertainties"]


def test_an_unknown_turn_is_404_naming_it(srv: Running) -> None:
    r = _get(srv, "/turns/turn:nope")
    assert r.status_code == 404
    assert "turn:nope" in r.json()["message"]


def test_the_neighborhood_is_a_bounded_graph_with_a_note_when_cut(srv: Running) -> None:
    full = _get(srv, "/graph", entity="maya").json()
    assert full["center"] == "Maya"
    assert full["truncated"] is False
    assert full["note"] is None
    names = {n["name"] for n in full["nodes"]}
    for e in full["edges"]:
        assert e["source"] in names
        assert e["target"] in names
    degree = srv.db.memory(MEMORY).get_entity("Maya").degree
    assert len(full["edges"]) == degree > 1
    cut = _get(srv, "/graph", entity="Maya", limit=1).json()
    assert len(cut["edges"]) == 1
    assert cut["truncated"] is True
    assert cut["note"] == f"showing 1 of {degree} relationships"
    missing = _get(srv, "/graph", entity="Nobody At All")
    assert missing.status_code == 404


def test_a_delete_preview_names_what_would_be_pruned_and_deletes_nothing(srv: Running) -> None:
    mem = srv.db.memory(MEMORY)
    slug = mem.add_observation(
        title="Only mention",
        content="Zephyr Quartz is a code name.",
        entities=[{"name": "Zephyr Quartz", "type": "project", "description": "A code name"}],
    ).observation.slug
    before = mem.info()
    r = httpx.delete(
        f"{srv.url}/v1/memories/{MEMORY}/observations/{slug}",
        params={"dry_run": "true"},
        headers={"Authorization": f"Bearer {srv.admin_key}"},
    )
    assert r.status_code == 200, r.text
    assert r.json()["dry_run"] is True
    assert r.json()["pruned_entities"] == ["Zephyr Quartz"]
    assert mem.get_observation(slug).title == "Only mention"
    assert mem.get_entity("Zephyr Quartz").name == "Zephyr Quartz"
    after = mem.info()
    assert (after.observations, after.entities) == (before.observations, before.entities)
    # The real delete removes what the preview said.
    gone = mem.delete_observation(slug)
    assert gone.pruned_entities == ["Zephyr Quartz"]
    assert gone.dry_run is False


def test_a_read_key_reads_but_cannot_preview_a_delete(srv: Running) -> None:
    key = srv.keys["reader"]
    assert _get(srv, "/sessions", key).status_code == 200
    assert _get(srv, "/graph", key, entity="Maya").status_code == 200
    slug = srv.db.memory(MEMORY).list_turns("session:kickoff").turns[0].slug
    r = httpx.delete(
        f"{srv.url}/v1/memories/{MEMORY}/observations/{slug}",
        params={"dry_run": "true"},
        headers={"Authorization": f"Bearer {key}"},
    )
    assert r.status_code == 403


def test_the_inspector_page_is_served_with_a_strict_policy(srv: Running) -> None:
    moved = httpx.get(f"{srv.url}/ui")
    assert moved.status_code == 307
    assert moved.headers["location"] == "/ui/"
    for path in ("/ui/", "/ui/app.js", "/ui/vendor/cytoscape.min.js"):
        r = httpx.get(f"{srv.url}{path}")
        assert r.status_code == 200, path
        csp = r.headers["content-security-policy"]
        assert "script-src 'self'" in csp
        assert "default-src 'none'" in csp
        assert "unsafe-inline" not in csp
        assert "unsafe-eval" not in csp
        assert r.headers["x-content-type-options"] == "nosniff"
    assert httpx.get(f"{srv.url}/ui/nothing-here.js").status_code == 404


def test_the_page_carries_no_inline_script(srv: Running) -> None:
    html = httpx.get(f"{srv.url}/ui/").text
    assert '<script type="module" src="app.js"></script>' in html
    assert html.count("<script") == 1


def test_the_vendored_graph_library_is_pinned_with_its_licence() -> None:
    static = Path(__file__).parents[2] / "src/turngraph/server/ui_static/vendor"
    head = (static / "cytoscape.min.js").read_text(encoding="utf-8")[:400]
    assert "Cytoscape Consortium" in head
    assert "Permission is hereby granted" in (static / "cytoscape.LICENSE").read_text("utf-8")


def test_proposals_come_a_page_at_a_time(srv: Running) -> None:
    every = _get(srv, "/proposals", status="all").json()
    assert len(every) >= 2
    first = _get(srv, "/proposals", status="all", limit=1).json()
    rest = _get(srv, "/proposals", status="all", limit=1000, offset=1).json()
    assert [p["id"] for p in first + rest] == [p["id"] for p in every]
    assert _get(srv, "/proposals", limit=0).status_code == 400


def test_a_sessions_turns_come_with_what_each_taught_a_page_at_a_time(srv: Running) -> None:
    mem = srv.db.memory(MEMORY)
    ids = [t.id for t in mem.list_turns("session:kickoff").turns]
    first = _get(srv, "/sessions/session:kickoff/turn-details", limit=3).json()
    assert first["has_more"] is True
    rest = _get(
        srv, "/sessions/session:kickoff/turn-details", limit=100, cursor=first["next_cursor"]
    ).json()
    assert rest["has_more"] is False
    pages = first["turns"] + rest["turns"]
    assert [d["turn"]["id"] for d in pages] == ids
    for d in pages:
        assert d == _get(srv, f"/turns/{d['turn']['id']}").json()
    assert _get(srv, "/sessions/session:nope/turn-details").status_code == 404
