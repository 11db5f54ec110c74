"""Migrations on a database written by the previous version: every row kept, the file sound."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

import turngraph
import turngraph.store.sqlite as sqlite_store
from turngraph.core.maintenance import check_database
from turngraph.errors import ConflictError, StoreError
from turngraph.recall.index import wait_for_index
from turngraph.store.sqlite import TABLE_REBUILD, apply_migrations, load_migrations

NAMES_PER_ORGANIZATION = "0011_memory_names_per_organization"
# A later migration that changes the table 0011 rebuilds, and how to undo it.
LATER_ON_MEMORIES = ("0013_memory_writes", "ALTER TABLE memories DROP COLUMN writes")


def _tables(path: Path) -> dict[str, list[dict[str, Any]]]:
    """Every row of every ordinary table, in rowid order (the migration record aside)."""
    with closing(sqlite3.connect(path)) as conn:
        conn.row_factory = sqlite3.Row
        names = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE "
                "'CREATE VIRTUAL%' AND name NOT LIKE 'fts_%' AND name NOT LIKE 'sqlite_%' "
                "AND name != '_migrations' ORDER BY name"
            )
        ]
        return {
            n: [dict(r) for r in conn.execute(f"SELECT * FROM {n} ORDER BY rowid")] for n in names
        }


def _as_before(
    after: dict[str, list[dict[str, Any]]], before: dict[str, list[dict[str, Any]]]
) -> dict[str, list[dict[str, Any]]]:
    """``after``'s rows with only the columns their tables had ``before``."""
    return {
        name: [{c: row[c] for c in (before[name][0] if before[name] else row)} for row in rows]
        for name, rows in after.items()
    }


def _write_at_previous_version(path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A database the version before per-organization names wrote: memories of two
    organizations, observations with entities, turns, a file, principals, a key, a grant,
    vectors. Returns the key."""
    # The rows are written by today's code, which relies on the later migrations (0012: an
    # observation's full-text row is written by its insert); the one that changes the
    # memories table is undone afterwards.
    previous = [m for m in load_migrations("sqlite") if m[0] != NAMES_PER_ORGANIZATION]
    with monkeypatch.context() as patch:
        patch.setattr(sqlite_store, "load_migrations", lambda dialect: previous)
        with turngraph.open(path) as db:
            team = db.create_memory("team")  # the default embedder: vectors too
            team.add_observation(
                title="Kickoff",
                content="Alice leads Project Falcon for Acme Corp.",
                entities=[{"name": "Alice", "type": "person", "description": "The lead"}],
            )
            team.remember("I work at Acme as VP of sales.", speaker="Dana")
            team.put_file("notes/plan.txt", "The plan.", description="Plan")
            other = db.create_memory("ledger", organization="acme", retrieval={"embedder": "none"})
            other.remember("The budget is 40k.", speaker="Sam")
            db.access.create_principal("bot", organization="acme")
            _, key = db.access.create_key("bot")
            row = db.store.get_memory("team")
            assert row is not None
            db.access.grant("bot", row, "read")
    with closing(sqlite3.connect(path, isolation_level=None)) as conn:
        conn.execute(LATER_ON_MEMORIES[1])
        conn.execute("DELETE FROM _migrations WHERE name = ?", (LATER_ON_MEMORIES[0],))
        schema = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'memories'").fetchone()
        assert "name TEXT NOT NULL UNIQUE" in schema[0]  # really the previous schema
        assert "writes" not in schema[0]
    return key


def test_memory_names_become_unique_per_organization_keeping_every_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "previous.db"
    key = _write_at_previous_version(path, monkeypatch)
    before = _tables(path)
    assert all(before[t] for t in ("observations", "turns", "vectors", "api_keys", "grants"))

    with turngraph.open(path) as db:
        assert _as_before(_tables(path), before) == before  # every row, with its id, as it was
        with closing(sqlite3.connect(path)) as conn:
            assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
            assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
            schema = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'memories'")
            assert "UNIQUE (organization, name)" in schema.fetchone()[0]
        assert check_database(path).ok, check_database(path).problems
        # The name is now free in another organization, and still taken in its own.
        db.create_memory("team", organization="acme", retrieval={"embedder": "none"})
        with pytest.raises(ConflictError):
            db.create_memory("team", retrieval={"embedder": "none"})
        # What references a memory still works: the key and its grant, the triggers that
        # index a write, and the cascade of a deletion.
        caller = db.access.authenticate(key)
        assert caller is not None
        assert [(g.memory, g.tier) for g in db.access.list_grants("bot")] == [("team", "read")]
        team = db.memory("team")
        version = _index_version(path, "team")
        team.add_observation(title="Budget", content="Falcon's budget is 2M.")
        assert "budget" in {h.source.slug for h in team.recall("Falcon budget").hits}
        assert _index_version(path, "team") > version  # its vectors were written
        db.delete_memory("team")
        assert db.access.list_grants("bot") == []
    with closing(sqlite3.connect(path)) as conn:
        assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
    assert check_database(path).ok


def _index_version(path: Path, memory: str) -> int:
    with closing(sqlite3.connect(path)) as conn:
        row = conn.execute("SELECT index_version FROM memories WHERE name = ?", (memory,))
        return int(row.fetchone()[0])


def test_a_table_rebuild_that_would_orphan_rows_is_not_applied(tmp_path: Path) -> None:
    rebuild = f"""{TABLE_REBUILD}
CREATE TABLE parents_rebuilt (id INTEGER PRIMARY KEY, name TEXT);
INSERT INTO parents_rebuilt SELECT id, name FROM parents WHERE name != 'dropped';
DROP TABLE parents;
ALTER TABLE parents_rebuilt RENAME TO parents;
"""
    with closing(sqlite3.connect(tmp_path / "r.db", isolation_level=None)) as conn:
        conn.execute("PRAGMA foreign_keys=ON")
        apply_migrations(
            conn,
            [
                (
                    "0001_tables",
                    "CREATE TABLE parents (id INTEGER PRIMARY KEY, name TEXT);\n"
                    "CREATE TABLE children (parent INTEGER REFERENCES parents(id));\n"
                    "INSERT INTO parents VALUES (1, 'kept'), (2, 'dropped');\n"
                    "INSERT INTO children VALUES (1), (2);\n",
                )
            ],
        )
        with pytest.raises(StoreError, match="without their parent") as caught:
            apply_migrations(conn, [("0002_rebuild", rebuild)])
        assert caught.value.migration == "0002_rebuild"
        assert conn.execute("SELECT name FROM parents ORDER BY id").fetchall() == [
            ("kept",),
            ("dropped",),
        ]
        assert conn.execute("SELECT name FROM _migrations").fetchall() == [("0001_tables",)]
        assert conn.execute("PRAGMA foreign_keys").fetchone() == (1,)
        assert conn.execute("PRAGMA legacy_alter_table").fetchone() == (0,)


NO_ATTRIBUTE_VECTORS = "0014_no_attribute_vectors"


def test_attributes_leave_the_vector_index_and_are_no_longer_queued(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "previous.db"
    previous = [m for m in load_migrations("sqlite") if m[0] != NO_ATTRIBUTE_VECTORS]
    with monkeypatch.context() as patch:
        patch.setattr(sqlite_store, "load_migrations", lambda dialect: previous)
        with turngraph.open(path) as db:
            db.create_memory("team").remember("I live in Porto.", speaker="Ana")
    kinds = (
        "SELECT DISTINCT kind FROM "
        "(SELECT kind FROM vectors UNION ALL SELECT kind FROM index_queue)"
    )
    with closing(sqlite3.connect(path)) as conn:
        assert ("attribute",) in conn.execute(kinds).fetchall()  # queued, or embedded

    with turngraph.open(path) as db:
        team = db.memory("team")
        team.remember("We moved to Lisbon last week.", speaker="Ana")
        assert wait_for_index(db.store, timeout=60)
        ana = team.state(limit=50).identity.attributes
        assert [a.value for a in ana if a.key == "location"] == ["Lisbon"]
        assert "Lisbon" in team.recall("Where does Ana live?").hits[0].text
    with closing(sqlite3.connect(path)) as conn:
        assert sorted(conn.execute(kinds).fetchall()) == [
            ("entity",),
            ("observation",),
            ("window",),
        ]
    assert check_database(path).ok


def test_postgresql_attributes_leave_the_vector_index_in_one_pass(
    bare_postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import psycopg

    previous = [m for m in load_migrations("postgres") if m[0] != "0008_no_attribute_vectors"]
    with monkeypatch.context() as patch:
        patch.setattr(sqlite_store, "load_migrations", lambda dialect: previous)
        with turngraph.open(bare_postgres_url) as db:
            team = db.create_memory("team")
            team.remember("I live in Porto.", speaker="Ana")
            team.remember("I love jazz and my dog Rex.", speaker="Ana")
            assert wait_for_index(db.store, timeout=60)
    with psycopg.connect(bare_postgres_url) as conn:
        # What the version before wrote: a vector for each attribute (through the triggers
        # that count vectors), some perhaps still queued.
        conn.execute(
            "INSERT INTO vectors (memory_id, kind, ref, data, stamp) "
            "SELECT memory_id, 'attribute', ref, %s, 1 FROM attributes",
            (bytes(4 * 384),),
        )
        kinds = "SELECT kind FROM vectors UNION SELECT kind FROM index_queue"
        assert ("attribute",) in conn.execute(kinds).fetchall()
        version = conn.execute("SELECT index_version FROM memories").fetchone()

    with turngraph.open(bare_postgres_url) as db:
        with psycopg.connect(bare_postgres_url) as conn:  # the migration alone moved it
            assert conn.execute("SELECT index_version FROM memories").fetchone() > version
        team = db.memory("team")
        team.remember("We moved to Lisbon last week.", speaker="Ana")
        assert wait_for_index(db.store, timeout=60)
        assert "Lisbon" in team.recall("Where does Ana live?").hits[0].text
    with psycopg.connect(bare_postgres_url) as conn:
        assert ("attribute",) not in conn.execute(kinds).fetchall()
        # The counts the triggers keep agree with the rows, and the version moved.
        counted = conn.execute(
            "SELECT kind, vectors FROM vector_stats WHERE vectors > 0 ORDER BY kind"
        ).fetchall()
        actual = conn.execute(
            "SELECT kind, count(*) FROM vectors GROUP BY kind ORDER BY kind"
        ).fetchall()
        assert counted == actual
        # The triggers work again after the migration turned them off for its delete.
        enabled = conn.execute(
            "SELECT tgname, tgenabled FROM pg_trigger WHERE tgname IN "
            "('vectors_versioned', 'vectors_counted') ORDER BY tgname"
        ).fetchall()
        assert enabled == [("vectors_counted", "O"), ("vectors_versioned", "O")]
