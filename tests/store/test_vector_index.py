"""PostgreSQL's vector search: pgvector's HNSW index where the extension can be created,
the vectors searched in process where it cannot, and a database that gains the extension
later filled in from the stored bytes."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import numpy.typing as npt
import pytest

import turngraph
from turngraph.config import Settings
from turngraph.recall.dense import nearest_rows, passage_similarities
from turngraph.store.base import VectorSearch

from .conftest import NOW, unit_vectors

pytest.importorskip("psycopg")  # the postgres extra; `make test` installs it

from turngraph.store.postgres import PostgresStore

DIM = 16
Matrix = npt.NDArray[np.float32]


def _unit(rng: np.random.Generator, n: int) -> Matrix:
    return unit_vectors(rng, n, DIM)


def _fill(store: PostgresStore, name: str, vectors: Matrix, *, first_ref: int) -> int:
    memory = store.create_memory(name=name, visibility="private", retrieval="{}", now=NOW)
    with store.write(memory.id) as tx:
        for i, v in enumerate(vectors):
            tx.put_vector("observation", first_ref + i, v.tobytes())
    return memory.id


def _exact(store: PostgresStore, memory_id: int, query: Matrix, n: int) -> list[int]:
    """The top ``n`` refs by cosine, computed here from the stored bytes."""
    with store.read(memory_id) as tx:
        rows = tx.load_vectors("observation")
    refs = [r for r, _ in rows]
    sims = np.frombuffer(b"".join(d for _, d in rows), dtype=np.float32).reshape(-1, DIM) @ query
    return [refs[i] for i in np.argsort(-sims, kind="stable")[:n]]


@contextmanager
def _opened(url: str, **settings: object) -> Iterator[PostgresStore]:
    store = PostgresStore(url, settings=Settings(**settings))  # type: ignore[arg-type]
    try:
        yield store
    finally:
        store.close()


def _index_scans(
    store: PostgresStore, memory_id: int, query: Matrix, n: int
) -> tuple[list[int], int]:
    """The store's nearest refs, and how many scans of the HNSW index that search made (read
    before and after it in its own transaction: a read nested in a write shares its
    connection, and a backend's counts reach the shared statistics only now and then)."""
    counted = "SELECT pg_stat_get_xact_numscans(%s::regclass)"
    with store.write(memory_id) as tx:
        before = tx.conn.execute(counted, (f"vectors_hnsw_{DIM}",)).fetchone()
        found = tx.nearest_vectors("observation", query.tobytes(), limit=n)
        after = tx.conn.execute(counted, (f"vectors_hnsw_{DIM}",)).fetchone()
        # The search turns sorting off for itself only: the rest of the transaction sorts.
        assert tx.conn.execute("SHOW enable_sort").fetchone() == ("on",)
    assert found is not None
    assert before is not None
    assert after is not None
    return [r for r, _ in found], int(after[0]) - int(before[0])


def test_a_memory_past_the_exact_threshold_is_searched_through_the_hnsw_index(
    postgres_url: str,
) -> None:
    rng = np.random.default_rng(7)
    with _opened(postgres_url, postgres_exact_vectors_below=100) as store:
        memory_id = _fill(store, "acme", _unit(rng, 400), first_ref=1)
        _fill(store, "other", _unit(rng, 100), first_ref=1_000)  # never in acme's hits
        for query in _unit(rng, 5):
            found, scans = _index_scans(store, memory_id, query, 10)
            assert scans > 0
            assert found == _exact(store, memory_id, query, 10)


def test_a_search_the_other_memories_leave_short_is_made_again_wider_not_exactly(
    postgres_url: str,
) -> None:
    # Two memories of 400 each in the index: asked for 90, the first search (ef_search 100,
    # from the memory's own vectors, all of one kind) finds about half from this memory; the
    # second, at pgvector's ceiling, finds them all, so the memory is not scanned exactly.
    rng = np.random.default_rng(9)
    with _opened(postgres_url, postgres_exact_vectors_below=100) as store:
        memory_id = _fill(store, "acme", _unit(rng, 400), first_ref=1)
        _fill(store, "other", _unit(rng, 400), first_ref=1_000)
        for query in _unit(rng, 3):
            found, scans = _index_scans(store, memory_id, query, 90)
            assert scans == 2
            assert found == _exact(store, memory_id, query, 90)


def test_a_small_memory_beside_a_large_one_still_gets_every_hit_it_asks_for(
    postgres_url: str,
) -> None:
    # The index holds 100 times more of the other memory's rows: filtered to this memory,
    # an HNSW search alone returns too few, and the store searches the memory exactly.
    rng = np.random.default_rng(11)
    with _opened(postgres_url, postgres_exact_vectors_below=10) as store:
        memory_id = _fill(store, "small", _unit(rng, 30), first_ref=1)
        _fill(store, "large", _unit(rng, 3_000), first_ref=1_000)
        for query in _unit(rng, 3):
            with store.read(memory_id) as tx:
                found = tx.nearest_vectors("observation", query.tobytes(), limit=20)
            assert found is not None
            assert [r for r, _ in found] == _exact(store, memory_id, query, 20)


def _turns_with_windows(
    store: PostgresStore, rng: np.random.Generator
) -> tuple[int, Matrix, Matrix]:
    """A memory of 60 rows, with windows for the odd refs (1, 3, ... 59) only."""
    own, windows = _unit(rng, 60), _unit(rng, 30)
    memory_id = _fill(store, "acme", own, first_ref=1)
    with store.write(memory_id) as tx:
        for i, v in enumerate(windows):
            tx.put_vector("window", 2 * i + 1, v.tobytes())
    return memory_id, own, windows


def _with_windows(own: Matrix, windows: Matrix, query: Matrix) -> dict[int, float]:
    """Each row's similarity plus half its window's (none: 0), computed here."""
    return {
        ref: float(own[ref - 1] @ query)
        + (0.5 * float(windows[(ref - 1) // 2] @ query) if ref % 2 else 0.0)
        for ref in range(1, 61)
    }


def test_a_memory_under_the_threshold_is_left_to_recalls_matrices_which_score_it_exactly(
    postgres_url: str,
) -> None:
    # The store declines (None), and recall's cached matrices of this process give every
    # row's similarity plus its window's, exactly.
    rng = np.random.default_rng(4)
    query = _unit(rng, 1)[0]
    with _opened(postgres_url) as store:
        memory_id, own, windows = _turns_with_windows(store, rng)
        with store.read(memory_id) as tx:
            assert tx.nearest_vectors("observation", query.tobytes(), limit=8) is None
            assert (
                tx.nearest_vectors("observation", query.tobytes(), limit=8, add=("window", 0.5))
                is None
            )
            found = passage_similarities(store, tx, query, pool=8, window_weight=0.5)
            alone = nearest_rows(store, tx, "observation", query, 5)
        assert sorted(alone, key=lambda r: -alone[r]) == _exact(store, memory_id, query, 5)
    expected = _with_windows(own, windows, query)
    best = sorted(expected, key=lambda r: -expected[r])[:8]
    assert sorted(found, key=lambda r: -found[r]) == best
    for ref, score in found.items():
        assert score == pytest.approx(expected[ref], abs=1e-5)
    for ref, sim in alone.items():
        assert sim == pytest.approx(float(own[ref - 1] @ query), abs=1e-5)


def test_an_exact_search_larger_than_recall_keeps_in_process_is_made_here(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # exact_below set past what recall's matrices keep within their budget: those memories
    # are scanned in SQL, not loaded into the process.
    from turngraph.store import postgres_vectors

    monkeypatch.setattr(postgres_vectors, "IN_PROCESS_MAX", 20)
    rng = np.random.default_rng(6)
    query = _unit(rng, 1)[0]
    with _opened(postgres_url, postgres_exact_vectors_below=10_000) as store:
        small = _fill(store, "small", _unit(rng, 20), first_ref=1)
        larger = _fill(store, "larger", _unit(rng, 21), first_ref=1)
        with store.read(small) as tx:
            assert tx.nearest_vectors("observation", query.tobytes(), limit=5) is None
        with store.read(larger) as tx:
            found = tx.nearest_vectors("observation", query.tobytes(), limit=5)
        assert found is not None
        assert [r for r, _ in found] == _exact(store, larger, query, 5)


def test_a_second_kind_adds_its_weighted_similarity_to_each_rows_own(postgres_url: str) -> None:
    # Through the index, asking for every row: its candidates are the nearest by either.
    rng = np.random.default_rng(4)
    query = _unit(rng, 1)[0]
    with _opened(postgres_url, postgres_exact_vectors_below=10) as store:
        memory_id, own, windows = _turns_with_windows(store, rng)
        with store.read(memory_id) as tx:
            found = tx.nearest_vectors(
                "observation", query.tobytes(), limit=60, add=("window", 0.5)
            )
        assert found is not None
        expected = _with_windows(own, windows, query)
        assert [r for r, _ in found] == sorted(expected, key=lambda r: -expected[r])
        for ref, score in found:
            assert score == pytest.approx(expected[ref], abs=1e-5)


def test_a_second_kind_without_vectors_leaves_the_index_search_as_it_is(
    postgres_url: str,
) -> None:
    # Notes have no windows: asking to add them finds what the search alone finds.
    rng = np.random.default_rng(5)
    own = _unit(rng, 60)
    query = _unit(rng, 1)[0]
    with _opened(postgres_url, postgres_exact_vectors_below=10) as store:
        memory_id = _fill(store, "acme", own, first_ref=1)
        with store.read(memory_id) as tx:
            alone = tx.nearest_vectors("observation", query.tobytes(), limit=8)
            added = tx.nearest_vectors("observation", query.tobytes(), limit=8, add=("window", 0.5))
        assert alone is not None
        assert added == alone
        assert [r for r, _ in alone] == _exact(store, memory_id, query, 8)


def test_without_the_extension_vectors_are_searched_in_process_and_the_log_says_so_once(
    postgres_url_without_pgvector: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="turngraph"):
        db = turngraph.open(postgres_url_without_pgvector)
    try:
        said = [r.getMessage() for r in caplog.records if "pgvector" in r.getMessage()]
        assert len(said) == 1, said
        assert "not available" in said[0]
        store = db.store
        assert isinstance(store, PostgresStore)
        with store.read(0) as tx:
            assert tx._one("SELECT 1 FROM pg_extension WHERE extname = 'vector'") is None
        mem = db.create_memory("acme")
        mem.remember("My sister Ines plays the cello in Vienna every winter.")
        mem.remember("We adopted a greyhound called Pixel last spring.")
        memory = store.get_memory("acme")
        assert memory is not None
        with store.read(memory.id) as tx:
            assert isinstance(tx, VectorSearch)
            assert tx.nearest_vectors("observation", bytes(4 * 8), limit=3) is None
        hits = mem.recall("Who plays a string instrument?", mode="dense", k=1).hits
        assert hits[0].text == "My sister Ines plays the cello in Vienna every winter."
    finally:
        db.close()


def test_a_database_that_gains_the_extension_fills_in_the_vectors_it_already_held(
    bare_postgres_url: str,
) -> None:
    rng = np.random.default_rng(5)
    vectors = _unit(rng, 200)
    with _opened(bare_postgres_url, postgres_vector_index=False) as store:
        memory_id = _fill(store, "acme", vectors, first_ref=1)
        with store.read(memory_id) as tx:
            assert tx.nearest_vectors("observation", vectors[0].tobytes(), limit=5) is None
    with _opened(bare_postgres_url, postgres_exact_vectors_below=50) as store:
        with store.read(memory_id) as tx:
            stored = dict(tx.load_vectors("observation"))
        assert stored == {i + 1: v.tobytes() for i, v in enumerate(vectors)}
        for query in _unit(rng, 3):
            found, scans = _index_scans(store, memory_id, query, 10)
            assert scans > 0
            assert found == _exact(store, memory_id, query, 10)


def test_vectors_written_by_a_process_that_opened_before_pgvector_are_searched_in_process(
    bare_postgres_url: str,
) -> None:
    rng = np.random.default_rng(9)
    vectors = _unit(rng, 20)
    query = _unit(rng, 1)[0]
    with _opened(bare_postgres_url, postgres_vector_index=False) as before:
        memory_id = _fill(before, "acme", vectors, first_ref=1)
        # Creates the extension, fills the rows and indexes them (past its threshold of 5).
        with _opened(bare_postgres_url, postgres_exact_vectors_below=5) as after:

            def nearest() -> list[tuple[int, float]] | None:
                with after.read(memory_id) as tx:
                    return tx.nearest_vectors("observation", query.tobytes(), limit=5)

            assert nearest() is not None
            with before.write(memory_id) as tx:  # new bytes for a row, no embedding
                tx.put_vector("observation", 1, vectors[2].tobytes())
            assert nearest() is None
        with _opened(bare_postgres_url, postgres_exact_vectors_below=5) as reopened:
            found, scans = _index_scans(reopened, memory_id, query, 5)
            assert scans > 0
            assert found == _exact(reopened, memory_id, query, 5)


def test_an_index_another_store_built_after_this_one_opened_is_used(postgres_url: str) -> None:
    rng = np.random.default_rng(13)
    with _opened(postgres_url, postgres_exact_vectors_below=10) as reader:
        # The first vectors of this dimension.
        with _opened(postgres_url, postgres_exact_vectors_below=10) as writer:
            memory_id = _fill(writer, "acme", _unit(rng, 100), first_ref=1)
        query = _unit(rng, 1)[0]
        found, scans = _index_scans(reader, memory_id, query, 10)
        assert scans > 0
        assert found == _exact(reader, memory_id, query, 10)


def _indexed_rows(store: PostgresStore, memory_id: int) -> tuple[int, int, tuple[int, int]]:
    """The memory's observation vectors, how many are marked for the index, and what
    vector_stats says of them (vectors, unindexed)."""
    with store.read(memory_id) as tx:
        total, marked = tx._one(
            "SELECT count(*), count(*) FILTER (WHERE indexed) FROM vectors "
            "WHERE memory_id = %s AND kind = 'observation'",
            (memory_id,),
        )
        stats = tx._one(
            "SELECT vectors, unindexed FROM vector_stats WHERE memory_id = %s "
            "AND kind = 'observation'",
            (memory_id,),
        )
    return int(total), int(marked), (int(stats[0]), int(stats[1]))


def test_a_memory_enters_the_index_only_once_it_outgrows_exact_search(
    postgres_url: str,
) -> None:
    # 100 vectors are searched exactly and stay out of the index. The 101st is indexed and
    # brings 64 of the older ones in; until the other 36 follow, the memory is still searched
    # exactly (an index search would miss them); the next write brings them in.
    rng = np.random.default_rng(17)
    vectors = _unit(rng, 102)
    queries = _unit(rng, 3)
    with _opened(postgres_url, postgres_exact_vectors_below=100) as store:
        memory_id = _fill(store, "acme", vectors[:100], first_ref=1)
        assert _indexed_rows(store, memory_id) == (100, 0, (100, 100))
        with store.write(memory_id) as tx:
            tx.put_vector("observation", 101, vectors[100].tobytes())
        assert _indexed_rows(store, memory_id) == (101, 65, (101, 36))
        for query in queries:
            found, scans = _index_scans(store, memory_id, query, 10)
            assert scans == 0
            assert found == _exact(store, memory_id, query, 10)
        with store.write(memory_id) as tx:
            tx.put_vector("observation", 102, vectors[101].tobytes())
        assert _indexed_rows(store, memory_id) == (102, 102, (102, 0))
        for query in queries:
            found, scans = _index_scans(store, memory_id, query, 10)
            assert scans > 0
            assert found == _exact(store, memory_id, query, 10)
        with store.write(memory_id) as tx:  # the counts follow deletes too
            tx.conn.execute("DELETE FROM vectors WHERE memory_id = %s AND ref <= 30", (memory_id,))
        assert _indexed_rows(store, memory_id) == (72, 72, (72, 0))
        store.delete_memory(memory_id)
        with store.read(memory_id) as tx:
            assert (
                tx._one("SELECT count(*) FROM vector_stats WHERE memory_id = %s", (memory_id,))[0]
                == 0
            )


def test_an_index_of_every_row_is_rebuilt_over_the_large_memories_at_open(
    postgres_url: str,
) -> None:
    # A database indexed before vectors were indexed by memory size: its index holds every
    # row and no row is marked. The next open marks the rows of memories past the threshold
    # and builds the index over those alone.
    rng = np.random.default_rng(19)
    with _opened(postgres_url, postgres_exact_vectors_below=50) as store:
        large = _fill(store, "large", _unit(rng, 120), first_ref=1)
        small = _fill(store, "small", _unit(rng, 30), first_ref=1_000)
        with store.write(large) as tx:
            tx.conn.execute(f"DROP INDEX vectors_hnsw_{DIM}")
            tx.conn.execute("UPDATE vectors SET indexed = false")
            tx.conn.execute(
                f"CREATE INDEX vectors_hnsw_{DIM} ON vectors USING hnsw "
                f"((embedding::vector({DIM})) vector_cosine_ops) "
                f"WHERE vector_dims(embedding) = {DIM}"
            )
    with _opened(postgres_url, postgres_exact_vectors_below=50) as store:
        with store.read(large) as tx:
            definition = tx._one(
                "SELECT indexdef FROM pg_indexes WHERE indexname = %s", (f"vectors_hnsw_{DIM}",)
            )[0]
        assert definition.endswith("AND indexed)")
        assert _indexed_rows(store, large) == (120, 120, (120, 0))
        assert _indexed_rows(store, small) == (30, 0, (30, 30))
        for query in _unit(rng, 3):
            found, scans = _index_scans(store, large, query, 10)
            assert scans > 0
            assert found == _exact(store, large, query, 10)


def test_the_stored_embedding_is_the_vector_value_for_value(postgres_url: str) -> None:
    store = PostgresStore(postgres_url)
    try:
        vectors = _unit(np.random.default_rng(3), 2)
        vectors[1, 5] = np.nan  # pgvector takes no NaN: it is stored as 0 in the embedding
        memory_id = _fill(store, "exact", vectors, first_ref=1)
        with store.write(memory_id) as tx:
            tx.put_vectors([("entity", 7, b"")])  # no values: no embedding
        with store.read(memory_id) as tx:
            rows = tx._all(
                "SELECT ref, embedding::real[] FROM vectors WHERE memory_id = %s ORDER BY ref",
                (memory_id,),
            )
    finally:
        store.close()
    expected = np.nan_to_num(vectors, nan=0.0)
    assert [ref for ref, _ in rows] == [1, 2, 7]
    for (_, stored), want in zip(rows[:2], expected, strict=True):
        assert np.array_equal(np.asarray(stored, dtype=np.float32), want)
    assert rows[2][1] is None
