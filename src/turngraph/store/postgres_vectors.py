"""PostgreSQL vectors searched in the database by pgvector, where the extension is available.

Every vector is stored as float32 bytes (``vectors.data``: what copies, caches and windows
read, exactly as written). Where pgvector can be created, the store adds an ``embedding``
column of type ``vector`` (no fixed dimension: memories with different embedders share the
table) and one partial HNSW index per dimension, on ``embedding::vector(dim)`` with cosine
distance, over the rows of that dimension marked ``indexed``. Recall then asks the store for
a memory's nearest rows (:meth:`VectorReads.nearest_vectors`) instead of loading them into
the process; a search that adds a second kind's similarity (a turn's window to the turn's
own) scores both in one statement.

A memory with at most ``exact_below`` vectors of a kind (and at most :data:`IN_PROCESS_MAX`)
is not searched here: its vectors stay out of the index (inserting into an HNSW graph costs
milliseconds a vector, more as the graph grows, and a small memory would never read it), and
:meth:`VectorReads.nearest_vectors` returns None, so recall scores every row from its cached
matrices in the process (:mod:`turngraph.recall.vectors`, within a bounded budget): 1,800
turns and their windows took 3.9 ms as a scan in SQL, which reads each row's page and sums
the two kinds by ref, against well under a millisecond in numpy. ``vector_stats`` (kept by a
trigger) counts each memory's vectors of a kind and those not yet indexed. A vector written
to a memory past the threshold is indexed; the write that finds older rows of that memory
still outside marks up to :data:`MARK_BATCH` of them, so the index takes them in over the
following writes rather than in one long one (an open marks whatever is left). A memory is
searched through the index only once all its rows of the kind are in it, with
``hnsw.ef_search`` at least the rows asked for (and pgvector's iterative scan from 0.8), and
exactly if the index still returns fewer rows than asked for: the index covers every large
memory, and a search filtered to one of them can under-return when it is a small part of it.
``ef_search`` is the rows asked for over the share of the memory's indexed vectors that are
of the kind searched, plus a quarter where that share is below one (a memory of notes alone
searches its notes with 300 for 300 rows; one of turns, whose windows are indexed too, with
about 750): the graph search's cost grows with it, and at 100,000 notes 99.7% of recall's
top-10 hits are those it finds at 600. A search that returns fewer rows than asked for (the
index also holds other memories) is made again with pgvector's ceiling before the memory is
searched exactly. The processes on one database should share ``exact_below`` (a writer marks
by its own; a reader uses the index only for a memory wholly in it, so a mismatch costs
speed, never hits).

Where the extension cannot be created (not installed, or the URL's user may not create it),
or ``Settings.postgres_vector_index`` is off, nothing of this exists: the store says so once
in the log and :meth:`VectorReads.nearest_vectors` returns None, so recall searches the
vectors in process as before (:mod:`turngraph.recall.vectors`). A later open where the
extension can be created adds the column, fills it from the stored bytes and builds the
indexes.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import psycopg
from psycopg.adapt import Dumper
from psycopg.pq import Format
from psycopg.types import TypeInfo

from turngraph.store.base import CACHED_ROWS_MAX
from turngraph.store.postgres_rows import Statements
from turngraph.store.postgres_schema import LOCK_SPACE, MIGRATION_LOCK, Conn

log = logging.getLogger("turngraph")

HNSW_MAX_DIMENSION = 2_000  # pgvector indexes vectors of at most this many dimensions
# Exact searches of at most this many vectors of a kind are left to recall's cached matrices
# (whose budget holds matrices up to as many rows); larger ones, where ``exact_below`` is
# set higher, are scanned here.
IN_PROCESS_MAX = CACHED_ROWS_MAX
EF_SEARCH_MIN = 100
EF_MARGIN = 1.25  # ef_search over the rows the memory's share of the index should give
EF_SEARCH_MAX = 1_000  # pgvector's ceiling
_BACKFILL_BATCH = 1_000
MARK_BATCH = 64  # older rows a write to a memory past the threshold brings into the index
_INDEX_PREFIX = "vectors_hnsw_"
# The advisory lock a writer takes to build a dimension's index (not the migration lock: an
# open holds that while it fills embeddings, which may wait for this writer's rows).
INDEX_LOCK = (0x7467, -1)


# New bytes under an unchanged embedding: written by a process that opened the database
# before pgvector, which knows nothing of the column. The embedding is dropped, so the row
# counts as unembedded (searched in process) until an open fills it in again.
_STALE_EMBEDDING = """
CREATE FUNCTION vectors_stale_embedding() RETURNS trigger AS $$
BEGIN
    IF NEW.data IS DISTINCT FROM OLD.data AND NEW.embedding IS NOT DISTINCT FROM OLD.embedding
    THEN
        NEW.embedding := NULL;
    END IF;
    RETURN NEW;
END $$ LANGUAGE plpgsql
"""


class VectorIndex:
    """What one store knows about the database's vector index: whether pgvector serves it,
    the dimensions with an HNSW index, and the count past which a memory's vectors of a kind
    are indexed and searched through it."""

    def __init__(
        self,
        enabled: bool,
        *,
        iterative: bool = False,
        dimensions: Sequence[int] = (),
        exact_below: int = IN_PROCESS_MAX,
    ) -> None:
        self.enabled = enabled
        self.iterative = iterative
        self.exact_below = exact_below
        self.dimensions = set(dimensions)


NO_INDEX = VectorIndex(False)


def open_vector_index(conn: Conn, *, allowed: bool, where: str, exact_below: int) -> VectorIndex:
    """Prepare pgvector on the database if it is there (or can be created and ``allowed``):
    the ``embedding`` column, its values for rows stored without one, an HNSW index per
    dimension. Runs under the migration lock; logs once when vectors stay in process."""
    conn.execute("SELECT pg_advisory_lock(%s, %s)", MIGRATION_LOCK)
    try:
        if not _has_embedding(conn):
            if not allowed:
                log.info(
                    "turngraph: pgvector is not used on %s (Settings.postgres_vector_index "
                    "is off); vectors are searched in each process's memory",
                    where,
                )
                return VectorIndex(False)
            try:
                with conn.transaction():
                    conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
                    conn.execute("ALTER TABLE vectors ADD COLUMN embedding vector")
                    # A row holds the vector twice, past the size where PostgreSQL moves
                    # values out of line: the bytes go, the embedding a search reads stays.
                    conn.execute("ALTER TABLE vectors ALTER COLUMN embedding SET STORAGE MAIN")
                    # Rows stored without their embedding (by a process that opened the
                    # database before pgvector): few or none, found without a scan.
                    conn.execute(
                        "CREATE INDEX vectors_unembedded ON vectors (memory_id, kind) "
                        "WHERE embedding IS NULL"
                    )
                    conn.execute(_STALE_EMBEDDING)
                    conn.execute(
                        "CREATE TRIGGER vectors_stale_embedding BEFORE UPDATE ON vectors "
                        "FOR EACH ROW EXECUTE FUNCTION vectors_stale_embedding()"
                    )
                    conn.execute(
                        "INSERT INTO _migrations (name) VALUES ('pgvector') ON CONFLICT DO NOTHING"
                    )
            except psycopg.Error as exc:
                log.warning(
                    "turngraph: pgvector is not available on %s (%s); vectors are searched "
                    "in each process's memory (see docs/scaling.md)",
                    where,
                    _first_line(exc),
                )
                return VectorIndex(False)
        _fill_embeddings(conn)
        _index_by_size(conn, exact_below)
        version = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        row = version.fetchone()
        return VectorIndex(
            True,
            iterative=_version(str(row[0]) if row else "0") >= (0, 8),
            dimensions=_indexed_dimensions(conn),
            exact_below=exact_below,
        )
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s, %s)", MIGRATION_LOCK)


def _has_embedding(conn: Conn) -> bool:
    row = conn.execute(
        "SELECT 1 FROM pg_attribute WHERE attrelid = 'vectors'::regclass "
        "AND attname = 'embedding' AND NOT attisdropped"
    ).fetchone()
    return row is not None


def _fill_embeddings(conn: Conn) -> None:
    """Give every row stored without its embedding one, from its bytes, and index each
    dimension found."""
    while True:
        rows = conn.execute(
            "SELECT memory_id, kind, ref, data FROM vectors WHERE embedding IS NULL LIMIT %s",
            (_BACKFILL_BATCH,),
        ).fetchall()
        if not rows:
            return
        dims = {len(r[3]) // 4 for r in rows}
        with conn.transaction(), conn.cursor() as cur:
            cur.executemany(
                "UPDATE vectors SET embedding = %s::vector WHERE memory_id = %s AND kind = %s "
                "AND ref = %s",
                [(vector_text(bytes(r[3])), r[0], r[1], r[2]) for r in rows],
            )
            for dim in dims:
                create_dimension_index(conn, dim)


def _index_by_size(conn: Conn, exact_below: int) -> None:
    """Bring the index in line with the memories' sizes: an index of the earlier layout (every
    row of its dimension) is dropped, every row of a memory past ``exact_below`` vectors of its
    kind is marked (each memory under its write lock, so a writer of it waits rather than
    deadlocks), and the index of each dimension concerned is built over the marked rows (one
    build, cheaper than as many inserts)."""
    dims: set[int] = set()
    with conn.transaction():
        for name, definition in conn.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'vectors' "
            "AND indexname LIKE %s",
            (_INDEX_PREFIX + "%",),
        ).fetchall():
            if "AND indexed" not in str(definition):
                conn.execute(f"DROP INDEX {name}")
                dims.add(int(str(name).removeprefix(_INDEX_PREFIX)))
    for memory_id, kind in conn.execute(
        "SELECT memory_id, kind FROM vector_stats WHERE vectors > %s AND unindexed > 0",
        (exact_below,),
    ).fetchall():
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s, %s)", (LOCK_SPACE, memory_id))
            dims.update(
                int(r[0])
                for r in conn.execute(
                    "WITH marked AS (UPDATE vectors SET indexed = true WHERE memory_id = %s "
                    "AND kind = %s AND NOT indexed AND embedding IS NOT NULL "
                    "RETURNING vector_dims(embedding) AS dim) SELECT DISTINCT dim FROM marked",
                    (memory_id, kind),
                ).fetchall()
            )
    if dims:
        with conn.transaction():
            for dim in sorted(dims):
                create_dimension_index(conn, dim)


def _indexed_dimensions(conn: Conn) -> list[int]:
    names = conn.execute(
        "SELECT indexname FROM pg_indexes WHERE tablename = 'vectors' AND indexname LIKE %s",
        (_INDEX_PREFIX + "%",),
    ).fetchall()
    return [int(str(n[0]).removeprefix(_INDEX_PREFIX)) for n in names]


def create_dimension_index(conn: Conn, dim: int) -> None:
    """The HNSW index of the marked vectors of ``dim`` dimensions, if pgvector can index them
    and it is not there yet (inside the caller's transaction)."""
    if not 0 < dim <= HNSW_MAX_DIMENSION:
        return
    conn.execute(
        f"CREATE INDEX IF NOT EXISTS {_INDEX_PREFIX}{dim} ON vectors USING hnsw "
        f"((embedding::vector({dim})) vector_cosine_ops) "
        f"WHERE vector_dims(embedding) = {dim} AND indexed"
    )


def vector_text(data: bytes) -> str | None:
    """pgvector's text form of float32 bytes (nine significant digits give each float32
    back exactly); None for bytes that are no vector pgvector takes (empty)."""
    values = np.frombuffer(data, dtype="<f4").tolist()
    if not values:
        return None
    return "[" + ",".join(f"{v:.9g}" if math.isfinite(v) else "0" for v in values) + "]"


class VectorBytes(bytes):
    """A vector's float32 bytes, sent to PostgreSQL as pgvector's binary ``vector`` (see
    :func:`send_vectors_binary`): no text to format here nor to parse there."""


class _VectorDumper(Dumper):
    """pgvector's binary input: the dimension and a reserved zero (16 bits each), then
    the values as big-endian float32; a value pgvector refuses (NaN, infinite) goes as 0,
    as in :func:`vector_text`."""

    format = Format.BINARY

    def dump(self, obj: Any) -> bytes:
        values = np.frombuffer(obj, dtype="<f4")
        values = np.where(np.isfinite(values), values, np.float32(0))
        return len(values).to_bytes(2, "big") + b"\0\0" + values.astype(">f4").tobytes()


def vector_type(conn: Conn) -> TypeInfo | None:
    """pgvector's ``vector`` type in this database (None without the extension)."""
    return TypeInfo.fetch(conn, "vector")


def send_vectors_binary(conn: Conn, info: TypeInfo) -> None:
    """Have ``conn`` send :class:`VectorBytes` (alone or in lists) as binary ``vector``
    values."""
    info.register(conn)  # the array type, for lists
    dumper = type("VectorDumper", (_VectorDumper,), {"oid": info.oid})
    conn.adapters.register_dumper(VectorBytes, dumper)


class VectorReads(Statements):
    """Mixed into :class:`~turngraph.store.postgres_read.PostgresReadTx`."""

    vector_index: VectorIndex = NO_INDEX
    _query_text: tuple[bytes, str | None] = (b"", None)
    _vector_kinds: dict[str, tuple[int, int, bool]] | None = None

    def nearest_vectors(
        self, kind: str, query: bytes, *, limit: int, add: tuple[str, float] | None = None
    ) -> list[tuple[int, float]] | None:
        index = self.vector_index
        if not index.enabled:
            return None
        other_kind = kind if add is None else add[0]
        unembedded, count, waiting, other, other_waiting, indexed = self._stats(kind, other_kind)
        if unembedded:
            return None  # written by a process that opened the database before pgvector
        if not query or limit <= 0 or count == 0:
            return []
        dim = len(query) // 4
        small = min(index.exact_below, IN_PROCESS_MAX)
        if count <= small and (add is None or other <= small):
            # Few enough to score every row: the caller's cached matrices do that in a
            # fraction of a scan in SQL (which reads each row's page and sums by ref).
            return None
        if self._query_text[0] != query:  # a recall searches two kinds with one query
            self._query_text = (query, vector_text(query))
        text = self._query_text[1]
        if text is None:
            return []
        params: dict[str, object] = {"m": self.memory_id, "q": text, "n": limit}
        if not self._indexed(count, waiting, dim):
            return self._scored(kind, add, params, None)
        found = self._index_search(kind, dim, params, count, indexed)
        if len(found) < min(limit, count):
            return self._scored(kind, add, params, None)  # too small a part of the index
        if add is None or not other:  # nothing of the other kind to add to a score
            return _similarities(found)
        # The candidates: the nearest by either kind, each then scored by both. The other
        # kind's nearest are searched like this one's (exactly when the memory has few).
        refs = {int(r[0]) for r in found}
        if other and self._indexed(other, other_waiting, dim):
            refs.update(int(r[0]) for r in self._index_search(add[0], dim, params, other, indexed))
        elif other:
            refs.update(r for r, _ in self._scored(add[0], None, params, None))
        return self._scored(kind, add, params, sorted(refs))

    def _stats(self, kind: str, other: str) -> tuple[bool, int, int, int, int, int]:
        """Whether the memory has vectors of either kind without an embedding; for each kind
        its vectors and how many of them are outside the index; and the memory's vectors in
        the index, of every kind (``vector_stats``)."""
        kinds = self._kinds()
        none = (0, 0, False)
        count, waiting, bare = kinds.get(kind, none)
        others, others_waiting, other_bare = kinds.get(other, none)
        indexed = sum(n - w for n, w, _ in kinds.values())
        return bare or other_bare, count, waiting, others, others_waiting, indexed

    def vector_count(self, kind: str) -> int:
        # From vector_stats (kept by a trigger, migration 0004), read once in a snapshot:
        # recall's cached matrices ask for each kind they patch.
        return self._kinds().get(kind, (0, 0, False))[0]

    def _kinds(self) -> dict[str, tuple[int, int, bool]]:
        """Each kind's vectors, those outside the index and whether one has no embedding:
        one statement, and in a read's own snapshot once (a recall searches two kinds)."""
        if self._vector_kinds is not None:
            return self._vector_kinds
        # Without pgvector there is no embedding column (and nothing to search here).
        bare = (
            "EXISTS (SELECT 1 FROM vectors v WHERE v.memory_id = s.memory_id "
            "AND v.kind = s.kind AND v.embedding IS NULL)"
            if self.vector_index.enabled
            else "false"
        )
        kinds = {
            str(kind): (int(n), int(waiting), bool(unembedded))
            for kind, n, waiting, unembedded in self._all(
                f"SELECT s.kind, s.vectors, s.unindexed, {bare} "
                "FROM vector_stats s WHERE s.memory_id = %s",
                (self.memory_id,),
            )
        }
        if self._snapshot:
            self._vector_kinds = kinds
        return kinds

    def _indexed(self, count: int, waiting: int, dim: int) -> bool:
        """Whether ``count`` vectors of ``dim`` dimensions, ``waiting`` of them not yet
        marked, are searched through the index."""
        index = self.vector_index
        if count <= index.exact_below or waiting or dim > HNSW_MAX_DIMENSION:
            return False
        if dim not in index.dimensions:  # built by another process since this one opened?
            self._open()
            index.dimensions.update(_indexed_dimensions(self.conn))
        return dim in index.dimensions

    def _index_search(
        self, kind: str, dim: int, params: dict[str, object], rows: int, indexed: int
    ) -> list[Any]:
        """The memory's rows of ``kind`` (``rows`` of the memory's ``indexed``) nearest the
        query, through the HNSW index."""
        want = min(int(str(params["n"])), rows)
        # Where the memory's indexed vectors are all of this kind the share holds exactly.
        spread = indexed / max(rows, 1)
        margin = EF_MARGIN if spread > 1 else 1.0
        ef = min(EF_SEARCH_MAX, max(EF_SEARCH_MIN, math.ceil(want * spread * margin)))
        found = self._graph_search(kind, dim, params, ef)
        if len(found) < want and ef < EF_SEARCH_MAX:  # other memories took part of it
            found = self._graph_search(kind, dim, params, EF_SEARCH_MAX)
        return found

    def _graph_search(self, kind: str, dim: int, params: dict[str, object], ef: int) -> list[Any]:
        """One HNSW search with ``hnsw.ef_search`` at ``ef``."""
        # Without a sort the planner can only read the order from the HNSW index (it would
        # otherwise sort the memory's rows, found by their key, when its figures make that
        # look cheaper); the setting goes back to the session's after the search. The
        # settings, the search and the reset travel together: one round trip, not three.
        with self.conn.pipeline():
            self._open()
            self.conn.execute(
                "SELECT set_config('enable_sort', 'off', true), "
                "set_config('hnsw.ef_search', %s, true)",
                (str(ef),),
            )
            if self.vector_index.iterative:
                self.conn.execute("SELECT set_config('hnsw.iterative_scan', 'strict_order', true)")
            found = self.conn.execute(
                f"SELECT ref, 1 - (embedding::vector({dim}) <=> %(q)s::vector({dim})) "
                "FROM vectors WHERE memory_id = %(m)s AND kind = %(k)s "
                f"AND vector_dims(embedding) = {dim} AND indexed "
                f"ORDER BY embedding::vector({dim}) <=> %(q)s::vector({dim}) LIMIT %(n)s",
                {**params, "k": kind},
            )
            self.conn.execute("SET LOCAL enable_sort TO DEFAULT")
        return found.fetchall()

    def _scored(
        self,
        kind: str,
        add: tuple[str, float] | None,
        params: dict[str, object],
        refs: list[int] | None,
    ) -> list[tuple[int, float]]:
        """The best rows of ``kind`` (among ``refs``, or all: an exact search of the memory's
        own rows), each scored by its similarity plus ``add``'s weight x that of the row of
        ``add``'s kind with the same ref."""
        # One pass over the memory's rows of both kinds (no join for the planner to get
        # wrong on a table it has no figures for yet), summed by ref. The similarity is the
        # inner product, as in the in-process search: the cosine of unit vectors (which
        # embedders return), at two thirds of the cosine's cost.
        other, weight = add if add is not None else (kind, 0.0)
        among = "" if refs is None else "AND ref = ANY(%(refs)s) "
        rows = self._all(
            "SELECT ref, sum(CASE WHEN kind = %(k)s THEN s ELSE %(w)s * s END) AS score FROM "
            "(SELECT ref, kind, (embedding <#> %(q)s::vector) * -1 AS s FROM vectors "
            "WHERE memory_id = %(m)s AND kind = ANY(%(kinds)s) "
            f"{among}) AS v GROUP BY ref HAVING bool_or(kind = %(k)s) "
            "ORDER BY score DESC, ref LIMIT %(n)s",
            {**params, "k": kind, "w": weight, "kinds": sorted({kind, other}), "refs": refs},
        )
        return _similarities(rows)


def _similarities(rows: list[Any]) -> list[tuple[int, float]]:
    return [
        (int(r[0]), float(r[1]) if r[1] is not None and not math.isnan(r[1]) else 0.0) for r in rows
    ]


def _version(text: str) -> tuple[int, ...]:
    parts = []
    for part in text.split("."):
        digits = "".join(c for c in part if c.isdigit())
        parts.append(int(digits or 0))
    return tuple(parts)


def _first_line(exc: psycopg.Error) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
