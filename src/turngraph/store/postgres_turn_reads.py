"""PostgreSQL reads of sessions, turns, attributes and turn facts."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from typing import Any

from turngraph.store.base import (
    AttributeRow,
    EntityRow,
    FactRow,
    RelationshipRow,
    SessionRow,
    TurnRow,
)
from turngraph.store.postgres_rows import ATTR_SELECT, REL_SELECT, TURN_SELECT, Statements
from turngraph.store.sqlite_rows import (
    _ENT_COLS,
    _FACT_COLS,
    _attr,
    _ent,
    _fact,
    _rel,
    _turn,
    from_db,
    to_db,
)

# The ASCII characters Python's str.strip() removes from the ends of a text, and the ASCII
# letters in both cases.
_STRIPPED = r"E' \t\n\x0b\x0c\r\x1c\x1d\x1e\x1f'"
_UPPER = "'ABCDEFGHIJKLMNOPQRSTUVWXYZ'"
_LOWER = "'abcdefghijklmnopqrstuvwxyz'"


class TurnReads(Statements):
    """Mixed into :class:`~turngraph.store.postgres_read.PostgresReadTx`."""

    # -- sessions and turns --------------------------------------------------------------------

    def get_session(self, session_id: str) -> SessionRow | None:
        r = self._one(
            "SELECT id, metadata, turn_count, created_at FROM sessions "
            "WHERE memory_id = %s AND id = %s",
            (self.memory_id, session_id),
        )
        return None if r is None else SessionRow(r[0], r[1], r[2], from_db(r[3]))

    def list_sessions(self, *, offset: int, limit: int) -> list[SessionRow]:
        rows = self._all(
            "SELECT id, metadata, turn_count, created_at FROM sessions WHERE memory_id = %s "
            "ORDER BY created_at DESC, id LIMIT %s OFFSET %s",
            (self.memory_id, limit, offset),
        )
        return [SessionRow(r[0], r[1], r[2], from_db(r[3])) for r in rows]

    def get_turn(self, turn_id: str) -> TurnRow | None:
        r = self._one(
            f"{TURN_SELECT} WHERE t.memory_id = %s AND t.id = %s", (self.memory_id, turn_id)
        )
        return None if r is None else _turn(r)

    def facts_for_observation(self, observation_id: int) -> list[FactRow]:
        rows = self._all(
            f"SELECT {_FACT_COLS} FROM turn_facts WHERE memory_id = %s AND observation_id = %s "
            "ORDER BY pos",
            (self.memory_id, observation_id),
        )
        return [_fact(r) for r in rows]

    def list_turns(
        self, session_id: str, *, after_seq: int, offset: int, limit: int
    ) -> list[TurnRow]:
        rows = self._all(
            f"{TURN_SELECT} WHERE t.memory_id = %s AND t.session_id = %s AND t.seq > %s "
            "ORDER BY t.seq LIMIT %s OFFSET %s",
            (self.memory_id, session_id, after_seq, limit, offset),
        )
        return [_turn(r) for r in rows]

    def last_turns(self, session_id: str, *, count: int) -> list[TurnRow]:
        rows = self._all(
            f"{TURN_SELECT} WHERE t.memory_id = %s AND t.session_id = %s "
            "ORDER BY t.seq DESC LIMIT %s",
            (self.memory_id, session_id, count),
        )
        return [_turn(r) for r in reversed(rows)]

    def write_count(self) -> int:
        return int(self._one("SELECT writes FROM memories WHERE id = %s", (self.memory_id,))[0])

    def get_turn_by_observation(self, observation_id: int) -> TurnRow | None:
        r = self._one(
            f"{TURN_SELECT} WHERE t.memory_id = %s AND t.observation_id = %s",
            (self.memory_id, observation_id),
        )
        return None if r is None else _turn(r)

    def session_observation_ids(self, session_id: str) -> list[int]:
        return self._col(
            "SELECT observation_id FROM turns WHERE memory_id = %s AND session_id = %s "
            "ORDER BY seq",
            (self.memory_id, session_id),
        )

    # -- attributes and turn facts -------------------------------------------------------------

    def attribute_history(self, entity_id: int, key: str) -> list[AttributeRow]:
        rows = self._all(
            f"{ATTR_SELECT} WHERE a.memory_id = %s AND a.entity_id = %s AND a.key = %s "
            "ORDER BY a.valid_from, a.created_at",
            (self.memory_id, entity_id, key),
        )
        return [_attr(r) for r in rows]

    def current_attributes(self, entity_id: int, key: str) -> list[AttributeRow]:
        rows = self._all(
            f"{ATTR_SELECT} WHERE a.memory_id = %s AND a.entity_id = %s AND a.key = %s "
            "AND a.valid_until IS NULL ORDER BY a.valid_from, a.created_at",
            (self.memory_id, entity_id, key),
        )
        return [_attr(r) for r in rows]

    def current_values(
        self,
        entity_id: int,
        key: str | None = None,
        *,
        skip_keys: Collection[str] = (),
        like: str | None = None,
    ) -> list[tuple[str, str, str]]:
        where = ["memory_id = %s", "entity_id = %s", "valid_until IS NULL"]
        params: list[Any] = [self.memory_id, entity_id]
        if key is not None:
            where.append("key = %s")
            params.append(key)
        if skip_keys:
            where.append("key <> ALL(%s)")
            params.append(sorted(skip_keys))
        if like is not None and like.isascii():
            # ASCII letters lowered whatever the locale; a value with more bytes than
            # characters has a character past ASCII.
            where.append(
                f"(translate(btrim(value, {_STRIPPED}), {_UPPER}, {_LOWER}) = %s "
                "OR octet_length(value) > char_length(value))"
            )
            params.append(like.strip().lower())
        rows = self._all(
            f"SELECT id, key, value FROM attributes WHERE {' AND '.join(where)} "
            "ORDER BY key, valid_from, created_at",
            params,
        )
        return [(r[0], r[1], r[2]) for r in rows]

    def attribute_chains(self, observation_id: int) -> list[tuple[int, str]]:
        return [
            (r[0], r[1])
            for r in self._all(
                "SELECT DISTINCT entity_id, key FROM attributes "
                "WHERE memory_id = %s AND observation_id = %s",
                (self.memory_id, observation_id),
            )
        ]

    def attribute_keys(self, entity_id: int) -> list[str]:
        return self._col(
            "SELECT DISTINCT key FROM attributes WHERE memory_id = %s AND entity_id = %s "
            "ORDER BY key",
            (self.memory_id, entity_id),
        )

    def state_entities(
        self, *, category: str, as_of: datetime | None, limit: int
    ) -> list[EntityRow]:
        sql = f"SELECT {_ENT_COLS} FROM entities e WHERE memory_id = %s AND memory_category = %s"
        params: list[Any] = [self.memory_id, category]
        if as_of is not None:
            sql += (
                " AND EXISTS (SELECT 1 FROM observation_entities l JOIN observations o "
                "ON o.memory_id = l.memory_id AND o.id = l.observation_id "
                "WHERE l.memory_id = e.memory_id AND l.entity_id = e.id "
                "AND o.observed_at <= %s)"
            )
            params.append(to_db(as_of))
        rows = self._all(sql + " ORDER BY type, key LIMIT %s", (*params, limit))
        return [_ent(r) for r in rows]

    def state_attributes(
        self, *, category: str, as_of: datetime | None, limit: int
    ) -> list[AttributeRow]:
        params: list[Any] = []
        if as_of is None:
            where = "a.valid_until IS NULL"
        else:
            where = "a.valid_from <= %s AND (a.valid_until IS NULL OR a.valid_until > %s)"
            params = [to_db(as_of), to_db(as_of)]
        rows = self._all(
            f"{ATTR_SELECT} WHERE a.memory_id = %s AND a.memory_category = %s AND {where} "
            "ORDER BY e.key, a.key, a.valid_from LIMIT %s",
            (self.memory_id, category, *params, limit),
        )
        return [_attr(r) for r in rows]

    def state_relations(
        self, *, category: str, as_of: datetime | None, limit: int
    ) -> list[RelationshipRow]:
        params: list[Any] = []
        if as_of is None:
            where = "r.valid_until IS NULL"
        else:
            where = (
                "(r.valid_from IS NULL OR r.valid_from <= %s) "
                "AND (r.valid_until IS NULL OR r.valid_until > %s)"
            )
            params = [to_db(as_of), to_db(as_of)]
        rows = self._all(
            f"{REL_SELECT} WHERE r.memory_id = %s AND r.memory_category = %s AND {where} "
            "ORDER BY s.key, r.type, t.key LIMIT %s",
            (self.memory_id, category, *params, limit),
        )
        return [_rel(r) for r in rows]

    def list_facts(
        self,
        *,
        kind: str,
        category: str | None,
        as_of: datetime | None,
        limit: int,
        retired: bool = False,
    ) -> list[FactRow]:
        sql = f"SELECT {_FACT_COLS} FROM turn_facts WHERE memory_id = %s AND kind = %s"
        sql += "" if retired else " AND active"
        params: list[Any] = [self.memory_id, kind]
        if category is not None:
            sql += " AND memory_category = %s"
            params.append(category)
        if as_of is not None:
            sql += " AND happened_at <= %s"
            params.append(to_db(as_of))
        rows = self._all(sql + " ORDER BY happened_at, id LIMIT %s", (*params, limit))
        return [_fact(r) for r in rows]

    def find_active_fact(self, kind: str, dedup: str) -> FactRow | None:
        r = self._one(
            f"SELECT {_FACT_COLS} FROM turn_facts WHERE memory_id = %s AND kind = %s "
            "AND dedup = %s AND active",
            (self.memory_id, kind, dedup),
        )
        return None if r is None else _fact(r)
