"""The CLI commands that reach a memory's turns, recall and state: ``remember`` (one turn, or
many from stdin or a file: one per line, or JSONL), ``recall``, ``state``, ``history``,
``sessions``, ``turns``, ``forget``, and ``export`` / ``import`` (whole memories as JSONL,
:mod:`turngraph.core.transfer`). Each calls the core and renders; ``--json`` prints the
core's model."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import IO, Any

from pydantic import BaseModel

from turngraph.cli import progress
from turngraph.core.database import Database
from turngraph.core.memory import Memory
from turngraph.core.transfer import export_memories, import_memories, json_object
from turngraph.errors import NotFoundError, ValidationError
from turngraph.models import RecallResult, RememberResult, State, TurnPage

Open = Callable[..., Memory]
OpenDb = Callable[..., Database]
PROGRESS_EVERY = 25  # turns between two progress lines on a long import


def _emit(args: argparse.Namespace, value: Any, text: Callable[[Any], str]) -> None:
    if args.json:
        if isinstance(value, BaseModel):
            print(value.model_dump_json(indent=2))
        elif isinstance(value, list):
            print(
                json.dumps(
                    [v.model_dump(mode="json") if isinstance(v, BaseModel) else v for v in value],
                    indent=2,
                )
            )
        else:
            print(json.dumps(value, indent=2))
    else:
        print(text(value))


def _turns_from(stream: IO[str], *, jsonl: bool) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, turn) for each non-blank line: its text, or with ``jsonl`` a JSON object
    with ``text`` (or ``content``) and optional role, speaker, session_id, ts, labels."""
    for number, line in enumerate(stream, start=1):
        if not line.strip():
            continue
        if not jsonl:
            yield number, {"text": line.rstrip("\n")}
            continue
        yield number, json_object(line, number)


def _render_remember(r: RememberResult) -> str:
    found = r.extraction
    lines = [f"{'replayed' if r.replayed else 'remembered'} {r.turn_id} in {r.session_id}"]
    lines += [f"  entity {e.name} ({e.entity_type})" for e in found.entities]
    lines += [f"  {a.entity_id} {a.key} = {a.value}" for a in found.attributes]
    return "\n".join(lines)


def cmd_remember(args: argparse.Namespace, open_memory: Open) -> None:
    mem = open_memory(args)
    base: dict[str, Any] = {
        "session_id": args.session,
        "role": args.role,
        "speaker": args.speaker,
        "labels": args.label or (),
        "infer": args.infer,
    }
    if args.session is not None:
        _ensure_session(mem, args.session)
    if args.text is not None:
        result = mem.remember(args.text, **base, idempotency_key=args.idempotency_key)
        _emit(args, result, _render_remember)
        return
    if args.input in (None, "-"):
        results = _remember_lines(mem, sys.stdin, args, base)
    else:
        with Path(args.input).open(encoding="utf-8") as stream:
            results = _remember_lines(mem, stream, args, base)
    _emit(
        args,
        results,
        lambda rs: (
            f"remembered {len(rs)} turns"
            + (f" in {rs[0].session_id}" if rs and len({r.session_id for r in rs}) == 1 else "")
        ),
    )


def _ensure_session(mem: Memory, session_id: str) -> None:
    """A session named on the command line is created on first use."""
    try:
        mem.get_session(session_id)
    except NotFoundError:
        mem.create_session(session_id=session_id)


def _remember_lines(
    mem: Memory, stream: IO[str], args: argparse.Namespace, base: dict[str, Any]
) -> list[RememberResult]:
    """Remember each line of ``stream`` as a turn, in order; progress on stderr."""
    results: list[RememberResult] = []
    session = args.session
    for number, item in _turns_from(stream, jsonl=args.jsonl):
        text = item.get("text", item.get("content"))
        if item.get("session_id") and item["session_id"] != session:
            _ensure_session(mem, str(item["session_id"]))
        fields = {
            **base,
            "session_id": item.get("session_id", session),
            "role": item.get("role", args.role),
            "speaker": item.get("speaker", args.speaker),
            "observed_at": item.get("ts", item.get("observed_at")),
        }
        if "labels" in item:
            fields["labels"] = item["labels"]
        try:
            r = mem.remember(text, **fields)
        except ValidationError as exc:
            raise ValidationError(f"line {number}: {exc}", **exc.fields) from None
        session = session or r.session_id  # lines without one share the first session
        results.append(r)
        if len(results) % PROGRESS_EVERY == 0:
            progress.show(f"remembered {len(results)} turns")
    return results


def _render_recall(rc: RecallResult) -> str:
    lines = [f"{e.name} ({e.type}): {e.description}" for e in rc.entities]
    for hit in rc.hits:
        lines.append(f"[{hit.score:.2f}] {hit.kind} {hit.id}  {hit.text}")
    lines += [f"  truncated: {t}" for t in rc.truncated]
    return "\n".join(lines) or "nothing recalled"


def cmd_recall(args: argparse.Namespace, open_memory: Open) -> None:
    mem = open_memory(args, read_only=True)
    rc = mem.recall(args.query, k=args.k, mode=args.mode, session_id=args.session)
    _emit(args, rc, _render_recall)


def _render_state(s: State) -> str:
    lines = []
    for name, part in (
        ("identity", s.identity),
        ("knowledge", s.knowledge),
        ("context", s.context),
    ):
        for e in part.entities:
            lines.append(f"[{name}] {e.name} ({e.entity_type}): {e.description}")
        for a in part.attributes:
            lines.append(f"[{name}] {a.entity} {a.key} = {a.value}")
    lines += [f"[instruction] {i.model_dump_json()}" for i in s.instructions]
    return "\n".join(lines) or "the memory knows nothing yet"


def cmd_state(args: argparse.Namespace, open_memory: Open) -> None:
    mem = open_memory(args, read_only=True)
    if args.entity:
        entity_type, name = args.entity
        es = mem.entity_state(entity_type, name)
        _emit(
            args,
            es,
            lambda e: "\n".join(
                [f"{e.entity.name} ({e.entity.entity_type})"]
                + [f"  {a.key} = {a.value}" for a in e.attributes]
                + [f"  {r.subject} -[{r.label}]-> {r.object}" for r in e.relations]
            ),
        )
    elif args.entities:
        rows = mem.entity_states(args.type, limit=args.limit)
        _emit(args, rows, lambda es: "\n".join(f"{e.name} ({e.entity_type})" for e in es) or "none")
    else:
        _emit(args, mem.state(args.as_of, limit=args.limit), _render_state)


def cmd_history(args: argparse.Namespace, open_memory: Open) -> None:
    mem = open_memory(args, read_only=True)
    versions = mem.entity_history(args.entity_type, args.name, args.key)
    _emit(
        args,
        versions,
        lambda vs: (
            "\n".join(
                f"{v.valid_from.isoformat()}  {v.value}"
                + ("" if v.valid_until is None else f"  (until {v.valid_until.isoformat()})")
                for v in vs
            )
            or "no versions"
        ),
    )


def cmd_sessions(args: argparse.Namespace, open_memory: Open) -> None:
    mem = open_memory(args, read_only=args.action in (None, "show", "list"))
    if args.action == "create":
        metadata = None if args.metadata is None else json.loads(args.metadata)
        s = mem.create_session(metadata, session_id=args.id)
        _emit(args, s, lambda s: f"created {s.id}")
    elif args.action == "delete":
        n = mem.delete_session(args.id)
        _emit(args, {"deleted_turns": n}, lambda d: f"deleted {args.id} ({n} turns)")
    elif args.action in (None, "list"):  # no action lists, as files and consolidate do
        page = mem.list_sessions(
            limit=getattr(args, "limit", 50), offset=getattr(args, "offset", 0)
        )
        _emit(
            args,
            page,
            lambda p: (
                "\n".join(f"{s.id}  {json.dumps(s.metadata)}" for s in p.sessions) or "no sessions"
            ),
        )
    else:
        _emit(args, mem.get_session(args.id), lambda s: f"{s.id}  {json.dumps(s.metadata)}")


def _render_turns(page: TurnPage) -> str:
    lines = [f"{t.seq:4} {t.speaker or t.role}: {t.content}" for t in page.turns]
    if page.next_cursor:
        lines.append(f"more: --cursor {page.next_cursor}")
    return "\n".join(lines) or "no turns"


def cmd_turns(args: argparse.Namespace, open_memory: Open) -> None:
    mem = open_memory(args, read_only=True)
    _emit(args, mem.list_turns(args.session, limit=args.limit, cursor=args.cursor), _render_turns)


def cmd_forget(args: argparse.Namespace, open_memory: Open) -> None:
    mem = open_memory(args)
    if args.entity:
        r = mem.delete_entity(args.query, args.type)
        _emit(args, r, lambda r: f"deleted entity {args.query}")
        return
    res = mem.forget(args.query, purge=args.purge, dry_run=args.dry_run)
    verb = "would forget" if res.dry_run else "forgot"
    _emit(args, res, lambda r: f"{verb} {r.deleted} observation(s): {', '.join(r.observations)}")


def _open(path: str | None, mode: str, standard: IO[str]) -> AbstractContextManager[IO[str]]:
    """The file at ``path``, or the standard stream for none or '-' (left open after)."""
    if path in (None, "-"):
        return nullcontext(standard)
    return Path(path).open(mode, encoding="utf-8")


def _progress(line: str) -> None:
    progress.show(line)


def cmd_export(args: argparse.Namespace, open_db: OpenDb) -> None:
    db = open_db(args, read_only=True)
    if args.all:
        rows = db.store.list_memories()
    else:
        row = db.store.get_memory(args.memory)
        if row is None:
            raise NotFoundError(f"no memory named {args.memory!r}", memory=args.memory)
        rows = [row]
    if args.output in (None, "-"):
        written = export_memories(db, rows, sys.stdout, progress=_progress)
    else:  # written beside the target and renamed: a cut-short export leaves no file
        target = Path(args.output)
        partial = target.with_name(target.name + ".partial")
        try:
            with partial.open("w", encoding="utf-8") as sink:
                written = export_memories(db, rows, sink, progress=_progress)
            partial.replace(target)
        finally:
            partial.unlink(missing_ok=True)
    names = ", ".join(repr(r.name) for r in rows)
    print(f"exported {len(rows)} memories ({names}): {written} records", file=sys.stderr)


def cmd_import(args: argparse.Namespace, open_db: OpenDb) -> None:
    from turngraph.recall.index import wait_for_index

    db = open_db(args)
    with _open(args.input, "r", sys.stdin) as source:
        done = import_memories(
            db,
            source,
            name=None if args.all else args.memory,
            every=args.all,
            create=args.create,
            reextract=args.reextract,
            progress=_progress,
        )
    if db.resume_indexing():  # what was imported is embedded before the command returns
        _progress("embedding the imported rows")
        wait_for_index(db.store, timeout=3600)

    def text(items: list[dict[str, Any]]) -> str:
        lines = []
        for d in items:
            counts = ", ".join(f"{v} {k}" for k, v in d["counts"].items() if v)
            lines.append(f"{d['memory']}: {d['status']}" + (f" ({counts})" if counts else ""))
        return "\n".join(lines)

    _emit(args, [d.as_dict() for d in done], text)


def add_parsers(
    add: Callable[..., argparse.ArgumentParser],
    actions: Callable[..., Callable[[str, str, str], argparse.ArgumentParser]],
    handlers: dict[str, Any],
) -> None:
    """The commands above on the ``turngraph`` parser (``add`` and ``actions`` as cli/parser.py
    defines them)."""
    p = add(
        "remember",
        handlers["remember"],
        "remember a turn, or many from stdin or a file (one per line, or JSONL)",
        'turngraph remember "I moved to Leeds" --speaker Dana\n'
        "turngraph remember --jsonl --input chat.jsonl --session session:chat-1",
    )
    p.add_argument("text", nargs="?", help="the message (leave out to read turns from --input)")
    p.add_argument("--input", help="read turns from this file ('-' or none: stdin)")
    p.add_argument("--jsonl", action="store_true", help="each line is a JSON object: text, ...")
    p.add_argument(
        "--session",
        help="the session id, session:<key> (created on first use; default: a new session)",
    )
    p.add_argument(
        "--role",
        default="user",
        choices=["user", "assistant", "system", "tool"],
        help="who spoke (default user)",
    )
    p.add_argument("--speaker", help="who said it (default: the session's user)")
    p.add_argument("--label", action="append", help="a label; repeat for several")
    p.add_argument(
        "--infer",
        default="full",
        choices=["full", "preview", "none"],
        help="extract facts (full, default), preview without storing, or store only",
    )
    p.add_argument("--idempotency-key", dest="idempotency_key", help="a retry writes once")

    p = add("recall", handlers["recall"], "recall what the memory knows", 'turngraph recall "Dana"')
    p.add_argument("query", help="what to recall")
    p.add_argument("--k", type=int, default=10, help="passages to return (default 10)")
    p.add_argument(
        "--mode",
        default="hybrid",
        choices=["hybrid", "lexical", "dense", "graph"],
        help="which signals rank passages (default hybrid)",
    )
    p.add_argument("--session", help="only this session's turns")

    p = add(
        "state",
        handlers["state"],
        "what the memory knows now, or one entity's state",
        "turngraph state --as-of 2024-05-01\nturngraph state --entity person Dana",
    )
    p.add_argument("--as-of", dest="as_of", help="as of this time (ISO 8601)")
    p.add_argument("--limit", type=int, default=100, help="items per list (default 100)")
    p.add_argument("--entity", nargs=2, metavar=("TYPE", "NAME"), help="one entity's state")
    p.add_argument("--entities", action="store_true", help="list entities as the state shows")
    p.add_argument("--type", help="with --entities: only this type")

    p = add(
        "history",
        handlers["history"],
        "every version of one attribute of one entity",
        "turngraph history person Dana job_title",
    )
    p.add_argument("entity_type", help="e.g. person")
    p.add_argument("name", help="the entity's name")
    p.add_argument("key", help="the attribute, e.g. job_title")

    p = add(
        "sessions",
        handlers["sessions"],
        "create, show or delete sessions",
        "turngraph sessions create --id session:chat-1",
    )
    action = actions(p, "db memory json")
    a = action("list", "list sessions, newest first", "turngraph sessions list --limit 20")
    a.add_argument("--limit", type=int, default=50, help="at most this many (default 50)")
    a.add_argument("--offset", type=int, default=0, help="skip this many (default 0)")
    a = action("create", "start a session", "turngraph sessions create --id session:chat-1")
    a.add_argument("--id", help="its id (session:...; default: a new one)")
    a.add_argument("--metadata", help="JSON metadata kept as given")
    action("show", "show a session", "turngraph sessions show session:chat-1").add_argument(
        "id", help="the session id"
    )
    action(
        "delete",
        "delete a session with its turns and what only they taught",
        "turngraph sessions delete session:chat-1",
    ).add_argument("id", help="the session id")

    p = add(
        "export",
        handlers["export"],
        "write a whole memory (or every memory) to a JSONL file that import restores",
        "turngraph export --memory acme acme.jsonl\nturngraph export --all > everything.jsonl",
        "db memory",
    )
    p.add_argument("output", nargs="?", help="the file to write (default: stdout)")
    p.add_argument("--all", action="store_true", help="every memory of the database")
    p = add(
        "import",
        handlers["import"],
        "restore memories from a file made by export, in one transaction each; importing "
        "the same file again changes nothing",
        "turngraph import --memory acme --create acme.jsonl\n"
        "turngraph import --all --create everything.jsonl",
    )
    p.add_argument("input", nargs="?", help="the file to read (default: stdin)")
    p.add_argument("--all", action="store_true", help="each memory of the file under its own name")
    p.add_argument(
        "--create",
        action="store_true",
        help="create a memory that does not exist, with the file's settings",
    )
    p.add_argument(
        "--reextract",
        action="store_true",
        help="write the sessions and turns again through remember (extraction runs again; "
        "one transaction per turn) instead of restoring every row as it was",
    )

    p = add("turns", handlers["turns"], "a session's turns", "turngraph turns session:chat-1")
    p.add_argument("session", help="the session id")
    p.add_argument("--limit", type=int, default=100, help="turns per page (default 100)")
    p.add_argument("--cursor", help="continue from a previous page")

    p = add(
        "forget",
        handlers["forget"],
        "remove observations holding all the query's words, or one entity (--entity)",
        'turngraph forget "old address" --dry-run\nturngraph forget --entity "Old Co"',
    )
    p.add_argument("query", help="the words (or, with --entity, the entity's name)")
    p.add_argument("--purge", action="store_true", help="also remove what only they taught")
    p.add_argument("--dry-run", dest="dry_run", action="store_true", help="only list them")
    p.add_argument("--entity", action="store_true", help="delete the entity named QUERY")
    p.add_argument("--type", help="with --entity: its type")
