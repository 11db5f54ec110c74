"""PostgreSQL's BM25 statistics (each memory's row count and total length of each kind of
text row, each row's words and each word's row counts) are kept by the write path and always
equal what the rows themselves give; a search read from them ranks as one that reads the
rows."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from turngraph.store.base import TextSearch

from .conftest import NOW, current_attribute, insert_note

pytest.importorskip("psycopg")  # the postgres extra; `make test` installs it

from turngraph.store.postgres import PostgresStore
from turngraph.store.postgres_search import bm25_query

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


_UNPACKED = (
    "SELECT %(k)s, u.lexeme, t.{key}, u.weights, length(t.search) FROM {table} AS t, "
    "unnest(t.search) AS u WHERE t.memory_id = %(m)s"
)


def _postings(store: PostgresStore, memory_id: int) -> tuple[set[tuple], set[tuple]]:
    """(kept, unpacked): the entries of text_postings and text_words with words held, and
    the same worked out here from each row's tsvector."""
    with store.read(memory_id) as tx:
        kept = {
            ("posting", *r)
            for r in tx._all(
                "SELECT kind, word, key, mask, a, b, c, d, len FROM text_postings "
                "WHERE memory_id = %s",
                (memory_id,),
            )
        } | {
            ("word", *r)
            for r in tx._all(
                "SELECT kind, word, mask, rows FROM text_words WHERE memory_id = %s AND rows > 0",
                (memory_id,),
            )
        }
        unpacked: set[tuple] = set()
        rows: Counter[tuple] = Counter()
        for kind, table in _TABLES.items():
            key = "ref" if kind == "attribute" else "id"
            for k, word, ref, weights, length in tx._all(
                _UNPACKED.format(table=table, key=key), {"k": kind, "m": memory_id}
            ):
                counts = [weights.count(label) for label in "ABCD"]
                mask = sum(1 << i for i, n in enumerate(counts) if n)
                unpacked.add(("posting", k, word, ref, mask, *counts, length))
                rows[k, word, mask] += 1
        unpacked |= {("word", *key, n) for key, n in rows.items()}
    return kept, unpacked


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
            tx.insert_attribute(current_attribute(ana.id, "home_city", "Porto", ids[0]))
            # A word the row holds gains a label (tea), words come and go.
            tx.set_search_context(ids[1], "the turn before, about a long walk by the river")
            tx.set_search_context(ids[1], "the turn before, about tea by the river")
            tx.update_entity(ana.id, type="person", description="", retrieval_queries=(), now=NOW)
            tx.delete_observation(ids[2])
        with store.write(second) as tx:
            insert_note(tx, "x", "something else entirely")
        kept, counted = _stats(store, first)
        assert kept == counted
        assert {k for k, _, _ in kept} == {"observation", "entity", "attribute"}
        posted, unpacked = _postings(store, first)
        assert posted == unpacked
        assert {r[1] for r in posted} == {"observation", "entity", "attribute"}
        with store.write(first) as tx:
            tx.delete_observation(ids[0])  # takes its attribute with it
            tx.delete_entities([ana.id])
        kept, counted = _stats(store, first)
        assert {k: (r, w) for k, r, w in kept if r} == {k: (r, w) for k, r, w in counted}
        assert _postings(store, first)[0] == _postings(store, first)[1]
        store.delete_memory(first)
        assert _stats(store, first)[0] == set()
        assert _postings(store, first)[0] == set()
        assert _stats(store, second)[0] == _stats(store, second)[1]
        posted, unpacked = _postings(store, second)
        assert posted == unpacked
        assert posted
    finally:
        store.close()


WORDS = "river boat harbour lighthouse storm sailor's violin piano garden orchard tea café".split()


def test_a_search_read_from_the_postings_ranks_as_one_read_from_the_rows(
    postgres_url: str,
) -> None:
    """The same matches in the same order with the same scores, for any and all, every set
    of fields, stop words and words no row holds, on notes whose words repeat across their
    title, content and search context."""
    rng = random.Random(7)
    store = PostgresStore(postgres_url)
    try:
        m = store.create_memory(name="ranks", visibility="private", retrieval="{}", now=NOW).id

        def text(n: int) -> str:
            return " ".join(rng.choice([*WORDS, "the", "and"]) for _ in range(rng.randint(1, n)))

        with store.write(m) as tx:
            for i in range(60):
                note = insert_note(tx, f"n{i}", text(12), title=text(3))
                if i % 3:
                    tx.set_search_context(note, text(20))
            for i in range(15):
                tx.insert_entity(
                    key=f"e{i}",
                    name=text(2),
                    type="thing",
                    description=text(8),
                    retrieval_queries=(text(4),),
                    now=NOW,
                )
        searches = [
            TextSearch(
                kind,
                tuple(rng.sample([*WORDS, "the", "zebra"], rng.randint(1, 4))),
                limit=rng.choice([3, 50]),
                match=match,
                fields=fields,
            )
            for kind, fields in (
                ("observation", ()),
                ("observation", (("content", 1.0),)),
                ("observation", (("content", 1.0), ("context", 0.5))),
                ("observation", (("title", 2.0), ("context", 0.25))),
                ("entity", ()),
                ("entity", (("name", 1.0), ("description", 0.5))),
            )
            for match in ("any", "all")
            for _ in range(8)
        ]
        with store.read(m) as tx:
            matched = 0
            for search in searches:
                rows = tx._all(*bm25_query(m, search, postings=False))
                posted = tx._all(*bm25_query(m, search, postings=True))
                assert [k for k, _ in posted] == [k for k, _ in rows], search
                assert [s for _, s in posted] == pytest.approx([s for _, s in rows], rel=1e-9)
                matched += bool(rows)
        assert matched > len(searches) // 2  # most searches find something to rank
    finally:
        store.close()
