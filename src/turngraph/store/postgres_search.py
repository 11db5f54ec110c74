"""PostgreSQL reads for recall: full-text search on tsvector, vectors, candidate lookups.

Each searchable row carries a ``search`` tsvector (English stemming) built from its fields,
each field under its own weight label (observations: title A, content B, the search context
C; entities: name A, description B, retrieval queries C; attributes: their text A). A
:class:`TextSearch` becomes one tsquery: its terms, each quoted and limited to the labels of
the fields asked for, joined by OR (any) or AND (all) and stemmed by ``to_tsquery``. The
matches are ranked by BM25 as SQLite's FTS5 ranks them: each stemmed word's count in a row is
the sum of its fields' weights over its occurrences, the inverse document frequency counts
the memory's rows holding the word in those fields, and a row's length is its number of
distinct words. The memory's row count and total length of each kind are kept by triggers
(``text_stats``), so a search reads the mean length from one row.

A search whose terms are single words (nearly every one recall makes) does not touch the rows
at all: triggers keep each row's words with their counts per label and the row's length
(``text_postings``) and each word's row counts per combination of labels (``text_words``,
migration 0005), and the search reads the entries of its words through
their primary keys. Its cost then follows how many rows hold the words, not how long their
texts are, and a word's document frequency is a few counts summed instead of a count of
matching rows.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from datetime import datetime
from functools import cache
from typing import Any, Literal

from turngraph.store.base import (
    TEXT_FIELDS,
    AttributeRow,
    ObservationFilter,
    QueuedRow,
    RelationshipRow,
    ShownRows,
    TextKind,
    TextSearch,
    TurnKey,
)
from turngraph.store.postgres_rows import (
    ATTR_COLS,
    ATTR_FROM,
    ATTR_JOINS,
    ENTITIES_BY_ID,
    OBSERVATIONS_BY_ID,
    REL_COLS,
    REL_SELECT,
    TURN_SELECT,
    Statements,
    observations_in_order,
)
from turngraph.store.sqlite_rows import _attr, _ent, _rel, _turn, from_db, to_db

# The table of each kind of text row and the weight label of each of its fields.
_TABLES: dict[str, str] = {
    "observation": "observations",
    "entity": "entities",
    "attribute": "attributes",
}
_LABELS: dict[str, dict[str, str]] = {
    kind: dict(zip(fields, "ABC", strict=False)) for kind, fields in TEXT_FIELDS.items()
}
# The key a row of each kind is returned by (attributes: their ref, the backend's own key).
_KEYS = {"observation": "id", "entity": "id", "attribute": "ref"}


class SearchReads(Statements):
    """Mixed into :class:`~turngraph.store.postgres_read.PostgresReadTx`."""

    # -- vectors and the index queue -----------------------------------------------------------

    def index_version(self) -> int:
        row = self._one("SELECT index_version FROM memories WHERE id = %s", (self.memory_id,))
        return 0 if row is None else int(row[0])

    def load_vectors(self, kind: str, *, since: int = -1) -> list[tuple[int, bytes]]:
        return [
            (int(r[0]), bytes(r[1]))
            for r in self._all(
                "SELECT ref, data FROM vectors WHERE memory_id = %s AND kind = %s "
                "AND stamp > %s ORDER BY ref",
                (self.memory_id, kind, since),
            )
        ]

    def index_queue(self, *, limit: int, written_at: datetime | None = None) -> list[QueuedRow]:
        # One statement: the queue's first rows, each joined to the fields its text is
        # built from (a source that is gone joins nothing and leaves an empty row).
        mine = (
            ""
            if written_at is None
            else "AND EXISTS (SELECT 1 FROM entities x WHERE index_queue.kind = 'entity' "
            "AND x.memory_id = %(m)s AND x.id = index_queue.ref AND x.updated_at = %(at)s) "
        )
        rows = self._all(
            "WITH q AS (SELECT kind, ref FROM index_queue WHERE memory_id = %(m)s "
            f"{mine}ORDER BY kind, ref LIMIT %(n)s) "
            "SELECT q.kind, q.ref, o.id, o.title, o.content, coalesce(t.speaker, t.role), "
            "o.search_context, e.id, e.name, e.description, e.retrieval_queries FROM q "
            "LEFT JOIN observations o ON q.kind IN ('observation', 'window') "
            "AND o.memory_id = %(m)s AND o.id = q.ref "
            "LEFT JOIN turns t ON q.kind = 'observation' AND t.memory_id = %(m)s "
            "AND t.observation_id = q.ref "
            "LEFT JOIN entities e ON q.kind = 'entity' AND e.memory_id = %(m)s AND e.id = q.ref "
            "ORDER BY q.kind, q.ref",
            {"m": self.memory_id, "n": limit, "at": written_at},
        )
        return [_queued(r) for r in rows]

    def window_turns(
        self, observation_ids: Sequence[int]
    ) -> dict[int, list[tuple[int, str, str, bytes | None]]]:
        out: dict[int, list[tuple[int, str, str, bytes | None]]] = {}
        if not observation_ids:
            return out
        for ref, obs_id, speaker, content, data in self._all(
            "SELECT w.observation_id, n.observation_id, coalesce(n.speaker, n.role), "
            "o.content, v.data FROM turns w "
            "JOIN turns n ON n.memory_id = w.memory_id AND n.session_id = w.session_id "
            "AND n.seq BETWEEN w.seq - 1 AND w.seq + 1 "
            "JOIN observations o ON o.memory_id = n.memory_id AND o.id = n.observation_id "
            "LEFT JOIN vectors v ON v.memory_id = n.memory_id AND v.kind = 'observation' "
            "AND v.ref = n.observation_id "
            "WHERE w.memory_id = %s AND w.observation_id = ANY(%s) ORDER BY n.seq",
            (self.memory_id, list(observation_ids)),
        ):
            out.setdefault(ref, []).append(
                (obs_id, speaker, content, None if data is None else bytes(data))
            )
        return out

    # -- text search ---------------------------------------------------------------------------

    def search_text(self, search: TextSearch) -> list[tuple[int, float]]:
        if search.kind == "attribute":
            raise ValueError("attributes are searched with search_attributes")
        return self._search_rows(search)

    def search_texts(self, searches: Sequence[TextSearch]) -> list[list[tuple[int, float]]]:
        # The statements travel together: one round trip for all of them.
        if any(search.kind == "attribute" for search in searches):
            raise ValueError("attributes are searched with search_attributes")
        asked = [search for search in searches if search.terms]
        found = iter(
            self._ranked(
                [bm25_query(self.memory_id, search) for search in asked],
                generic=all(_single_words(search.terms) for search in asked),
            )
        )
        return [
            [(int(r[0]), float(r[1])) for r in next(found)] if search.terms else []
            for search in searches
        ]

    def search_attributes(self, search: TextSearch) -> list[tuple[AttributeRow, float]]:
        if search.kind != "attribute":
            raise ValueError(f"search_attributes searches attributes, not {search.kind}")
        if not search.terms:
            return []
        # The ranking and the rows in one statement: the BM25 search is its subquery, and
        # each hit's row is read by its key (a lateral subquery: never a join over the
        # memory's attributes, whatever the plan's figures).
        sql, params = bm25_query(self.memory_id, search)
        (found,) = self._ranked(
            [
                (
                    f"SELECT h.score, r.* FROM ({sql}) AS h(ref, score), LATERAL "
                    f"(SELECT {ATTR_COLS} FROM attributes a {ATTR_JOINS} "
                    "WHERE a.memory_id = %(m)s AND a.ref = h.ref OFFSET 0) AS r "
                    "ORDER BY h.score DESC, h.ref",
                    params,
                )
            ],
            generic=_single_words(search.terms),
        )
        return [(_attr(r[1:]), float(r[0])) for r in found]

    def _search_rows(self, search: TextSearch) -> list[tuple[int, float]]:
        """Rows matching ``search`` ranked by BM25 over the fields' weighted term counts
        (as SQLite's FTS5 ranks them): (key, score), higher is better; one statement
        (:func:`bm25_query`)."""
        if not search.terms:
            return []
        (found,) = self._ranked(
            [bm25_query(self.memory_id, search)], generic=_single_words(search.terms)
        )
        return [(int(r[0]), float(r[1])) for r in found]

    def _ranked(
        self, statements: Sequence[tuple[str, dict[str, Any]]], *, generic: bool
    ) -> list[list[Any]]:
        """The rows of text searches (:func:`bm25_query`, or statements around one), sent
        together in one round trip. With ``generic`` (searches of the words' entries), each
        is planned once per connection, generically, not again for every run's values: its
        plan is fixed by its form (each word's entries read through the key's index), and
        planning it took about 1 ms, more than running it on a small memory. The setting is
        the transaction's for these statements only: a plan that depends on the memory's
        size (a phrase matched against the rows) is still made for its memory."""
        if not generic:
            return self._together(statements)
        return self._together(statements, before=[_GENERIC_PLANS], after=[_PLANS_AS_BEFORE])

    def term_frequencies(self, search: TextSearch) -> list[int]:
        if _single_words(search.terms):
            # Each term is at most one word: its count is a sum of text_words' counts.
            return [
                int(n)
                for n in self._col(
                    "SELECT (SELECT coalesce(sum(w.rows), 0) FROM text_words AS w "
                    "WHERE w.memory_id = %(m)s AND w.kind = %(kind)s AND w.mask & %(mask)s <> 0 "
                    "AND w.word = ANY (tsvector_to_array(to_tsvector('english', t.term)))) "
                    "FROM unnest(%(terms)s::text[]) WITH ORDINALITY AS t(term, i) ORDER BY t.i",
                    {
                        "m": self.memory_id,
                        "kind": search.kind,
                        "mask": _mask(_field_labels(search)),
                        "terms": list(search.terms),
                    },
                )
            ]
        table = _TABLES[search.kind]
        labels = "".join(_LABELS[search.kind][name] for name, _ in search.fields)
        return [
            int(
                self._one(
                    f"SELECT count(*) FROM {table}, (SELECT to_tsquery('english', %s)) "
                    "AS query(q) WHERE memory_id = %s AND search @@ q",
                    (_quoted(term, labels), self.memory_id),
                )[0]
            )
            for term in search.terms
        ]

    def text_rows(self, kind: TextKind) -> int:
        return int(
            self._one(
                "SELECT coalesce(max(row_count), 0) FROM text_stats "
                "WHERE memory_id = %s AND kind = %s",
                (self.memory_id, kind),
            )[0]
        )

    # -- candidates ----------------------------------------------------------------------------

    def shown_rows(
        self, observation_ids: Sequence[int], entity_ids: Sequence[int], *, relationships: int
    ) -> ShownRows:
        """The four reads in one round trip."""
        obs, ents = list(observation_ids), list(entity_ids)
        key = {"m": self.memory_id, "o": obs, "e": ents, "n": relationships}
        statements: list[tuple[str, dict[str, Any]]] = []
        if obs:
            statements += [
                (OBSERVATIONS_BY_ID, key),
                (f"{TURN_SELECT} WHERE t.memory_id = %(m)s AND t.observation_id = ANY(%(o)s)", key),
            ]
        if ents:
            statements += [
                (ENTITIES_BY_ID, key),
                (
                    f"{REL_SELECT} WHERE r.memory_id = %(m)s AND r.source_id = ANY(%(e)s) "
                    "AND r.target_id = ANY(%(e)s) "
                    "ORDER BY r.valid_until IS NOT NULL, r.weight DESC, r.id LIMIT %(n)s",
                    key,
                ),
            ]
        found = iter(self._together(statements))
        observations, turns = (next(found), next(found)) if obs else ([], [])
        entities, related = (next(found), next(found)) if ents else ([], [])
        return ShownRows(
            observations_in_order(observations, obs),
            {row.observation_id: row for row in map(_turn, turns)},
            {r[0]: _ent(r) for r in entities},
            [_rel(r) for r in related],
        )

    def turn_keys(self, ids: Sequence[int]) -> dict[int, TurnKey]:
        if not ids:
            return {}
        return {
            obs_id: TurnKey(session_id, speaker, role)
            for obs_id, session_id, speaker, role in self._all(
                "SELECT observation_id, session_id, speaker, role FROM turns "
                "WHERE memory_id = %s AND observation_id = ANY(%s)",
                (self.memory_id, list(ids)),
            )
        }

    def observation_times(self, ids: Sequence[int]) -> dict[int, datetime]:
        if not ids:
            return {}
        return {
            obs_id: from_db(observed_at)
            for obs_id, observed_at in self._all(
                "SELECT id, observed_at FROM observations WHERE memory_id = %s AND id = ANY(%s)",
                (self.memory_id, list(ids)),
            )
        }

    def event_times(self, ids: Sequence[int]) -> dict[int, list[datetime]]:
        out: dict[int, list[datetime]] = {}
        if ids:
            for obs_id, happened_at in self._all(
                "SELECT observation_id, happened_at FROM turn_facts WHERE memory_id = %s AND "
                "kind = 'action' AND observation_id = ANY(%s) ORDER BY happened_at",
                (self.memory_id, list(ids)),
            ):
                out.setdefault(obs_id, []).append(from_db(happened_at))
        return out

    def known_names(self, *, limit: int) -> list[str]:
        return [
            str(name)
            for name in self._col(
                "SELECT name FROM entities WHERE memory_id = %s AND type IN ('person', 'animal') "
                "ORDER BY id DESC LIMIT %s",
                (self.memory_id, limit),
            )
        ]

    def speakers_among(self, names: Sequence[str]) -> set[str]:
        """Those of ``names`` that speak a turn of this memory (compared without case)."""
        if not names:
            return set()
        found = {
            str(s)
            for s in self._col(
                "SELECT DISTINCT lower(speaker) FROM turns WHERE memory_id = %s "
                "AND lower(speaker) = ANY(%s)",
                (self.memory_id, [n.lower() for n in names]),
            )
        }
        return {name for name in names if name.lower() in found}

    def links_for_observations(self, ids: Sequence[int]) -> dict[int, list[int]]:
        out: dict[int, list[int]] = {}
        if not ids:
            return out
        for obs_id, entity_id in self._all(
            "SELECT observation_id, entity_id FROM observation_entities "
            "WHERE memory_id = %s AND observation_id = ANY(%s) ORDER BY pos",
            (self.memory_id, list(ids)),
        ):
            out.setdefault(obs_id, []).append(entity_id)
        return out

    def observations_for_entities(self, ids: Sequence[int], *, limit: int) -> dict[int, list[int]]:
        """Each entity's newest observations, all entities in one statement (an index walk
        each, however many observations name them)."""
        out: dict[int, list[int]] = {entity_id: [] for entity_id in ids}
        if not ids:
            return out
        for entity_id, obs_id in self._all(
            "SELECT e.id, x.observation_id FROM unnest(%(ids)s::bigint[]) AS e(id), "
            "LATERAL (SELECT observation_id, seq FROM observation_entities "
            "WHERE memory_id = %(m)s AND entity_id = e.id ORDER BY seq DESC LIMIT %(n)s) AS x "
            "ORDER BY e.id, x.seq DESC",
            {"ids": list(ids), "m": self.memory_id, "n": limit},
        ):
            out[int(entity_id)].append(int(obs_id))
        return out

    def neighbour_relationships(
        self, ids: Sequence[int], *, limit: int
    ) -> dict[int, list[RelationshipRow]]:
        """All entities in one statement: for each, its strongest relationships as source and
        as target, each read in the order of an index (migration 0007), merged, and only
        then joined to their ends' names."""
        out: dict[int, list[RelationshipRow]] = {entity_id: [] for entity_id in ids}
        if not ids:
            return out
        strongest = (
            "(SELECT id, weight, updated_at FROM relationships WHERE memory_id = %(m)s "
            "AND {end} = e.id ORDER BY weight DESC, updated_at DESC, id LIMIT %(n)s)"
        )
        for row in self._all(
            f"SELECT e.id, {REL_COLS} FROM unnest(%(ids)s::bigint[]) WITH ORDINALITY AS e(id, i), "
            f"LATERAL (SELECT id FROM ({strongest.format(end='source_id')} UNION "
            f"{strongest.format(end='target_id')}) AS u "
            "ORDER BY weight DESC, updated_at DESC, id LIMIT %(n)s) AS chosen "
            "JOIN relationships r ON r.memory_id = %(m)s AND r.id = chosen.id "
            "JOIN entities s ON s.memory_id = r.memory_id AND s.id = r.source_id "
            "JOIN entities t ON t.memory_id = r.memory_id AND t.id = r.target_id "
            "ORDER BY e.i, r.weight DESC, r.updated_at DESC, r.id",
            {"ids": list(ids), "m": self.memory_id, "n": limit},
        ):
            out[int(row[0])].append(_rel(row[1:]))
        return out

    def entity_attributes(
        self, entity_ids: Sequence[int], keys: Sequence[str] | None
    ) -> list[AttributeRow]:
        if not entity_ids or (keys is not None and not keys):
            return []
        by_key = "" if keys is None else "AND a.key = ANY(%s) "
        params: tuple[Any, ...] = (self.memory_id, list(entity_ids))
        return [
            _attr(r)
            for r in self._all(
                f"SELECT {ATTR_COLS} {ATTR_FROM} WHERE a.memory_id = %s "
                f"AND a.entity_id = ANY(%s) {by_key}"
                "ORDER BY a.entity_id, a.key, a.valid_from, a.created_at",
                params if keys is None else (*params, list(keys)),
            )
        ]

    def user_speakers(self, *, limit: int) -> list[str]:
        out: list[str] = []
        for speaker in self._col(
            "SELECT speaker FROM turns WHERE memory_id = %s AND role = 'user' "
            "AND speaker IS NOT NULL ORDER BY id DESC LIMIT %s",
            (self.memory_id, limit * 20),
        ):
            if speaker not in out:
                out.append(str(speaker))
        return out[:limit]

    def attributes_for_observations(self, ids: Sequence[int]) -> list[AttributeRow]:
        if not ids:
            return []
        return [
            _attr(r)
            for r in self._all(
                f"SELECT {ATTR_COLS} {ATTR_FROM} WHERE a.memory_id = %s "
                "AND a.observation_id = ANY(%s) ORDER BY a.ref",
                (self.memory_id, list(ids)),
            )
        ]

    def filter_observations(self, query: ObservationFilter, *, limit: int) -> list[int]:
        sql = "SELECT o.id FROM observations o"
        where = ["o.memory_id = %s"]
        params: list[Any] = [self.memory_id]
        if query.session_id is not None or query.labels:
            sql += " JOIN turns t ON t.memory_id = o.memory_id AND t.observation_id = o.id"
        if query.ids is not None:
            if not query.ids:
                return []
            where.append("o.id = ANY(%s)")
            params.append(list(query.ids))
        if query.category is not None:
            where.append("o.category = %s")
            params.append(query.category)
        for tag in query.tags:
            where.append(
                "EXISTS (SELECT 1 FROM observation_tags g WHERE g.memory_id = o.memory_id "
                "AND g.observation_id = o.id AND g.tag = %s)"
            )
            params.append(tag)
        if query.since is not None:
            where.append("o.observed_at >= %s")
            params.append(to_db(query.since))
        if query.until is not None:
            where.append("o.observed_at <= %s")
            params.append(to_db(query.until))
        if query.session_id is not None:
            where.append("t.session_id = %s")
            params.append(query.session_id)
        for label in query.labels:
            where.append("jsonb_exists(t.labels::jsonb, %s)")
            params.append(label)
        if query.entity_id is not None:
            where.append(
                "EXISTS (SELECT 1 FROM observation_entities l WHERE l.memory_id = o.memory_id "
                "AND l.observation_id = o.id AND l.entity_id = %s)"
            )
            params.append(query.entity_id)
        sql += " WHERE " + " AND ".join(where)
        return self._col(sql + " ORDER BY o.observed_at DESC, o.id DESC LIMIT %s", (*params, limit))


# BM25's parameters, as SQLite's FTS5 uses them.
K1, B = 1.2, 0.75
# The start of both BM25 statements: the stemmed words of the terms, and the memory's row
# count and mean length of the kind searched.
_WORDS_AND_STATS = (
    "WITH words AS (SELECT DISTINCT w FROM unnest(%(terms)s::text[]) AS t(term), "
    "unnest(tsvector_to_array(to_tsvector('english', t.term))) AS w), "
    "stats AS (SELECT coalesce(max(row_count), 0)::float8 AS n, "
    "coalesce(max(word_count)::float8 / nullif(max(row_count), 0), 1) AS mean "
    "FROM text_stats WHERE memory_id = %(m)s AND kind = %(kind)s), "
)


def _bm25(idf: str, tf: str, length: str) -> str:
    """One word's BM25 contribution to a row's score. The constants are float8: a bare
    decimal is numeric to PostgreSQL, and numeric arithmetic on every matching row cost more
    than reading the row."""
    return (
        f"{idf} * {tf} * {K1 + 1}::float8 / "
        f"({tf} + {K1}::float8 * ({1 - B}::float8 + {B}::float8 * {length} / stats.mean))"
    )


def bm25_query(
    memory_id: int, search: TextSearch, *, postings: bool | None = None
) -> tuple[str, dict[str, object]]:
    """The BM25 statement of ``search`` and its parameters. When every term is at most one
    word (or ``postings`` says so), it reads the words' entries in ``text_postings``
    (:func:`_postings_statement`); otherwise it matches the rows' tsvectors
    (:func:`_bm25_statement`), where a term of several words is a phrase. Both rank alike.
    A statement's text depends only on the kind and the match, so each connection prepares
    it (psycopg does after five runs) and PostgreSQL no longer parses it."""
    labels = _field_labels(search)
    weights = _label_weights(search)
    params: dict[str, object] = {
        "m": memory_id,
        "kind": search.kind,
        "terms": list(search.terms),
        "limit": search.limit,
        **{f"w{label}": weight for label, weight in weights.items()},
    }
    single = _single_words(search.terms)
    if single if postings is None else postings:
        # One term of one word: at most one entry a row (a forced read of the entries may
        # hold a term of several words, whose entries need adding up by row).
        match = "one" if len(search.terms) == 1 and single else search.match
        return _postings_statement(match), {**params, "mask": _mask(labels)}
    params |= {
        "query": [_quoted(term, labels) for term in search.terms],
        "op": " | " if search.match == "any" else " & ",
        "labels": labels,
        "suffix": f":{labels}",
    }
    return _bm25_statement(search.kind, search.match), params


@cache
def _bm25_statement(kind: str, match: str) -> str:
    """The BM25 search of one kind of row, any or all of the terms (see ``_search_rows``).

    The query is the quoted terms joined by ``|`` or ``&`` and parsed once; a matching row's
    counts are read from its tsvector cut to the query's words (``ts_delete`` twice), not
    from every word it holds."""
    table, key = _TABLES[kind], _KEYS[kind]
    if match == "any":
        df = "SELECT word, count(*) FILTER (WHERE held) AS df FROM h GROUP BY word"
    else:
        df = (
            f"SELECT w AS word, (SELECT count(*) FROM {table} WHERE memory_id = %(m)s "
            "AND search @@ (quote_literal(w) || %(suffix)s)::tsquery) AS df FROM words"
        )
    return (
        f"{_WORDS_AND_STATS}"
        f"o AS (SELECT {key} AS key, search, length(search) AS len FROM {table}, "
        "(SELECT to_tsquery('english', array_to_string(%(query)s::text[], %(op)s))) "
        "AS query(q) WHERE memory_id = %(m)s AND search @@ q), "
        "h AS (SELECT o.key, o.len, u.lexeme AS word, "
        "(SELECT coalesce(sum(CASE label WHEN 'A' THEN %(wA)s WHEN 'B' THEN %(wB)s "
        "WHEN 'C' THEN %(wC)s ELSE %(wD)s END), 0) FROM unnest(u.weights) AS label) AS tf, "
        "(SELECT bool_or(strpos(%(labels)s, label::text) > 0) "
        "FROM unnest(u.weights) AS label) AS held "
        "FROM o, unnest(ts_delete(o.search, tsvector_to_array(ts_delete(o.search, "
        "(SELECT array_agg(w) FROM words))))) AS u), "
        f"df AS ({df}) "
        f"SELECT h.key, sum({_bm25('i.idf', 'h.tf', 'h.len')}) AS score "
        "FROM h JOIN df USING (word) CROSS JOIN stats, "
        "LATERAL (SELECT CASE WHEN x > 0 THEN x ELSE 1e-6 END AS idf FROM "
        "(SELECT ln((stats.n - df.df + 0.5) / (df.df + 0.5)) AS x) AS z) AS i "
        "WHERE h.held GROUP BY h.key ORDER BY score DESC, h.key LIMIT %(limit)s"
    )


@cache
def _postings_statement(match: Literal["any", "all", "one"]) -> str:
    """The BM25 search of one kind of row when every term is at most one word (see
    ``_single_words``), read from ``text_postings`` and ``text_words`` instead of the rows: the
    entries of the terms' words, each word's document frequency in the fields searched (the
    rows holding it under one of their labels, ``%(mask)s``), and the rows holding one of the
    words there (any) or all of them (all). It ranks as ``_bm25_statement`` does; its cost
    follows the number of entries read, not the size of the rows' texts. Each word's entries
    are read from the key's index by a subquery of its own (``OFFSET 0`` keeps the planner
    from joining them back into a hash join over every entry of the memory, which it picked
    for a question of eight words on a conversation of 1,000 turns: 5.3 ms against 4.0).
    A search of one term (``one``: any and all alike) reads at most one entry a row, so it
    ranks the entries without grouping them by row."""
    every = "HAVING count(*) = (SELECT count(*) FROM words) " if match == "all" else ""
    return (
        f"{_WORDS_AND_STATS}"
        "df AS MATERIALIZED (SELECT words.w AS word, "
        "CASE WHEN i.x > 0 THEN i.x ELSE 1e-6 END AS idf "
        "FROM words CROSS JOIN stats, LATERAL (SELECT coalesce(sum(x.rows), 0)::float8 AS df "
        "FROM text_words AS x WHERE x.memory_id = %(m)s AND x.kind = %(kind)s "
        "AND x.word = words.w AND x.mask & %(mask)s <> 0) AS f, "
        "LATERAL (SELECT ln((stats.n - f.df + 0.5) / (f.df + 0.5)) AS x) AS i), "
        "p AS (SELECT p.key, p.len, df.idf, p.a * %(wA)s + p.b * %(wB)s + p.c * %(wC)s "
        "+ p.d * %(wD)s AS tf FROM df CROSS JOIN LATERAL (SELECT x.key, x.len, x.a, x.b, "
        "x.c, x.d FROM text_postings AS x WHERE x.memory_id = %(m)s AND x.kind = %(kind)s "
        "AND x.word = df.word AND x.mask & %(mask)s <> 0 OFFSET 0) AS p) "
        + (
            f"SELECT p.key, {_bm25('p.idf', 'p.tf', 'p.len')} AS score FROM p CROSS JOIN stats "
            if match == "one"
            else f"SELECT p.key, sum({_bm25('p.idf', 'p.tf', 'p.len')}) AS score "
            f"FROM p CROSS JOIN stats GROUP BY p.key {every}"
        )
        + "ORDER BY score DESC, p.key LIMIT %(limit)s"
    )


# A term of letters and ASCII digits is one token to PostgreSQL's parser, so at most one word
# once stemmed (none when it is a stop word); so is one with a possessive or a contraction's
# "'s" or "'t", which the English dictionary drops as stop words ("caroline's" is 'carolin').
_ONE_WORD = re.compile(r"(?:[0-9]|[^\W\d_])+(?:'[sStT]?)?")


def _single_words(terms: Sequence[str]) -> bool:
    """Whether each term is at most one word, so that matching it is holding its word."""
    return all(_ONE_WORD.fullmatch(term) for term in terms)


def _mask(labels: str) -> int:
    """The weight labels as text_postings' bits (A 1, B 2, C 4, D 8)."""
    return sum(1 << "ABCD".index(label) for label in set(labels))


def _field_labels(search: TextSearch) -> str:
    """The weight labels of the fields searched (every field when it names none)."""
    names = [name for name, _ in search.fields] or list(TEXT_FIELDS[search.kind])
    return "".join(_LABELS[search.kind][name] for name in names)


def _quoted(term: str, labels: str) -> str:
    """One term in to_tsquery's syntax: quoted (read as words, never as operators), limited
    to the weight labels of the fields searched."""
    return "'" + term.replace("\\", " ").replace("'", "''") + "'" + (f":{labels}" if labels else "")


def _label_weights(search: TextSearch) -> dict[str, float]:
    """Each weight label's weight: its field's (1 for every field when the search names none,
    0 for a field left out, as FTS5's bm25 weights them)."""
    chosen = dict(search.fields)
    labels = _LABELS[search.kind]
    by_label = {labels[name]: (float(chosen.get(name, 0.0)) if chosen else 1.0) for name in labels}
    return {label: by_label.get(label, 0.0) for label in "ABCD"}


_GENERIC_PLANS = "SELECT set_config('plan_cache_mode', 'force_generic_plan', true)"
_PLANS_AS_BEFORE = "SET LOCAL plan_cache_mode TO DEFAULT"


def _queued(r: Sequence[Any]) -> QueuedRow:
    """A row of :meth:`SearchReads.index_queue`'s statement as the core reads it."""
    kind, ref = str(r[0]), int(r[1])
    if kind == "observation" and r[2] is not None:
        return QueuedRow(kind, ref, r[4], title=r[3], speaker=r[5])
    if kind == "window" and r[2] is not None:
        return QueuedRow(kind, ref, r[6])
    if kind == "entity" and r[7] is not None:
        return QueuedRow(kind, ref, r[9], name=r[8], queries=tuple(json.loads(r[10])))
    return QueuedRow(kind, ref)  # its source is gone: it leaves the queue, embedding nothing
