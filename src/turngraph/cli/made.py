"""CLI commands made from the table of operations (``turngraph.operations``).

For an operation whose CLI face the row does not declare hand-written, the command the row
names (``command`` or ``command action``): the core method's required arguments are
positional, the others ``--options`` with the core's defaults (a literal's values as
choices, a flag for a boolean, a list repeated, anything else as JSON text), and the help
is the first paragraph of its docstring. The command opens the memory, calls the core and
prints the result: ``--json`` prints the core's model, text prints its fields one a line.
The CLI works on the database file itself, so no tier applies (whoever holds the file holds
the memory); errors go to stderr with exit status 1 like every command's.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from typing import Any, Literal, get_args, get_origin

from pydantic import BaseModel

from turngraph.core.memory import Memory
from turngraph.errors import ValidationError
from turngraph.operations import Operation, Param, find, operations, params_of, summary_of

Add = Callable[..., argparse.ArgumentParser]
Actions = Callable[..., Callable[[str, str, str], argparse.ArgumentParser]]


def _json_arg(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(f"not JSON: {exc.msg}") from None


def _plain(annotation: Any) -> Any:
    """``X | None`` as ``X``."""
    args = [a for a in get_args(annotation) if a is not type(None)]
    if (
        get_origin(annotation) is not Literal
        and len(args) == 1
        and type(None) in get_args(annotation)
    ):
        return args[0]
    return annotation


def _add_argument(parser: argparse.ArgumentParser, p: Param) -> None:
    kind = _plain(p.annotation)
    options: dict[str, Any] = {"help": f"({p.where}) default: {p.default!r}"}
    if get_origin(kind) is Literal:
        options["choices"] = list(get_args(kind))
    elif kind is bool:
        options["action"] = argparse.BooleanOptionalAction
    elif kind in (int, float, str):
        options["type"] = kind
    elif get_origin(kind) in (list, tuple, Sequence):
        options["action"] = "append"
    else:
        options["type"] = _json_arg
    if p.required:
        options["help"] = "required"
        parser.add_argument(p.name, **options)
    else:
        parser.add_argument(
            "--" + p.name.replace("_", "-"), dest=p.name, default=p.default, **options
        )


def add_parsers(add: Add, actions: Actions, handler: Callable[[argparse.Namespace], Any]) -> None:
    """The commands the table makes, on the ``turngraph`` parser (``add`` and ``actions`` as
    cli/parser.py defines them)."""
    groups: dict[str, list[tuple[str, Operation]]] = {}
    for op in operations():
        if op.cli is None or not op.made("cli"):
            continue
        command, _, verb = op.cli.partition(" ")
        groups.setdefault(command, []).append((verb, op))
    for command, rows in groups.items():
        if len(rows) == 1 and not rows[0][0]:
            op = rows[0][1]
            p = add(command, handler, summary_of(op), f"turngraph {command} --help")
            p.set_defaults(operation=op.name)
            for param in params_of(op):
                _add_argument(p, param)
            continue
        parent = add(command, handler, f"{command}: " + ", ".join(a for a, _ in rows), command)
        sub = actions(parent, "db memory json")
        for name, op in rows:
            p = sub(name, summary_of(op), f"turngraph {command} {name} --help")
            p.set_defaults(operation=op.name)
            for param in params_of(op):
                _add_argument(p, param)


def _text(value: Any) -> str:
    if isinstance(value, BaseModel):
        return "\n".join(
            f"{k}: {v if isinstance(v, str | int | float | bool) or v is None else json.dumps(v)}"
            for k, v in value.model_dump(mode="json").items()
        )
    if isinstance(value, list):
        return "\n".join(_text(v) for v in value) or "(none)"
    return str(value)


def run(args: argparse.Namespace, open_memory: Callable[..., Memory]) -> None:
    """Run the made command ``args`` names and print its result."""
    op = find(getattr(args, "operation", None) or "")
    if op is None:
        raise ValidationError(f"{args.command}: give an action (see --help)", field="action")
    given = {p.name: getattr(args, p.name) for p in params_of(op)}
    result = getattr(open_memory(args), op.name)(**given)
    if not args.json:
        print(_text(result))
    elif isinstance(result, BaseModel):
        print(result.model_dump_json(indent=2))
    elif isinstance(result, list):
        print(json.dumps([_jsonable(r) for r in result], indent=2))
    else:
        print(json.dumps(result, indent=2))


def _jsonable(value: Any) -> Any:
    return value.model_dump(mode="json") if isinstance(value, BaseModel) else value


__all__ = ["add_parsers", "run"]
