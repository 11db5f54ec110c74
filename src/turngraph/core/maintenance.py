"""Keeping a database safe: online backups and a consistency check.

:func:`backup_database` copies a live SQLite database with SQLite's backup API in one step,
which reads one snapshot: writers carry on (WAL mode) and the copy is the database as of one
commit, never a mix. It is written beside the destination and renamed into place, so a
failed backup leaves no partial file.

:func:`check_database` reads one snapshot too and reports every broken rule: SQLite's own
integrity and foreign-key checks, then the graph's invariants: every entity and relationship
is backed by an observation, supersession chains link both ways within one entity and key,
the full-text indexes hold exactly the rows they index, and no vector or queued row points
at a row that is gone.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from turngraph.errors import StoreError, ValidationError


@dataclass(frozen=True)
class BackupResult:
    path: Path
    pages: int
    bytes: int


@dataclass(frozen=True)
class CheckReport:
    """What :func:`check_database` found: ``problems`` empty means all is well."""

    counts: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


@contextlib.contextmanager
def _connect(path: Path) -> Iterator[sqlite3.Connection]:
    if not path.is_file():
        raise ValidationError(f"no database at {path}", field="db", path=str(path))
    try:
        conn = sqlite3.connect(path, isolation_level=None, timeout=30)
    except sqlite3.Error as exc:
        raise StoreError(f"cannot open {path}: {exc}", path=str(path)) from exc
    try:
        yield conn
    finally:
        conn.close()


def database_path(url: str | Path) -> Path:
    """The file of a database URL (a path or ``sqlite:///PATH``)."""
    text = str(url)
    if "://" in text and not text.startswith("sqlite:///"):
        raise ValidationError(
            "backup and check work on SQLite files: a path or sqlite:///PATH", field="db"
        )
    return Path(text.removeprefix("sqlite:///"))


def backup_database(
    source: str | Path, dest: str | Path, *, overwrite: bool = False
) -> BackupResult:
    """Copy the database at ``source`` to ``dest`` while it is in use.

    Raises ValidationError when ``dest`` exists (unless ``overwrite``) or is the source, and
    StoreError when SQLite fails; nothing is left at ``dest`` then."""
    src, target = database_path(source), Path(dest)
    if target.exists() and not overwrite:
        raise ValidationError(f"{target} exists; choose a new path", field="path")
    if target.exists() and target.resolve() == src.resolve():
        raise ValidationError("the backup cannot overwrite its source", field="path")
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.name}.partial-{os.getpid()}")
    with _connect(src) as conn:
        try:
            copy = sqlite3.connect(partial, isolation_level=None)
            try:
                conn.backup(copy)  # pages=-1: the whole file from one snapshot
                copy.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
                pages = int(copy.execute("PRAGMA page_count").fetchone()[0])
            finally:
                copy.close()
            os.replace(partial, target)
        except sqlite3.Error as exc:
            raise StoreError(f"backup failed: {exc}", path=str(src)) from exc
        finally:
            with contextlib.suppress(FileNotFoundError):
                partial.unlink()
    return BackupResult(target, pages, target.stat().st_size)


# (name, SQL counting the rows that break the rule)
_INVARIANTS: tuple[tuple[str, str], ...] = (
    (
        "entities backed by no observation",
        "SELECT count(*) FROM entities e WHERE NOT EXISTS "
        "(SELECT 1 FROM observation_entities oe WHERE oe.entity_id = e.id)",
    ),
    (
        "relationships backed by no observation",
        "SELECT count(*) FROM relationships r WHERE NOT EXISTS "
        "(SELECT 1 FROM observation_relationships orl WHERE orl.relationship_id = r.id)",
    ),
    (
        "attributes whose supersedes link is not returned",
        "SELECT count(*) FROM attributes a WHERE a.supersedes IS NOT NULL AND NOT EXISTS "
        "(SELECT 1 FROM attributes p WHERE p.memory_id = a.memory_id AND p.id = a.supersedes "
        "AND p.superseded_by = a.id AND p.entity_id = a.entity_id AND p.key = a.key)",
    ),
    (
        "attributes whose superseded_by link is not returned",
        "SELECT count(*) FROM attributes a WHERE a.superseded_by IS NOT NULL AND NOT EXISTS "
        "(SELECT 1 FROM attributes n WHERE n.memory_id = a.memory_id AND n.id = a.superseded_by "
        "AND n.supersedes = a.id)",
    ),
    (
        "observations missing from the full-text index",
        "SELECT count(*) FROM observations o WHERE NOT EXISTS "
        "(SELECT 1 FROM fts_observations f WHERE f.rowid = o.id)",
    ),
    (
        "full-text rows of observations that are gone",
        "SELECT count(*) FROM fts_observations f WHERE NOT EXISTS "
        "(SELECT 1 FROM observations o WHERE o.id = f.rowid)",
    ),
    (
        "entities missing from the full-text index",
        "SELECT count(*) FROM entities e WHERE NOT EXISTS "
        "(SELECT 1 FROM fts_entities f WHERE f.rowid = e.id)",
    ),
    (
        "full-text rows of entities that are gone",
        "SELECT count(*) FROM fts_entities f WHERE NOT EXISTS "
        "(SELECT 1 FROM entities e WHERE e.id = f.rowid)",
    ),
    (
        "attributes missing from the full-text index",
        "SELECT count(*) FROM attributes a WHERE NOT EXISTS "
        "(SELECT 1 FROM fts_attributes f WHERE f.rowid = a.rowid)",
    ),
    (
        "full-text rows of attributes that are gone",
        "SELECT count(*) FROM fts_attributes f WHERE NOT EXISTS "
        "(SELECT 1 FROM attributes a WHERE a.rowid = f.rowid)",
    ),
    (
        "vectors or queued rows of rows that are gone",
        "SELECT count(*) FROM (SELECT kind, ref FROM vectors UNION ALL "
        "SELECT kind, ref FROM index_queue) v WHERE NOT CASE v.kind "
        "WHEN 'entity' THEN EXISTS (SELECT 1 FROM entities WHERE id = v.ref) "
        "WHEN 'attribute' THEN EXISTS (SELECT 1 FROM attributes WHERE rowid = v.ref) "
        "ELSE EXISTS (SELECT 1 FROM observations WHERE id = v.ref) END",
    ),
)

_COUNTED = ("memories", "observations", "entities", "relationships", "attributes", "turns")


def check_database(source: str | Path) -> CheckReport:
    """Check the database at ``source`` (while it is in use); see the module docstring."""
    with _connect(database_path(source)) as conn:
        problems: list[str] = []
        try:
            conn.execute("BEGIN")  # one snapshot for every check
            integrity = [r[0] for r in conn.execute("PRAGMA integrity_check")]
            if integrity != ["ok"]:
                problems += [f"integrity: {line}" for line in integrity[:20]]
            broken_keys = conn.execute("PRAGMA foreign_key_check").fetchall()
            if broken_keys:
                tables = sorted({str(r[0]) for r in broken_keys})
                problems.append(
                    f"{len(broken_keys)} rows break foreign keys (in {', '.join(tables)})"
                )
            for name, sql in _INVARIANTS:
                n = int(conn.execute(sql).fetchone()[0])
                if n:
                    problems.append(f"{n} {name}")
            counts = {
                table: int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
                for table in _COUNTED
            }
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            raise StoreError(f"cannot check {source}: {exc}", path=str(source)) from exc
    return CheckReport(counts, problems)


def render_check(report: CheckReport) -> str:
    counts = ", ".join(f"{n:,} {table}" for table, n in report.counts.items())
    if report.ok:
        return f"ok: {counts}; integrity, foreign keys, backing, chains and indexes hold"
    return "\n".join([f"PROBLEMS ({counts}):", *(f"  {p}" for p in report.problems)])
