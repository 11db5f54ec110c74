"""The ``turngraph`` command: parse, call the core, render. No memory rule lives here.

Errors print as one line on stderr and exit with status 1 (2 for usage errors).
"""

from __future__ import annotations

import argparse
import errno
import json
import logging
import os
import socket
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

import turngraph
from turngraph.errors import ConflictError, NotFoundError, TurngraphError, ValidationError
from turngraph.memory import Memory
from turngraph.models import Entity, Observation, WriteResult

Handler = Callable[[argparse.Namespace], Any]


def _json_arg(text: str, *, what: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValidationError(
            f"{what} is not valid JSON: {exc.msg} at position {exc.pos}", field=what
        ) from None


def _read_text(value: str) -> str:
    if value == "-":
        return sys.stdin.read()
    path = Path(value)
    try:
        return path.read_text("utf-8")
    except OSError as exc:
        raise ValidationError(f"cannot read {value}: {exc.strerror}", field="file") from None


def _db(args: argparse.Namespace, *, read_only: bool = False) -> turngraph.Database:
    """The database of ``--db``. A command that only reads never creates the file."""
    if read_only:
        text = str(args.db)
        path = Path(text.removeprefix("sqlite:///"))
        if "://" not in text.removeprefix("sqlite:///") and not path.exists():
            raise NotFoundError(
                f"no database at {path}: nothing to read yet (create a memory first: "
                "turngraph memories create NAME)",
                field="db",
            )
    return turngraph.open(args.db)


def _memory(args: argparse.Namespace, *, read_only: bool = False) -> Memory:
    return _db(args, read_only=read_only).memory(args.memory)


# -- rendering ---------------------------------------------------------------------------------


def _render_observation(o: Observation) -> str:
    lines = [
        f"{o.slug}  {o.title}",
        f"  category: {o.category}   observed: {o.observed_at.isoformat()}",
    ]
    if o.tags:
        lines.append(f"  tags: {', '.join(o.tags)}")
    if o.source:
        lines.append(f"  source: {o.source}")
    if o.entities:
        lines.append(f"  entities: {', '.join(o.entities)}")
    for r in o.relationships:
        lines.append(f"  {r.source} -[{r.type}]-> {r.target}")
    if o.files:
        lines.append(f"  files: {', '.join(o.files)}")
    lines += ["", o.content]
    return "\n".join(lines)


def _render_entity(e: Entity) -> str:
    lines = [f"{e.name} ({e.type}, degree {e.degree})", f"  {e.description}"]
    if e.aliases:
        lines.append(f"  also known as: {', '.join(e.aliases)}")
    for q in e.retrieval_queries:
        lines.append(f"  answers: {q}")
    for r in e.relationships:
        desc = f"  ({r.description})" if r.description else ""
        lines.append(f"  {r.source} -[{r.type}]-> {r.target}{desc}")
    if e.relationships_truncated:
        lines.append("  ... more relationships not shown")
    lines.append(f"  observations: {', '.join(e.observations)}")
    return "\n".join(lines)


def _render_write(res: WriteResult) -> str:
    verb = "replayed" if res.replayed else "wrote"
    lines = [f"{verb} {res.observation.slug}"]
    for e in res.entities:
        lines.append(f"  {'new ' if e.is_new else ''}{e.name} ({e.type}, degree {e.degree})")
        for r in e.relationships:
            lines.append(f"    {r.source} -[{r.type}]-> {r.target}")
    lines += [f"  warning: {w}" for w in res.warnings]
    lines += [f"  review: {h.message}" for h in res.hints]
    return "\n".join(lines)


def _emit(args: argparse.Namespace, value: Any, text: Callable[[Any], str]) -> None:
    if args.json:
        if isinstance(value, BaseModel):
            print(value.model_dump_json(indent=2))
        else:
            print(json.dumps([v.model_dump(mode="json") for v in value], indent=2))
    else:
        print(text(value))


def _say(args: argparse.Namespace, value: Any, text: str) -> None:
    print(json.dumps(value, indent=2) if args.json else text)


# -- commands ----------------------------------------------------------------------------------


def cmd_memories(args: argparse.Namespace) -> None:
    db = _db(args, read_only=args.action in (None, "list"))
    if args.action == "create":
        try:
            info = db.create_memory(args.name, visibility=args.visibility).info()
        except ConflictError:
            if not args.exist_ok:
                raise
            info = db.memory(args.name).info()
            _emit(args, info, lambda i: f"memory {i.name} exists ({i.visibility})")
            return
        _emit(args, info, lambda i: f"created memory {i.name} ({i.visibility})")
    elif args.action == "delete":
        db.delete_memory(args.name)
        print(json.dumps({"deleted": args.name}) if args.json else f"deleted memory {args.name}")
    else:
        memories = db.list_memories()
        _emit(
            args,
            memories,
            lambda ms: (
                "\n".join(
                    f"{m.name:20} {m.visibility:12} {m.observations:6} observations "
                    f"{m.entities:6} entities {m.relationships:6} relationships"
                    for m in ms
                )
                or "no memories yet: turngraph memories create NAME"
            ),
        )


def cmd_add(args: argparse.Namespace) -> None:
    body: dict[str, Any] = {}
    if args.from_json:
        loaded = _json_arg(_read_text(args.from_json), what="--from-json")
        if not isinstance(loaded, dict):
            raise ValidationError("--from-json must hold a JSON object", field="--from-json")
        body.update(loaded)
    for key in ("title", "category", "source", "observed_at", "confidence", "idempotency_key"):
        if getattr(args, key) is not None:
            body[key] = getattr(args, key)
    if args.content is not None:
        body["content"] = args.content
    if args.content_file is not None:
        body["content"] = _read_text(args.content_file)
    if args.tag:
        body["tags"] = args.tag
    if args.entity:
        body["entities"] = [_json_arg(e, what="--entity") for e in args.entity]
    if args.relationship:
        body["relationships"] = [_json_arg(r, what="--relationship") for r in args.relationship]
    if args.file:
        body["files"] = args.file
    for required in ("title", "content"):
        if required not in body:
            raise ValidationError(f"--{required} is required", field=required)
    res = _memory(args).add_observation(**body)
    _emit(args, res, _render_write)


def cmd_show(args: argparse.Namespace) -> None:
    mem = _memory(args, read_only=True)
    _emit(args, mem.get_observation(mem.resolve_slug(args.slug)), _render_observation)


def cmd_entities(args: argparse.Namespace) -> None:
    mem = _memory(args, read_only=True)
    if args.name:
        if args.type is not None or args.limit is not None:
            raise ValidationError(
                "--type and --limit narrow the list of entities; leave them out to show "
                f"{args.name!r}",
                field="type" if args.type is not None else "limit",
            )
        _emit(args, mem.get_entity(args.name), _render_entity)
        return
    rows = mem.list_entities(args.type, limit=100 if args.limit is None else args.limit)
    _emit(
        args,
        rows,
        lambda es: (
            "\n".join(f"{e.name} ({e.type}, degree {e.degree}): {e.description}" for e in es)
            or "no entities"
        ),
    )


def cmd_delete(args: argparse.Namespace) -> None:
    mem = _memory(args)
    res = mem.delete_observation(mem.resolve_slug(args.slug))

    def text(r: Any) -> str:
        lines = [f"deleted {r.observation.slug}"]
        lines += [f"  pruned entity {name}" for name in r.pruned_entities]
        lines += [f"  pruned {p.source} -[{p.type}]-> {p.target}" for p in r.pruned_relationships]
        return "\n".join(lines)

    _emit(args, res, text)


def cmd_files(args: argparse.Namespace) -> None:
    mem = _memory(args, read_only=args.action in (None, "list", "get"))
    if args.action == "put":
        data = Path(args.local).read_bytes() if args.local != "-" else sys.stdin.buffer.read()
        f = mem.put_file(
            args.path,
            data,
            description=args.description,
            created_by=args.created_by or os.environ.get("USER"),
            content_type=args.content_type,
            overwrite=args.overwrite,
        )
        _emit(args, f, lambda f: f"stored {f.path} ({f.size} bytes, {f.content_type})")
    elif args.action == "get":
        content = mem.get_file(args.path)
        if args.local and args.local != "-":
            Path(args.local).write_bytes(content.data)
        else:
            sys.stdout.buffer.write(content.data)
    elif args.action == "delete":
        f = mem.delete_file(args.path)
        _emit(args, f, lambda f: f"deleted {f.path}")
    else:
        files = mem.list_files(args.path)
        _emit(
            args,
            files,
            lambda fs: (
                "\n".join(
                    f"{f.path:40} {f.size:10} {f.content_type:28} {f.created_by:12} {f.description}"
                    for f in fs
                )
                or "no files"
            ),
        )


def cmd_consolidate(args: argparse.Namespace) -> None:
    mem = _memory(args, read_only=args.action == "list")

    def text(ps: Any) -> str:
        return (
            "\n".join(
                f"#{p.id} [{p.status}] merge {p.duplicate!r} into {p.canonical!r} "
                f"({p.type}, score {p.score}): {'; '.join(p.reasons)}"
                for p in ps
            )
            or "no proposals"
        )

    if args.action == "accept":
        res = mem.accept_proposal(args.id)
        _emit(
            args,
            res,
            lambda r: (
                f"merged {r.proposal.duplicate!r} into {r.entity.name!r}: "
                f"{r.relinked_observations} observation link(s) moved, "
                f"{len(r.dropped_self_loops)} self-loop(s) dropped, "
                f"{len(r.merged_relationships)} duplicate edge(s) merged"
            ),
        )
    elif args.action == "reject":
        p = mem.reject_proposal(args.id)
        _emit(args, p, lambda p: f"rejected #{p.id}; this pair will not be proposed again")
    elif args.action == "list":
        _emit(args, mem.list_proposals(None if args.status == "all" else args.status), text)
    else:
        _emit(args, mem.consolidate(), text)


def cmd_bench(args: argparse.Namespace) -> None:
    from turngraph.bench import locomo

    try:
        ks = sorted({int(k) for k in args.k.split(",") if k.strip()})
    except ValueError:
        raise ValidationError(
            f"--k takes numbers like 1,5,10,20, not {args.k!r}", field="k"
        ) from None
    if not ks or ks[0] < 1 or ks[-1] > 50:
        raise ValidationError("--k values must be between 1 and 50", field="k")
    paths: list[Path] = []
    for name in args.files:
        path = Path(name)
        paths += sorted(path.glob("*.json")) if path.is_dir() else [path]
    missing = [str(p) for p in paths if not p.is_file()]
    if missing or not paths:
        raise ValidationError(
            f"no such LoCoMo file: {', '.join(missing) or args.files}", field="files"
        )
    try:
        report = locomo.run(paths, ks, log=lambda line: print(line, file=sys.stderr))
    except ImportError as exc:
        raise ValidationError(
            f"the LoCoMo benchmark needs {exc.name} for its baseline: pip install -e '.[dev]'",
            field="bench",
        ) from None
    print(locomo.render(report, ks))
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(report, indent=2) + "\n", "utf-8")


def _locomo_paths(names: Sequence[str]) -> list[Path]:
    paths: list[Path] = []
    for name in names:
        path = Path(name)
        paths += sorted(path.glob("*.json")) if path.is_dir() else [path]
    missing = [str(p) for p in paths if not p.is_file()]
    if missing or not paths:
        raise ValidationError(f"no such LoCoMo file: {', '.join(missing) or names}", field="files")
    return paths


def cmd_bench_extraction(args: argparse.Namespace) -> None:
    from turngraph.bench import extraction
    from turngraph.extract import extractor_from_settings
    from turngraph.server.settings import ServerSettings

    # TURNGRAPH_EXTRACTOR=llm (with TURNGRAPH_LLM_*) measures the language-model extractor.
    extractor = extractor_from_settings(ServerSettings.load().core())
    labels = None
    if args.labels:
        try:
            labels = json.loads(Path(args.labels).read_text("utf-8"))
        except (OSError, ValueError) as exc:
            raise ValidationError(f"cannot read --labels: {exc}", field="labels") from None
    report: dict[str, Any] = {}
    if args.files:
        report = extraction.run_locomo(
            _locomo_paths(args.files),
            extractor=extractor,
            labels=labels,
            max_turns=args.max_turns,
            log=lambda line: print(line, file=sys.stderr),
        )
    if args.suite:
        report["suite"] = extraction.run_suite(extractor, Path(args.suite))
    if not report:
        raise ValidationError("give LoCoMo files, --suite, or both", field="files")
    print(extraction.render(report))
    if args.dump:
        extraction.dump_items(report, Path(args.dump))
    if args.json_out:
        out = extraction.public(report)
        Path(args.json_out).write_text(json.dumps(out, indent=2, default=str) + "\n", "utf-8")


def cmd_demo(args: argparse.Namespace) -> None:
    from turngraph.demo import run_demo

    run_demo(args.db, memory=args.memory)


def cmd_serve(args: argparse.Namespace) -> None:
    import uvicorn

    from turngraph.server import ServerSettings, create_app
    from turngraph.server.bootstrap import banner, first_start

    logging.getLogger("mcp").setLevel(logging.WARNING)  # the SDK's per-session notices
    settings = ServerSettings.load(host=args.host, port=args.port, db=args.db)
    sock = _listen(settings.host, settings.port)  # before anything is printed or created
    with sock, turngraph.open(settings.db, settings=settings.core()) as db:
        key = first_start(db, settings)
        if key is not None:
            print(banner(key, settings), flush=True)
        app = create_app(settings, db=db)
        print(f"turngraph: serving {settings.db} on http://{settings.host}:{settings.port}")
        config = uvicorn.Config(app, host=settings.host, port=settings.port, log_level="warning")
        uvicorn.Server(config).run(sockets=[sock])


def _listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port``; a clear error when another process holds it."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except socket.gaierror as exc:
        raise ValidationError(f"cannot listen on {host!r}: {exc.strerror}", field="host") from None
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise ValidationError(
                f"address already in use: {host}:{port} (another server is listening there; "
                "stop it or choose another --port)",
                field="port",
            ) from None
        raise ValidationError(
            f"cannot listen on {host}:{port}: {exc.strerror}", field="port"
        ) from None
    return sock


def cmd_mcp(args: argparse.Namespace) -> None:
    from turngraph.mcp_server import build_server, refuse_stdio

    logging.getLogger("mcp").setLevel(logging.WARNING)
    try:
        memory = _db(args).memory(args.memory, create=args.create)
    except TurngraphError as exc:
        if isinstance(exc, NotFoundError) and "memory" in exc.fields:
            exc.message += " (add --create to create it)"
        if not sys.stdin.isatty():  # an MCP client: it shows a JSON-RPC error, not stderr
            refuse_stdio(f"turngraph mcp could not start: {exc}", sys.stdin, sys.stdout)
        raise
    build_server(memory, args.tier).run("stdio")


def cmd_keys(args: argparse.Namespace) -> None:
    db = _db(args, read_only=args.action in (None, "list"))
    access = db.access
    if args.action == "create":
        if db.store.get_principal(args.principal) is None:
            access.create_principal(
                args.principal, organization=args.org, kind=args.kind, admin=args.admin
            )
        row, key = access.create_key(args.principal, name=args.name)
        _say(args, {"id": row.id, "principal": row.principal_id, "key": key}, key)
    elif args.action == "revoke":
        row = access.revoke_key(_key_id(access.list_keys(), args.key_id))
        _say(args, {"id": row.id, "revoked": True}, f"revoked {row.id}")
    else:
        rows = access.list_keys(args.principal)
        out = [
            {
                "id": k.id,
                "principal": k.principal_id,
                "name": k.name,
                "created_at": k.created_at.isoformat(),
                "revoked": k.revoked_at is not None,
            }
            for k in rows
        ]
        if not out:
            _say(args, out, "no keys: turngraph keys create PRINCIPAL")
            return
        table = [["ID", "PRINCIPAL", "NAME", "CREATED", "STATUS"]] + [
            [
                k.id,
                k.principal_id,
                k.name,
                k.created_at.isoformat(timespec="seconds"),
                "revoked" if k.revoked_at is not None else "active",
            ]
            for k in rows
        ]
        widths = [max(len(r[i]) for r in table) for i in range(4)]
        lines = ["  ".join(c.ljust(w) for c, w in zip(r, [*widths, 0], strict=True)) for r in table]
        _say(args, out, "\n".join(line.rstrip() for line in lines))


def _key_id(rows: Sequence[Any], given: str) -> str:
    """A key id from the id or a prefix only it starts with."""
    ids: list[str] = [str(k.id) for k in rows]
    if given in ids:
        return given
    found = [i for i in ids if i.startswith(given)]
    if len(found) == 1:
        return found[0]
    if not found:
        raise NotFoundError(f"no key {given!r}", key=given)
    raise ValidationError(
        f"{given!r} starts several key ids ({', '.join(found[:5])}); give more of it",
        field="key_id",
    )


def cmd_grant(args: argparse.Namespace) -> None:
    db = _db(args)
    memory = db.memory(args.memory_name)
    row = db.store.get_memory(memory.name)
    assert row is not None
    if args.revoke:
        db.access.revoke_grant(args.principal, row)
        _say(
            args,
            {"principal": args.principal, "memory": memory.name, "tier": None},
            f"{args.principal} no longer connected to {memory.name}",
        )
        return
    tier = db.access.grant(args.principal, row, args.tier)
    _say(
        args,
        {"principal": args.principal, "memory": memory.name, "tier": tier},
        f"{args.principal} -> {memory.name}: {tier}",
    )


# -- parser ------------------------------------------------------------------------------------

COMMON_HELP = {
    "db": "database path or sqlite:///PATH (default ./turngraph.db, or TURNGRAPH_DB)",
    "memory": "memory name (default 'default', or TURNGRAPH_MEMORY)",
    "json": "print JSON for scripts",
}


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


def _common(flags: str) -> argparse.ArgumentParser:
    """The global flags a command uses (``flags``: some of "db memory json"), accepted after
    it too; they leave a value given before the command alone."""
    common = argparse.ArgumentParser(add_help=False)
    for flag in flags.split():
        kind: dict[str, Any] = {"action": "store_true"} if flag == "json" else {}
        common.add_argument(f"--{flag}", default=argparse.SUPPRESS, help=COMMON_HELP[flag], **kind)
    return common


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
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
        cmd_memories,
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
        cmd_add,
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

    p = add("show", cmd_show, "show an observation in full", "turngraph show --memory acme kick")
    p.add_argument("slug", help="the observation's slug, or a prefix only it starts with")

    p = add(
        "entities",
        cmd_entities,
        "list entities, or show one",
        "turngraph entities --memory acme --type person\nturngraph entities --memory acme Alice",
    )
    p.add_argument("name", nargs="?", help="show this entity (any of its names)")
    p.add_argument("--type", help="list only entities of this type, e.g. person")
    p.add_argument("--limit", type=int, help="list at most this many (default 100)")

    p = add(
        "delete",
        cmd_delete,
        "delete an observation and prune what only it backed",
        "turngraph delete --memory acme kickoff",
    )
    p.add_argument("slug", help="the observation's slug, or a prefix only it starts with")

    p = add(
        "files",
        cmd_files,
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
        cmd_consolidate,
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
        cmd_demo,
        "write a few observations, show the graph, delete one",
        "turngraph demo --db /tmp/demo.db",
        "db memory",
    )

    p = add(
        "serve",
        cmd_serve,
        "run the HTTP server (memory API, graph API, admin)",
        "turngraph serve --db ./turngraph.db --port 8765",
        "db",
    )
    p.add_argument("--host", default=None, help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=None, help="port (default 8765, TURNGRAPH_PORT)")

    p = add(
        "mcp",
        cmd_mcp,
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
        cmd_keys,
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
        cmd_grant,
        "connect a principal to a memory at a tier",
        "turngraph grant support-bot default --tier read",
        "db json",
    )
    p.add_argument("principal", help="the principal to connect, e.g. support-bot")
    p.add_argument("memory_name", metavar="MEMORY", help="the memory to connect it to")
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
    b.set_defaults(handler=cmd_bench)
    b = bench.add_parser(
        "extraction",
        help="extraction quality: LoCoMo gold-fact coverage, precision labels, labelled suite",
        description="extraction quality: LoCoMo gold-fact coverage, precision labels, "
        "labelled suite",
        epilog="example:\n  turngraph bench extraction --suite tests/data/extraction_suite.txt",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    b.add_argument("files", nargs="*", help="LoCoMo conversation JSON files or folders")
    b.add_argument("--labels", metavar="FILE", help="precision labels (JSON) to score against")
    b.add_argument("--suite", metavar="FILE", help="the labelled suite to run as well")
    b.add_argument("--max-turns", type=int, help="only the first N turns of each conversation")
    b.add_argument("--dump", metavar="OUT", help="write each turn's items as JSON lines")
    b.add_argument("--json", dest="json_out", metavar="OUT", help="write the report as JSON")
    b.set_defaults(handler=cmd_bench_extraction)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        args.handler(args)
    except TurngraphError as exc:
        print(f"turngraph: error: {exc}", file=sys.stderr)
        return 1
    except (OSError, ValueError) as exc:
        print(f"turngraph: error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
