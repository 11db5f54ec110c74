"""``turngraph serve`` as a process: first start, keys and grants from the command line, its
heap kept out of the collector's full passes, its PostgreSQL pool from the environment."""

from __future__ import annotations

import gc
import json
import os
import re
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from turngraph.errors import ValidationError

from .conftest import free_port

CLI = [sys.executable, "-m", "turngraph.cli"]


@contextmanager
def server_process(
    db: Path, port: int, env: dict[str, str] | None = None
) -> Iterator[tuple[subprocess.Popen[str], list[str]]]:
    """Start the server; yield its process and the lines it printed before it was ready."""
    proc = subprocess.Popen(
        [*CLI, "serve", "--db", str(db), "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, **(env or {})},
    )
    lines: list[str] = []
    try:
        assert proc.stdout is not None
        while True:
            line = proc.stdout.readline()
            if not line:
                raise AssertionError("server exited:\n" + "".join(lines))
            lines.append(line)
            if "turngraph: serving" in line:
                break
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/api/v1/health").status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.05)
        yield proc, lines
    finally:
        proc.terminate()
        rest, _ = proc.communicate(timeout=10)
    # It stops on SIGTERM, closes the database and exits 0 (a test may have stopped it first).
    output = "".join(lines) + (rest or "")
    assert proc.returncode == 0, f"exit {proc.returncode}:\n{output[-4000:]}"


@contextmanager
def serving(db: Path, port: int, env: dict[str, str] | None = None) -> Iterator[list[str]]:
    """Start the server; yield the lines it printed before it was ready."""
    with server_process(db, port, env) as (_, lines):
        yield lines


def cli(db: Path, *args: str) -> str:
    done = subprocess.run(
        [*CLI, *args, "--db", str(db)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def printed_example(text: str) -> str:
    """The shell lines of the banner's example, exactly as printed (after "Try it ...:", before the
    docs link), dedented."""
    block = text.split("Try it", 1)[1].split(":\n", 1)[1].split("\nAPI docs:", 1)[0]
    return textwrap.dedent(block).strip() + "\n"


def test_first_start_prints_a_working_key_once(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with serving(db, port) as lines:
        text = "".join(lines)
        key = re.search(r"^\s+(tg_\S+)$", text, re.M)
        assert key is not None, text
        # The printed example, pasted into a shell as printed: every curl call succeeds.
        script = printed_example(text)
        assert script.count("curl ") == 2, script
        done = subprocess.run(
            ["bash", "-e", "-c", script], capture_output=True, text=True, timeout=60, check=False
        )
        assert done.returncode == 0, done.stdout + done.stderr
        written, answer = (json.loads(part) for part in _json_documents(done.stdout))
        assert "sessionId" in written, written
        assert "Acme" in answer["hits"][0]["text"]
        # It wrote as its own speaker, in its own session: the memory's 'user' is untouched.
        auth = {"Authorization": f"Bearer {key.group(1)}"}
        turns = httpx.get(
            f"{base}/api/v1/default/sessions/{written['sessionId']}/turns", headers=auth
        ).json()
        speaker = re.search(r'"speaker": "([^"]+)"', script)
        assert speaker is not None, script
        assert [t["speaker"] for t in turns["turns"]] == [speaker.group(1)], turns
        assert httpx.get(f"{base}/openapi.json").json()["info"]["title"] == "turngraph"
        assert httpx.get(f"{base}/docs").status_code == 200
        # The inspector's URL is printed, and it serves the page.
        inspector = re.search(r"^Inspector \(sign in with the key\): (\S+)$", text, re.M)
        assert inspector is not None, text
        assert inspector.group(1) == f"{base}/ui/"
        page = httpx.get(inspector.group(1))
        assert page.status_code == 200
        assert "turngraph inspector" in page.text
    # A second start prints no key; a key made on the command line works at its tier.
    agent_key = cli(db, "keys", "create", "bot", "--name", "ci")
    assert agent_key.startswith("tg_")
    with serving(db, free_port()) as lines:
        assert not re.search(r"tg_\S+", "".join(lines))
    assert "bot -> default: read" in cli(db, "grant", "bot", "default", "--tier", "read")
    port = free_port()
    with serving(db, port):
        auth = {"Authorization": f"Bearer {agent_key}"}
        base = f"http://127.0.0.1:{port}"
        r = httpx.post(f"{base}/api/v1/default/query", headers=auth, json={"query": "Acme"})
        assert r.status_code == 200
        r = httpx.post(f"{base}/api/v1/default/facts", headers=auth, json={"text": "x"})
        assert r.status_code == 403
        key_id = cli(db, "keys", "list", "--principal", "bot").splitlines()[1].split()[0]
        cli(db, "keys", "revoke", key_id)
        r = httpx.post(f"{base}/api/v1/default/query", headers=auth, json={"query": "Acme"})
        assert r.status_code == 401


def test_an_operator_key_is_adopted(tmp_path: Path) -> None:
    port = free_port()
    chosen = "operator-chosen-key-0123456789"
    with serving(tmp_path / "t.db", port, {"TURNGRAPH_ADMIN_KEY": chosen}) as lines:
        assert chosen not in "".join(lines)
        r = httpx.get(
            f"http://127.0.0.1:{port}/v1/whoami", headers={"Authorization": f"Bearer {chosen}"}
        )
        assert r.json()["principal"]["admin"] is True


def _json_documents(text: str) -> list[str]:
    """Consecutive JSON documents in ``text`` (curl prints one per call, no separator)."""
    decoder = json.JSONDecoder()
    out, i = [], 0
    while i < len(text):
        if text[i].isspace():
            i += 1
            continue
        _, end = decoder.raw_decode(text, i)
        out.append(text[i:end])
        i = end
    return out


def test_a_serving_process_takes_its_heap_out_of_the_collectors_passes(tmp_path: Path) -> None:
    """The app of ``turngraph serve`` freezes what is alive once it has started, so that a
    full collection walks only what requests leave behind; an app embedded in another
    program leaves that program's collector alone."""
    from fastapi.testclient import TestClient

    from turngraph.server import ServerSettings, create_app

    settings = ServerSettings(db=str(tmp_path / "turngraph.db"))
    before = gc.get_freeze_count()
    try:
        with TestClient(create_app(settings)) as client:
            assert client.get("/api/v1/health").status_code == 200
            assert gc.get_freeze_count() == before
        with TestClient(create_app(settings, freeze=True)) as client:
            assert client.get("/api/v1/health").status_code == 200
            assert gc.get_freeze_count() > before
    finally:
        gc.unfreeze()


def test_the_postgres_pool_is_sized_from_the_environment(tmp_path: Path) -> None:
    """``TURNGRAPH_POSTGRES_POOL_SIZE`` and ``..._POOL_TIMEOUT_SECONDS`` reach the database's
    settings; a value no pool can have stops the server at start, naming the variable."""
    from turngraph.server import ServerSettings

    core = ServerSettings.load(
        {"TURNGRAPH_POSTGRES_POOL_SIZE": "4", "TURNGRAPH_POSTGRES_POOL_TIMEOUT_SECONDS": "2.5"}
    ).core()
    assert (core.postgres_pool_size, core.postgres_pool_timeout_seconds) == (4, 2.5)
    for name, raw in (
        ("POOL_SIZE", "0"),
        ("POOL_SIZE", "four"),
        ("POOL_TIMEOUT_SECONDS", "0"),
        ("POOL_TIMEOUT_SECONDS", "inf"),
    ):
        done = subprocess.run(
            [*CLI, "serve", "--db", str(tmp_path / "t.db"), "--port", str(free_port())],
            env={**os.environ, f"TURNGRAPH_POSTGRES_{name}": raw},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 1, done.stderr
        assert f"TURNGRAPH_POSTGRES_{name} must be" in done.stderr
    assert not (tmp_path / "t.db").exists()  # refused before anything was created


@pytest.mark.parametrize(
    ("name", "raw"),
    [
        ("HEAD_TIMEOUT_SECONDS", "0"),
        ("BODY_TIMEOUT_SECONDS", "-1"),
        ("BODY_TIMEOUT_SECONDS", "nan"),
        ("CONNECTIONS_PER_CLIENT", "0"),
        ("EXTRACTION_TIMEOUT_SECONDS", "0"),
        ("LLM_TIMEOUT_SECONDS", "inf"),
    ],
)
def test_a_connection_bound_no_server_can_keep_is_refused_naming_it(name: str, raw: str) -> None:
    from turngraph.server import ServerSettings

    with pytest.raises(ValidationError, match=f"TURNGRAPH_{name} must be"):
        ServerSettings.load({f"TURNGRAPH_{name}": raw})


def test_the_extraction_bounds_reach_the_extractors() -> None:
    """``TURNGRAPH_EXTRACTION_TIMEOUT_SECONDS`` bounds the rules' worker processes and
    ``TURNGRAPH_LLM_TIMEOUT_SECONDS`` the language-model endpoint."""
    from turngraph.core.extraction_pool import ProcessExtractor
    from turngraph.extract.llm import LLMExtractor
    from turngraph.plugins import extractor_from_settings
    from turngraph.server import ServerSettings

    core = ServerSettings.load({"TURNGRAPH_EXTRACTION_TIMEOUT_SECONDS": "2.5"}).core()
    pooled = extractor_from_settings(core)
    try:
        assert isinstance(pooled, ProcessExtractor)
        assert pooled.timeout == 2.5
    finally:
        pooled.close()
    llm = ServerSettings.load(
        {
            "TURNGRAPH_EXTRACTOR": "llm",
            "TURNGRAPH_LLM_BASE_URL": "http://127.0.0.1:9/v1",
            "TURNGRAPH_LLM_MODEL": "m",
            "TURNGRAPH_LLM_TIMEOUT_SECONDS": "7",
        }
    ).core()
    reader = extractor_from_settings(llm)
    assert isinstance(reader, LLMExtractor)
    assert reader.timeout == 7


def test_a_server_stopped_as_soon_as_it_says_serving_exits_0(tmp_path: Path) -> None:
    """A supervisor may stop the server the moment it prints its line: SIGTERM then already
    closes the database and exits 0 (it once met the default handler and died, -15)."""
    for run in range(3):
        proc = subprocess.Popen(
            [*CLI, "serve", "--db", str(tmp_path / "t.db"), "--port", str(free_port())],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        assert proc.stdout is not None
        lines: list[str] = []
        while not (lines and "turngraph: serving" in lines[-1]):
            line = proc.stdout.readline()
            assert line, "server exited:\n" + "".join(lines)
            lines.append(line)
        proc.terminate()
        rest, _ = proc.communicate(timeout=20)
        assert proc.returncode == 0, f"run {run}: exit {proc.returncode}\n{''.join(lines)}{rest}"
