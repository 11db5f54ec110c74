"""Whole memories to and from a file: ``turngraph export`` and ``turngraph import``.

The file is JSON lines. The first line is the header: ``{"format": "turngraph.memory",
"version": 1, "exported_at": ..., "memories": [names]}``. Each memory follows as a
``memory`` record (its name, organization, visibility, retrieval settings and creation time)
and then its records (:mod:`turngraph.core.records`), the last of them ``end``. Export reads
each memory from one snapshot, so the file is consistent even while the memory is written.

Import writes each memory in one write transaction: a crash or a bad line leaves the memory
as it was (a memory the import created is removed again, or, after a crash, left empty), and
running the import again finishes it. Import is idempotent: it records a digest of the
memory's records in the memory it wrote, so importing the same records into that memory
again changes nothing. A memory that already holds other rows is refused; import is a
restore, never a merge. Nothing is extracted again; ``reextract`` instead replays the
sessions and turns through ``remember`` (one transaction per turn, each keyed, so a second
run writes nothing new), which is also how the older turn-only export (lines of ``kind``
``session`` and ``turn``) is read.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import IO, TYPE_CHECKING, Any

import turngraph
from turngraph.core.records import RecordWriter, read_records
from turngraph.errors import ConflictError, NotFoundError, ValidationError
from turngraph.store.base import IdempotencyRow, MemoryRow

if TYPE_CHECKING:
    from turngraph.core.database import Database
    from turngraph.core.memory import Memory

FORMAT = "turngraph.memory"
VERSION = 1
PROGRESS_EVERY = 1000  # records between two progress calls

Progress = Callable[[str], None]


def _quiet(_: str) -> None:
    return None


@dataclass
class Imported:
    """What importing one memory did: ``status`` is ``imported``, ``unchanged`` (these records
    were imported into it before) or ``replayed`` (turns written again through
    ``remember``); ``counts`` is the number of records of each kind written (replayed: the
    sessions, the turns written, and the turns an earlier import had written)."""

    memory: str
    status: str
    counts: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"memory": self.memory, "status": self.status, "counts": self.counts}


# -- export ---------------------------------------------------------------------------------


def export_memories(
    db: Database, rows: list[MemoryRow], sink: IO[str], *, progress: Progress = _quiet
) -> int:
    """Write ``rows``' memories to ``sink`` as one file; the number of records written."""
    header = {
        "format": FORMAT,
        "version": VERSION,
        "turngraph": turngraph.__version__,
        "exported_at": datetime.now(UTC).isoformat(),
        "memories": [row.name for row in rows],
    }
    sink.write(_line(header))
    written = 0
    for row in rows:
        sink.write(
            _line(
                {
                    "record": "memory",
                    "name": row.name,
                    "organization": row.organization,
                    "visibility": row.visibility,
                    "retrieval": json.loads(row.retrieval),
                    "created_at": row.created_at.isoformat(),
                }
            )
        )
        with db.store.read(row.id) as r:
            for record in read_records(r):
                sink.write(_line(record))
                written += 1
                if written % PROGRESS_EVERY == 0:
                    progress(f"exported {written} records")
    return written


def _line(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")) + "\n"


# -- import ---------------------------------------------------------------------------------


def json_object(line: str, number: int) -> dict[str, Any]:
    """Line ``number`` of a JSONL file as the object it must hold; ValidationError naming
    the line otherwise."""
    try:
        item = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValidationError(
            f"line {number} is not valid JSON: {exc.msg}", field=f"line {number}"
        ) from None
    except RecursionError:
        raise ValidationError(
            f"line {number} is nested too deeply", field=f"line {number}"
        ) from None
    if not isinstance(item, dict):
        raise ValidationError(f"line {number} must be a JSON object", field=f"line {number}")
    return item


class _Lines:
    """A file's JSON objects with their line numbers, one at a time, blank lines skipped."""

    def __init__(self, source: IO[str]) -> None:
        self._source = enumerate(source, start=1)
        self.number = 0
        self._held: tuple[int, dict[str, Any]] | None = None
        self.last = False  # whether the memory being read is the file's last

    def next(self) -> dict[str, Any] | None:
        if self._held is not None:
            self.number, item = self._held
            self._held = None
            return item
        for number, line in self._source:
            if not line.strip():
                continue
            self.number = number
            return json_object(line, number)
        return None

    def push_back(self, item: dict[str, Any]) -> None:
        self._held = (self.number, item)

    @property
    def where(self) -> str:
        return f"line {self.number}"


def import_memories(
    db: Database,
    source: IO[str],
    *,
    name: str | None = None,
    every: bool = False,
    create: bool = False,
    reextract: bool = False,
    progress: Progress = _quiet,
) -> list[Imported]:
    """Import the memories of an export file. ``name``: the memory to write the file's one
    memory into; ``every``: write each memory of the file under its own name (one of the two
    is required). ``create`` creates a memory that does not exist, with the file's settings.
    Raises ValidationError naming the line for a malformed file, NotFoundError for a
    missing memory without ``create``, ConflictError for a memory that holds other rows."""
    if (name is None) == (not every):
        raise ValidationError(
            "name a memory to import into, or import every memory", field="memory"
        )
    lines = _Lines(source)
    first = lines.next()
    if first is None:
        raise ValidationError("the file is empty: nothing to import", field="file")
    if "kind" in first and "format" not in first:  # the older turn-only export
        if every:
            raise ValidationError(
                "this file holds one memory's turns (an older export): name the memory",
                field="memory",
            )
        lines.push_back(first)
        assert name is not None
        mem = db.memory_of(_target(db, name, "default", None, create=create))
        return [_replay(mem, _legacy_turns(lines), progress)]
    names = _header(first)
    if name is not None and len(names) != 1:
        raise ValidationError(
            f"the file holds {len(names)} memories ({', '.join(map(repr, names))}): "
            "import every memory under its own name instead of naming one",
            field="memory",
        )
    done = []
    for number in range(1, len(names) + 1):
        lines.last = number == len(names)
        settings = lines.next()
        if settings is None or settings.get("record") != "memory":
            raise ValidationError(
                f"{lines.where if settings else 'the end of the file'}: a memory record was "
                "expected (the file is incomplete or not an export)",
                field=lines.where,
            )
        target = name if name is not None else _text(settings, "name", lines.where)
        organization = (
            "default" if name is not None else _text(settings, "organization", lines.where)
        )
        if reextract:
            mem = db.memory_of(_target(db, target, organization, settings, create=create))
            done.append(_replay(mem, _turn_records(lines), progress))
        else:
            done.append(_restore(db, target, organization, settings, lines, create, progress))
    if reextract:
        _no_more(lines)
    return done


def _no_more(lines: _Lines) -> None:
    if lines.next() is not None:
        raise ValidationError(
            f"{lines.where}: more records after the file's last memory", field=lines.where
        )


def _header(first: dict[str, Any]) -> list[str]:
    if first.get("format") != FORMAT:
        raise ValidationError(
            f"line 1: not a turngraph export (format {first.get('format')!r}, expected {FORMAT!r})",
            field="line 1",
        )
    if first.get("version") != VERSION:
        raise ValidationError(
            f"line 1: export version {first.get('version')!r} is not one this turngraph reads "
            f"({VERSION})",
            field="line 1",
        )
    names = first.get("memories")
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise ValidationError("line 1: memories must list the memories' names", field="line 1")
    return names


def _text(record: dict[str, Any], key: str, where: str) -> str:
    value = record.get(key)
    if not isinstance(value, str) or not value:
        raise ValidationError(f"{where}: {key} must be a non-empty string", field=where)
    return value


def _target(
    db: Database,
    name: str,
    organization: str,
    settings: dict[str, Any] | None,
    *,
    create: bool,
) -> MemoryRow:
    """The memory to write into, created with the file's settings when asked."""
    row = db.store.get_memory(name, organization=organization)
    if row is not None:
        return row
    if not create:
        raise NotFoundError(
            f"no memory named {name!r}: create it first, or import with --create to create it "
            "with the file's settings",
            memory=name,
        )
    settings = settings or {}
    created = settings.get("created_at")
    db.create_memory(
        name,
        visibility=settings.get("visibility", "private"),
        retrieval=settings.get("retrieval"),
        organization=organization,
        created_at=_parse_time(created) if created is not None else None,
    )
    made = db.store.get_memory(name, organization=organization)
    assert made is not None
    return made


def _parse_time(value: Any) -> datetime:
    try:
        when = datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        when = None
    if when is None or when.tzinfo is None:
        raise ValidationError(
            f"created_at must be an ISO time with its offset, not {value!r}", field="created_at"
        )
    return when


def _records(lines: _Lines) -> Iterator[tuple[str, dict[str, Any]]]:
    """One memory's records with where each is, through its end record."""
    while True:
        item = lines.next()
        if item is None:
            raise ValidationError(
                "the file ends before the memory's end record: it is incomplete", field="end"
            )
        yield lines.where, item
        if item.get("record") == "end":
            return


def _digest(item: dict[str, Any]) -> bytes:
    return json.dumps(item, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()


def _restore(
    db: Database,
    name: str,
    organization: str,
    settings: dict[str, Any],
    lines: _Lines,
    create: bool,
    progress: Progress,
) -> Imported:
    existed = db.store.get_memory(name, organization=organization) is not None
    row = _target(db, name, organization, settings, create=create)
    with db.store.read(row.id) as r:
        empty = not any(dataclasses.astuple(r.counts()))
    digest = hashlib.sha256()
    if not empty:
        for _, item in _records(lines):
            digest.update(_digest(item))
        if lines.last:
            _no_more(lines)
        key = f"import:{digest.hexdigest()}"
        with db.store.read(row.id) as r:
            if r.get_idempotency(key) is not None:
                return Imported(name, "unchanged")
        raise ConflictError(
            f"memory {name!r} already holds other rows: import restores a whole memory, so "
            "import into a new or empty memory",
            memory=name,
        )
    try:
        with db.store.write(row.id) as w:
            writer = RecordWriter(w, embeds=json.loads(row.retrieval).get("embedder") != "none")
            for number, (where, item) in enumerate(_records(lines), start=1):
                writer.write(item, where)
                digest.update(_digest(item))
                if number % PROGRESS_EVERY == 0:
                    progress(f"memory {name!r}: {number} records")
            counts = writer.finish()
            if lines.last:  # checked before the commit: the file holds nothing more
                _no_more(lines)
            if w.get_idempotency(f"import:{digest.hexdigest()}") is not None:
                raise _Unchanged  # these records were imported here before: write nothing
            w.put_idempotency(
                IdempotencyRow(
                    key=f"import:{digest.hexdigest()}",
                    operation="import",
                    fingerprint=digest.hexdigest(),
                    slug=None,
                    result=json.dumps(counts),
                    created_at=datetime.now(UTC),
                )
            )
    except _Unchanged:
        return Imported(name, "unchanged")
    except BaseException:
        if not existed:
            db.store.delete_memory(row.id)
        raise
    return Imported(name, "imported", counts)


class _Unchanged(Exception):
    """Raised inside the write transaction to roll it back: nothing new to import."""


# -- replaying turns through remember ---------------------------------------------------------


@dataclass(frozen=True)
class _Turn:
    session_id: str
    metadata: Any
    turn: dict[str, Any] | None  # None: the session record itself
    key: str
    where: str


def _legacy_turns(lines: _Lines) -> Iterator[_Turn]:
    """The older export: ``kind`` session (id, metadata) and turn lines."""
    seen: dict[str, int] = {}
    while (item := lines.next()) is not None:
        kind = item.get("kind")
        if kind == "session":
            yield _Turn(_text(item, "id", lines.where), item.get("metadata"), None, "", lines.where)
        elif kind == "turn":
            session = _text(item, "session_id", lines.where)
            seen[session] = seen.get(session, 0) + 1
            yield _Turn(session, None, item, _key(session, seen[session], item), lines.where)
        else:
            raise ValidationError(
                f"{lines.where}: unknown record kind {kind!r} (session or turn)", field=lines.where
            )


def _turn_records(lines: _Lines) -> Iterator[_Turn]:
    """The sessions and turns of one memory of an export; every other record is passed."""
    for where, item in _records(lines):
        if item.get("record") == "session":
            yield _Turn(_text(item, "id", where), _metadata(item, where), None, "", where)
        elif item.get("record") == "turn":
            session = _text(item, "session_id", where)
            yield _Turn(session, None, item, _key(session, 0, item), where)


def _metadata(item: dict[str, Any], where: str) -> Any:
    raw = item.get("metadata")
    try:
        return json.loads(raw) if isinstance(raw, str) else raw
    except json.JSONDecodeError:
        raise ValidationError(f"{where}: metadata is not valid JSON", field=where) from None


def _key(session: str, ordinal: int, turn: dict[str, Any]) -> str:
    """An idempotency key for a replayed turn: its id when the file has one, else its place
    in its session and its text."""
    ident = turn.get("id") or f"{session}\n{ordinal}\n{turn.get('content')}"
    return "import:" + hashlib.sha256(str(ident).encode()).hexdigest()[:40]


def _replay(mem: Memory, turns: Iterator[_Turn], progress: Progress) -> Imported:
    counts = {"session": 0, "turn": 0, "unchanged": 0}
    for t in turns:
        try:
            if t.turn is None:
                mem.create_session(t.metadata, session_id=t.session_id)
                counts["session"] += 1
                continue
            done = mem.remember(
                t.turn.get("content"),
                session_id=t.session_id,
                role=t.turn.get("role", "user"),
                speaker=t.turn.get("speaker"),
                observed_at=t.turn.get("observed_at"),
                labels=t.turn.get("labels") or (),
                idempotency_key=t.key,
            )
        except ValidationError as exc:
            raise ValidationError(f"{t.where}: {exc}", field=t.where) from None
        counts["unchanged" if done.replayed else "turn"] += 1
        seen = counts["turn"] + counts["unchanged"]
        if seen % 25 == 0:
            progress(f"memory {mem.name!r}: {seen} turns")
    return Imported(mem.name, "replayed", counts)
