"""SQLite reads of sessions, turns, attributes and turn facts."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from turngraph.store.base import (
    AttributeRow,
    EntityRow,
    FactRow,
    RelationshipRow,
    SessionRow,
    TurnRow,
)
from turngraph.store.sqlite_rows import (
    _ATTR_SELECT,
    _ENT_COLS,
    _FACT_COLS,
    _REL_SELECT,
    _TURN_SELECT,
    _attr,
    _ent,
    _fact,
    _placeholders,
    _rel,
    _turn,
    from_db,
    to_db,
)

# The ASCII characters Python's str.strip() removes from the ends of a text.
_STRIPPED = "' ' || char(9, 10, 11, 12, 13, 28, 29, 30, 31)"


class TurnReads:
    """Mixed into :class:`~turngraph.store.sqlite_read.SQLiteReadTx`."""

    memory_id: int

    if TYPE_CHECKING:  # provided by SQLiteReadTx

        def _one(self, sql: str, params: Sequence[Any] = ()) -> Any: ...
        def _all(self, sql: str, params: Sequence[Any] = ()) -> list[Any]: ...
        def _col(self, sql: str, params: Sequence[Any] = ()) -> list[Any]: ...

    # -- sessions and turns --------------------------------------------------------------------

    def get_session(self, session_id: str) -> SessionRow | None:
        r = self._one(
            "SELECT id, metadata, turn_count, created_at FROM sessions WHERE memory_id=? AND id=?",
            (self.memory_id, session_id),
        )
        return None if r is None else SessionRow(r[0], r[1], r[2], from_db(r[3]))

    def list_sessions(self, *, offset: int, limit: int) -> list[SessionRow]:
        """Sessions, newest first."""
        rows = self._all(
            "SELECT id, metadata, turn_count, created_at FROM sessions WHERE memory_id=? "
            "ORDER BY created_at DESC, id LIMIT ? OFFSET ?",
            (self.memory_id, limit, offset),
        )
        return [SessionRow(r[0], r[1], r[2], from_db(r[3])) for r in rows]

    def get_turn(self, turn_id: str) -> TurnRow | None:
        r = self._one(f"{_TURN_SELECT} WHERE t.memory_id=? AND t.id=?", (self.memory_id, turn_id))
        return None if r is None else _turn(r)

    def facts_for_observation(self, observation_id: int) -> list[FactRow]:
        """The actions, instructions and uncertainties one turn produced, active or not."""
        rows = self._all(
            f"SELECT {_FACT_COLS} FROM turn_facts WHERE memory_id=? AND observation_id=? "
            "ORDER BY rowid",
            (self.memory_id, observation_id),
        )
        return [_fact(r) for r in rows]

    def list_turns(
        self, session_id: str, *, after_seq: int, offset: int, limit: int
    ) -> list[TurnRow]:
        rows = self._all(
            f"{_TURN_SELECT} WHERE t.memory_id=? AND t.session_id=? AND t.seq > ? "
            "ORDER BY t.seq LIMIT ? OFFSET ?",
            (self.memory_id, session_id, after_seq, limit, offset),
        )
        return [_turn(r) for r in rows]

    def last_turns(self, session_id: str, *, count: int) -> list[TurnRow]:
        """A session's last ``count`` turns, oldest first (none for an unknown session)."""
        rows = self._all(
            f"{_TURN_SELECT} WHERE t.memory_id=? AND t.session_id=? ORDER BY t.seq DESC LIMIT ?",
            (self.memory_id, session_id, count),
        )
        return [_turn(r) for r in reversed(rows)]

    def write_count(self) -> int:
        return int(self._one("SELECT writes FROM memories WHERE id=?", (self.memory_id,))[0])

    def get_turn_by_observation(self, observation_id: int) -> TurnRow | None:
        r = self._one(f"{_TURN_SELECT} WHERE t.observation_id=?", (observation_id,))
        return None if r is None else _turn(r)

    def session_observation_ids(self, session_id: str) -> list[int]:
        return self._col(
            "SELECT observation_id FROM turns WHERE memory_id=? AND session_id=? ORDER BY seq",
            (self.memory_id, session_id),
        )

    # -- attributes and turn facts -------------------------------------------------------------

    def attribute_history(self, entity_id: int, key: str) -> list[AttributeRow]:
        rows = self._all(
            f"{_ATTR_SELECT} WHERE a.entity_id=? AND a.key=? ORDER BY a.valid_from, a.created_at",
            (entity_id, key),
        )
        return [_attr(r) for r in rows]

    def current_attributes(self, entity_id: int, key: str) -> list[AttributeRow]:
        rows = self._all(
            f"{_ATTR_SELECT} WHERE a.entity_id=? AND a.key=? AND a.valid_until IS NULL "
            "ORDER BY a.valid_from, a.created_at",
            (entity_id, key),
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
        where = ["entity_id=?", "valid_until IS NULL"]
        params: list[Any] = [entity_id]
        if key is not None:
            where.append("key=?")
            params.append(key)
        if skip_keys:
            where.append(f"key NOT IN ({_placeholders(len(skip_keys))})")
            params += sorted(skip_keys)
        if like is not None and like.isascii():
            # NOCASE folds ASCII letters only; a value with more than one byte per character
            # has a character past ASCII.
            where.append(
                f"(trim(value, {_STRIPPED}) = ? COLLATE NOCASE "
                "OR length(CAST(value AS BLOB)) > length(value))"
            )
            params.append(like.strip())
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
                "SELECT DISTINCT entity_id, key FROM attributes WHERE observation_id=?",
                (observation_id,),
            )
        ]

    def attribute_keys(self, entity_id: int) -> list[str]:
        return self._col(
            "SELECT DISTINCT key FROM attributes WHERE entity_id=? ORDER BY key", (entity_id,)
        )

    def state_entities(
        self, *, category: str, as_of: datetime | None, limit: int
    ) -> list[EntityRow]:
        sql = f"SELECT {_ENT_COLS} FROM entities e WHERE memory_id=? AND memory_category=?"
        params: list[Any] = [self.memory_id, category]
        if as_of is not None:
            sql += (
                " AND EXISTS (SELECT 1 FROM observation_entities l JOIN observations o "
                "ON o.id = l.observation_id WHERE l.entity_id = e.id AND o.observed_at <= ?)"
            )
            params.append(to_db(as_of))
        rows = self._all(sql + " ORDER BY type, key LIMIT ?", (*params, limit))
        return [_ent(r) for r in rows]

    def state_attributes(
        self, *, category: str, as_of: datetime | None, limit: int
    ) -> list[AttributeRow]:
        if as_of is None:
            where, params = "a.valid_until IS NULL", []
        else:
            at = to_db(as_of)
            where, params = (
                "a.valid_from <= ? AND (a.valid_until IS NULL OR a.valid_until > ?)",
                [
                    at,
                    at,
                ],
            )
        rows = self._all(
            f"{_ATTR_SELECT} WHERE a.memory_id=? AND a.memory_category=? AND {where} "
            "ORDER BY e.key, a.key, a.valid_from LIMIT ?",
            (self.memory_id, category, *params, limit),
        )
        return [_attr(r) for r in rows]

    def state_relations(
        self, *, category: str, as_of: datetime | None, limit: int
    ) -> list[RelationshipRow]:
        if as_of is None:
            where, params = "r.valid_until IS NULL", []
        else:
            at = to_db(as_of)
            where = (
                "(r.valid_from IS NULL OR r.valid_from <= ?) "
                "AND (r.valid_until IS NULL OR r.valid_until > ?)"
            )
            params = [at, at]
        rows = self._all(
            f"{_REL_SELECT} WHERE r.memory_id=? AND r.memory_category=? AND {where} "
            "ORDER BY s.key, r.type, t.key LIMIT ?",
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
        sql = f"SELECT {_FACT_COLS} FROM turn_facts WHERE memory_id=? AND kind=?"
        sql += "" if retired else " AND active=1"
        params: list[Any] = [self.memory_id, kind]
        if category is not None:
            sql += " AND memory_category=?"
            params.append(category)
        if as_of is not None:
            sql += " AND happened_at <= ?"
            params.append(to_db(as_of))
        rows = self._all(sql + " ORDER BY happened_at, id LIMIT ?", (*params, limit))
        return [_fact(r) for r in rows]

    def find_active_fact(self, kind: str, dedup: str) -> FactRow | None:
        r = self._one(
            f"SELECT {_FACT_COLS} FROM turn_facts WHERE memory_id=? AND kind=? AND dedup=? "
            "AND active=1",
            (self.memory_id, kind, dedup),
        )
        return None if r is None else _fact(r)
