"""The CLI reaches the whole memory: remember (one turn, or many from stdin as lines or
JSONL), recall, state, history, sessions, turns and forget, each with --json printing the
core's model, and errors on stderr with exit status 1."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

import turngraph
from turngraph.cli import main
from turngraph.cli.memory import PROGRESS_EVERY


def run(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    db: Path,
    *args: str,
    stdin: str | None = None,
) -> tuple[int, str, str]:
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main([*args, "--db", str(db), "--memory", "m"])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_cli_remembers_recalls_and_reads_state_and_history_as_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "c.db"
    with turngraph.open(db) as opened:
        opened.create_memory("m", retrieval={"embedder": "none"})
    code, out, _ = run(
        capsys, monkeypatch, db, "remember", "I work at Acme as VP of sales.",
        "--speaker", "Dana", "--session", "session:s1", "--json",
    )  # fmt: skip
    assert code == 0
    first = json.loads(out)
    assert first["session_id"] == "session:s1"
    lines = "".join(f"line {i}\n" for i in range(PROGRESS_EVERY - 1))
    code, out, err = run(
        capsys, monkeypatch, db, "remember", "--session", "session:s1", "--speaker", "Dana",
        "--json", stdin=f"I just got promoted to CTO\n\n{lines}",
    )  # fmt: skip
    assert code == 0
    assert len(json.loads(out)) == PROGRESS_EVERY
    assert f"remembered {PROGRESS_EVERY} turns" in err  # progress on a long import
    jsonl = json.dumps({"text": "I love jazz", "speaker": "Dana", "session_id": "session:s2"})
    code, out, _ = run(capsys, monkeypatch, db, "remember", "--jsonl", "--json", stdin=jsonl)
    assert (code, json.loads(out)[0]["session_id"]) == (0, "session:s2")

    with turngraph.open(db) as opened:
        mem = opened.memory("m")
        expected = {
            ("history", "person", "Dana", "job_title"): [
                v.model_dump(mode="json") for v in mem.entity_history("person", "Dana", "job_title")
            ],
            ("state", "--entity", "person", "Dana"): mem.entity_state("person", "Dana").model_dump(
                mode="json"
            ),
            ("turns", "session:s2"): mem.list_turns("session:s2").model_dump(mode="json"),
            ("sessions", "show", "session:s1"): mem.get_session("session:s1").model_dump(
                mode="json"
            ),
            ("state",): mem.state().model_dump(mode="json"),
            ("recall", "jazz"): mem.recall("jazz").model_dump(mode="json"),
        }
    assert [v["value"] for v in expected[("history", "person", "Dana", "job_title")]] == [
        "VP of sales",
        "CTO",
    ]
    for command, value in expected.items():
        code, out, _ = run(capsys, monkeypatch, db, *command, "--json")
        assert code == 0, command
        got = json.loads(out)
        if command[0] in ("state", "recall") and len(command) <= 2:
            for moving in ("as_of", "took_ms"):  # the time asked at, the time it took
                got.pop(moving, None)
                value.pop(moving, None)
        assert got == value, command
    code, out, _ = run(capsys, monkeypatch, db, "forget", "jazz", "--dry-run", "--json")
    assert (code, json.loads(out)["deleted"]) == (0, 1)
    code, out, _ = run(capsys, monkeypatch, db, "forget", "jazz", "--json")
    assert json.loads(out)["deleted"] == 1
    code, out, _ = run(capsys, monkeypatch, db, "sessions", "delete", "session:s2", "--json")
    assert json.loads(out) == {"deleted_turns": 0}


def test_cli_errors_go_to_stderr_with_exit_status_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "e.db"
    with turngraph.open(db) as opened:
        opened.create_memory("m", retrieval={"embedder": "none"})
    code, out, err = run(capsys, monkeypatch, db, "history", "person", "Nobody", "job", "--json")
    assert (code, out) == (1, "")
    assert "no person named 'Nobody'" in err
    code, out, err = run(capsys, monkeypatch, db, "remember", "--jsonl", stdin='{"text": "ok"}\n[')
    assert (code, out) == (1, "")
    assert "line 2" in err


def test_progress_is_one_line_rewritten_on_a_terminal_and_lines_in_a_log(tmp_path: Path) -> None:
    """A long import reports progress: on a terminal one line rewritten in place (ended when
    the command ends), in a pipe one line per report."""
    import os
    import pty
    import subprocess
    import sys

    source = tmp_path / "source.db"
    with turngraph.open(source) as db:
        mem = db.create_memory("m", retrieval={"embedder": "none"})
        session = mem.create_session().id
        for batch in range(3):
            mem.remember_many(
                [{"content": f"line {batch}-{i}"} for i in range(500)],
                session_id=session,
                infer="none",
            )
    file = tmp_path / "m.jsonl"
    cli = [sys.executable, "-m", "turngraph.cli"]
    exported = [*cli, "export", str(file), "--memory", "m", "--db", str(source)]
    assert subprocess.run(exported, check=False).returncode == 0
    args = [*cli, "import", str(file), "--memory", "m", "--create"]
    piped = subprocess.run(
        [*args, "--db", str(tmp_path / "piped.db")], capture_output=True, text=True, check=False
    )
    assert piped.returncode == 0, piped.stderr
    assert "\r" not in piped.stderr
    assert "1000 records" in piped.stderr.splitlines()[0]
    leader, follower = pty.openpty()
    done = subprocess.run(
        [*args, "--db", str(tmp_path / "tty.db")],
        stdout=subprocess.DEVNULL,
        stderr=follower,
        check=False,
    )
    os.close(follower)
    seen = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    os.close(leader)
    text = seen.decode()
    assert done.returncode == 0, text[-2000:]
    assert "\r" in text
    assert "1000 records" in text
    assert text.endswith("\n")
    assert text.count("\n") < piped.stderr.count("\n")  # rewritten, not one line per report
