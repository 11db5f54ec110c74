"""Two processes on one PostgreSQL database: what one writes, the other's caches see.

Without pgvector a server process keeps each memory's vectors as cached matrices (and its row
counts), checked against the memory's index version in the database on every recall; with
pgvector the vectors are searched in the database and only counts are cached. These tests
fill the caches in this process, let another process write or delete, and recall again here,
on a database with the extension and on one whose user may not create it.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

import turngraph

pytest.importorskip("psycopg")  # the postgres extra; `make test` installs it

CELLO = "My sister Ines plays the cello in Vienna every winter."


def _in_another_process(url: str, code: str) -> None:
    script = (
        textwrap.dedent(
            f"""
        import turngraph
        with turngraph.open({url!r}) as db:
            mem = db.memory("acme")
        """
        ).rstrip()
        + "\n"
        + textwrap.indent(textwrap.dedent(code).strip() + "\n", " " * 4)
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr


@pytest.fixture(params=["pgvector", "without pgvector"])
def url(request: pytest.FixtureRequest) -> str:
    if request.param == "pgvector":
        return str(request.getfixturevalue("postgres_url"))
    return str(request.getfixturevalue("postgres_url_without_pgvector"))


def _dense(mem: turngraph.Memory, query: str) -> list[str]:
    return [h.text for h in mem.recall(query, mode="dense", k=5).hits if h.kind == "turn"]


def test_recall_here_sees_the_vectors_another_process_wrote_and_deleted(
    url: str,
) -> None:
    with turngraph.open(url) as db:
        mem = db.create_memory("acme")
        mem.remember("We adopted a greyhound called Pixel last spring.")
        before = _dense(mem, "Who plays a string instrument?")  # fills this process's cache
        assert CELLO not in before
        _in_another_process(url, f"mem.remember({CELLO!r})\n")
        # No word in common with the query: only the vector written by the other process,
        # patched into this process's cached matrix, can find it.
        assert _dense(mem, "Who plays a string instrument?")[0] == CELLO
        pets = _dense(mem, "Which pet did we get?")
        assert pets[0] == "We adopted a greyhound called Pixel last spring."
        _in_another_process(url, 'mem.forget("greyhound Pixel")')
        assert "We adopted a greyhound called Pixel last spring." not in _dense(
            mem, "Which pet did we get?"
        )


def test_a_memory_recreated_by_another_process_is_read_with_its_new_configuration(
    url: str,
) -> None:
    with turngraph.open(url) as db:
        db.create_memory("acme")
        assert db.memory("acme").info().retrieval.embedder != "none"
        _in_another_process(
            url,
            """
            db.delete_memory("acme")
            db.create_memory("acme", retrieval={"embedder": "none"})
            db.memory("acme").remember("Lexical only from now on.")
            """,
        )
        mem = db.memory("acme")
        assert mem.info().retrieval.embedder == "none"
        assert [h.text for h in mem.recall("lexical").hits] == ["Lexical only from now on."]
