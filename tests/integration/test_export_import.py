"""`turngraph export` / `import`: whole memories through a file, on both backends.

A memory with every kind of row is exported and imported into a fresh SQLite file and into
PostgreSQL; every public read compares equal to the original's, ids and times included.
An import killed half-way leaves nothing, the next run finishes it, and a run after that
changes nothing. A cut-short or malformed file writes nothing and names what is wrong."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import turngraph

from .test_copy import _build, _dump

pytest.importorskip("psycopg")  # the postgres extra; `make test` installs it


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "turngraph.cli", *args],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def _memories(dump: dict[str, object]) -> object:
    return dump["memories"]  # principals, keys and grants are not part of an export


def test_an_export_restores_every_memory_exactly_into_sqlite_and_postgresql(
    tmp_path: Path, postgres_url: str
) -> None:
    original = tmp_path / "original.db"
    _build(original)
    file = tmp_path / "all.jsonl"
    made = _cli("export", "--all", str(file), "--db", str(original))
    assert made.returncode == 0, made.stderr
    assert not (tmp_path / "all.jsonl.partial").exists()
    header = json.loads(file.read_text("utf-8").splitlines()[0])
    assert (header["format"], header["version"], header["memories"]) == (
        "turngraph.memory",
        1,
        ["acme", "quiet"],
    )
    expected = _memories(_dump(original))
    for target in (str(tmp_path / "restored.db"), postgres_url):
        first = _cli("import", "--all", "--create", str(file), "--db", target, "--json")
        assert first.returncode == 0, first.stderr
        assert [(m["memory"], m["status"]) for m in json.loads(first.stdout)] == [
            ("acme", "imported"),
            ("quiet", "imported"),
        ]
        assert _memories(_dump(target)) == expected
        again = _cli("import", "--all", str(file), "--db", target, "--json")
        assert again.returncode == 0, again.stderr
        assert {m["status"] for m in json.loads(again.stdout)} == {"unchanged"}
        assert _memories(_dump(target)) == expected
    # A restored memory carries on where the original left off.
    with turngraph.open(tmp_path / "restored.db") as db:
        mem = db.memory("acme")
        session = mem.list_sessions().sessions[0].id
        turn = mem.remember("I moved to Hull.", speaker="Maya", session_id=session)
        assert [t.id for t in mem.list_turns(session).turns][4:] == [turn.turn_id]
        now = {a.key: a.value for a in mem.entity_state("person", "Maya").attributes}
        assert now["location"] == "Hull"


def test_an_import_killed_half_way_leaves_nothing_and_the_next_run_finishes_it(
    tmp_path: Path,
) -> None:
    source = tmp_path / "source.db"
    with turngraph.open(source) as db:
        mem = db.create_memory("m", retrieval={"embedder": "none"})
        for batch in range(6):
            mem.remember_many(
                [{"content": f"Message {batch}-{i} about the plan."} for i in range(500)],
                session_id=mem.create_session(session_id=f"session:s{batch}").id,
                infer="none",
            )
    file = tmp_path / "m.jsonl"
    exported = _cli("export", str(file), "--memory", "m", "--db", str(source))
    assert exported.returncode == 0, exported.stderr
    target = tmp_path / "target.db"
    args = ["import", str(file), "--memory", "m", "--create", "--db", str(target)]
    process = subprocess.Popen(
        [sys.executable, "-m", "turngraph.cli", *args],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )
    assert process.stderr is not None
    line = process.stderr.readline()  # the first progress line: 1,000 of ~9,000 records
    process.kill()
    assert process.wait(timeout=60) == -9, line
    assert "1000 records" in line
    with turngraph.open(target) as db:
        names = [m.name for m in db.list_memories()]
        assert names in ([], ["m"])  # created, then killed before its rows committed
        if names:
            assert db.memory("m").info().turns == 0
    finished = _cli(*args, "--json")
    assert finished.returncode == 0, finished.stderr
    assert json.loads(finished.stdout)[0]["counts"]["turn"] == 3000
    again = _cli(*args, "--json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)[0]["status"] == "unchanged"
    assert _memories(_dump(target)) == _memories(_dump(source))


def test_a_cut_short_or_malformed_file_writes_nothing_and_says_which_line(
    tmp_path: Path,
) -> None:
    source = tmp_path / "source.db"
    with turngraph.open(source) as db:
        mem = db.create_memory("m", retrieval={"embedder": "none"})
        mem.remember("I live in Leeds.", speaker="Dana")
        mem.remember("I work at Globex.", speaker="Dana")
    file = tmp_path / "m.jsonl"
    exported = _cli("export", str(file), "--memory", "m", "--db", str(source))
    assert exported.returncode == 0, exported.stderr
    lines = file.read_text("utf-8").splitlines()
    turn = next(i for i, x in enumerate(lines) if json.loads(x).get("record") == "turn")
    broken = dict(json.loads(lines[turn]), observation_id=999)
    unknown = dict(json.loads(lines[turn]), record="vector")
    bad_time = dict(json.loads(lines[turn]), created_at="yesterday")
    cases = {
        "cut.jsonl": (lines[:-1], "incomplete"),
        "ref.jsonl": (
            [*lines[:turn], json.dumps(broken), *lines[turn + 1 :]],
            f"line {turn + 1}: observation 999 is not defined by an earlier record",
        ),
        "kind.jsonl": (
            [*lines[:turn], json.dumps(unknown), *lines[turn + 1 :]],
            f"line {turn + 1}: unknown record kind 'vector'",
        ),
        "time.jsonl": (
            [*lines[:turn], json.dumps(bad_time), *lines[turn + 1 :]],
            f"line {turn + 1}: created_at",
        ),
        "json.jsonl": ([*lines[:3], "{", *lines[3:]], "line 4 is not valid JSON"),
        "format.jsonl": (['{"format": "other"}', *lines[1:]], "not a turngraph export"),
        "extra.jsonl": ([*lines, lines[-1]], "more records after the file's last memory"),
    }
    target = tmp_path / "target.db"
    with turngraph.open(target) as db:
        db.create_memory("kept", retrieval={"embedder": "none"}).remember("Keep me.")
    for name, (content, message) in cases.items():
        path = tmp_path / name
        path.write_text("\n".join(content) + "\n", "utf-8")
        done = _cli("import", str(path), "--memory", "m", "--create", "--db", str(target))
        assert done.returncode == 1, (name, done.stdout)
        assert message in done.stderr, (name, done.stderr)
        assert "Traceback" not in done.stderr
        with turngraph.open(target) as db:
            assert [m.name for m in db.list_memories()] == ["kept"], name
    refused = _cli("import", str(file), "--memory", "kept", "--db", str(target))
    assert refused.returncode == 1
    assert "already holds other rows" in refused.stderr
    missing = _cli("import", str(file), "--memory", "m", "--db", str(target))
    assert missing.returncode == 1, missing.stderr
    assert "no memory named 'm': create it first, or import with --create" in missing.stderr
    with turngraph.open(target) as db:
        assert db.memory("kept").info().turns == 1


def test_reextract_and_the_older_turn_only_export_replay_turns_once(tmp_path: Path) -> None:
    source = tmp_path / "source.db"
    with turngraph.open(source) as db:
        mem = db.create_memory("m", retrieval={"embedder": "none"})
        mem.create_session({"user": "Dana"}, session_id="session:a")
        mem.remember("I work at Acme as VP of sales.", session_id="session:a", labels=["x"])
        mem.remember("Noted, congrats!", session_id="session:a", role="assistant")
        mem.remember("I got promoted to CTO", session_id="session:a")
        expected = [(a.key, a.value) for a in mem.entity_state("person", "Dana").attributes]
    file = tmp_path / "m.jsonl"
    exported = _cli("export", str(file), "--memory", "m", "--db", str(source))
    assert exported.returncode == 0, exported.stderr
    older = tmp_path / "older.jsonl"
    older.write_text(
        json.dumps({"kind": "session", "id": "session:a", "metadata": {"user": "Dana"}})
        + "\n"
        + "".join(
            json.dumps({"kind": "turn", "session_id": "session:a", "content": c, "role": r}) + "\n"
            for c, r in [
                ("I work at Acme as VP of sales.", "user"),
                ("Noted, congrats!", "assistant"),
                ("I got promoted to CTO", "user"),
            ]
        ),
        "utf-8",
    )
    for path, extra in ((file, ["--reextract"]), (older, [])):
        target = tmp_path / f"{path.stem}-target.db"
        args = ["import", str(path), "--memory", "m", "--create", "--db", str(target), *extra]
        first, second = _cli(*args, "--json"), _cli(*args, "--json")
        assert first.returncode == 0, first.stderr
        assert second.returncode == 0, second.stderr
        assert json.loads(first.stdout)[0]["counts"] == {"session": 1, "turn": 3, "unchanged": 0}
        assert json.loads(second.stdout)[0]["counts"] == {"session": 1, "turn": 0, "unchanged": 3}
        with turngraph.open(target) as db:
            mem = db.memory("m")
            assert mem.info().turns == 3
            state = mem.entity_state("person", "Dana").attributes
            assert [(a.key, a.value) for a in state] == expected


def test_an_empty_memory_imports_twice_as_unchanged(tmp_path: Path) -> None:
    source = tmp_path / "source.db"
    with turngraph.open(source) as db:
        db.create_memory("empty", retrieval={"embedder": "none"})
    file = tmp_path / "e.jsonl"
    exported = _cli("export", str(file), "--memory", "empty", "--db", str(source))
    assert exported.returncode == 0, exported.stderr
    args = ["import", str(file), "--memory", "empty", "--create", "--db", str(tmp_path / "t.db")]
    first, second = _cli(*args, "--json"), _cli(*args, "--json")
    assert first.returncode == 0, first.stderr
    assert second.returncode == 0, second.stderr
    assert [json.loads(x.stdout)[0]["status"] for x in (first, second)] == [
        "imported",
        "unchanged",
    ]
