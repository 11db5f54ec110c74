"""SQLite reads for recall: full-text search, vectors, candidate lookups."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from turngraph.store.base import (
    TEXT_FIELDS,
    AttributeRow,
    EntityRow,
    ObservationFilter,
    ObservationRow,
    QueuedRow,
    RelationshipRow,
    ShownRows,
    TextKind,
    TextSearch,
    TurnKey,
    TurnRow,
)
from turngraph.store.sqlite_rows import (
    _ATTR_SELECT,
    _REL_SELECT,
    _TURN_SELECT,
    _attr,
    _chunks,
    _placeholders,
    _rel,
    _turn,
    from_db,
    to_db,
)


class SearchReads:
    """Mixed into :class:`~turngraph.store.sqlite_read.SQLiteReadTx`."""

    memory_id: int

    if TYPE_CHECKING:  # provided by SQLiteReadTx

        def _one(self, sql: str, params: Sequence[Any] = ()) -> Any: ...
        def _all(self, sql: str, params: Sequence[Any] = ()) -> list[Any]: ...
        def _col(self, sql: str, params: Sequence[Any] = ()) -> list[Any]: ...
        def get_observations(self, ids: Sequence[int]) -> list[ObservationRow]: ...
        def get_entities(self, ids: Iterable[int]) -> dict[int, EntityRow]: ...

    # -- recall --------------------------------------------------------------------------------

    def index_version(self) -> int:
        row = self._one("SELECT index_version FROM memories WHERE id=?", (self.memory_id,))
        return 0 if row is None else int(row[0])

    def load_vectors(self, kind: str, *, since: int = -1) -> list[tuple[int, bytes]]:
        """This memory's vectors of ``kind`` by ref; with ``since``, only those written after
        that index version."""
        return [
            (r[0], bytes(r[1]))
            for r in self._all(
                "SELECT ref, data FROM vectors WHERE memory_id=? AND kind=? AND stamp > ? "
                "ORDER BY ref",
                (self.memory_id, kind, since),
            )
        ]

    def vector_count(self, kind: str) -> int:
        return int(
            self._one(
                "SELECT count(*) FROM vectors WHERE memory_id=? AND kind=?",
                (self.memory_id, kind),
            )[0]
        )

    def index_queue(self, *, limit: int, written_at: datetime | None = None) -> list[QueuedRow]:
        if written_at is None:
            queued = self._all(
                "SELECT kind, ref FROM index_queue WHERE memory_id=? ORDER BY kind, ref LIMIT ?",
                (self.memory_id, limit),
            )
        else:
            stamp = to_db(written_at)
            queued = self._all(
                "SELECT q.kind, q.ref FROM index_queue q "
                "JOIN entities e ON q.kind = 'entity' AND e.id = q.ref "
                "WHERE q.memory_id=? AND e.updated_at = ? "
                "ORDER BY q.kind, q.ref LIMIT ?",
                (self.memory_id, stamp, limit),
            )
        refs: dict[str, list[int]] = {}
        for kind, ref in queued:
            refs.setdefault(kind, []).append(ref)
        found: dict[tuple[str, int], QueuedRow] = {}
        for batch in _chunks(refs.get("observation", [])):
            for ref, title, content, speaker in self._all(
                "SELECT o.id, o.title, o.content, coalesce(t.speaker, t.role) FROM observations o "
                "LEFT JOIN turns t ON t.observation_id = o.id "
                f"WHERE o.id IN ({_placeholders(len(batch))})",
                batch,
            ):
                found["observation", ref] = QueuedRow(
                    "observation", ref, content, title=title, speaker=speaker
                )
        for batch in _chunks(refs.get("entity", [])):
            for ref, name, description, queries in self._all(
                "SELECT id, name, description, retrieval_queries FROM entities "
                f"WHERE id IN ({_placeholders(len(batch))})",
                batch,
            ):
                found["entity", ref] = QueuedRow(
                    "entity", ref, description, name=name, queries=tuple(json.loads(queries))
                )
        for batch in _chunks(refs.get("window", [])):
            for ref, context in self._all(
                f"SELECT rowid, context FROM fts_observations "
                f"WHERE rowid IN ({_placeholders(len(batch))})",
                batch,
            ):
                found["window", ref] = QueuedRow("window", ref, context)
        # A queued row whose source is gone still leaves the queue (with nothing to embed).
        return [found.get((kind, ref), QueuedRow(kind, ref)) for kind, ref in queued]

    def window_turns(
        self, observation_ids: Sequence[int]
    ) -> dict[int, list[tuple[int, str, str, bytes | None]]]:
        """For each turn's observation, the turns of its window (the one before, itself, the
        one after, in its session): their observation id, speaker (else role), content and
        their vector if stored."""
        out: dict[int, list[tuple[int, str, str, bytes | None]]] = {}
        for batch in _chunks(observation_ids):
            for ref, obs_id, speaker, content, data in self._all(
                "SELECT w.observation_id, n.observation_id, "
                "coalesce(n.speaker, n.role), o.content, v.data "
                "FROM turns w JOIN turns n ON n.memory_id = w.memory_id "
                "AND n.session_id = w.session_id "
                "AND n.seq BETWEEN w.seq - 1 AND w.seq + 1 "
                "JOIN observations o ON o.id = n.observation_id "
                "LEFT JOIN vectors v ON v.kind = 'observation' AND v.ref = n.observation_id "
                f"WHERE w.observation_id IN ({_placeholders(len(batch))}) ORDER BY n.seq",
                batch,
            ):
                out.setdefault(ref, []).append(
                    (obs_id, speaker, content, None if data is None else bytes(data))
                )
        return out

    def search_text(self, search: TextSearch) -> list[tuple[int, float]]:
        """Best matches in one memory: (row id, score), higher is better. Observations and
        entities are keyed in their full-text table by their own id."""
        if search.kind == "attribute":
            raise ValueError("attributes are searched with search_attributes")
        return self._search_rows(search)

    def search_texts(self, searches: Sequence[TextSearch]) -> list[list[tuple[int, float]]]:
        return [self.search_text(search) for search in searches]

    def search_attributes(self, search: TextSearch) -> list[tuple[AttributeRow, float]]:
        if search.kind != "attribute":
            raise ValueError(f"search_attributes searches attributes, not {search.kind}")
        matches = self._search_rows(search)  # fts_attributes is keyed by the rowid
        rows: dict[int, AttributeRow] = {}
        for batch in _chunks([r for r, _ in matches]):
            for r in self._all(
                f"{_ATTR_SELECT.replace('SELECT ', 'SELECT a.rowid, ', 1)} "
                f"WHERE a.rowid IN ({_placeholders(len(batch))})",
                batch,
            ):
                rows[r[0]] = _attr(r[1:])
        return [(rows[r], score) for r, score in matches if r in rows]

    def _search_rows(self, search: TextSearch) -> list[tuple[int, float]]:
        """The FTS5 query and bm25 ranking of ``search``: (rowid, score)."""
        table = _TEXT_TABLES[search.kind]
        if not search.terms:
            return []
        joiner = " OR " if search.match == "any" else " AND "
        body = f"({joiner.join(map(_quote, search.terms))})"
        columns = _column_filter(search)
        query = f"({columns}{body})" if columns else body
        score = f"bm25({table}, {_bm25_weights(search)})"
        rows = self._all(
            f"SELECT rowid, {score} FROM {table} WHERE {table} MATCH ? ORDER BY {score} LIMIT ?",
            (f"{self._scope()}{query}", search.limit),
        )
        return [(r[0], -float(r[1])) for r in rows]

    def _scope(self) -> str:
        """The FTS5 condition that keeps a search inside this memory. Empty when the file
        holds no other memory (read in the same snapshot): intersecting with a token every
        row carries only costs time then."""
        scope: str | None = getattr(self, "_scope_clause", None)
        if scope is None:  # once per transaction: a recall runs several searches
            alone = self._one("SELECT count(*) FROM memories")[0] == 1
            scope = "" if alone else f'mem : "m{self.memory_id}" AND '
            self._scope_clause = scope
        return scope

    def term_frequencies(self, search: TextSearch) -> list[int]:
        """How many of this memory's rows match each term in the search's fields (no
        scoring)."""
        table = _TEXT_TABLES[search.kind]
        prefix = self._scope() + _column_filter(search)
        return [
            int(
                self._one(
                    f"SELECT count(*) FROM {table} WHERE {table} MATCH ?",
                    (prefix + _quote(term),),
                )[0]
            )
            for term in search.terms
        ]

    def text_rows(self, kind: TextKind) -> int:
        table = _TEXT_TABLES[kind]
        return int(
            self._one(
                f"SELECT count(*) FROM {table} WHERE {table} MATCH ?",
                (f'mem : "m{self.memory_id}"',),
            )[0]
        )

    def shown_rows(
        self, observation_ids: Sequence[int], entity_ids: Sequence[int], *, relationships: int
    ) -> ShownRows:
        return ShownRows(
            self.get_observations(observation_ids),
            self._turns_of(observation_ids),
            self.get_entities(entity_ids),
            self._relationships_among(entity_ids, limit=relationships),
        )

    def _turns_of(self, ids: Sequence[int]) -> dict[int, TurnRow]:
        out: dict[int, TurnRow] = {}
        for batch in _chunks(ids):
            for r in self._all(
                f"{_TURN_SELECT} WHERE t.observation_id IN ({_placeholders(len(batch))})", batch
            ):
                row = _turn(r)
                out[row.observation_id] = row
        return out

    def turn_keys(self, ids: Sequence[int]) -> dict[int, TurnKey]:
        out: dict[int, TurnKey] = {}
        for batch in _chunks(ids):
            for obs_id, session_id, speaker, role in self._all(
                "SELECT observation_id, session_id, speaker, role FROM turns "
                f"WHERE observation_id IN ({_placeholders(len(batch))})",
                batch,
            ):
                out[obs_id] = TurnKey(session_id, speaker, role)
        return out

    def observation_times(self, ids: Sequence[int]) -> dict[int, datetime]:
        out: dict[int, datetime] = {}
        for batch in _chunks(ids):
            for obs_id, observed_at in self._all(
                "SELECT id, observed_at FROM observations "
                f"WHERE id IN ({_placeholders(len(batch))})",
                batch,
            ):
                out[obs_id] = from_db(observed_at)
        return out

    def event_times(self, ids: Sequence[int]) -> dict[int, list[datetime]]:
        out: dict[int, list[datetime]] = {}
        for batch in _chunks(ids):
            for obs_id, happened_at in self._all(
                "SELECT observation_id, happened_at FROM turn_facts WHERE memory_id = ? AND "
                f"kind = 'action' AND observation_id IN ({_placeholders(len(batch))}) "
                "ORDER BY happened_at",
                (self.memory_id, *batch),
            ):
                out.setdefault(obs_id, []).append(from_db(happened_at))
        return out

    def known_names(self, *, limit: int) -> list[str]:
        return [
            str(name)
            for (name,) in self._all(
                "SELECT name FROM entities WHERE memory_id = ? AND type IN ('person', 'animal') "
                "ORDER BY id DESC LIMIT ?",
                (self.memory_id, limit),
            )
        ]

    def speakers_among(self, names: Sequence[str]) -> set[str]:
        """Those of ``names`` that speak a turn of this memory (compared without case)."""
        return {
            name
            for name in names
            if self._one(
                "SELECT 1 FROM turns WHERE memory_id=? AND speaker=? COLLATE NOCASE LIMIT 1",
                (self.memory_id, name),
            )
        }

    def links_for_observations(self, ids: Sequence[int]) -> dict[int, list[int]]:
        out: dict[int, list[int]] = {}
        for batch in _chunks(ids):
            for obs_id, entity_id in self._all(
                "SELECT observation_id, entity_id FROM observation_entities "
                f"WHERE observation_id IN ({_placeholders(len(batch))})",
                batch,
            ):
                out.setdefault(obs_id, []).append(entity_id)
        return out

    def observations_for_entities(self, ids: Sequence[int], *, limit: int) -> dict[int, list[int]]:
        out: dict[int, list[int]] = {}
        for entity_id in ids:
            # Newest writes first: an index walk however many observations name the entity.
            out[entity_id] = self._col(
                "SELECT observation_id FROM observation_entities WHERE entity_id=? "
                "ORDER BY seq DESC LIMIT ?",
                (entity_id, limit),
            )
        return out

    def neighbour_relationships(
        self, ids: Sequence[int], *, limit: int
    ) -> dict[int, list[RelationshipRow]]:
        return {
            entity_id: [
                _rel(r)
                for r in self._all(
                    f"{_REL_SELECT} WHERE r.source_id=? OR r.target_id=? "
                    "ORDER BY r.weight DESC, r.updated_at DESC, r.id LIMIT ?",
                    (entity_id, entity_id, limit),
                )
            ]
            for entity_id in ids
        }

    def _relationships_among(self, ids: Sequence[int], *, limit: int) -> list[RelationshipRow]:
        if not ids:
            return []
        ph = _placeholders(len(ids))
        rows = self._all(
            f"{_REL_SELECT} WHERE r.source_id IN ({ph}) AND r.target_id IN ({ph}) "
            "ORDER BY r.valid_until IS NOT NULL, r.weight DESC, r.id LIMIT ?",
            (*ids, *ids, limit),
        )
        return [_rel(r) for r in rows]

    def entity_attributes(
        self, entity_ids: Sequence[int], keys: Sequence[str] | None
    ) -> list[AttributeRow]:
        if not entity_ids or (keys is not None and not keys):
            return []
        by_key = "" if keys is None else f"AND a.key IN ({_placeholders(len(keys))}) "
        rows = self._all(
            f"{_ATTR_SELECT} WHERE a.entity_id IN ({_placeholders(len(entity_ids))}) {by_key}"
            "ORDER BY a.entity_id, a.key, a.valid_from, a.created_at",
            [*entity_ids, *(keys or ())],
        )
        return [_attr(r) for r in rows]

    def user_speakers(self, *, limit: int) -> list[str]:
        out: list[str] = []
        for (speaker,) in self._all(
            "SELECT speaker FROM turns WHERE memory_id = ? AND role = 'user' "
            "AND speaker IS NOT NULL ORDER BY id DESC LIMIT ?",
            (self.memory_id, limit * 20),
        ):
            if speaker not in out:
                out.append(speaker)
        return out[:limit]

    def attributes_for_observations(self, ids: Sequence[int]) -> list[AttributeRow]:
        """Every attribute version the observations set, current or not."""
        out: list[AttributeRow] = []
        for batch in _chunks(ids):
            out += [
                _attr(r)
                for r in self._all(
                    f"{_ATTR_SELECT} WHERE a.observation_id IN ({_placeholders(len(batch))})",
                    batch,
                )
            ]
        return out

    def filter_observations(self, query: ObservationFilter, *, limit: int) -> list[int]:
        sql = "SELECT o.id FROM observations o"
        where = ["o.memory_id = ?"]
        params: list[Any] = [self.memory_id]
        if query.session_id is not None or query.labels:
            sql += " JOIN turns t ON t.observation_id = o.id"
        if query.ids is not None:
            if not query.ids:
                return []
            where.append(f"o.id IN ({_placeholders(len(query.ids))})")
            params += list(query.ids)
        if query.category is not None:
            where.append("o.category = ?")
            params.append(query.category)
        for tag in query.tags:
            where.append(
                "EXISTS (SELECT 1 FROM observation_tags g WHERE g.observation_id = o.id "
                "AND g.tag = ?)"
            )
            params.append(tag)
        if query.since is not None:
            where.append("o.observed_at >= ?")
            params.append(to_db(query.since))
        if query.until is not None:
            where.append("o.observed_at <= ?")
            params.append(to_db(query.until))
        if query.session_id is not None:
            where.append("t.session_id = ?")
            params.append(query.session_id)
        for label in query.labels:
            where.append("EXISTS (SELECT 1 FROM json_each(t.labels) j WHERE j.value = ?)")
            params.append(label)
        if query.entity_id is not None:
            where.append(
                "EXISTS (SELECT 1 FROM observation_entities l WHERE l.observation_id = o.id "
                "AND l.entity_id = ?)"
            )
            params.append(query.entity_id)
        sql += " WHERE " + " AND ".join(where) + " ORDER BY o.observed_at DESC, o.id DESC LIMIT ?"
        return self._col(sql, (*params, limit))


# The FTS5 table of each kind of text row; its columns are ``mem`` (the memory token, never
# scored) and then the kind's fields in TEXT_FIELDS order.
_TEXT_TABLES: dict[str, str] = {
    "observation": "fts_observations",
    "entity": "fts_entities",
    "attribute": "fts_attributes",
}


def _quote(term: str) -> str:
    """One term as an FTS5 string: matched as words, never read as query syntax."""
    return '"' + term.replace('"', '""') + '"'


def _column_filter(search: TextSearch) -> str:
    """The FTS5 column filter of the search's fields; empty for every field."""
    if not search.fields:
        return ""
    return "{" + " ".join(name for name, _ in search.fields) + "} : "


def _bm25_weights(search: TextSearch) -> str:
    """bm25's positional column weights: the memory column 0, each field its weight (1 when
    the search names none), a field left out 0."""
    chosen = dict(search.fields)
    weights = [(chosen.get(name, 0.0) if chosen else 1.0) for name in TEXT_FIELDS[search.kind]]
    return ", ".join(f"{float(w)}" for w in (0.0, *weights))
