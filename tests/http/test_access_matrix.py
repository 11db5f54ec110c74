"""Every route x every kind of caller: exactly the expected 2xx, 401 or 403, and a refused
write changes nothing."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

import turngraph

from .conftest import Running

MEMORY = "matrix"
OTHER = "elsewhere"
_n = itertools.count()


@dataclass(frozen=True)
class Route:
    name: str
    tier: str | None  # None: any valid key (admin routes say "admin")
    build: Callable[[turngraph.Memory], tuple[str, str, dict[str, Any]]]


def _note(mem: turngraph.Memory) -> str:
    i = next(_n)
    return mem.add_observation(
        title=f"Note {i}",
        content=f"Matrix note {i} about Orion.",
        entities=[{"name": f"Orion {i}", "type": "project", "description": "A project"}],
    ).observation.slug


def _turn(mem: turngraph.Memory) -> tuple[str, str]:
    r = mem.remember(f"I work at Matrixcorp{next(_n)} as a tester.", speaker="Tess")
    return r.session_id, r.turn_id


def _entity(mem: turngraph.Memory) -> str:
    slug = _note(mem)
    return mem.get_observation(slug).entities[0]


def _proposal(mem: turngraph.Memory) -> int:
    i = next(_n)
    for name in (f"Vega Labs {i}", f"Vega Labs {i} Inc"):
        mem.add_observation(
            title=name,
            content=f"{name} builds telescopes.",
            entities=[{"name": name, "type": "organization", "description": "Telescope maker"}],
        )
    return mem.consolidate()[0].id


A = f"/api/v1/{MEMORY}"
G = f"/v1/memories/{MEMORY}"
ROUTES = [
    Route(
        "memory: remember",
        "read_write",
        lambda m: ("POST", f"{A}/facts", {"json": {"text": "Hi."}}),
    ),
    Route(
        "memory: remember_many",
        "read_write",
        lambda m: ("POST", f"{A}/facts/batch", {"json": {"messages": [{"content": "Hi."}]}}),
    ),
    Route("memory: recall", "read", lambda m: ("POST", f"{A}/query", {"json": {"query": "Orion"}})),
    Route("memory: forget", "full", lambda m: ("POST", f"{A}/forget", {"json": {"query": "zzz"}})),
    Route("memory: state", "read", lambda m: ("GET", f"{A}/state", {})),
    Route("memory: create session", "read_write", lambda m: ("POST", f"{A}/sessions", {})),
    Route(
        "memory: delete session",
        "full",
        lambda m: ("DELETE", f"{A}/sessions/{_turn(m)[0]}", {}),
    ),
    Route(
        "memory: session context",
        "read",
        lambda m: ("POST", f"{A}/sessions/{_turn(m)[0]}/context", {"json": {"query": "work"}}),
    ),
    Route("memory: turns", "read", lambda m: ("GET", f"{A}/sessions/{_turn(m)[0]}/turns", {})),
    Route("memory: entities", "read", lambda m: ("GET", f"{A}/entities", {})),
    Route(
        "memory: entity",
        "read",
        lambda m: ("GET", f"{A}/entities/project/{_entity(m).replace(' ', '%20')}", {}),
    ),
    Route(
        "memory: history",
        "read",
        lambda m: ("GET", f"{A}/entities/person/Tess/history/job_title", {}),
    ),
    Route(
        "memory: delete entity",
        "full",
        lambda m: ("DELETE", f"{A}/entities/project/{_entity(m).replace(' ', '%20')}", {}),
    ),
    Route("memory: consolidate", "read_write", lambda m: ("POST", f"{A}/consolidate", {})),
    Route("memory: whoami", "read", lambda m: ("GET", f"{A}/me", {})),
    Route("graph: info", "read", lambda m: ("GET", G, {})),
    Route(
        "graph: update memory", "full", lambda m: ("PATCH", G, {"json": {"visibility": "private"}})
    ),
    Route(
        "graph: add observation",
        "read_write",
        lambda m: (
            "POST",
            f"{G}/observations",
            {"json": {"title": f"T{next(_n)}", "content": "Plain note."}},
        ),
    ),
    Route("graph: get observation", "read", lambda m: ("GET", f"{G}/observations/{_note(m)}", {})),
    Route(
        "graph: update observation",
        "full",
        lambda m: ("PATCH", f"{G}/observations/{_note(m)}", {"json": {"content": "Edited."}}),
    ),
    Route(
        "graph: delete observation",
        "full",
        lambda m: ("DELETE", f"{G}/observations/{_note(m)}", {}),
    ),
    Route("graph: recall", "read", lambda m: ("POST", f"{G}/recall", {"json": {"query": "Orion"}})),
    Route(
        "graph: structural recall", "read", lambda m: ("POST", f"{G}/recall", {"json": {"k": 3}})
    ),
    Route("graph: context", "read", lambda m: ("POST", f"{G}/context", {"json": {"query": "x"}})),
    Route("graph: entities", "read", lambda m: ("GET", f"{G}/entities", {})),
    Route("graph: entity", "read", lambda m: ("GET", f"{G}/entities/{_entity(m)}", {})),
    Route("graph: delete entity", "full", lambda m: ("DELETE", f"{G}/entities/{_entity(m)}", {})),
    Route(
        "graph: history",
        "read",
        lambda m: (
            "GET",
            f"{G}/history",
            {"params": {"entity_type": "person", "name": "Tess", "key": "job_title"}},
        ),
    ),
    Route("graph: state", "read", lambda m: ("GET", f"{G}/state", {})),
    Route("graph: forget", "full", lambda m: ("POST", f"{G}/forget", {"json": {"query": "zzz"}})),
    Route(
        "graph: remember", "read_write", lambda m: ("POST", f"{G}/turns", {"json": {"text": "Yo"}})
    ),
    Route(
        "graph: remember_many",
        "read_write",
        lambda m: ("POST", f"{G}/turns/batch", {"json": {"messages": [{"content": "Yo"}]}}),
    ),
    Route("graph: create session", "read_write", lambda m: ("POST", f"{G}/sessions", {})),
    Route("graph: get session", "read", lambda m: ("GET", f"{G}/sessions/{_turn(m)[0]}", {})),
    Route("graph: delete session", "full", lambda m: ("DELETE", f"{G}/sessions/{_turn(m)[0]}", {})),
    Route("graph: turns", "read", lambda m: ("GET", f"{G}/sessions/{_turn(m)[0]}/turns", {})),
    Route("graph: list sessions", "read", lambda m: ("GET", f"{G}/sessions", {})),
    Route("graph: get turn", "read", lambda m: ("GET", f"{G}/turns/{_turn(m)[1]}", {})),
    Route(
        "graph: turn details",
        "read",
        lambda m: ("GET", f"{G}/sessions/{_turn(m)[0]}/turn-details", {}),
    ),
    Route(
        "graph: neighborhood",
        "read",
        lambda m: ("GET", f"{G}/graph", {"params": {"entity": _entity(m)}}),
    ),
    Route(
        "graph: preview delete observation",
        "full",
        lambda m: ("DELETE", f"{G}/observations/{_note(m)}", {"params": {"dry_run": "true"}}),
    ),
    Route("graph: list files", "read", lambda m: ("GET", f"{G}/files", {})),
    Route(
        "graph: store file",
        "read_write",
        lambda m: (
            "PUT",
            f"{G}/files/docs/f{next(_n)}.txt",
            {"content": b"hello", "params": {"description": "A file"}},
        ),
    ),
    Route(
        # read_write adds files; replacing one is full's (a refusal leaves it as it was)
        "graph: overwrite file",
        "full",
        lambda m: (
            "PUT",
            f"{G}/files/" + m.put_file(f"o{next(_n)}.txt", "old", description="d").path,
            {"content": b"new", "params": {"description": "A file", "overwrite": "true"}},
        ),
    ),
    Route(
        "graph: read file",
        "read",
        lambda m: (
            "GET",
            f"{G}/files/" + m.put_file(f"r{next(_n)}.txt", "hi", description="d").path,
            {},
        ),
    ),
    Route(
        "graph: delete file",
        "full",
        lambda m: (
            "DELETE",
            f"{G}/files/" + m.put_file(f"d{next(_n)}.txt", "hi", description="d").path,
            {},
        ),
    ),
    Route("graph: consolidate", "read_write", lambda m: ("POST", f"{G}/consolidate", {})),
    Route("graph: proposals", "read", lambda m: ("GET", f"{G}/proposals", {})),
    Route(
        "graph: accept proposal",
        "full",
        lambda m: ("POST", f"{G}/proposals/{_proposal(m)}/accept", {}),
    ),
    Route(
        "graph: reject proposal",
        "read_write",
        lambda m: ("POST", f"{G}/proposals/{_proposal(m)}/reject", {}),
    ),
    Route("graph: list memories", None, lambda m: ("GET", "/v1/memories", {})),
    Route(
        "graph: create memory",
        "admin",
        lambda m: ("POST", "/v1/memories", {"json": {"name": f"new-{next(_n)}"}}),
    ),
    Route("whoami", None, lambda m: ("GET", "/v1/whoami", {})),
    Route("admin: principals", "admin", lambda m: ("GET", "/v1/admin/principals", {})),
    Route("admin: keys", "admin", lambda m: ("GET", "/v1/admin/keys", {})),
    Route("admin: grants", "admin", lambda m: ("GET", "/v1/admin/grants", {})),
]
CALLERS = ("none", "bad", "read", "read_write", "full", "other", "foreign")
TIERS = ("read", "read_write", "full")


@pytest.fixture(scope="module")
def keys(server: Running) -> dict[str, str]:
    server.db.create_memory(MEMORY)
    server.db.create_memory(OTHER)
    out = {"bad": "tg_000000000000_not-a-real-key"}
    for tier in TIERS:
        out[tier] = server.principal(f"m-{tier}")
        server.grant(f"m-{tier}", MEMORY, tier)
    out["other"] = server.principal("m-other")
    server.grant("m-other", OTHER, "full")
    out["foreign"] = server.principal("m-foreign", organization="far")
    return out


def expected(route: Route, caller: str) -> int | str:
    if caller in ("none", "bad"):
        return 401
    if route.tier is None:
        return "2xx"
    if route.tier == "admin" or caller == "other":
        return 403
    if caller == "foreign":  # another organization's memory is not disclosed
        return 404
    return "2xx" if TIERS.index(caller) >= TIERS.index(route.tier) else 403


def snapshot(mem: turngraph.Memory) -> Any:
    info = mem.info()
    return (
        info.model_dump(exclude={"created_at"}),
        [(f.path, f.sha256) for f in mem.list_files()],
        [(p.id, p.status) for p in mem.list_proposals(None)],
    )


@pytest.mark.parametrize("route", ROUTES, ids=lambda r: r.name)
def test_every_caller_gets_exactly_its_due(
    server: Running, keys: dict[str, str], route: Route
) -> None:
    mem = server.db.memory(MEMORY)
    with httpx.Client(base_url=server.url, timeout=30) as http:
        for caller in CALLERS:
            method, path, kwargs = route.build(mem)
            headers = {} if caller == "none" else {"Authorization": f"Bearer {keys[caller]}"}
            want = expected(route, caller)
            before = snapshot(mem)
            r = http.request(method, path, headers=headers, **kwargs)
            if want == "2xx":
                assert 200 <= r.status_code < 300, (caller, r.status_code, r.text)
            else:
                assert r.status_code == want, (caller, r.text)
                assert r.json()["message"]
                assert snapshot(mem) == before, f"{caller} was refused but something changed"
