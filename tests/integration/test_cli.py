"""The turngraph command: readable output, --json for scripts, one-line errors."""

from __future__ import annotations

import argparse
import io
import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import turngraph
from turngraph.cli import main
from turngraph.cli.commands import build_parser


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
    assert failed.stderr == (
        "turngraph: error: no memory named 'missing' "
        "(create it: turngraph memories create missing)\n"
    )


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


def _seed(capsys: pytest.CaptureFixture[str], db: Path) -> None:
    assert run(capsys, db, "memories", "create", "acme")[0] == 0
    for title in ("Kickoff", "Kickstart"):
        code, _, err = run(
            capsys,
            db,
            "add",
            "--memory",
            "acme",
            "--title",
            title,
            "--content",
            "Alice ran it.",
            "--entity",
            '{"name": "Alice", "type": "person", "description": "Head of Platform"}',
        )
        assert code == 0, err


def test_global_flags_come_before_the_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "cli.db"
    _seed(capsys, db)
    code = main(["--db", str(db), "--memory", "acme", "--json", "entities"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert [e["name"] for e in json.loads(out)] == ["Alice"]
    # A flag after the command still wins over the default, and before it over nothing.
    assert main(["--memory", "acme", "show", "kickoff", "--db", str(db)]) == 0
    assert "Kickoff" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args",
    [
        ["memories"],
        ["memories", "list"],
        ["show", "kickoff"],
        ["entities"],
        ["files", "list"],
        ["files", "get", "notes/a.md"],
        ["consolidate", "list"],
        ["keys", "list"],
    ],
)
def test_read_only_commands_create_no_database(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    db = tmp_path / "missing.db"
    code, out, err = run(capsys, db, *args)
    assert (code, out) == (1, "")
    assert f"no database at {db}" in err
    assert not db.exists()


def test_keys_list_has_a_header(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "cli.db"
    code, _, _ = run(capsys, db, "keys", "create", "bot", "--name", "ci")
    assert code == 0
    code, out, _ = run(capsys, db, "keys", "list")
    header, row = out.splitlines()
    assert header.split() == ["ID", "PRINCIPAL", "NAME", "CREATED", "STATUS"]
    assert row.split()[1:3] == ["bot", "ci"]
    assert row.split()[-1] == "active"


def test_grant_names_the_memorys_organization(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "cli.db"
    with turngraph.open(db) as opened:
        opened.create_memory("notes", organization="acme", retrieval={"embedder": "none"})
    assert run(capsys, db, "keys", "create", "bot", "--org", "acme")[0] == 0
    code, _, err = run(capsys, db, "grant", "bot", "notes")
    assert code == 1
    assert "no memory named 'notes'" in err
    code, out, _ = run(capsys, db, "grant", "bot", "notes", "--org", "acme", "--json")
    assert (code, json.loads(out)["tier"]) == (0, "read_write")
    with turngraph.open(db) as opened:
        grants = opened.access.list_grants("bot")
        assert [(g.memory, g.organization) for g in grants] == [("notes", "acme")]


def _parsers(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):
                yield from _parsers(child)


def test_every_flag_has_help_and_every_command_an_example() -> None:
    for parser in _parsers(build_parser()):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction | argparse._HelpAction):
                continue
            assert action.help, (parser.prog, action.dest)
            assert action.help != argparse.SUPPRESS, (parser.prog, action.dest)
        text = parser.format_help()
        assert "\nexample:\n  turngraph " in text, parser.prog


@pytest.mark.parametrize(
    "args",
    [
        ["serve", "--json"],
        ["serve", "--memory", "acme"],
        ["keys", "list", "--memory", "acme"],
        ["memories", "create", "x", "--memory", "acme"],
        ["grant", "bot", "acme", "--memory", "acme"],
        ["mcp", "--json"],
        ["demo", "--json"],
    ],
)
def test_a_command_refuses_a_flag_it_would_ignore(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    with pytest.raises(SystemExit) as exit:
        main([*args, "--db", str(tmp_path / "x.db")])
    assert exit.value.code == 2
    assert "unrecognized arguments" in capsys.readouterr().err


def test_entities_refuses_list_flags_when_showing_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "cli.db"
    _seed(capsys, db)
    code, _, err = run(capsys, db, "entities", "--memory", "acme", "Alice", "--type", "person")
    assert code == 1
    assert "--type and --limit narrow the list of entities" in err


def test_slugs_and_key_ids_by_unique_prefix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "cli.db"
    _seed(capsys, db)
    code, out, _ = run(capsys, db, "show", "--memory", "acme", "kicko")
    assert (code, out.split()[0]) == (0, "kickoff")
    code, _, err = run(capsys, db, "show", "--memory", "acme", "kick")
    assert code == 1
    assert "'kick' starts several observations (kickoff, kickstart)" in err
    code, out, _ = run(capsys, db, "delete", "--memory", "acme", "kicks")
    assert out.startswith("deleted kickstart")
    run(capsys, db, "keys", "create", "bot")
    code, out, _ = run(capsys, db, "keys", "list", "--json")
    key_id = json.loads(out)[0]["id"]
    code, out, err = run(capsys, db, "keys", "revoke", key_id[:-3])
    assert (code, out.strip()) == (0, f"revoked {key_id}"), err


def test_serve_says_address_in_use_before_it_claims_to_serve(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        db = tmp_path / "serve.db"
        done = subprocess.run(
            [sys.executable, "-m", "turngraph.cli", "serve", "--db", str(db), "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert done.returncode == 1
    assert f"address already in use: 127.0.0.1:{port}" in done.stderr
    assert "serving" not in done.stdout
    assert "Admin key" not in done.stdout  # no key printed that would then be lost
    assert not db.exists()


def _commands() -> list[list[str]]:
    """Every command and every action of the parser, as argument lists."""
    found: list[list[str]] = []

    def walk(parser: argparse.ArgumentParser, path: list[str]) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    found.append([*path, name])
                    walk(sub, [*path, name])

    walk(build_parser(), [])
    return found


LONG_RUNNING = {"serve", "mcp"}  # with no arguments they start serving, as asked


def test_every_command_answers_a_usage_error_in_one_line_with_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # a fresh folder: no database yet
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    commands = _commands()
    assert len(commands) > 40
    for args in commands:
        with pytest.raises(SystemExit) as bad:
            main([*args, "--no-such-flag"])
        err = capsys.readouterr().err
        assert bad.value.code == 2, args
        assert err.count("\n") == 1, (args, err)
        assert "error:" in err, (args, err)
        assert "--help" in err, (args, err)
        if args[0] in LONG_RUNNING:
            continue
        try:
            code = main([*args, "--db", str(tmp_path / f"{'-'.join(args)}.db")])
        except SystemExit as exit:
            code = exit.code
        _, err = capsys.readouterr()
        assert code in (0, 1, 2), (args, code)
        assert err.count("\n") <= 1, (args, err)
        assert (code == 0) == (err == ""), (args, code, err)


def test_the_first_write_in_a_fresh_folder_creates_the_default_memory_and_no_other(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "fresh.db"
    code, out, err = run(capsys, db, "remember", "I moved to Leeds", "--speaker", "Dana")
    assert (code, err) == (0, "")
    assert "location = Leeds" in out
    code, _, err = run(capsys, db, "remember", "hello", "--memory", "defualt")
    assert code == 1
    assert "create it: turngraph memories create defualt" in err
    with turngraph.open(db) as opened:
        assert [m.name for m in opened.list_memories()] == ["default"]
