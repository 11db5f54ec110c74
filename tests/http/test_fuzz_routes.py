"""Every route of the OpenAPI document, with hostile values in every parameter and body field
(calendar edges, lone surrogates, NULs, zero-width and right-to-left text, huge and deeply
nested values, full-text query syntax, path traversal, negative and huge numbers), and whole
bodies that are huge, deeply nested or not JSON. Fails on any 5xx, on an error without a
message, and on a refused request that changed any table (row counts of every table before
and after).

``make test`` sends every combination (about 7,000 requests, 40 s); set
``TURNGRAPH_FUZZ_PER_ROUTE=30`` for a fixed sample of 30 per route. The same values go to
every argument of every MCP tool through ``/mcp`` (figures in docs/benchmarks.md).
Where :mod:`tests.http.test_schema` lets schemathesis generate well-typed requests, this sends
the values that broke the server before.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import pytest

from .conftest import Running, running

MAX_BODY = 64_000
_per_route = os.environ.get("TURNGRAPH_FUZZ_PER_ROUTE", "all")
PER_ROUTE: int | None = None if _per_route == "all" else int(_per_route)


# Stands for a list nested 2,000 deep, spliced into the JSON text (too deep to encode).
DEEP = "\x00deep"
DEEP_JSON = "[" * 2_000 + "]" * 2_000


HOSTILE: list[Any] = [
    "0001-01-01T00:00:00+14:00",
    "9999-12-31T23:59:59-14:00",
    "\ud800",
    "a\x00b",
    "\u200b\u202e\u200f",
    "\u202eAlice\u2066",
    "...",
    "../../../etc/passwd",
    "..\\..\\boot.ini",
    'NEAR(a b) OR "unterminated',
    "a* AND -b:c ^d ((( col:val",
    "",
    "   ",
    "x" * 20_000,
    -1,
    0,
    2**63,
    -(2**63) - 1,
    10**30,
    1e308,
    True,
    None,
    {"a": None},
    [None],
    DEEP,
]
# What a path segment, a query value or a header can carry of the values above.
TEXTUAL = [
    v for v in HOSTILE if isinstance(v, str | int | float) and not isinstance(v, bool) and v != DEEP
]
HEADER_SAFE = ["x" * 300, "-", "k\u00e9y", "../k"]

# Baseline values that make a request reach the core: real objects for ids.
BASE: dict[str, Any] = {
    "memory": "fuzz",
    "context": "fuzz",
    "name": "Alice",
    "entity_type": "person",
    "type": "person",
    "key": "job_title",
    "path": "docs/a.md",
    "principal": "fuzzer",
    "key_id": "000000000000",
    "title": "Fuzz note",
    "content": "Alice works at Acme.",
    "text": "I work at Acme as CTO.",
    "query": "acme",
    "messages": [{"content": "I live in Oslo."}],
    "id": "fuzz-principal",
    "create_memories": True,
    "source": "Alice",
    "target": "Acme",
    "description": "A person",
}


@dataclass
class Case:
    label: str
    method: str
    path: str
    query: dict[str, Any] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | None = None
    content_type: str = "application/json"


def _resolve(doc: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = doc["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    for alt in schema.get("anyOf", []):
        if alt.get("type") != "null":
            return _resolve(doc, alt)
    return schema


def _baseline(doc: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    schema = _resolve(doc, schema)
    return {
        name: BASE.get(name, "x")
        for name in schema.get("required", [])
        if name in schema.get("properties", {})
    }


def _fields(doc: dict[str, Any], schema: dict[str, Any]) -> Iterator[tuple[str, ...]]:
    """Paths of the body's fields: top-level properties, those of list items, and a list's
    single item when the items are not objects (``labels: [VALUE]``)."""
    schema = _resolve(doc, schema)
    for name, prop in schema.get("properties", {}).items():
        yield (name,)
        items = _resolve(doc, prop).get("items")
        if isinstance(items, dict):
            item = _resolve(doc, items)
            for sub in item.get("properties", {}):
                yield (name, "0", sub)
            if item.get("type") != "object":
                yield (name, "[]")


def _with(body: dict[str, Any], where: tuple[str, ...], value: Any) -> dict[str, Any]:
    out = json.loads(json.dumps(body))
    if len(where) == 1:
        out[where[0]] = value
        return out
    if where[1] == "[]":
        out[where[0]] = [value]
        return out
    name, _, sub = where
    items = out.get(name) if isinstance(out.get(name), list) and out[name] else [{}]
    first = dict(items[0]) if isinstance(items[0], dict) else {}
    first.setdefault("content", "hi") if name == "messages" else None
    first[sub] = value
    out[name] = [first]
    return out


def _encode(value: Any) -> bytes:
    # ASCII escapes: lone surrogates travel as \ud800.
    return json.dumps(value).replace(json.dumps(DEEP), DEEP_JSON).encode()


def _segment(value: Any) -> str:
    return quote(str(value).encode("utf-8", "surrogatepass"), safe="")


def cases(doc: dict[str, Any]) -> list[Case]:
    """Every hostile request for every operation, destructive operations last."""
    out: list[Case] = []
    for template, item in doc["paths"].items():
        for method, op in item.items():
            label = f"{method.upper()} {template}"
            params = op.get("parameters", [])
            body_spec = op.get("requestBody", {}).get("content", {})
            json_schema = body_spec.get("application/json", {}).get("schema")
            base_body = _baseline(doc, json_schema) if json_schema else None

            def make(
                path_values: dict[str, Any],
                query: dict[str, Any],
                headers: dict[str, str],
                body: bytes | None,
                *,
                template: str = template,
                method: str = method,
                label: str = label,
                binary: bool = "application/octet-stream" in body_spec,
            ) -> Case:
                path = template
                for name, value in path_values.items():
                    path = path.replace(f"{{{name}}}", _segment(value))
                return Case(
                    label,
                    method.upper(),
                    path,
                    query,
                    headers,
                    body,
                    "application/octet-stream" if binary else "application/json",
                )

            base_path = {p["name"]: BASE.get(p["name"], "x") for p in params if p["in"] == "path"}
            if "proposal_id" in base_path:
                base_path["proposal_id"] = 1
            default_body = None if base_body is None else _encode(base_body)
            if "application/octet-stream" in body_spec:
                default_body = b"# notes\n"
            out.append(make(base_path, {}, {}, default_body))  # the baseline itself
            for p in params:
                name, where = p["name"], p["in"]
                values = HEADER_SAFE if where == "header" else TEXTUAL
                for value in values:
                    if where == "path":
                        out.append(make({**base_path, name: value}, {}, {}, default_body))
                    elif where == "query":
                        out.append(make(base_path, {name: value}, {}, default_body))
                    else:
                        out.append(make(base_path, {}, {name: value}, default_body))
            if json_schema is not None:
                assert base_body is not None
                for where_in_body in _fields(doc, json_schema):
                    for value in HOSTILE:
                        body = _encode(_with(base_body, where_in_body, value))
                        out.append(make(base_path, {}, {}, body))
            if body_spec:
                for whole in (
                    b"[" * 5_000 + b"]" * 5_000,
                    b'{"a": ' * 3_000 + b"1" + b"}" * 3_000,
                    b"not json \xff\xfe",
                    b"[]",
                    b"null",
                    _encode({"x": "y" * (MAX_BODY + 10)}),
                ):
                    out.append(make(base_path, {}, {}, whole))
    destructive = ("DELETE", "/forget", "/accept", "/reject")
    return sorted(out, key=lambda c: any(d in c.label for d in destructive))


def sample(all_cases: list[Case], per_route: int | None) -> list[Case]:
    if per_route is None:
        return all_cases
    by_route: dict[str, list[Case]] = {}
    for case in all_cases:
        by_route.setdefault(case.label, []).append(case)
    picked: set[int] = set()
    for label, group in by_route.items():
        rng = random.Random(label)  # the same sample on every run
        picked.update(id(c) for c in rng.sample(group, min(per_route, len(group))))
    return [c for c in all_cases if id(c) in picked]


class Counts:
    """Row counts of every table, read on one connection of its own."""

    def __init__(self, path: Path) -> None:
        self.conn = sqlite3.connect(path)
        tables = [
            r[0]
            for r in self.conn.execute(
                "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'"
            )
        ]
        self.sql = "SELECT " + ", ".join(f'(SELECT count(*) FROM "{t}")' for t in tables)
        self.tables = tables

    def __call__(self) -> dict[str, int]:
        return dict(zip(self.tables, self.conn.execute(self.sql).fetchone(), strict=True))


def seed(srv: Running) -> None:
    mem = srv.db.create_memory("fuzz", retrieval={"embedder": "none"})
    srv.db.access.create_principal("fuzzer")
    mem.put_file("docs/a.md", b"# A\n", description="a file")
    for name in ("Vega Labs", "Vega Labs Inc"):
        mem.add_observation(
            title=name,
            content=f"{name} builds telescopes; Alice works there.",
            entities=[
                {"name": name, "type": "organization", "description": "Maker"},
                {"name": "Alice", "type": "person", "description": "Engineer"},
            ],
            files=["docs/a.md"],
        )
    mem.consolidate()
    mem.remember("I work at Acme as CTO.", speaker="Alice")


@dataclass
class Report:
    routes: int = 0
    requests: int = 0
    failures: list[str] = field(default_factory=list)


def run_fuzz(srv: Running, per_route: int | None) -> Report:
    doc = httpx.get(f"{srv.url}/openapi.json").json()
    chosen = sample(cases(doc), per_route)
    counts = Counts(srv.db.store.path)  # type: ignore[attr-defined]
    report = Report(routes=len({c.label for c in chosen}))
    auth = {"Authorization": f"Bearer {srv.admin_key}"}
    try:
        with httpx.Client(base_url=srv.url, timeout=60) as http:
            for case in chosen:
                before = counts()
                query = "&".join(f"{k}={_segment(v)}" for k, v in case.query.items())
                headers: dict[str, str | bytes] = {
                    **auth,
                    **{k: v.encode("latin-1") for k, v in case.headers.items()},
                }
                if case.body is not None:
                    headers["Content-Type"] = case.content_type
                what = f"{case.label} {case.path[:80]!r} {query[:60]!r} {(case.body or b'')[:60]!r}"
                report.requests += 1
                try:
                    r = http.request(
                        case.method,
                        case.path + (f"?{query}" if query else ""),
                        headers=headers,
                        content=case.body,
                    )
                except httpx.TransportError as exc:
                    report.failures.append(f"connection dropped ({exc!r}): {what}")
                    continue
                if r.status_code >= 500:
                    report.failures.append(f"{r.status_code} {what}: {r.text[:200]}")
                elif r.status_code >= 400:
                    message = _message(r)
                    if not message:
                        report.failures.append(f"{r.status_code} without a message: {what}")
                    elif counts() != before:
                        report.failures.append(f"{r.status_code} after a partial write: {what}")
    finally:
        counts.conn.close()
    return report


def _message(r: httpx.Response) -> str:
    try:
        body = r.json()
    except ValueError:
        return ""
    message = body.get("message") if isinstance(body, dict) else None
    return message.strip() if isinstance(message, str) else ""


@pytest.mark.slow
def test_every_route_survives_hostile_values_with_a_clear_message_and_no_partial_write(
    tmp_path: Path,
) -> None:
    with running(tmp_path / "fuzz.db", max_body_bytes=MAX_BODY) as srv:
        seed(srv)
        report = run_fuzz(srv, PER_ROUTE)
    print(
        f"fuzz: {report.routes} routes, {report.requests} requests, {len(report.failures)} failures"
    )
    assert report.failures == [], "\n".join(report.failures[:30])
    assert report.routes >= 57


# -- /mcp: every tool, every argument --------------------------------------------------------

MCP_HEADERS = {
    "X-Turngraph-Memory": "fuzz",
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
}


def _call(n: int, tool: str, arguments: Any) -> bytes:
    request = {
        "jsonrpc": "2.0",
        "id": n,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }
    return _encode(request)


def mcp_cases(tools: list[dict[str, Any]]) -> list[tuple[str, bytes]]:
    """Each tool's baseline call, then each argument holding each hostile value (and, for a
    list, a list of it); then whole bodies nested deep, not JSON, or of the wrong kind."""
    out: list[tuple[str, bytes]] = []
    for tool in tools:
        name, schema = tool["name"], tool["inputSchema"]
        base = {
            arg: 1 if arg == "proposal_id" else BASE.get(arg, "x")
            for arg in schema.get("required", [])
        }
        out.append((name, _call(len(out), name, base)))
        for arg, prop in schema.get("properties", {}).items():
            listed = prop.get("type") == "array" or any(
                alt.get("type") == "array" for alt in prop.get("anyOf", [])
            )
            for value in HOSTILE:
                out.append((name, _call(len(out), name, {**base, arg: value})))
                if listed:
                    out.append((name, _call(len(out), name, {**base, arg: [value]})))
        out.append((name, _call(len(out), name, DEEP)))
        out.append((name, _call(len(out), name, "not an object")))
    for whole in (
        b"[" * 50_000 + b"]" * 50_000,
        b'{"jsonrpc": "2.0", "id": 1, "method": "ping", "params": ' + b"[" * 5_000 + b"]" * 5_000,
        b"not json \xff\xfe",
        b"[]",
        b"null",
        b'{"jsonrpc": "2.0", "id": {"a": 1}, "method": "tools/list"}',
    ):
        out.append(("whole body", whole))
    destructive = ("delete_", "forget", "accept_", "reject_")
    return sorted(out, key=lambda c: c[0].startswith(destructive))


def _mcp_outcome(r: httpx.Response) -> tuple[bool, str]:
    """Whether the call was refused, and the message it gave (JSON-RPC error or tool error)."""
    try:
        body = r.json()
    except ValueError:
        return r.status_code >= 400, ""
    if not isinstance(body, dict):
        return True, ""
    error = body.get("error")
    if isinstance(error, dict):
        return True, str(error.get("message", "")).strip()
    result = body.get("result")
    if isinstance(result, dict) and result.get("isError"):
        content = result.get("content") or [{}]
        return True, str(content[0].get("text", "")).strip()
    return r.status_code >= 400, "ok"


def run_mcp_fuzz(srv: Running) -> Report:
    headers = {"Authorization": f"Bearer {srv.admin_key}", **MCP_HEADERS}
    counts = Counts(srv.db.store.path)  # type: ignore[attr-defined]
    report = Report()
    try:
        with httpx.Client(base_url=srv.url, timeout=60, headers=headers) as http:
            listed = http.post("/mcp", content=b'{"jsonrpc":"2.0","id":0,"method":"tools/list"}')
            tools = listed.json()["result"]["tools"]
            report.routes = len(tools)
            for tool, body in mcp_cases(tools):
                before = counts()
                what = f"{tool} {body[:100]!r}"
                report.requests += 1
                # A whole body is also sent without a key, and without naming a memory: the
                # refusals read the body too.
                variants: list[dict[str, str]] = [{}]
                if tool == "whole body":
                    variants += [{"Authorization": ""}, {"X-Turngraph-Memory": ""}]
                try:
                    for variant in variants:
                        r = http.post(
                            "/mcp",
                            content=body,
                            headers={**headers, **variant} if variant else None,
                        )
                        if r.status_code >= 500:
                            break
                except httpx.TransportError as exc:
                    report.failures.append(f"connection dropped ({exc!r}): {what}")
                    continue
                if r.status_code >= 500:
                    report.failures.append(f"{r.status_code} {what}: {r.text[:200]}")
                    continue
                refused, message = _mcp_outcome(r)
                if refused and not message:
                    report.failures.append(f"{r.status_code} refused without a message: {what}")
                elif refused and counts() != before:
                    report.failures.append(f"refused after a partial write: {what}: {message}")
                elif "Traceback" in message or (
                    "Error executing tool" in message and "validation error" not in message
                ):
                    report.failures.append(
                        f"an internal error reached the caller: {what}: {message[:200]}"
                    )
    finally:
        counts.conn.close()
    return report


@pytest.mark.slow
def test_every_mcp_tool_survives_hostile_arguments_with_a_message_and_no_partial_write(
    tmp_path: Path,
) -> None:
    with running(tmp_path / "fuzz-mcp.db", max_body_bytes=MAX_BODY) as srv:
        seed(srv)
        report = run_mcp_fuzz(srv)
    print(f"mcp fuzz: {report.routes} tools, {report.requests} calls, {len(report.failures)}")
    assert report.failures == [], "\n".join(report.failures[:30])
    assert report.routes >= 29
