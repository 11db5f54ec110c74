"""The table of operations: every public operation of :class:`~turngraph.Memory`, once, with
what each face needs to reach it.

For each operation: the core method, the tier a caller needs, the graph API's HTTP method and
path (under ``/v1/memories/{memory}``), the MCP tool that carries it, and the CLI command
(``command`` or ``command action``). A face that deliberately leaves an operation out says
why in ``omitted``. The graph API's routes and the MCP server take their tiers from here;
the parity test (``tests/http/test_parity.py``) checks that every public method of
``Memory`` is in the table and that every face reaches every operation it does not list as
left out. The memory API (``/api/v1``) is not in the table: it adapts another system's
contract by hand.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from turngraph.access import Tier

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


def _op(
    name: str,
    tier: Tier,
    route: tuple[str, str] | None,
    tool: str | None = None,
    command: str | None = None,
    **omitted: str,
) -> Operation:
    return Operation(name, tier, route, tool, command, MappingProxyType(dict(omitted)))


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
    ),
    _op("recall", "read", ("POST", "/recall"), "recall", "recall"),
    _op(
        "context",
        "read",
        ("POST", "/context"),
        "context",
        None,
        cli="recall --json gives the same passages; prompt text is for agents",
    ),
    _op("add_observation", "read_write", ("POST", "/observations"), "add_observation", "add"),
    _op(
        "update_observation",
        "full",
        ("PATCH", "/observations/{slug}"),
        "update_observation",
        None,
        cli="edit an observation with the graph API or MCP; the CLI adds and deletes",
    ),
    _op(
        "delete_observation",
        "full",
        ("DELETE", "/observations/{slug}"),
        "delete_observation",
        "delete",
    ),
    _op("get_observation", "read", ("GET", "/observations/{slug}"), "get_observation", "show"),
    _op("resolve_slug", "read", None, None, "show", http=_SLUGS, client=_SLUGS, mcp=_SLUGS),
    _op("get_entity", "read", ("GET", "/entities/{name}"), "get_entity", "entities"),
    _op("list_entities", "read", ("GET", "/entities"), "list_entities", "entities"),
    _op("delete_entity", "full", ("DELETE", "/entities/{name}"), "delete_entity", "forget"),
    _op("entity_state", "read", ("GET", "/state/entity"), "entity_state", "state"),
    _op("entity_states", "read", ("GET", "/state/entities"), "entity_states", "state"),
    _op("entity_history", "read", ("GET", "/history"), "entity_history", "history"),
    _op("state", "read", ("GET", "/state"), "state", "state"),
    _op("forget", "full", ("POST", "/forget"), "forget", "forget"),
    _op("remember", "read_write", ("POST", "/turns"), "remember", "remember"),
    _op(
        "remember_many",
        "read_write",
        ("POST", "/turns/batch"),
        "remember_many",
        None,
        cli="`remember` reads many turns from stdin or a file, one remember per line, so a "
        "bad line is named by its number and the lines before it are kept",
    ),
    _op("create_session", "read_write", ("POST", "/sessions"), "create_session", "sessions create"),
    _op("list_sessions", "read", ("GET", "/sessions"), "list_sessions", "sessions list"),
    _op(
        "get_turn",
        "read",
        ("GET", "/turns/{turn_id}"),
        "get_turn",
        None,
        cli="`turns SESSION --json` and `state` show what turns taught; one turn by id is "
        "the inspector's read",
    ),
    _op(
        "list_turn_details",
        "read",
        ("GET", "/sessions/{session_id}/turn-details"),
        None,
        None,
        mcp=_PAGES,
        cli=_PAGES,
    ),
    _op("neighborhood", "read", ("GET", "/graph"), None, None, mcp=_PAGES, cli=_PAGES),
    _op(
        "preview_delete_observation",
        "full",
        ("DELETE", "/observations/{slug}"),
        None,
        None,
        mcp=_PAGES,
        cli=_PAGES,
    ),
    _op("get_session", "read", ("GET", "/sessions/{session_id}"), "get_session", "sessions show"),
    _op(
        "delete_session",
        "full",
        ("DELETE", "/sessions/{session_id}"),
        "delete_session",
        "sessions delete",
    ),
    _op("list_turns", "read", ("GET", "/sessions/{session_id}/turns"), "list_turns", "turns"),
    _op("put_file", "read_write", ("PUT", "/files/{path}"), "store_file", "files put"),
    _op("get_file", "read", ("GET", "/files/{path}"), "read_file", "files get"),
    _op("list_files", "read", ("GET", "/files"), "list_files", "files list"),
    _op("delete_file", "full", ("DELETE", "/files/{path}"), "delete_file", "files delete"),
    _op("consolidate", "read_write", ("POST", "/consolidate"), "consolidate", "consolidate run"),
    _op("list_proposals", "read", ("GET", "/proposals"), "list_proposals", "consolidate list"),
    _op(
        "accept_proposal",
        "full",
        ("POST", "/proposals/{proposal_id}/accept"),
        "accept_proposal",
        "consolidate accept",
    ),
    _op(
        "reject_proposal",
        "read_write",
        ("POST", "/proposals/{proposal_id}/reject"),
        "reject_proposal",
        "consolidate reject",
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
MCP_TIERS: Mapping[str, Tier] = MappingProxyType(
    {op.mcp: op.tier for op in OPERATIONS if op.mcp is not None}
)


def tier_of(name: str) -> Tier:
    """The tier operation ``name`` needs (KeyError for a name not in the table)."""
    return BY_NAME[name].tier


__all__ = ["BY_NAME", "FACES", "MCP_TIERS", "NOT_OPERATIONS", "OPERATIONS", "Operation", "tier_of"]
