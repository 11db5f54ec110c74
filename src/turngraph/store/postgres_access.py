"""PostgreSQL rows for access: principals, keys, grants, and HTTP idempotency records."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any

from psycopg import errors as pg_errors

from turngraph.errors import ConflictError
from turngraph.store.base import GrantRow, IdempotencyRecord, KeyRow, PrincipalRow
from turngraph.store.postgres_schema import Conn
from turngraph.store.sqlite_rows import from_db, to_db

_PRINCIPAL = (
    "SELECT id, organization, display_name, kind, admin, created_at, create_memories "
    "FROM principals"
)
_KEY = "SELECT id, principal_id, name, created_at, revoked_at FROM api_keys"
# The first key of the advisory lock that serializes the claims of one HTTP idempotency key.
_CLAIM_LOCK = 0x7469


def _principal(r: Any) -> PrincipalRow:
    return PrincipalRow(r[0], r[1], r[2], r[3], bool(r[4]), from_db(r[5]), bool(r[6]))


def _key(r: Any) -> KeyRow:
    return KeyRow(r[0], r[1], r[2], from_db(r[3]), None if r[4] is None else from_db(r[4]))


class AccessRows:
    """Mixed into :class:`~turngraph.store.postgres.PostgresStore`."""

    if TYPE_CHECKING:  # provided by PostgresStore

        def _tx(self) -> AbstractContextManager[Conn]: ...
        def _statement(self) -> AbstractContextManager[Conn]: ...

    def _fetch(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        with self._statement() as conn:
            return conn.execute(sql, params).fetchall()

    # -- principals ------------------------------------------------------------------------

    def create_principal(self, row: PrincipalRow) -> PrincipalRow:
        try:
            with self._tx() as conn:
                conn.execute(
                    "INSERT INTO principals (id, organization, display_name, kind, admin, "
                    "created_at, create_memories) VALUES (%s, %s, %s, %s, %s, %s, %s)",
                    (
                        row.id,
                        row.organization,
                        row.display_name,
                        row.kind,
                        row.admin,
                        to_db(row.created_at),
                        row.create_memories,
                    ),
                )
        except pg_errors.UniqueViolation:
            raise ConflictError(f"principal {row.id!r} already exists", principal=row.id) from None
        return row

    def get_principal(self, principal_id: str) -> PrincipalRow | None:
        rows = self._fetch(f"{_PRINCIPAL} WHERE id = %s", (principal_id,))
        return _principal(rows[0]) if rows else None

    def list_principals(self) -> list[PrincipalRow]:
        return [_principal(r) for r in self._fetch(f"{_PRINCIPAL} ORDER BY id")]

    def count_principals(self) -> int:
        return int(self._fetch("SELECT count(*) FROM principals")[0][0])

    def set_create_memories(self, principal_id: str, allowed: bool) -> PrincipalRow | None:
        with self._tx() as conn:
            r = conn.execute(
                "UPDATE principals SET create_memories = %s WHERE id = %s "
                "RETURNING id, organization, display_name, kind, admin, created_at, "
                "create_memories",
                (allowed, principal_id),
            ).fetchone()
        return None if r is None else _principal(r)

    # -- keys ------------------------------------------------------------------------------

    def add_key(self, row: KeyRow, key_hash: str) -> KeyRow:
        with self._tx() as conn:
            conn.execute(
                "INSERT INTO api_keys (id, principal_id, name, key_hash, created_at) "
                "VALUES (%s, %s, %s, %s, %s)",
                (row.id, row.principal_id, row.name, key_hash, to_db(row.created_at)),
            )
        return row

    def find_key(self, key_hash: str) -> tuple[KeyRow, PrincipalRow] | None:
        rows = self._fetch(
            "SELECT k.id, k.principal_id, k.name, k.created_at, k.revoked_at, "
            "p.id, p.organization, p.display_name, p.kind, p.admin, p.created_at, "
            "p.create_memories "
            "FROM api_keys k JOIN principals p ON p.id = k.principal_id "
            "WHERE k.key_hash = %s AND k.revoked_at IS NULL",
            (key_hash,),
        )
        return (_key(rows[0][:5]), _principal(rows[0][5:])) if rows else None

    def list_keys(self, principal_id: str | None = None) -> list[KeyRow]:
        if principal_id is None:
            rows = self._fetch(f"{_KEY} ORDER BY created_at, id")
        else:
            rows = self._fetch(
                f"{_KEY} WHERE principal_id = %s ORDER BY created_at, id", (principal_id,)
            )
        return [_key(r) for r in rows]

    def key_hashes(self) -> dict[str, str]:
        return {r[0]: r[1] for r in self._fetch("SELECT id, key_hash FROM api_keys")}

    def revoke_key(self, key_id: str, now: datetime) -> KeyRow | None:
        with self._tx() as conn:
            conn.execute(
                "UPDATE api_keys SET revoked_at = %s WHERE id = %s AND revoked_at IS NULL",
                (to_db(now), key_id),
            )
            r = conn.execute(f"{_KEY} WHERE id = %s", (key_id,)).fetchone()
        return None if r is None else _key(r)

    # -- grants ----------------------------------------------------------------------------

    def set_grant(self, principal_id: str, memory_id: int, tier: str, now: datetime) -> None:
        with self._tx() as conn:
            conn.execute(
                "INSERT INTO grants (memory_id, principal_id, tier, created_at) "
                "VALUES (%s, %s, %s, %s) "
                "ON CONFLICT (memory_id, principal_id) DO UPDATE SET tier = excluded.tier",
                (memory_id, principal_id, tier, to_db(now)),
            )

    def remove_grant(self, principal_id: str, memory_id: int) -> bool:
        with self._tx() as conn:
            cur = conn.execute(
                "DELETE FROM grants WHERE memory_id = %s AND principal_id = %s",
                (memory_id, principal_id),
            )
        return cur.rowcount > 0

    def get_grant(self, principal_id: str, memory_id: int) -> str | None:
        rows = self._fetch(
            "SELECT tier FROM grants WHERE memory_id = %s AND principal_id = %s",
            (memory_id, principal_id),
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
                f"{sql} WHERE g.principal_id = %s ORDER BY m.name, m.organization",
                (principal_id,),
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
        holds it. Claims of one key are serialized across processes by an advisory lock.

        Records older than ``expired_before`` are forgotten; a pending claim is taken over
        only when ``abandoned(its owner)`` says the process that made it is gone.
        """
        with self._tx() as conn:
            conn.execute(
                "SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (_CLAIM_LOCK, f"{scope}\n{key}")
            )
            conn.execute(
                "DELETE FROM http_idempotency WHERE created_at < %s", (to_db(expired_before),)
            )
            r = conn.execute(
                "SELECT fingerprint, state, status, body, owner FROM http_idempotency "
                "WHERE scope = %s AND key = %s",
                (scope, key),
            ).fetchone()
            if r is not None and not (r[1] == "pending" and abandoned(r[4])):
                return IdempotencyRecord(r[0], r[1], r[2], r[3])
            conn.execute(
                "INSERT INTO http_idempotency (scope, key, fingerprint, state, created_at, owner) "
                "VALUES (%s, %s, %s, 'pending', %s, %s) ON CONFLICT (scope, key) DO UPDATE SET "
                "fingerprint = excluded.fingerprint, state = 'pending', status = NULL, "
                "body = NULL, created_at = excluded.created_at, owner = excluded.owner",
                (scope, key, fingerprint, to_db(now), owner),
            )
        return None

    def idempotency_finish(self, scope: str, key: str, status: int, body: str) -> None:
        with self._tx() as conn:
            conn.execute(
                "UPDATE http_idempotency SET state = 'done', status = %s, body = %s "
                "WHERE scope = %s AND key = %s",
                (status, body, scope, key),
            )

    def idempotency_release(self, scope: str, key: str) -> None:
        with self._tx() as conn:
            conn.execute(
                "DELETE FROM http_idempotency WHERE scope = %s AND key = %s AND state = 'pending'",
                (scope, key),
            )
