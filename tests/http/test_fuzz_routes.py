"""Every route of the OpenAPI document, with hostile values in every parameter and body field
(calendar edges, lone surrogates, NULs, zero-width and right-to-left text, huge and deeply
nested values, full-text query syntax, path traversal, negative and huge numbers), and whole
bodies that are huge, deeply nested or not JSON. Fails on any 5xx, on an error without a
message, and on a refused request that changed any table (row counts of every table before
and after).

``make test`` sends a fixed sample per route (default 30 of about 100); set
``TURNGRAPH_FUZZ_PER_ROUTE=all`` for every combination (figures in docs/benchmarks.md).
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
_per_route = os.environ.get("TURNGRAPH_FUZZ_PER_ROUTE", "30")
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
    """Paths of the body's fields: top-level properties and those of list items."""
    schema = _resolve(doc, schema)
    for name, prop in schema.get("properties", {}).items():
        yield (name,)
        items = _resolve(doc, prop).get("items")
        if isinstance(items, dict):
            item = _resolve(doc, items)
            for sub in item.get("properties", {}):
                yield (name, "0", sub)


def _with(body: dict[str, Any], where: tuple[str, ...], value: Any) -> dict[str, Any]:
    out = json.loads(json.dumps(body))
    if len(where) == 1:
        out[where[0]] = value
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
