"""The client's calls made from the table of operations (``turngraph.operations``).

For an operation whose client face the row does not declare hand-written, the call is
read off the row and the core method: the arguments are bound to the core signature (so a
wrong name or a missing argument raises ``TypeError`` as the embedded call would), path
arguments go into the row's path, the others into the query string (GET, DELETE) or a JSON
body, ``idempotency_key`` into the ``Idempotency-Key`` header (a fresh key when the caller
gives none, as on every write), and the answer is parsed into the core method's return
type. ``RemoteMemory`` and ``AsyncRemoteMemory`` reach every such operation by its name.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic_core import to_jsonable_python

from turngraph.client.remote import _Call, _clean, _idem, _model, _seg
from turngraph.operations import (
    PATH_PARAM,
    Operation,
    core_method,
    find,
    params_of,
    result_of,
)


@dataclass(frozen=True, slots=True)
class _Plan:
    """What a made call needs, read from the row and the core method once per process."""

    op: Operation
    method: Callable[..., Any]
    signature: inspect.Signature
    where: dict[str, str]
    wire: dict[str, str]
    keyed: bool
    parse: Callable[[Any], Any]


_plans: dict[str, _Plan] = {}


def _plan(op: Operation) -> _Plan:
    method = core_method(op)
    found = _plans.get(op.name)
    if found is not None and found.op is op and found.method is method:
        return found
    params = params_of(op)
    found = _Plan(
        op,
        method,
        inspect.signature(method),
        {p.name: p.where for p in params},
        {p.name: p.wire for p in params},
        any(p.where == "header" for p in params),
        _model(result_of(op)),
    )
    _plans[op.name] = found
    return found


def made_operation(name: str) -> Operation | None:
    """The row of ``name`` when the client reaches it through the form the table makes."""
    op = find(name)
    if op is None or op.http is None or not op.made("client"):
        return None
    return op


def made_call(
    base: str, op: Operation, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> _Call[Any]:
    """The HTTP call of ``op`` with these arguments, on the memory at ``base``."""
    assert op.http is not None
    plan = _plan(op)
    given = dict(list(plan.signature.bind(None, *args, **kwargs).arguments.items())[1:])
    method, path = op.http
    url = base + PATH_PARAM.sub(lambda m: _seg(str(given[m.group(1)])), path)
    rest = {plan.wire[k]: v for k, v in given.items() if plan.where[k] in ("query", "body")}
    headers = _idem(given.get("idempotency_key")) if plan.keyed else {}
    if method in ("GET", "DELETE"):
        params = _clean(to_jsonable_python(rest))
        return _Call(method, url, plan.parse, params=params, headers=headers)
    body = to_jsonable_python(rest) if rest else None
    return _Call(method, url, plan.parse, json=body, headers=headers)


__all__ = ["made_call", "made_operation"]
