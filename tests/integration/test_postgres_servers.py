"""Two `turngraph serve` processes on one PostgreSQL database, eight writers on each, all on
the same memory and session through the memory API: nothing lost, nothing twice, no errors,
the session's turns in one consistent order, and each server recalls what the other wrote."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest

import turngraph

pytest.importorskip("psycopg")  # the postgres extra; `make test` installs it

WRITERS = 8  # per server
MESSAGES = 5  # per writer


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def _serve(url: str) -> Iterator[tuple[str, list[str]]]:
    """A `turngraph serve` process on ``url``: its address and what it printed at start."""
    port = _port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "turngraph.cli", "serve", "--db", url, "--port", str(port)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[str] = []
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)
            if "turngraph: serving" in line:
                break
        else:
            raise AssertionError("the server did not start: " + "".join(lines))
        address = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:  # it prints its address just before it starts accepting
            try:
                if httpx.get(f"{address}/api/v1/health").status_code == 200:
                    break
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        yield address, lines
    finally:
        proc.terminate()
        rest, _ = proc.communicate(timeout=60)
    # It stops on SIGTERM, closes the database and exits 0.
    output = "".join(lines) + (rest or "")
    assert proc.returncode == 0, f"exit {proc.returncode}:\n{output[-4000:]}"


def test_two_servers_share_one_memory_without_losing_or_repeating_a_turn(
    postgres_url: str,
) -> None:
    with _serve(postgres_url) as (first, printed):
        key = next(line.strip() for line in printed if line.strip().startswith("tg_"))
        headers = {"Authorization": f"Bearer {key}"}
        with _serve(postgres_url) as (second, _), httpx.Client(headers=headers) as http:
            opened = http.post(f"{first}/api/v1/default/facts", json={"text": "Hello both."})
            assert opened.status_code == 200, opened.text
            session = opened.json()["sessionId"]
            failures: list[str] = []

            def write(server: str, writer: str) -> None:
                with httpx.Client(headers=headers, timeout=120) as own:
                    for i in range(MESSAGES):
                        text = f"Note {writer}x{i} about the plan."
                        try:
                            said = own.post(
                                f"{server}/api/v1/default/facts",
                                json={"text": text, "session_id": session},
                            )
                        except httpx.HTTPError as exc:
                            failures.append(f"{writer} {i}: {exc!r}")
                            continue
                        if said.status_code != 200:
                            failures.append(f"{writer} {i}: {said.status_code} {said.text}")

            threads = [
                threading.Thread(target=write, args=(server, f"{name}{w}"))
                for server, name in ((first, "a"), (second, "b"))
                for w in range(WRITERS)
            ]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert failures == []
            # Each server finds, at once, a turn written through the other one.
            for wrote, reads, text in (
                (first, second, "The harpsichord arrived on Tuesday."),
                (second, first, "A pelican sat on the pier."),
            ):
                said = http.post(f"{wrote}/api/v1/default/facts", json={"text": text})
                assert said.status_code == 200, said.text
                word = text.split()[1]
                found = http.post(
                    f"{reads}/api/v1/default/query", json={"query": word, "mode": "bm25"}
                )
                assert found.status_code == 200, found.text
                assert [h["text"] for h in found.json()["hits"]] == [text]
    with turngraph.open(postgres_url) as db:
        turns = db.memory("default").list_turns(session, limit=500).turns
    texts = [t.content for t in turns]
    expected = {
        f"Note {n}{w}x{i} about the plan."
        for n in "ab"
        for w in range(WRITERS)
        for i in range(MESSAGES)
    }
    assert sorted(texts[1:]) == sorted(expected)  # every acknowledged turn, once
    assert [t.seq for t in turns] == list(range(1, len(expected) + 2))  # no gaps, no repeats
    for n in "ab":  # each writer's turns in the order it sent them
        for w in range(WRITERS):
            mine = [t for t in texts if t.startswith(f"Note {n}{w}x")]
            assert mine == [f"Note {n}{w}x{i} about the plan." for i in range(MESSAGES)]
