"""PostgreSQL's BM25 statistics (each memory's row count and total length of each kind of
text row) are kept by the write path and always equal what the rows themselves give."""

from __future__ import annotations

import pytest

from turngraph.store.base import AttributeRow

from .conftest import NOW, insert_note

pytest.importorskip("psycopg")  # the postgres extra; `make test` installs it

from turngraph.store.postgres import PostgresStore

_COUNTED = (
    "SELECT %(k)s, count(*), coalesce(sum(length(search)), 0) FROM {table} WHERE memory_id = %(m)s"
)
_TABLES = {"observation": "observations", "entity": "entities", "attribute": "attributes"}


def _stats(
    store: PostgresStore, memory_id: int
) -> tuple[set[tuple[str, int, int]], set[tuple[str, int, int]]]:
    """(kept, counted): each kind's (kind, rows, words) from text_stats and from the rows."""
    with store.read(memory_id) as tx:
        kept = {
            (str(k), int(r), int(w))
            for k, r, w in tx._all(
                "SELECT kind, row_count, word_count FROM text_stats WHERE memory_id = %s",
                (memory_id,),
            )
        }
        counted = {
            (str(k), int(r), int(w))
            for kind, table in _TABLES.items()
            for k, r, w in tx._all(_COUNTED.format(table=table), {"k": kind, "m": memory_id})
            if r
        }
    return kept, counted


def test_the_statistics_follow_every_insert_change_and_deletion(postgres_url: str) -> None:
    store = PostgresStore(postgres_url)
    try:
        first, second = (
            store.create_memory(name=n, visibility="private", retrieval="{}", now=NOW).id
            for n in ("acme", "other")
        )
        with store.write(first) as tx:
            ids = [
                insert_note(tx, f"n{i}", f"note {i} about tea and cakes " * (i + 1))
                for i in range(5)
            ]
            ana = tx.insert_entity(
                key="ana",
                name="Ana",
                type="person",
                description="a friend from Porto",
                retrieval_queries=("who moved",),
                now=NOW,
            )
            tx.insert_attribute(
                AttributeRow(
                    id="attribute-1",
                    entity_id=ana.id,
                    key="home_city",
                    value="Porto",
                    memory_category="knowledge",
                    observation_id=ids[0],
                    valid_from=NOW,
                    valid_until=None,
                    supersedes=None,
                    superseded_by=None,
                    created_at=NOW,
                )
            )
            tx.set_search_context(ids[1], "the turn before, about a long walk by the river")
            tx.update_entity(ana.id, type="person", description="", retrieval_queries=(), now=NOW)
            tx.delete_observation(ids[2])
        with store.write(second) as tx:
            insert_note(tx, "x", "something else entirely")
        kept, counted = _stats(store, first)
        assert kept == counted
        assert {k for k, _, _ in kept} == {"observation", "entity", "attribute"}
        with store.write(first) as tx:
            tx.delete_observation(ids[0])  # takes its attribute with it
            tx.delete_entities([ana.id])
        kept, counted = _stats(store, first)
        assert {k: (r, w) for k, r, w in kept if r} == {k: (r, w) for k, r, w in counted}
        store.delete_memory(first)
        assert _stats(store, first)[0] == set()
        assert _stats(store, second)[0] == _stats(store, second)[1]
    finally:
        store.close()
