"""The ``turngraph`` command line as argparse sees it: commands, flags, help and examples.

--db, --memory and --json are global (accepted before the command) and also accepted after
the commands that use them; a command takes no flag it would ignore.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Mapping
from typing import Any, NoReturn

import turngraph
from turngraph.cli import made as cli_made
from turngraph.cli import memory as cli_memory

Handler = Callable[[argparse.Namespace], Any]

COMMON_HELP = {
    "db": "a file path, sqlite:///PATH or postgresql://USER:PASS@HOST/DB "
    "(default ./turngraph.db, or TURNGRAPH_DB)",
    "memory": "memory name (default 'default', or TURNGRAPH_MEMORY)",
    "json": "print JSON for scripts",
}


class Parser(argparse.ArgumentParser):
    """A usage error is one line on stderr (what is wrong, and where the help is) and exit
    status 2; argparse's own prints the whole usage first."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _global_flags(parser: argparse.ArgumentParser) -> None:
    """--db, --memory and --json before the command, with their defaults."""
    parser.add_argument(
        "--db", default=os.environ.get("TURNGRAPH_DB", "./turngraph.db"), help=COMMON_HELP["db"]
    )
    parser.add_argument(
        "--memory",
        default=os.environ.get("TURNGRAPH_MEMORY", "default"),
        help=COMMON_HELP["memory"],
    )
    parser.add_argument("--json", action="store_true", help=COMMON_HELP["json"])


def _common(flags: str) -> Parser:
    """The global flags a command uses (``flags``: some of "db memory json"), accepted after
    it too; they leave a value given before the command alone."""
    common = Parser(add_help=False)
    for flag in flags.split():
        kind: dict[str, Any] = {"action": "store_true"} if flag == "json" else {}
        common.add_argument(f"--{flag}", default=argparse.SUPPRESS, help=COMMON_HELP[flag], **kind)
    return common


def build_parser(handlers: Mapping[str, Handler]) -> argparse.ArgumentParser:
    """The ``turngraph`` command line; ``handlers`` run the commands, by name."""
    parser = Parser(
        prog="turngraph",
        description="Memory for agents.",
        epilog="example:\n  turngraph --memory acme entities\n  turngraph serve --port 8765",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=turngraph.__version__)
    _global_flags(parser)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(
        name: str, handler: Handler, help: str, example: str, flags: str = "db memory json"
    ) -> argparse.ArgumentParser:
        p = sub.add_parser(
            name,
            parents=[_common(flags)],
            help=help,
            description=help,
            epilog="example:\n  " + example.replace("\n", "\n  "),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        p.set_defaults(handler=handler, action=None, flags=flags)
        return p

    def actions(
        p: argparse.ArgumentParser, flags: str
    ) -> Callable[[str, str, str], argparse.ArgumentParser]:
        inner = p.add_subparsers(dest="action", metavar="ACTION")

        def action(name: str, help: str, example: str) -> argparse.ArgumentParser:
            return inner.add_parser(
                name,
                parents=[_common(flags)],
                help=help,
                description=help,
                epilog="example:\n  " + example,
                formatter_class=argparse.RawDescriptionHelpFormatter,
            )

        return action

    p = add(
        "memories",
        handlers["memories"],
        "list, create or delete memories",
        "turngraph memories create acme --exist-ok",
        "db json",
    )
    action = actions(p, "db json")
    action("list", "list memories", "turngraph memories list")
    a = action("create", "create a memory", "turngraph memories create acme --exist-ok")
    a.add_argument("name", help="the new memory's name, e.g. acme")
    a.add_argument(
        "--visibility",
        default="private",
        choices=["private", "organization"],
        help="who may read it: its connections only (private, default) or its organization",
    )
    a.add_argument(
        "--exist-ok",
        action="store_true",
        help="succeed when the memory already exists (for setup scripts that run again)",
    )
    action(
        "delete", "delete a memory and everything in it", "turngraph memories delete acme"
    ).add_argument("name", help="the memory to delete")

    p = add(
        "add",
        handlers["add"],
        "add an observation",
        'turngraph add --memory acme --title Kickoff --content "Alice ran it." \\\n'
        '    --entity \'{"name": "Alice", "type": "person", "description": "Head of Platform"}\'',
    )
    p.add_argument("--title", help="the observation's title (its slug is made from it)")
    p.add_argument("--content", help="the observation's text")
    p.add_argument("--content-file", help="read content from a file ('-' for stdin)")
    p.add_argument("--category", help="a category, e.g. meeting (default: note)")
    p.add_argument("--tag", action="append", help="a tag; repeat for several")
    p.add_argument("--source", help="where it came from, e.g. a URL")
    p.add_argument(
        "--observed-at", dest="observed_at", help="when it was observed (ISO 8601; default now)"
    )
    p.add_argument("--confidence", type=float, help="how sure, from 0 to 1")
    p.add_argument(
        "--entity", action="append", help='JSON: {"name": ..., "type": ..., "description": ...}'
    )
    p.add_argument(
        "--relationship", action="append", help='JSON: {"source": ..., "type": ..., "target": ...}'
    )
    p.add_argument("--file", action="append", help="appendix file path to reference")
    p.add_argument(
        "--idempotency-key", dest="idempotency_key", help="a retry with this key writes once"
    )
    p.add_argument("--from-json", help="read the whole request from a JSON file ('-': stdin)")

    p = add(
        "show", handlers["show"], "show an observation in full", "turngraph show --memory acme kick"
    )
    p.add_argument("slug", help="the observation's slug, or a prefix only it starts with")

    p = add(
        "entities",
        handlers["entities"],
        "list entities, or show one",
        "turngraph entities --memory acme --type person\nturngraph entities --memory acme Alice",
    )
    p.add_argument("name", nargs="?", help="show this entity (any of its names)")
    p.add_argument("--type", help="list only entities of this type, e.g. person")
    p.add_argument("--limit", type=int, help="list at most this many (default 100)")

    p = add(
        "delete",
        handlers["delete"],
        "delete an observation and prune what only it backed",
        "turngraph delete --memory acme kickoff",
    )
    p.add_argument("slug", help="the observation's slug, or a prefix only it starts with")

    p = add(
        "files",
        handlers["files"],
        "list, store, read or delete appendix files",
        'turngraph files put --memory acme notes/a.md ./a.md --description "Raw notes"',
    )
    p.set_defaults(path=None)
    action = actions(p, "db memory json")
    action(
        "list", "list files, optionally under a folder", "turngraph files list --memory acme notes"
    ).add_argument("path", nargs="?", help="a folder, e.g. notes")
    a = action(
        "put",
        "store a local file (or '-' for stdin) under PATH",
        'turngraph files put --memory acme notes/a.md ./a.md --description "Raw notes"',
    )
    a.add_argument("path", help="where to store it in the memory, e.g. notes/a.md")
    a.add_argument("local", help="the local file to read ('-' for stdin)")
    a.add_argument("--description", required=True, help="what the file is")
    a.add_argument("--created-by", dest="created_by", help="who made it (default $USER)")
    a.add_argument("--content-type", dest="content_type", help="MIME type (default: guessed)")
    a.add_argument("--overwrite", action="store_true", help="replace a file already there")
    a = action(
        "get", "write a file to LOCAL (default: stdout)", "turngraph files get notes/a.md ./a.md"
    )
    a.add_argument("path", help="the file's path in the memory")
    a.add_argument("local", nargs="?", help="where to write it (default: stdout)")
    action(
        "delete",
        "delete a file no observation references",
        "turngraph files delete --memory acme notes/a.md",
    ).add_argument("path", help="the file's path in the memory")

    p = add(
        "consolidate",
        handlers["consolidate"],
        "propose, list, accept or reject merges",
        "turngraph consolidate --memory acme\nturngraph consolidate accept 3 --memory acme",
    )
    action = actions(p, "db memory json")
    action(
        "run",
        "propose merges of entities recorded under variant names",
        "turngraph consolidate run --memory acme",
    )
    a = action("list", "list proposals", "turngraph consolidate list --status all")
    a.add_argument(
        "--status",
        default="open",
        choices=["open", "accepted", "rejected", "obsolete", "all"],
        help="which proposals (default open)",
    )
    action(
        "accept",
        "merge a proposal's duplicate into its canonical entity",
        "turngraph consolidate accept 3",
    ).add_argument("id", type=int, help="the proposal's number")
    action("reject", "reject a proposal for good", "turngraph consolidate reject 3").add_argument(
        "id", type=int, help="the proposal's number"
    )

    add(
        "demo",
        handlers["demo"],
        "write a few observations, show the graph, delete one",
        "turngraph demo --db /tmp/demo.db",
        "db memory",
    )

    p = add(
        "backup",
        handlers["backup"],
        "copy the database to PATH while it is in use (one consistent snapshot)",
        "turngraph backup --db ./turngraph.db /backups/turngraph-2026-12-03.db",
        "db",
    )
    p.add_argument("path", help="where to write the copy (must not exist)")
    p.add_argument("--overwrite", action="store_true", help="replace PATH if it exists")
    p = add(
        "copy",
        handlers["copy"],
        "copy whole memories between two databases (SQLite or PostgreSQL, either way)",
        "turngraph copy ./turngraph.db postgresql://turngraph:PW@db.internal/turngraph\n"
        "turngraph copy SRC DST --memory acme --memory notes",
        "json",
    )
    p.add_argument("src", help="the database to copy from (a path or a URL)")
    p.add_argument("dst", help="the database to copy into (created if needed)")
    p.add_argument(
        "--memory",
        dest="memories",
        action="append",
        metavar="NAME",
        help="copy only this memory (repeatable); without it every memory is copied, with "
        "principals, keys and grants",
    )
    p.add_argument("--organization", default="default", help="the memories' organization")
    add(
        "check",
        handlers["check"],
        "check the database's integrity and the graph's invariants",
        "turngraph check --db ./turngraph.db",
        "db",
    )

    p = add(
        "serve",
        handlers["serve"],
        "run the HTTP server (memory API, graph API, admin)",
        "turngraph serve --db ./turngraph.db --port 8765",
        "db",
    )
    p.add_argument("--host", default=None, help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=None, help="port (default 8765, TURNGRAPH_PORT)")

    p = add(
        "mcp",
        handlers["mcp"],
        "serve one memory as MCP tools over stdio",
        "turngraph mcp --db ./turngraph.db --memory default --create",
        "db memory",
    )
    p.add_argument(
        "--tier",
        default="read_write",
        choices=["read", "read_write", "full"],
        help="what the tools may do (default read_write: additive only)",
    )
    p.add_argument(
        "--create", action="store_true", help="create the memory if it does not exist yet"
    )

    p = add(
        "keys",
        handlers["keys"],
        "create, list or revoke API keys",
        "turngraph keys create support-bot --org acme",
        "db json",
    )
    action = actions(p, "db json")
    a = action(
        "create",
        "create a key for a principal (created if new); prints it once",
        "turngraph keys create support-bot --org acme",
    )
    a.add_argument("principal", help="who the key is for, e.g. support-bot")
    a.add_argument("--name", default="default", help="a label for the key (default 'default')")
    a.add_argument("--org", default="default", help="the new principal's organization")
    a.add_argument(
        "--kind",
        default="agent",
        choices=["agent", "human", "service"],
        help="what the new principal is (default agent)",
    )
    a.add_argument("--admin", action="store_true", help="the new principal is an admin")
    action(
        "list", "list keys (never the keys themselves)", "turngraph keys list --principal bot"
    ).add_argument("--principal", default=None, help="only this principal's keys")
    action("revoke", "revoke a key by its id", "turngraph keys revoke key_01j").add_argument(
        "key_id", help="the key's id (as keys list shows it), or a prefix only it starts with"
    )

    p = add(
        "grant",
        handlers["grant"],
        "connect a principal to a memory at a tier",
        "turngraph grant support-bot default --tier read",
        "db json",
    )
    p.add_argument("principal", help="the principal to connect, e.g. support-bot")
    p.add_argument("memory_name", metavar="MEMORY", help="the memory to connect it to")
    p.add_argument(
        "--org",
        default="default",
        help="the memory's organization (names are unique per organization; default: default)",
    )
    p.add_argument(
        "--tier",
        default="read_write",
        choices=["read", "read_write", "full"],
        help="read, read_write (default: additive writes) or full",
    )
    p.add_argument("--revoke", action="store_true", help="remove the connection instead")

    p = sub.add_parser(
        "bench",
        help="run a shipped benchmark",
        description="run a shipped benchmark",
        epilog="example:\n  turngraph bench locomo data/locomo10.json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    bench = p.add_subparsers(dest="benchmark", required=True, metavar="BENCHMARK")
    b = bench.add_parser(
        "locomo",
        help="evidence recall@k on LoCoMo conversation files",
        description="evidence recall@k on LoCoMo conversation files",
        epilog="example:\n  turngraph bench locomo data/locomo10.json --k 1,5,10",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    b.add_argument("files", nargs="+", help="LoCoMo conversation JSON files or folders")
    b.add_argument("--k", default="1,5,10,20", help="cut-offs, comma-separated")
    b.add_argument("--json", dest="json_out", metavar="OUT", help="write the report as JSON")
    b.add_argument(
        "--db",
        metavar="URL",
        help="run on this database (e.g. postgresql://...; it must not yet hold memories "
        "named after the files) instead of a temporary SQLite file",
    )
    b.set_defaults(handler=handlers["bench"])
    b = bench.add_parser(
        "extraction",
        help="extraction quality: LoCoMo gold-fact coverage, precision labels, labelled suite",
        description="extraction quality: LoCoMo gold-fact coverage, precision labels, "
        "labelled suite",
        epilog="example:\n  turngraph bench extraction --suite tests/data/extraction_suite.txt",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    b.add_argument("files", nargs="*", help="LoCoMo conversation JSON files or folders")
    b.add_argument(
        "--labels",
        metavar="FILE",
        action="append",
        help="precision labels (JSON) to score against; repeat to join several files",
    )
    b.add_argument(
        "--heldout",
        nargs="+",
        metavar="FILE",
        help="held-out LoCoMo files, scored beside the development ones (never tuned on)",
    )
    b.add_argument("--heldout-labels", metavar="FILE", help="precision labels of the held-out")
    b.add_argument(
        "--heldout-turns", type=int, help="only the first N turns of each held-out conversation"
    )
    b.add_argument("--suite", metavar="FILE", help="the labelled suite to run as well")
    b.add_argument("--max-turns", type=int, help="only the first N turns of each conversation")
    b.add_argument("--dump", metavar="OUT", help="write each turn's items as JSON lines")
    b.add_argument("--json", dest="json_out", metavar="OUT", help="write the report as JSON")
    b.set_defaults(handler=handlers["bench_extraction"])
    b = bench.add_parser(
        "currency",
        help="what is true now: recall on conversations in which facts change",
        description="what is true now: recall on conversations in which facts change "
        "(development and held-out conversations side by side)",
        epilog="example:\n  turngraph bench currency benchmarks/data/currency",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    b.add_argument("folder", help="the suite's folder (its splits.json names the files)")
    b.add_argument("--json", dest="json_out", metavar="OUT", help="write the report as JSON")
    b.add_argument("--misses", action="store_true", help="print every question that failed")
    b.set_defaults(handler=handlers["bench_currency"])
    cli_memory.add_parsers(add, actions, dict(handlers))
    cli_made.add_parsers(add, actions, handlers["made"])
    return parser
