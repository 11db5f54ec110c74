"""`turngraph backup` and `turngraph check` on a database that a writer is using."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

import pytest

import turngraph
from turngraph.cli import main
from turngraph.core.maintenance import check_database


@contextmanager
def writing(path: Path) -> Iterator[list[str]]:
    """A thread writing observations and turns until the block ends; yields the titles of
    the writes acknowledged so far (appended after each returns)."""
    acknowledged: list[str] = []
    stop = threading.Event()
    db = turngraph.open(path)
    mem = db.create_memory("busy", retrieval={"embedder": "none"})
    failures: list[BaseException] = []

    def run() -> None:
        i = 0
        try:
            while not stop.is_set():
                title = f"note {i}"
                mem.add_observation(
                    title=title,
                    content=f"Maya{i % 7} met Bob in Town{i}",
                    entities=[
                        {"name": f"Maya{i % 7}", "type": "person", "description": "a friend"}
                    ],
                )
                acknowledged.append(title)
                if i % 5 == 0:
                    mem.remember(f"I moved to Town{i}. I like tea number {i}.")
                i += 1
        except BaseException as exc:
            failures.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    try:
        while len(acknowledged) < 20:  # the writer is well under way
            threading.Event().wait(0.02)
        yield acknowledged
    finally:
        stop.set()
        thread.join(30)
        db.close()
    assert not failures, failures


def titles(path: Path) -> set[str]:
    with closing(sqlite3.connect(path)) as conn:
        return {r[0] for r in conn.execute("SELECT title FROM observations")}


def test_a_backup_taken_during_writes_is_consistent_and_has_every_acknowledged_write(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source, copy = tmp_path / "live.db", tmp_path / "backups" / "copy.db"
    with writing(source) as acknowledged:
        before = list(acknowledged)
        assert main(["backup", str(copy), "--db", str(source)]) == 0
        after = list(acknowledged)
    assert "backed up" in capsys.readouterr().out
    report = check_database(copy)
    assert report.ok, report.problems
    found = titles(copy) & {f"note {i}" for i in range(len(after) + 1)}
    assert set(before) <= found  # everything acknowledged before the backup began
    assert found <= set(after) | {f"note {len(after)}"}  # nothing beyond what was written
    assert not list(copy.parent.glob(".*partial*"))
    # A second backup to the same path is refused instead of overwriting it.
    assert main(["backup", str(copy), "--db", str(source)]) == 1
    assert "exists" in capsys.readouterr().err


def test_check_passes_while_a_writer_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "live.db"
    with writing(path) as acknowledged:
        for _ in range(5):
            assert main(["check", "--db", str(path)]) == 0
        assert len(acknowledged) > 20
    out = capsys.readouterr().out
    assert out.count("ok: ") == 5


def test_check_reports_each_broken_invariant(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "broken.db"
    with writing(path):
        pass
    assert check_database(path).ok
    with closing(sqlite3.connect(path)) as conn, conn:
        entity = conn.execute("SELECT min(entity_id) FROM observation_entities").fetchone()[0]
        conn.execute("DELETE FROM observation_entities WHERE entity_id = ?", (entity,))
        conn.execute(
            "DELETE FROM fts_observations WHERE rowid = (SELECT max(id) FROM observations)"
        )
        conn.execute(
            "UPDATE attributes SET superseded_by = 'attr:missing' "
            "WHERE rowid = (SELECT min(rowid) FROM attributes)"
        )
    problems = check_database(path).problems
    assert any("entities backed by no observation" in p for p in problems), problems
    assert any("observations missing from the full-text index" in p for p in problems), problems
    assert any("superseded_by link is not returned" in p for p in problems), problems
    assert main(["check", "--db", str(path)]) == 1
    assert "PROBLEMS" in capsys.readouterr().out
