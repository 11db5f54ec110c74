"""A LangGraph store backed by a turngraph memory: ``TurngraphStore(memory)`` is a
``langgraph.store.base.BaseStore`` (sync and async: get, put, delete, search, list_namespaces,
batch), so ``create_react_agent(..., store=TurngraphStore(mem))`` and LangMem's tools keep
their long-term memory in turngraph.

How namespaces map: every namespace lives in the one memory the store is given. An item is
an appendix file at ``langgraph/<namespace parts>/<key>.json`` (each part percent-encoded)
holding its value and times, so ``get`` is exact and ``list_namespaces`` reads the folders;
and, unless it is put with ``index=False``, an observation tagged ``langgraph`` whose content
is the item's text (the fields ``index`` names, else the whole value as JSON), so ``search``
with a query ranks items by turngraph's recall. Filters compare value fields (equality, or
``$eq``, ``$ne``, ``$gt``, ``$gte``, ``$lt``, ``$lte``). TTLs are not supported.

Needs the ``langgraph`` extra: ``pip install 'turngraph[langgraph]'``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote, unquote

from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
    get_text_at_path,
)

from turngraph.core.memory import Memory
from turngraph.errors import NotFoundError

ROOT = "langgraph"
TAG = "langgraph"


def _enc(part: str) -> str:
    return quote(part, safe="").replace(".", "%2E")


def _path(namespace: tuple[str, ...], key: str) -> str:
    return "/".join([ROOT, *map(_enc, namespace), f"{_enc(key)}.json"])


def _folder(prefix: tuple[str, ...]) -> str:
    return "/".join([ROOT, *map(_enc, prefix)])


class TurngraphStore(BaseStore):
    """LangGraph's long-term memory store over one turngraph memory (see the module)."""

    supports_ttl = False

    def __init__(self, memory: Memory) -> None:
        self.memory = memory

    # -- the protocol ----------------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        return [self._one(op) for op in ops]

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await asyncio.to_thread(self.batch, list(ops))

    def _one(self, op: Op) -> Result:
        if isinstance(op, GetOp):
            return self._get(op.namespace, op.key)
        if isinstance(op, PutOp):
            if op.value is None:
                self._delete(op.namespace, op.key)
            else:
                self._put(op.namespace, op.key, dict(op.value), op.index)
            return None
        if isinstance(op, SearchOp):
            return self._search(op)
        if isinstance(op, ListNamespacesOp):
            return self._namespaces(op)
        raise ValueError(f"unknown store operation {type(op).__name__}")

    # -- items -----------------------------------------------------------------------------

    def _record(self, path: str) -> dict[str, Any] | None:
        try:
            found = self.memory.get_file(path)
        except NotFoundError:
            return None
        record: dict[str, Any] = json.loads(found.data)
        return record

    def _item(self, record: dict[str, Any]) -> Item:
        return Item(
            value=record["value"],
            key=record["key"],
            namespace=tuple(record["namespace"]),
            created_at=datetime.fromisoformat(record["created_at"]),
            updated_at=datetime.fromisoformat(record["updated_at"]),
        )

    def _get(self, namespace: tuple[str, ...], key: str) -> Item | None:
        record = self._record(_path(namespace, key))
        return self._item(record) if record is not None else None

    def _put(
        self,
        namespace: tuple[str, ...],
        key: str,
        value: dict[str, Any],
        index: Any,
    ) -> None:
        path = _path(namespace, key)
        old = self._record(path)
        now = datetime.now(UTC).isoformat()
        slug = old.get("slug") if old else None
        text = _text(value, index)
        title = f"{'/'.join(namespace)}/{key}"[:200]
        if text is None:  # index=False: kept, not searchable by a query
            if slug:
                self.memory.delete_observation(slug)
            slug = None
        else:
            tags = [TAG, *_prefix_tags(namespace)]
            try:
                if not slug:
                    raise NotFoundError("no observation yet")
                self.memory.update_observation(slug, title=title, content=text, tags=tags)
            except NotFoundError:  # new, or its observation was deleted by other means
                written = self.memory.add_observation(title=title, content=text, tags=tags)
                slug = written.observation.slug
        record = {
            "namespace": list(namespace),
            "key": key,
            "value": value,
            "created_at": old["created_at"] if old else now,
            "updated_at": now,
            "slug": slug,
        }
        self.memory.put_file(
            path,
            json.dumps(record, ensure_ascii=False),
            description=f"LangGraph store item {title}",
            content_type="application/json",
            overwrite=True,
        )

    def _delete(self, namespace: tuple[str, ...], key: str) -> None:
        path = _path(namespace, key)
        old = self._record(path)
        if old is None:
            return
        if old.get("slug"):
            with contextlib.suppress(NotFoundError):  # removed by hand already
                self.memory.delete_observation(old["slug"])
        self.memory.delete_file(path)

    def _records(self, prefix: tuple[str, ...]) -> list[dict[str, Any]]:
        listed = self.memory.list_files(prefix=_folder(prefix))
        found = (self._record(f.path) for f in sorted(listed, key=lambda f: f.path))
        return [r for r in found if r is not None]

    def _search(self, op: SearchOp) -> list[SearchItem]:
        records = [r for r in self._records(op.namespace_prefix) if _matches(r["value"], op.filter)]
        scores: dict[str, float] = {}
        if op.query:
            wanted = op.offset + op.limit
            found = self.memory.recall(
                op.query,
                k=min(50, max(wanted * 3, 10)),
                tags=[TAG, *_prefix_tags(op.namespace_prefix)[-1:]],  # this namespace only
                include=("passages",),
            )
            for hit in found.hits:
                slug = hit.source.slug
                if slug and slug not in scores:
                    scores[slug] = hit.score
            records.sort(key=lambda r: -scores.get(r.get("slug") or "", -1.0))
        page = records[op.offset : op.offset + op.limit]
        return [
            SearchItem(
                namespace=tuple(r["namespace"]),
                key=r["key"],
                value=r["value"],
                created_at=datetime.fromisoformat(r["created_at"]),
                updated_at=datetime.fromisoformat(r["updated_at"]),
                score=scores.get(r.get("slug") or "") if op.query else None,
            )
            for r in page
        ]

    def _namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        found: set[tuple[str, ...]] = set()
        for f in self.memory.list_files(prefix=ROOT):
            parts = tuple(unquote(p) for p in f.path.split("/")[1:-1])
            found.add(parts)
        out = []
        for ns in sorted(found):
            if not all(_accepts(ns, c) for c in op.match_conditions or ()):
                continue
            out.append(ns[: op.max_depth] if op.max_depth is not None else ns)
        out = sorted(set(out))
        return out[op.offset : op.offset + op.limit]


def _prefix_tags(namespace: tuple[str, ...]) -> list[str]:
    """A tag for each prefix of the namespace (``("users",)``, ``("users", "dana")``, ...),
    so a search finds only the items under the prefix it asks about."""
    return [
        "lg:" + hashlib.sha256("\x1f".join(namespace[:i]).encode()).hexdigest()[:24]
        for i in range(1, min(len(namespace), 30) + 1)
    ]


def _text(value: dict[str, Any], index: Any) -> str | None:
    """What an item is found by: the fields ``index`` names, else the whole value."""
    if index is False:
        return None
    if isinstance(index, Sequence) and not isinstance(index, str) and index:
        parts = [t for path in index for t in get_text_at_path(value, path) if t]
        text = "\n".join(parts)
    else:
        text = json.dumps(value, ensure_ascii=False)
    return text[:30_000] or json.dumps(value)[:30_000]


def _matches(value: dict[str, Any], condition: dict[str, Any] | None) -> bool:
    for key, want in (condition or {}).items():
        have = value.get(key)
        if isinstance(want, dict) and want and all(k.startswith("$") for k in want):
            for op, arg in want.items():
                if not _compare(op, have, arg):
                    return False
        elif have != want:
            return False
    return True


def _compare(op: str, have: Any, arg: Any) -> bool:
    try:
        if op == "$eq":
            return bool(have == arg)
        if op == "$ne":
            return bool(have != arg)
        if op == "$gt":
            return bool(have > arg)
        if op == "$gte":
            return bool(have >= arg)
        if op == "$lt":
            return bool(have < arg)
        if op == "$lte":
            return bool(have <= arg)
    except TypeError:
        return False
    raise ValueError(f"unknown filter operator {op!r} ($eq, $ne, $gt, $gte, $lt, $lte)")


def _accepts(namespace: tuple[str, ...], condition: Any) -> bool:
    """A list_namespaces prefix or suffix condition ("*" matches any one part)."""
    path = tuple(condition.path)
    if len(path) > len(namespace):
        return False
    part = namespace[: len(path)] if condition.match_type == "prefix" else namespace[-len(path) :]
    return all(want in ("*", have) for want, have in zip(path, part, strict=True))
