"""Graph-API routes made from the table of operations (``turngraph.operations``).

For each operation whose row does not declare its route written by hand, one route at the
row's method and path (under ``/v1/memories/{memory}``): path arguments from the path's
``{names}``, the others from the query string (GET, DELETE) or a JSON body (any other
method) with the core method's names, types and defaults, ``idempotency_key`` from the
``Idempotency-Key`` header; sizes from :class:`~turngraph.config.Limits` as the row names
them, a required text at least one character. The route binds the memory at the row's tier,
calls the core method and answers its result as it is (the client parses it back into the
same type). A keyed write runs through the graph API's idempotency (``graph_api._once``).
Errors are the core's, mapped to statuses in one place like every route's.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Sequence
from typing import Annotated, Any, get_args, get_origin

from fastapi import APIRouter, Path, Query, Request
from fastapi.params import Param as FastAPIParam
from pydantic import BaseModel, ConfigDict, Field, create_model

from turngraph.operations import Operation, Param, operations, params_of, result_of, summary_of
from turngraph.server.common import CallerDep, DatabaseDep
from turngraph.server.graph_api import IdempotencyKey, _m, _ok, _once

BASE = "/memories/{memory}"


def made_router(table: Sequence[Operation] | None = None) -> APIRouter:
    """A router with the routes the table makes (included after the hand-written ones)."""
    router = APIRouter(prefix="/v1", tags=["graph API"])
    for op in table if table is not None else operations():
        if op.http is None or not op.made("http"):
            continue
        method, path = op.http
        writes = method != "GET"
        for name in op.slashes:
            path = path.replace(f"{{{name}}}", f"{{{name}:path}}")
        router.add_api_route(
            BASE + path,
            endpoint(op),
            methods=[method],
            status_code=op.status,
            response_model=result_of(op),
            responses=_ok(409, 413) if writes else _ok(),
            name=op.name,
            summary=op.name.replace("_", " "),
            description=summary_of(op),
        )
    return router


def _is_text(annotation: Any) -> bool:
    return annotation is str or (get_origin(annotation) is not None and str in get_args(annotation))


def _is_int(annotation: Any) -> bool:
    return annotation is int or int in get_args(annotation)


def _sized(p: Param, kind: Callable[..., Any]) -> Any:
    """``kind`` (Query, Path or Field) with the argument's default and sizes."""
    sizes: dict[str, Any] = {}
    if p.limit is not None:
        sizes["le" if _is_int(p.annotation) and not _is_text(p.annotation) else "max_length"] = (
            p.limit
        )
    if p.required and p.annotation is str:
        sizes["min_length"] = 1
    if p.wire != p.name:
        sizes["alias"] = p.wire
    if kind is not Field:  # Path and Query take their default from the signature
        return kind(**sizes)
    return kind(... if p.required else p.default, **sizes)


def _body_model(op: Operation, params: list[Param]) -> type[BaseModel] | None:
    fields: dict[str, Any] = {
        p.name: (p.annotation, _sized(p, Field)) for p in params if p.where == "body"
    }
    if not fields:
        return None
    name = "".join(part.title() for part in re.split(r"_+", op.name)) + "In"
    model: type[BaseModel] = create_model(name, __config__=ConfigDict(extra="forbid"), **fields)
    return model


def endpoint(op: Operation) -> Callable[..., Any]:
    """The route function of ``op``, with a signature FastAPI reads its arguments from."""
    params = params_of(op)
    body = _body_model(op, params)
    keyed = any(p.where == "header" for p in params)
    kw = inspect.Parameter.KEYWORD_ONLY
    sig = [inspect.Parameter("memory", kw, annotation=str)]
    for p in params:
        if p.where in ("path", "query"):
            marker: FastAPIParam = _sized(p, Path if p.where == "path" else Query)
            sig.append(
                inspect.Parameter(
                    p.name, kw, annotation=Annotated[p.annotation, marker], default=p.default
                )
            )
    if body is not None:
        optional = all(not f.is_required() for f in body.model_fields.values())
        sig.append(
            inspect.Parameter(
                "body",
                kw,
                annotation=body | None if optional else body,
                default=None if optional else inspect.Parameter.empty,
            )
        )
    sig += [
        inspect.Parameter("db", kw, annotation=DatabaseDep),
        inspect.Parameter("caller", kw, annotation=CallerDep),
        inspect.Parameter("request", kw, annotation=Request),
    ]
    if keyed:
        sig.append(
            inspect.Parameter("idempotency_key", kw, annotation=IdempotencyKey, default=None)
        )

    def run(**given: Any) -> Any:
        bound = _m(given["db"], given["caller"], given["memory"], op.tier)
        args = {p.name: given[p.name] for p in params if p.where in ("path", "query")}
        sent: BaseModel | None = given.get("body")
        if sent is None and body is not None:
            sent = body()
        if sent is not None:
            args.update({name: getattr(sent, name) for name in type(sent).model_fields})
        method = getattr(bound.memory, op.name)
        if not keyed:
            return method(**args)
        key = given.get("idempotency_key")
        echo = {
            **{p.name: args[p.name] for p in params if p.where == "path"},
            **(sent.model_dump(mode="json") if sent is not None else {}),
        }
        return _once(
            bound,
            given["request"],
            key,
            op.name,
            echo,
            lambda: method(**args, idempotency_key=key),
            status=op.status,
        )

    run.__name__ = op.name
    run.__doc__ = summary_of(op)
    run.__signature__ = inspect.Signature(sig)  # type: ignore[attr-defined]
    return run


__all__ = ["endpoint", "made_router"]
