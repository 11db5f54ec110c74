"""The ``turngraph`` command: parse, call the core, render. No memory rule lives here.

Errors print as one line on stderr and exit with status 1 (2 for usage errors).
"""

from __future__ import annotations

import argparse
import errno
import importlib.util
import json
import logging
import os
import signal
import socket
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

import turngraph
from turngraph.cli import made as cli_made
from turngraph.cli import memory as cli_memory
from turngraph.cli import parser as cli_parser
from turngraph.cli import progress
from turngraph.core.memory import Memory
from turngraph.errors import (
    ConflictError,
    NotFoundError,
    StoreError,
    TurngraphError,
    ValidationError,
)
from turngraph.models import Entity, Observation, WriteResult


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


DEFAULT_MEMORY = "default"  # the memory a write creates on first use


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
    db = turngraph.open(args.db)
    args.opened = [*getattr(args, "opened", []), db]  # closed by main() when the command ends
    return db


def _memory(args: argparse.Namespace, *, read_only: bool = False) -> Memory:
    """The memory of ``--memory``. A command that writes creates the memory named
    ``default`` on first use, as the server does; any other name must exist (a typo should
    not make a memory), and the error says how to create it."""
    db = _db(args, read_only=read_only)
    try:
        return db.memory(args.memory, create=not read_only and args.memory == DEFAULT_MEMORY)
    except NotFoundError:
        raise NotFoundError(
            f"no memory named {args.memory!r} (create it: turngraph memories create {args.memory})",
            memory=args.memory,
        ) from None


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
        report = locomo.run(paths, ks, log=progress.show, db_url=args.db)
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
    from turngraph.plugins import extractor_from_settings
    from turngraph.server.settings import ServerSettings

    # TURNGRAPH_EXTRACTOR=llm (with TURNGRAPH_LLM_*) measures the language-model extractor.
    extractor = extractor_from_settings(ServerSettings.load().core())
    labels = _labels_files(args.labels or [])
    report: dict[str, Any] = {}
    if args.files:
        report = extraction.run_locomo(
            _locomo_paths(args.files),
            extractor=extractor,
            labels=labels,
            max_turns=args.max_turns,
            log=progress.show,
        )
    if args.heldout:
        if not report:
            raise ValidationError("--heldout is scored beside development files", field="files")
        held_labels = _labels_file(args.heldout_labels, "heldout_labels")
        report["heldout"] = extraction.run_locomo(
            _locomo_paths(args.heldout),
            extractor=extractor,
            labels=held_labels,
            max_turns=args.heldout_turns or args.max_turns,
            log=progress.show,
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


def _labels_files(paths: Sequence[str]) -> dict[str, Any] | None:
    """Several ``--labels`` files as one: their turns joined (a turn in two files is an
    error, so that no label silently replaces another)."""
    if not paths:
        return None
    turns: dict[str, Any] = {}
    for path in paths:
        found = _labels_file(path, "labels") or {}
        twice = sorted(set(turns) & set(found.get("turns", {})))
        if twice:
            raise ValidationError(f"{path} labels turns given before: {twice[0]}", field="labels")
        turns.update(found.get("turns", {}))
    return {"turns": turns}


def _labels_file(path: str | None, name: str) -> dict[str, Any] | None:
    if not path:
        return None
    try:
        found: dict[str, Any] = json.loads(Path(path).read_text("utf-8"))
    except (OSError, ValueError) as exc:
        flag = "--" + name.replace("_", "-")
        raise ValidationError(f"cannot read {flag}: {exc}", field=name) from None
    return found


def cmd_bench_currency(args: argparse.Namespace) -> None:
    from turngraph.bench import currency

    report = currency.run(Path(args.folder), log=progress.show)
    print(currency.render(report))
    if args.misses:
        for split in currency.SPLITS:
            for miss in report[split]["misses"]:
                print(f"{split}: {miss}")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(report, indent=2) + "\n", "utf-8")


def cmd_demo(args: argparse.Namespace) -> None:
    from turngraph.cli.demo import run_demo

    run_demo(args.db, memory=args.memory)


def cmd_backup(args: argparse.Namespace) -> None:
    from turngraph.core.maintenance import backup_database

    done = backup_database(args.db, args.path, overwrite=args.overwrite)
    print(f"backed up {args.db} to {done.path} ({done.bytes:,} bytes)")


def cmd_copy(args: argparse.Namespace) -> None:
    from turngraph.core.copying import copy_memories
    from turngraph.recall.index import wait_for_index

    with turngraph.open(args.src) as src, turngraph.open(args.dst) as dst:
        copied = copy_memories(
            src.store,
            dst.store,
            names=args.memories,
            organization=args.organization,
            log=progress.show,
        )
        dst.resume_indexing()  # the copied rows are embedded again in the destination
        wait_for_index(dst.store, timeout=3600)
    if args.json:
        print(json.dumps([m.name for m in copied]))
    else:
        print(f"copied {len(copied)} memories from {src.url} to {dst.url}")


def cmd_check(args: argparse.Namespace) -> None:
    from turngraph.core.maintenance import check_database, render_check

    report = check_database(args.db)
    print(render_check(report))
    if not report.ok:
        raise StoreError(f"the check found {len(report.problems)} problems", db=args.db)


def _extra(name: str) -> None:
    """Refuse clearly when the extra a command needs is not installed."""
    modules = {
        "server": ("fastapi", "uvicorn", "fastapi_offline", "mcp"),
        "mcp": ("mcp", "fastapi"),
    }
    missing = [m for m in modules[name] if importlib.util.find_spec(m) is None]
    if missing:
        raise ValidationError(
            f"turngraph {name} needs the {name!r} extra ({', '.join(missing)} not installed): "
            f"pip install 'turngraph[{name}]'",
            field=name,
        )


def cmd_serve(args: argparse.Namespace) -> None:
    _extra("server")
    import uvicorn

    from turngraph.server import ServerSettings, create_app
    from turngraph.server.bootstrap import banner, first_start
    from turngraph.server.connections import uvicorn_config

    logging.getLogger("mcp").setLevel(logging.WARNING)  # the SDK's per-session notices
    settings = ServerSettings.load(host=args.host, port=args.port, db=args.db)
    sock = _listen(settings.host, settings.port)  # before anything is printed or created
    with (
        _StopOnSignal() as stopper,
        sock,
        turngraph.open(settings.db, settings=settings.core()) as db,
    ):
        key = first_start(db, settings)
        if key is not None:
            print(banner(key, settings), flush=True)
        app = create_app(settings, db=db, freeze=True)
        url = f"http://{settings.host}:{settings.port}"
        print(f"turngraph: serving {db.url} on {url} (inspector: {url}/ui/)", flush=True)
        stopper.serve(uvicorn.Server(uvicorn_config(app, settings)), sock)


class _StopOnSignal:
    """SIGTERM and SIGINT, from the moment the command starts, ask the server to stop (or,
    before it runs, not to start), so that the caller closes the database and the process
    exits 0.

    uvicorn finishes the requests in flight on either signal, then raises the signal again
    under the handler that was installed before it started: under the default one, SIGTERM
    would kill the process before the database closed (exit -15, the indexer and the
    extraction workers cut off). The handlers are installed before the database opens and
    before anything is printed: a supervisor that stops the server as soon as it says it is
    serving must not find the default handler still in place."""

    def __init__(self) -> None:
        self.requested = False
        self._server: Any = None
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> _StopOnSignal:
        self._previous = {s: signal.signal(s, self._stop) for s in (signal.SIGTERM, signal.SIGINT)}
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)

    def _stop(self, signum: int, frame: object) -> None:
        self.requested = True
        if self._server is not None:
            self._server.should_exit = True

    def serve(self, server: Any, sock: socket.socket) -> None:
        """Run uvicorn on ``sock`` until a signal asks it to stop (not at all if one did)."""
        self._server = server
        if not self.requested:
            server.run(sockets=[sock])


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
    _extra("mcp")
    from turngraph.mcp.server import build_server, refuse_stdio

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
    memory = db.memory(args.memory_name, organization=args.org)
    row = db.store.get_memory(memory.name, organization=args.org)
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


def build_parser() -> argparse.ArgumentParser:
    return cli_parser.build_parser(
        {
            "add": cmd_add,
            "backup": cmd_backup,
            "copy": cmd_copy,
            "bench": cmd_bench,
            "bench_extraction": cmd_bench_extraction,
            "bench_currency": cmd_bench_currency,
            "check": cmd_check,
            "consolidate": cmd_consolidate,
            "delete": cmd_delete,
            "demo": cmd_demo,
            "entities": cmd_entities,
            "files": cmd_files,
            "grant": cmd_grant,
            "keys": cmd_keys,
            "mcp": cmd_mcp,
            "memories": cmd_memories,
            "serve": cmd_serve,
            "show": cmd_show,
            "remember": lambda a: cli_memory.cmd_remember(a, _memory),
            "recall": lambda a: cli_memory.cmd_recall(a, _memory),
            "state": lambda a: cli_memory.cmd_state(a, _memory),
            "history": lambda a: cli_memory.cmd_history(a, _memory),
            "sessions": lambda a: cli_memory.cmd_sessions(a, _memory),
            "turns": lambda a: cli_memory.cmd_turns(a, _memory),
            "forget": lambda a: cli_memory.cmd_forget(a, _memory),
            "export": lambda a: cli_memory.cmd_export(a, _db),
            "import": lambda a: cli_memory.cmd_import(a, _db),
            "made": lambda a: cli_made.run(a, _memory),
        }
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        args.handler(args)
    except TurngraphError as exc:
        progress.PROGRESS.done()  # an error starts a line of its own
        print(f"turngraph: error: {exc}", file=sys.stderr)
        return 1
    except (OSError, ValueError) as exc:
        progress.PROGRESS.done()
        print(f"turngraph: error: {exc}", file=sys.stderr)
        return 1
    finally:
        progress.PROGRESS.done()
        for db in getattr(args, "opened", []):
            db.close()  # its store's threads end with it
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
