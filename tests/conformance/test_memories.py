"""Memories: creation, lookup, isolation, and the fixed retrieval configuration."""

from __future__ import annotations

import pytest

import turngraph

from .helpers import entity


def test_memories_are_created_listed_and_looked_up(db: turngraph.Database) -> None:
    db.create_memory("acme")
    db.create_memory("globex", visibility="organization")
    assert [(m.name, m.visibility) for m in db.list_memories()] == [
        ("acme", "private"),
        ("globex", "organization"),
    ]
    assert db.memory("acme").name == "acme"
    with pytest.raises(turngraph.ConflictError, match="already exists"):
        db.create_memory("acme")
    with pytest.raises(turngraph.NotFoundError, match="no memory named 'initech'"):
        db.memory("initech")


def test_get_or_create_runs_twice(db: turngraph.Database) -> None:
    first = db.memory("acme", create=True)
    first.add_observation(title="Plan", content="kept", entities=[entity("Alice")])
    again = db.memory("acme", create=True)
    assert again.get_entity("Alice").name == "Alice"
    assert [m.name for m in db.list_memories()] == ["acme"]
    with pytest.raises(turngraph.ValidationError, match="invalid memory name"):
        db.memory("has space", create=True)


@pytest.mark.parametrize("name", ["", "has space", "-dash-first", "x" * 65, "a/b", "é"])
def test_invalid_memory_names_are_rejected(db: turngraph.Database, name: str) -> None:
    with pytest.raises(turngraph.ValidationError, match="invalid memory name"):
        db.create_memory(name)


def test_memories_are_isolated(db: turngraph.Database) -> None:
    a, b = db.create_memory("a"), db.create_memory("b")
    a.add_observation(title="Plan", content="in a", entities=[entity("Alice")])
    assert b.add_observation(title="Plan", content="in b").observation.slug == "plan"
    with pytest.raises(turngraph.NotFoundError):
        b.get_entity("Alice")
    assert (a.info().observations, b.info().entities) == (1, 0)
    db.delete_memory("a")
    assert [m.name for m in db.list_memories()] == ["b"]
    assert b.get_observation("plan").content == "in b"


def test_the_retrieval_configuration_is_fixed_at_creation(db: turngraph.Database) -> None:
    mem = db.create_memory("lexical", retrieval={"embedder": "none"})
    assert mem.retrieval.embedder == "none"
    assert mem.retrieval.dimension is None
    assert db.memory("lexical").info().retrieval == mem.retrieval
    with pytest.raises(turngraph.ImmutableConfigError) as err:
        db.update_memory("lexical", retrieval={"embedder": "minilm-l6-v2-int8", "dimension": 384})
    assert "migrate" in str(err.value)
    assert "new memory" in str(err.value)
    assert db.memory("lexical").retrieval.embedder == "none"
    # Restating the same configuration is not a change; visibility may change.
    info = db.update_memory("lexical", retrieval={"embedder": "none"}, visibility="organization")
    assert info.visibility == "organization"


@pytest.mark.parametrize(
    "retrieval",
    [
        {"embedder": ""},
        {"embedder": "x", "dimension": 0},
        {"embedder": "none", "dimension": 8},
        {"k": 1},
    ],
)
def test_an_invalid_retrieval_configuration_is_rejected(
    db: turngraph.Database, retrieval: dict[str, object]
) -> None:
    with pytest.raises(turngraph.ValidationError):
        db.create_memory("m", retrieval=retrieval)
    assert db.list_memories() == []


def test_a_database_reopens_with_everything_in_it(backend: object, db: turngraph.Database) -> None:
    mem = db.create_memory("m")
    slug = mem.add_observation(title="Kept", content="across reopen").observation.slug
    url = db.url
    db.close()
    with turngraph.open(url) as again:
        assert again.memory("m").get_observation(slug).content == "across reopen"


def test_a_handle_to_a_deleted_memory_fails_cleanly(db: turngraph.Database) -> None:
    mem = db.create_memory("gone")
    mem.add_observation(title="a", content="a")
    db.delete_memory("gone")
    with pytest.raises(turngraph.NotFoundError, match="deleted"):
        mem.add_observation(title="b", content="b")
    with pytest.raises(turngraph.NotFoundError, match="deleted"):
        mem.put_file("x.txt", b"x", description="d")
    with pytest.raises(turngraph.NotFoundError, match="deleted"):
        mem.info()
    with pytest.raises(turngraph.NotFoundError):
        mem.get_observation("a")
    with pytest.raises(turngraph.NotFoundError, match="no memory named 'gone'"):
        db.delete_memory("gone")
