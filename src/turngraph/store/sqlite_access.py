"""SQLite rows for access: principals, keys, grants, and HTTP idempotency records."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Any

from turngraph.errors import ConflictError, StoreError
from turngraph.store.base import GrantRow, IdempotencyRecord, KeyRow, PrincipalRow
from turngraph.store.sqlite_rows import from_db, to_db

_PRINCIPAL = (
    "SELECT id, organization, display_name, kind, admin, created_at, create_memories "
    "FROM principals"
)
_KEY = "SELECT id, principal_id, name, created_at, revoked_at FROM api_keys"


def _principal(r: Any) -> PrincipalRow:
    return PrincipalRow(r[0], r[1], r[2], r[3], bool(r[4]), from_db(r[5]), bool(r[6]))


def _key(r: Any) -> KeyRow:
    return KeyRow(r[0], r[1], r[2], from_db(r[3]), None if r[4] is None else from_db(r[4]))


class AccessRows:
    """Mixed into :class:`~turngraph.store.sqlite.SQLiteStore`."""

    _file_lock: threading.Lock

    if TYPE_CHECKING:  # provided by SQLiteStore

        def _lease(self) -> AbstractContextManager[sqlite3.Connection]: ...

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._file_lock, self._lease() as conn:
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:  # another process holds the write lock
                raise StoreError(f"cannot start a write: {exc}") from exc
            try:
                yield conn
            except sqlite3.IntegrityError:
                conn.execute("ROLLBACK")
                raise
            except sqlite3.Error as exc:
                conn.execute("ROLLBACK")
                raise StoreError(f"write failed: {exc}") from exc
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            try:
                conn.execute("COMMIT")
            except sqlite3.Error as exc:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise StoreError(f"commit failed: {exc}") from exc

    # -- principals ------------------------------------------------------------------------

    def create_principal(self, row: PrincipalRow) -> PrincipalRow:
        try:
            with self._tx() as conn:
                conn.execute(
                    "INSERT INTO principals (id, organization, display_name, kind, admin, "
                    "created_at, create_memories) VALUES (?,?,?,?,?,?,?)",
                    (
                        row.id,
                        row.organization,
                        row.display_name,
                        row.kind,
                        int(row.admin),
                        to_db(row.created_at),
                        int(row.create_memories),
                    ),
                )
        except sqlite3.IntegrityError:
            raise ConflictError(f"principal {row.id!r} already exists", principal=row.id) from None
        return row

    def _fetch(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        with self._lease() as conn:
            return conn.execute(sql, params).fetchall()

    def get_principal(self, principal_id: str) -> PrincipalRow | None:
        rows = self._fetch(f"{_PRINCIPAL} WHERE id = ?", (principal_id,))
        return _principal(rows[0]) if rows else None

    def list_principals(self) -> list[PrincipalRow]:
        return [_principal(r) for r in self._fetch(f"{_PRINCIPAL} ORDER BY id")]

    def count_principals(self) -> int:
        return int(self._fetch("SELECT count(*) FROM principals")[0][0])

    def set_create_memories(self, principal_id: str, allowed: bool) -> PrincipalRow | None:
        with self._tx() as conn:
            conn.execute(
                "UPDATE principals SET create_memories = ? WHERE id = ?",
                (int(allowed), principal_id),
            )
            r = conn.execute(f"{_PRINCIPAL} WHERE id = ?", (principal_id,)).fetchone()
        return None if r is None else _principal(r)

    # -- keys ------------------------------------------------------------------------------

    def add_key(self, row: KeyRow, key_hash: str) -> KeyRow:
        with self._tx() as conn:
            conn.execute(
                "INSERT INTO api_keys (id, principal_id, name, key_hash, created_at) "
                "VALUES (?,?,?,?,?)",
                (row.id, row.principal_id, row.name, key_hash, to_db(row.created_at)),
            )
        return row

    def find_key(self, key_hash: str) -> tuple[KeyRow, PrincipalRow] | None:
        rows = self._fetch(
            "SELECT k.id, k.principal_id, k.name, k.created_at, k.revoked_at, "
            "p.id, p.organization, p.display_name, p.kind, p.admin, p.created_at, "
            "p.create_memories "
            "FROM api_keys k JOIN principals p ON p.id = k.principal_id "
            "WHERE k.key_hash = ? AND k.revoked_at IS NULL",
            (key_hash,),
        )
        return (_key(rows[0][:5]), _principal(rows[0][5:])) if rows else None

    def list_keys(self, principal_id: str | None = None) -> list[KeyRow]:
        if principal_id is None:
            rows = self._fetch(f"{_KEY} ORDER BY created_at, id")
        else:
            rows = self._fetch(
                f"{_KEY} WHERE principal_id = ? ORDER BY created_at, id", (principal_id,)
            )
        return [_key(r) for r in rows]

    def key_hashes(self) -> dict[str, str]:
        return {r[0]: r[1] for r in self._fetch("SELECT id, key_hash FROM api_keys")}

    def revoke_key(self, key_id: str, now: datetime) -> KeyRow | None:
        with self._tx() as conn:
            conn.execute(
                "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
                (to_db(now), key_id),
            )
            r = conn.execute(f"{_KEY} WHERE id = ?", (key_id,)).fetchone()
        return None if r is None else _key(r)

    # -- grants ----------------------------------------------------------------------------

    def set_grant(self, principal_id: str, memory_id: int, tier: str, now: datetime) -> None:
        with self._tx() as conn:
            conn.execute(
                "INSERT INTO grants (principal_id, memory_id, tier, created_at) VALUES (?,?,?,?) "
                "ON CONFLICT (principal_id, memory_id) DO UPDATE SET tier = excluded.tier",
                (principal_id, memory_id, tier, to_db(now)),
            )

    def remove_grant(self, principal_id: str, memory_id: int) -> bool:
        with self._tx() as conn:
            cur = conn.execute(
                "DELETE FROM grants WHERE principal_id = ? AND memory_id = ?",
                (principal_id, memory_id),
            )
        return cur.rowcount > 0

    def get_grant(self, principal_id: str, memory_id: int) -> str | None:
        rows = self._fetch(
            "SELECT tier FROM grants WHERE principal_id = ? AND memory_id = ?",
            (principal_id, memory_id),
        )
        return str(rows[0][0]) if rows else None

    def list_grants(self, principal_id: str | None = None) -> list[GrantRow]:
        sql = (
            "SELECT g.principal_id, m.name, g.tier, g.created_at, m.organization FROM grants g "
            "JOIN memories m ON m.id = g.memory_id"
        )
        if principal_id is None:
            rows = self._fetch(f"{sql} ORDER BY g.principal_id, m.name, m.organization")
        else:
            rows = self._fetch(
                f"{sql} WHERE g.principal_id = ? ORDER BY m.name, m.organization", (principal_id,)
            )
        return [GrantRow(r[0], r[1], r[2], from_db(r[3]), r[4]) for r in rows]

    # -- HTTP idempotency ------------------------------------------------------------------

    def idempotency_claim(
        self,
        scope: str,
        key: str,
        fingerprint: str,
        *,
        now: datetime,
        expired_before: datetime,
        owner: str,
        abandoned: Callable[[str | None], bool],
    ) -> IdempotencyRecord | None:
        """Claim ``key`` for a new request by ``owner`` (None), or return the record that
        holds it.

        Records older than ``expired_before`` are forgotten; a pending claim is taken over
        only when ``abandoned(its owner)`` says the process that made it is gone.
        """
        with self._tx() as conn:
            conn.execute(
                "DELETE FROM http_idempotency WHERE created_at < ?", (to_db(expired_before),)
            )
            r = conn.execute(
                "SELECT fingerprint, state, status, body, owner FROM http_idempotency "
                "WHERE scope = ? AND key = ?",
                (scope, key),
            ).fetchone()
            if r is not None and not (r[1] == "pending" and abandoned(r[4])):
                return IdempotencyRecord(r[0], r[1], r[2], r[3])
            conn.execute(
                "INSERT OR REPLACE INTO http_idempotency (scope, key, fingerprint, state, "
                "created_at, owner) VALUES (?,?,?,'pending',?,?)",
                (scope, key, fingerprint, to_db(now), owner),
            )
        return None

    def idempotency_finish(self, scope: str, key: str, status: int, body: str) -> None:
        with self._tx() as conn:
            conn.execute(
                "UPDATE http_idempotency SET state = 'done', status = ?, body = ? "
                "WHERE scope = ? AND key = ?",
                (status, body, scope, key),
            )

    def idempotency_release(self, scope: str, key: str) -> None:
        with self._tx() as conn:
            conn.execute(
                "DELETE FROM http_idempotency WHERE scope = ? AND key = ? AND state = 'pending'",
                (scope, key),
            )
