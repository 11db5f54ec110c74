"""MCP tools made from the table of operations (``turngraph.operations``).

For an operation whose MCP face the row does not declare hand-written, one tool named as
the row says: its arguments are the core method's (names, types, defaults; sizes from
:class:`~turngraph.config.Limits` as the row names them, a required text at least one
character), its description the first paragraph of the core method's docstring, its tier
the row's. It calls the core and returns the core's result as structured output; a list is
returned as :class:`~turngraph.mcp.tools.Listed`, cut to the tool-size limit like every
list tool's. Errors are the core's, carried with their class and fields like every tool's.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Annotated, Any, get_origin

from pydantic import BaseModel, Field

from turngraph.core.memory import Memory
from turngraph.mcp.tools import Call, Listed, Register
from turngraph.operations import Operation, Param, operations, params_of, result_of, summary_of


def _field(p: Param) -> Any:
    sizes: dict[str, Any] = {}
    if p.limit is not None:
        sizes["le" if p.annotation is int else "max_length"] = p.limit
    if p.required and p.annotation is str:
        sizes["min_length"] = 1
    return Annotated[p.annotation, Field(**sizes)] if sizes else p.annotation


def made_tool(
    op: Operation,
    mem: Callable[[], Memory],
    call: Call,
    listed: Callable[[list[Any], str], Listed],
) -> Callable[..., Any]:
    """The tool function of ``op`` (named as the row's MCP tool)."""
    assert op.mcp is not None
    params = params_of(op)
    result = result_of(op)
    is_list = get_origin(result) is list
    kw = inspect.Parameter.KEYWORD_ONLY
    signature = inspect.Signature(
        [inspect.Parameter(p.name, kw, annotation=_field(p), default=p.default) for p in params],
        return_annotation=Listed if is_list else result,
    )

    def tool(**given: Any) -> Any:
        value = call(lambda: getattr(mem(), op.name)(**given))
        if is_list:
            rows = [v.model_dump(mode="json") if isinstance(v, BaseModel) else v for v in value]
            return listed(rows, op.name.replace("_", " "))
        return value

    tool.__name__ = op.mcp
    tool.__doc__ = summary_of(op)
    tool.__signature__ = signature  # type: ignore[attr-defined]
    return tool


def register_made_tools(
    register: Register,
    mem: Callable[[], Memory],
    call: Call,
    listed: Callable[[list[Any], str], Listed],
    table: Sequence[Operation] | None = None,
) -> None:
    """Register on ``register`` (a decorator taking the description) every tool the table
    makes."""
    for op in table if table is not None else operations():
        if op.mcp is not None and op.made("mcp"):
            register(summary_of(op))(made_tool(op, mem, call, listed))


__all__ = ["made_tool", "register_made_tools"]
