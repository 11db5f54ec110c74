"""The table of operations: every public operation of :class:`~turngraph.Memory`, once, with
what each face needs to reach it.

For each operation: the core method, the tier a caller needs, the graph API's HTTP method and
path (under ``/v1/memories/{memory}``), the MCP tool that carries it, and the CLI command
(``command`` or ``command action``). A face that deliberately leaves an operation out says
why in ``omitted``.

The faces are made from the table: the graph API's route (``server/routes_made.py``), the
MCP tool (``mcp/made.py``), the client's call (``client/made.py``) and the CLI command
(``cli/made.py``) of an operation are generated from this row and the core method's
signature (:func:`params_of`: each argument's type, default and place on the wire, its size
limit from :class:`~turngraph.config.Limits` as ``limits`` names it; :func:`result_of`: the
return type, which the route answers with and the client parses back). A face written by
hand instead is an escape hatch the row declares in ``hand``, with the reason (a file body,
a path that may hold '/', a request model that reshapes the arguments, MCP result trimming,
CLI rendering). Adding a method to ``Memory`` and a row here makes it appear on every face,
with its tier; ``tests/http/test_parity.py`` checks that for every operation and for a toy
one added by a test. The memory API (``/api/v1``) is not in the table: it adapts another
system's contract by hand.
"""

from __future__ import annotations

import inspect
import re
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from turngraph.config import Limits
from turngraph.core.access import Tier

Face = str  # "http", "client", "mcp", "cli"
FACES: tuple[Face, ...] = ("http", "client", "mcp", "cli")


@dataclass(frozen=True, slots=True)
class Operation:
    """One public operation of a memory and how each face reaches it."""

    name: str  # the Memory method
    tier: Tier
    http: tuple[str, str] | None  # (method, path under /v1/memories/{memory})
    mcp: str | None  # the MCP tool's name
    cli: str | None  # the CLI command, "command" or "command action"
    omitted: Mapping[Face, str] = field(default_factory=lambda: MappingProxyType({}))
    # Faces written by hand rather than made from this row, each with the reason.
    hand: Mapping[Face, str] = field(default_factory=lambda: MappingProxyType({}))
    # An argument's size limit: the name of a Limits field (max length of a string or a
    # list, the ceiling of an integer).
    limits: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    # What a made tool or command says it does (default: the core docstring's first
    # paragraph): the agent-facing text, when it should differ from the developer's.
    about: str | None = None
    # Path arguments that may hold '/' (``{name:path}`` in the route), and the status of a
    # made route's success.
    slashes: tuple[str, ...] = ()
    status: int = 200
    # A core argument's name on the HTTP wire, where the route's query names it otherwise
    # (``type`` for ``entity_type``); the MCP tool and the CLI use the core's names.
    wire: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    def made(self, face: Face) -> bool:
        """Whether ``face`` reaches this operation through the form made from the table."""
        return face not in self.omitted and face not in self.hand


def _op(
    name: str,
    tier: Tier,
    route: tuple[str, str] | None,
    tool: str | None = None,
    command: str | None = None,
    *,
    hand: Mapping[Face, str] | None = None,
    limits: Mapping[str, str] | None = None,
    about: str | None = None,
    slashes: tuple[str, ...] = (),
    status: int = 200,
    wire: Mapping[str, str] | None = None,
    **omitted: str,
) -> Operation:
    """A row; faces not in ``hand`` (and not omitted) are made from it."""
    return Operation(
        name,
        tier,
        route,
        tool,
        command,
        MappingProxyType(dict(omitted)),
        MappingProxyType({f: r for f, r in (hand or {}).items() if f not in omitted}),
        MappingProxyType(dict(limits or {})),
        about,
        slashes,
        status,
        MappingProxyType(dict(wire or {})),
    )


# Why a face is written by hand (the escape hatches).
_RESHAPED = (
    "a route written by hand: its request model reshapes the core's arguments (nested "
    "entities, relationships or messages, datetimes as text, a result wrapped in an object) "
    "and clients already send that shape"
)
_SLASHES = "a name or path that may hold '/' ({name:path} in the URL)"
_FILE_BODY = "a file body: raw bytes in and out, the file's record in a header"
_TYPED = (
    "a typed method kept for mypy users and the agent kit's MemoryCalls; its call is "
    "written with the others in client/remote.py"
)
_TRIMMED = (
    "a tool written by hand: agent-facing description and arguments, lists and recall cut "
    "to the tool-size limit their own way"
)
_PAGED = (
    "MCP result trimming: a smaller default page (50), halved until the result fits the "
    "tool-size limit"
)
_RENDERED = "CLI rendering: a command of its own with text output and options"
_DRY_RUN = "DELETE with dry_run=true answers the preview; without it, the delete"
_ALL_HAND = {"http": _RESHAPED, "client": _TYPED, "mcp": _TRIMMED, "cli": _RENDERED}


_LISTS_IN_PROCESS = "a property of the open memory object, not an operation on its contents"
_SLUGS = "the CLI's typing aid (a slug prefix); results over the wire carry whole slugs"
_PAGES = (
    "a read shaped for the inspector's pages (a whole session's extractions, a graph "
    "drawing, a delete's preview); an agent uses list_turns, get_entity and get_turn"
)

OPERATIONS: tuple[Operation, ...] = (
    _op(
        "info",
        "read",
        ("GET", ""),
        None,
        "memories list",
        mcp="the MCP server is bound to one memory; its instructions describe it",
        hand={**_ALL_HAND, "http": "the memory's record with the caller's tier added"},
    ),
    _op("recall", "read", ("POST", "/recall"), "recall", "recall", hand=_ALL_HAND),
    _op(
        "context",
        "read",
        ("POST", "/context"),
        "context",
        None,
        cli="recall --json gives the same passages; prompt text is for agents",
        hand=_ALL_HAND,
    ),
    _op(
        "chat",
        "read_write",
        ("POST", "/chat"),
        None,
        None,
        mcp="an agent on MCP answers with its own model: it reads context and remembers turns",
        cli="the model endpoint is a server setting (TURNGRAPH_LLM_*); the CLI opens the "
        "database with none",
        limits={"message": "content_hard_chars"},
        about="Answer a message with the memory: store it, ask the chat model with the "
        "memory's context, store the reply.",
    ),
    _op(
        "add_observation",
        "read_write",
        ("POST", "/observations"),
        "add_observation",
        "add",
        hand=_ALL_HAND,
    ),
    _op(
        "update_observation",
        "full",
        ("PATCH", "/observations/{slug}"),
        "update_observation",
        None,
        cli="edit an observation with the graph API or MCP; the CLI adds and deletes",
        hand=_ALL_HAND,
    ),
    _op(
        "delete_observation",
        "full",
        ("DELETE", "/observations/{slug}"),
        "delete_observation",
        "delete",
        hand={**_ALL_HAND, "http": _DRY_RUN},
    ),
    _op(
        "get_observation",
        "read",
        ("GET", "/observations/{slug}"),
        "get_observation",
        "show",
        hand={"cli": _RENDERED},
        about="The full text of an observation (or turn) by its slug, as recall cites it.",
    ),
    _op(
        "resolve_slug",
        "read",
        None,
        None,
        "show",
        http=_SLUGS,
        client=_SLUGS,
        mcp=_SLUGS,
        hand=_ALL_HAND,
    ),
    _op(
        "get_entity",
        "read",
        ("GET", "/entities/{name}"),
        "get_entity",
        "entities",
        hand={"cli": _RENDERED},
        slashes=("name",),
        limits={"name": "entity_name_chars"},
        about="An entity by any of its names: description, relationships, observations.",
    ),
    _op(
        "list_entities",
        "read",
        ("GET", "/entities"),
        "list_entities",
        "entities",
        hand={"cli": _RENDERED},
        limits={"type": "entity_type_chars", "limit": "entities_per_page"},
        about="Entities, most connected first, optionally of one type.",
    ),
    _op(
        "delete_entity",
        "full",
        ("DELETE", "/entities/{name}"),
        "delete_entity",
        "forget",
        hand={"cli": _RENDERED},
        slashes=("name",),
        wire={"entity_type": "type"},
        limits={"name": "entity_name_chars", "entity_type": "entity_type_chars"},
        about="Remove an entity with its attributes and relationships; observations stay.",
    ),
    _op(
        "entity_state",
        "read",
        ("GET", "/state/entity"),
        "entity_state",
        "state",
        hand={"cli": _RENDERED},
        about="One entity (e.g. person / Dana) with its current attributes and relations.",
        limits={"entity_type": "entity_type_chars", "name": "entity_name_chars"},
    ),
    _op(
        "entity_states",
        "read",
        ("GET", "/state/entities"),
        "entity_states",
        "state",
        hand={"cli": _RENDERED},
        wire={"entity_type": "type"},
        limits={"entity_type": "entity_type_chars", "limit": "state_items"},
        about="Entities ordered by type then name, as the state shows them.",
    ),
    _op(
        "entity_history",
        "read",
        ("GET", "/history"),
        "entity_history",
        "history",
        hand={"cli": _RENDERED},
        limits={"entity_type": "entity_type_chars", "name": "entity_name_chars"},
        about="Every version of one attribute of one entity (e.g. person / Dana / job_title), "
        "oldest first, superseded ones included, each citing the turn it came from.",
    ),
    _op(
        "state",
        "read",
        ("GET", "/state"),
        "state",
        "state",
        hand={"mcp": _PAGED, "cli": _RENDERED},
        limits={"limit": "state_items"},
    ),
    _op(
        "forget",
        "full",
        ("POST", "/forget"),
        "forget",
        "forget",
        hand={"cli": _RENDERED},
        limits={"query": "query_chars"},
        about="Forget: remove every observation whose text holds all the query's words "
        "(dry_run lists them first; purge also removes what only they taught).",
    ),
    _op("remember", "read_write", ("POST", "/turns"), "remember", "remember", hand=_ALL_HAND),
    _op(
        "remember_many",
        "read_write",
        ("POST", "/turns/batch"),
        "remember_many",
        None,
        cli="`remember` reads many turns from stdin or a file, one remember per line, so a "
        "bad line is named by its number and the lines before it are kept",
        hand=_ALL_HAND,
    ),
    _op(
        "create_session",
        "read_write",
        ("POST", "/sessions"),
        "create_session",
        "sessions create",
        hand={"cli": _RENDERED},
        status=201,
        limits={"session_id": "session_id_chars"},
        about="Start a session; metadata (any JSON) is kept as given.",
    ),
    _op(
        "list_sessions",
        "read",
        ("GET", "/sessions"),
        "list_sessions",
        "sessions list",
        hand={"cli": _RENDERED},
        about="Sessions, newest first, paged (limit at most 200).",
    ),
    _op(
        "get_turn",
        "read",
        ("GET", "/turns/{turn_id}"),
        "get_turn",
        None,
        cli="`turns SESSION --json` and `state` show what turns taught; one turn by id is "
        "the inspector's read",
        hand={"cli": _RENDERED},
        about="One turn by id with what it taught the memory: entities, relationships, "
        "attribute versions, corrections, actions, instructions, uncertainties.",
    ),
    _op(
        "list_turn_details",
        "read",
        ("GET", "/sessions/{session_id}/turn-details"),
        None,
        None,
        mcp=_PAGES,
        cli=_PAGES,
        limits={"session_id": "session_id_chars"},
    ),
    _op(
        "neighborhood",
        "read",
        ("GET", "/graph"),
        None,
        None,
        mcp=_PAGES,
        cli=_PAGES,
        wire={"name": "entity"},
        limits={"name": "entity_name_chars"},
    ),
    _op(
        "preview_delete_observation",
        "full",
        ("DELETE", "/observations/{slug}"),
        None,
        None,
        mcp=_PAGES,
        cli=_PAGES,
        hand={**_ALL_HAND, "http": _DRY_RUN},
    ),
    _op(
        "get_session",
        "read",
        ("GET", "/sessions/{session_id}"),
        "get_session",
        "sessions show",
        hand={"cli": _RENDERED},
        about="A session by id, with its metadata.",
    ),
    _op(
        "delete_session",
        "full",
        ("DELETE", "/sessions/{session_id}"),
        "delete_session",
        "sessions delete",
        hand=_ALL_HAND,
    ),
    _op(
        "list_turns",
        "read",
        ("GET", "/sessions/{session_id}/turns"),
        "list_turns",
        "turns",
        hand={"mcp": _PAGED, "cli": _RENDERED},
        limits={"session_id": "session_id_chars", "limit": "turns_per_page"},
    ),
    _op(
        "put_file",
        "read_write",
        ("PUT", "/files/{path}"),
        "store_file",
        "files put",
        hand={**_ALL_HAND, "http": _FILE_BODY},
    ),
    _op(
        "get_file",
        "read",
        ("GET", "/files/{path}"),
        "read_file",
        "files get",
        hand={**_ALL_HAND, "http": _FILE_BODY},
    ),
    _op(
        "list_files",
        "read",
        ("GET", "/files"),
        "list_files",
        "files list",
        hand={"cli": _RENDERED},
        limits={"prefix": "file_path_chars"},
        about="Appendix files (long sources), optionally under a folder prefix.",
    ),
    _op(
        "delete_file",
        "full",
        ("DELETE", "/files/{path}"),
        "delete_file",
        "files delete",
        hand={"cli": _RENDERED},
        slashes=("path",),
        limits={"path": "file_path_chars"},
        about="Delete an appendix file no observation references.",
    ),
    _op(
        "consolidate",
        "read_write",
        ("POST", "/consolidate"),
        "consolidate",
        "consolidate run",
        hand={"cli": _RENDERED},
        about="Look for entities recorded under variant names and propose merges; nothing "
        "is merged until a proposal is accepted.",
    ),
    _op(
        "list_proposals",
        "read",
        ("GET", "/proposals"),
        "list_proposals",
        "consolidate list",
        hand=_ALL_HAND,
    ),
    _op(
        "accept_proposal",
        "full",
        ("POST", "/proposals/{proposal_id}/accept"),
        "accept_proposal",
        "consolidate accept",
        hand={"cli": _RENDERED},
        about="Accept a merge proposal: everything moves to the canonical entity.",
    ),
    _op(
        "reject_proposal",
        "read_write",
        ("POST", "/proposals/{proposal_id}/reject"),
        "reject_proposal",
        "consolidate reject",
        hand={"cli": _RENDERED},
        about="Reject a merge proposal for good.",
    ),
)

# Public attributes of Memory that are not operations on a memory's contents.
NOT_OPERATIONS: Mapping[str, str] = MappingProxyType(
    {
        "embedder": _LISTS_IN_PROCESS,
        "lexical_only": _LISTS_IN_PROCESS,
        "retrieval": _LISTS_IN_PROCESS,
    }
)

BY_NAME: Mapping[str, Operation] = MappingProxyType({op.name: op for op in OPERATIONS})


def operations() -> tuple[Operation, ...]:
    """The table as it stands (a test or a plug-in may extend ``OPERATIONS``)."""
    return OPERATIONS


_index: tuple[tuple[Operation, ...], dict[str, Operation]] = (OPERATIONS, dict(BY_NAME))


def find(name: str) -> Operation | None:
    """The row of operation ``name``, or None (indexed once per version of the table)."""
    global _index
    table, index = _index
    if table is not OPERATIONS:
        table = OPERATIONS
        index = {op.name: op for op in table}
        _index = (table, index)
    return index.get(name)


def tier_of(name: str) -> Tier:
    """The tier operation ``name`` needs (KeyError for a name not in the table)."""
    found = find(name)
    if found is None:
        raise KeyError(name)
    return found.tier


def mcp_tier(tool: str) -> Tier:
    """The tier the MCP tool ``tool`` needs (KeyError for a tool not in the table)."""
    for op in OPERATIONS:
        if op.mcp == tool:
            return op.tier
    raise KeyError(tool)


# -- the core signature, as the faces made from the table read it --------------------------

PATH_PARAM = re.compile(r"{(\w+)}")
HEADER = "idempotency_key"  # sent as the Idempotency-Key header, never in a body


@dataclass(frozen=True, slots=True)
class Param:
    """One argument of an operation: its type and default from the core method, where it
    travels over HTTP (``path``, ``query``, ``body`` or ``header``) and its size limit."""

    name: str
    annotation: Any
    default: Any  # inspect.Parameter.empty when required
    where: str
    limit: int | None
    wire: str  # its name in the query string or the body

    @property
    def required(self) -> bool:
        return self.default is inspect.Parameter.empty


def core_method(op: Operation) -> Callable[..., Any]:
    """The ``Memory`` method that runs ``op``."""
    from turngraph.core.memory import Memory

    method: Callable[..., Any] = getattr(Memory, op.name)
    return method


def _hints(op: Operation) -> dict[str, Any]:
    return typing.get_type_hints(core_method(op), include_extras=True)


def params_of(op: Operation, limits: Limits | None = None) -> list[Param]:
    """The arguments of ``op``'s core method, in order (``self`` left out): types from its
    annotations, limits from ``Limits`` as the row's ``limits`` names them."""
    limits = limits or Limits()
    hints = _hints(op)
    in_path = set(PATH_PARAM.findall(op.http[1])) if op.http else set()
    method = op.http[0] if op.http else "POST"
    out = []
    for p in list(inspect.signature(core_method(op)).parameters.values())[1:]:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            raise TypeError(f"operation {op.name!r}: *args and **kwargs cannot be made faces")
        if p.name in in_path:
            where = "path"
        elif p.name == HEADER:
            where = "header"
        else:
            where = "query" if method in ("GET", "DELETE") else "body"
        limit_name = op.limits.get(p.name)
        limit = getattr(limits, limit_name) if limit_name else None
        wire = op.wire.get(p.name, p.name)
        out.append(Param(p.name, hints.get(p.name, Any), p.default, where, limit, wire))
    return out


def result_of(op: Operation) -> Any:
    """The type ``op``'s core method returns."""
    return _hints(op).get("return", Any)


def summary_of(op: Operation) -> str:
    """The first paragraph of the core method's docstring (what a tool or command says it
    does), or the operation's name; the row's ``about`` when it has one."""
    if op.about:
        return op.about
    doc = inspect.getdoc(core_method(op)) or op.name.replace("_", " ")
    return " ".join(doc.split("\n\n")[0].split())


__all__ = [
    "BY_NAME",
    "FACES",
    "HEADER",
    "NOT_OPERATIONS",
    "OPERATIONS",
    "Operation",
    "Param",
    "core_method",
    "find",
    "mcp_tier",
    "operations",
    "params_of",
    "result_of",
    "summary_of",
    "tier_of",
]
