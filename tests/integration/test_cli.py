"""The turngraph command: readable output, --json for scripts, one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from turngraph.cli import main


def run(capsys: pytest.CaptureFixture[str], db: Path, *args: str) -> tuple[int, str, str]:
    code = main([*args, "--db", str(db)])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_cli_session_from_memory_to_consolidation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "cli.db"
    assert run(capsys, db, "memories", "create", "acme")[0] == 0
    code, out, _ = run(
        capsys,
        db,
        "add",
        "--memory",
        "acme",
        "--title",
        "Kickoff",
        "--content",
        "Alice ran it.",
        "--tag",
        "acme",
        "--entity",
        '{"name": "Alice", "type": "person", "description": "Head of Platform"}',
        "--entity",
        '{"name": "Acme Corp", "type": "organization", "description": "Customer"}',
        "--relationship",
        '{"source": "Alice", "type": "works_at", "target": "Acme Corp"}',
    )
    assert code == 0
    assert "wrote kickoff" in out
    assert "new Alice (person, degree 1)" in out
    code, out, _ = run(capsys, db, "show", "--memory", "acme", "kickoff", "--json")
    obs = json.loads(out)
    assert (obs["slug"], obs["content"], obs["tags"]) == ("kickoff", "Alice ran it.", ["acme"])
    code, out, _ = run(capsys, db, "entities", "--memory", "acme", "--json")
    assert {e["name"] for e in json.loads(out)} == {"Alice", "Acme Corp"}
    code, out, _ = run(capsys, db, "entities", "--memory", "acme", "alice")
    assert "Alice -[works_at]-> Acme Corp" in out
    local = tmp_path / "notes.md"
    local.write_text("# notes\n")
    code, out, _ = run(
        capsys,
        db,
        "files",
        "put",
        "--memory",
        "acme",
        "notes/a.md",
        str(local),
        "--description",
        "Raw notes",
    )
    assert code == 0
    assert "stored notes/a.md (8 bytes, text/markdown)" in out
    code, out, _ = run(capsys, db, "files", "list", "--memory", "acme", "--json")
    assert [f["path"] for f in json.loads(out)] == ["notes/a.md"]
    run(
        capsys,
        db,
        "add",
        "--memory",
        "acme",
        "--title",
        "Other",
        "--content",
        "x",
        "--entity",
        '{"name": "Acme Corporation", "type": "organization", "description": "Customer"}',
    )
    code, out, _ = run(capsys, db, "consolidate", "run", "--memory", "acme", "--json")
    (proposal,) = json.loads(out)
    code, out, _ = run(capsys, db, "consolidate", "accept", str(proposal["id"]), "--memory", "acme")
    assert code == 0
    assert "merged 'Acme Corporation' into 'Acme Corp'" in out
    code, out, _ = run(capsys, db, "delete", "--memory", "acme", "kickoff")
    assert "pruned entity Alice" in out
    code, out, _ = run(capsys, db, "memories")
    assert out.startswith("acme")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["show", "--memory", "nope", "x"], "no memory named 'nope'"),
        (
            ["add", "--memory", "m", "--title", "t", "--content", "c", "--entity", "{bad"],
            "--entity is not valid JSON",
        ),
        (
            ["add", "--memory", "m", "--title", "t", "--content", "c", "--entity", '{"name": "A"}'],
            "needs a non-empty description",
        ),
        (["files", "put", "--memory", "m", "../x", "/dev/null", "--description", "d"], "'..'"),
    ],
)
def test_errors_are_one_line_and_a_non_zero_exit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    db = tmp_path / "cli.db"
    run(capsys, db, "memories", "create", "m")
    code, out, err = run(capsys, db, *args)
    assert code == 1
    assert out == ""
    assert err.count("\n") == 1
    assert err.startswith("turngraph: error: ")
    assert message in err


def test_the_console_script_and_the_demo_run(tmp_path: Path) -> None:
    exe = Path(sys.executable).with_name("turngraph")
    env = {**os.environ, "TURNGRAPH_DB": str(tmp_path / "demo.db")}
    done = subprocess.run(
        [str(exe), "demo"], capture_output=True, text=True, env=env, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "wrote 'kickoff-with-acme'" in done.stdout
    assert "pruned entities: Acme Corp, Berlin summit" in done.stdout
    failed = subprocess.run(
        [str(exe), "show", "x", "--memory", "missing"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert failed.returncode == 1
    assert failed.stderr == "turngraph: error: no memory named 'missing'\n"


def test_memories_create_exist_ok_runs_twice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "cli.db"
    assert run(capsys, db, "memories", "create", "acme", "--exist-ok")[0] == 0
    code, out, err = run(capsys, db, "memories", "create", "acme", "--exist-ok")
    assert (code, err) == (0, "")
    assert "acme" in out
    code, _, err = run(capsys, db, "memories", "create", "acme")
    assert code == 1
    assert "already exists" in err
