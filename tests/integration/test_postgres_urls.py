"""PostgreSQL URLs through every face: the library, the CLI (flag and TURNGRAPH_DB) and the
server; bad URLs, an unreachable server and a full connection pool give clear errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest

import turngraph
from turngraph.config import Settings
from turngraph.errors import StoreError, ValidationError

pytest.importorskip("psycopg")  # the postgres extra; `make test` installs it

UNREACHABLE = "postgresql://turngraph:s3cret-pw@127.0.0.1:1/turngraph"


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("postgresql://turngraph@localhost:notaport/db", "port"),
        ("postgresql://turngraph@localhost/db?no_such_option=1", "no_such_option"),
    ],
)
def test_a_bad_postgresql_url_is_refused_naming_what_is_wrong(url: str, says: str) -> None:
    with pytest.raises(ValidationError) as caught:
        turngraph.open(url)
    assert caught.value.field == "url"
    assert says in str(caught.value)


def test_an_unreachable_server_is_a_store_error_without_the_password() -> None:
    with pytest.raises(StoreError) as caught:
        turngraph.open(UNREACHABLE)
    message = str(caught.value)
    assert "cannot open PostgreSQL database" in message
    assert "127.0.0.1" in message
    assert "s3cret-pw" not in message
    assert "s3cret-pw" not in json.dumps(caught.value.to_dict())


def _cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "turngraph.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, **env},
    )


def test_the_cli_takes_a_postgresql_url_from_turngraph_db(postgres_url: str) -> None:
    env = {"TURNGRAPH_DB": postgres_url}
    made = _cli("memories", "create", "acme", env=env)
    assert made.returncode == 0, made.stderr
    said = _cli("remember", "--memory", "acme", "I moved to Porto in May.", env=env)
    assert said.returncode == 0, said.stderr
    listed = _cli("memories", "list", "--json", env=env)
    assert listed.returncode == 0, listed.stderr
    assert [m["name"] for m in json.loads(listed.stdout)] == ["acme"]
    with turngraph.open(postgres_url) as db:  # the same database, opened by the library
        assert db.memory("acme").info().turns == 1


def test_the_cli_reports_an_unreachable_server_as_one_line(tmp_path: Path) -> None:
    done = _cli("memories", "list", "--db", UNREACHABLE, env={})
    assert done.returncode == 1
    assert "cannot open PostgreSQL database" in done.stderr
    assert "Traceback" not in done.stderr
    assert "s3cret-pw" not in done.stderr


def test_serve_takes_a_postgresql_url(postgres_url: str) -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "turngraph.cli", "serve", "--db", postgres_url, "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[str] = []
    try:
        assert server.stdout is not None
        for line in server.stdout:
            lines.append(line)
            if "turngraph: serving" in line:
                break
        from turngraph.store.postgres_schema import describe_url

        shown = describe_url(postgres_url)  # the URL without its password
        assert f"serving {shown} on http://127.0.0.1:{port}" in "".join(lines)
    finally:
        server.terminate()
        rest, _ = server.communicate(timeout=30)
    # It stops on SIGTERM, closes the database and exits 0.
    output = "".join(lines) + (rest or "")
    assert server.returncode == 0, f"exit {server.returncode}:\n{output[-4000:]}"
    with turngraph.open(postgres_url) as db:  # the first start made its default memory there
        assert [m.name for m in db.list_memories()] == ["default"]


def test_a_full_pool_is_a_clear_error_and_loses_no_acknowledged_write(postgres_url: str) -> None:
    settings = Settings(postgres_pool_size=1, postgres_pool_timeout_seconds=0.5)
    with turngraph.open(postgres_url, settings=settings) as db:
        mem = db.create_memory("acme")
        holding, release = threading.Event(), threading.Event()

        def write_slowly() -> None:
            with db.store.write(mem._id) as tx:  # the pool's only connection
                tx.insert_session("held", metadata="{}", now=datetime.now(UTC))
                holding.set()
                release.wait(30)

        writer = threading.Thread(target=write_slowly)
        writer.start()
        assert holding.wait(30)
        try:
            with pytest.raises(StoreError) as caught:
                mem.get_session("held")
            assert "no database connection free within 0.5 s" in str(caught.value)
            assert "all 1 of the pool are in use" in str(caught.value)
        finally:
            release.set()
            writer.join()
        assert mem.get_session("held").id == "held"  # the held write committed whole
