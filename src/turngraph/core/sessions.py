"""Sessions and the listing of their turns."""

from __future__ import annotations

import base64
import binascii
import json
import re
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from turngraph.config import Limits
from turngraph.core.ids import new_id
from turngraph.core.validate import check_json_value, page_bounds, required_text
from turngraph.errors import NotFoundError, ValidationError
from turngraph.models import DeleteResult, Role, Session, Turn, TurnPage
from turngraph.store.base import ObservationRow, SessionRow, Store, TurnRow, WriteTx

ROLES: tuple[Role, ...] = ("user", "assistant", "system", "tool")


def check_role(value: object, field: str = "role") -> Role:
    for role in ROLES:
        if value == role:
            return role
    raise ValidationError(f"{field} must be one of {', '.join(ROLES)}, not {value!r}", field=field)


def session_row(tx: Any, session_id: str) -> SessionRow:
    row: SessionRow | None = tx.get_session(session_id)
    if row is None:
        raise NotFoundError(f"no session {session_id!r}", session_id=session_id)
    return row


def to_session(row: SessionRow) -> Session:
    return Session(
        id=row.id,
        created_at=row.created_at,
        metadata=json.loads(row.metadata),
        turn_count=row.turn_count,
    )


def to_turn(row: TurnRow) -> Turn:
    return Turn(
        id=row.id,
        session_id=row.session_id,
        seq=row.seq,
        role=check_role(row.role),
        speaker=row.speaker,
        content=row.content,
        observed_at=row.observed_at,
        created_at=row.created_at,
        slug=row.slug,
        extracted=row.extracted,
        labels=list(row.labels),
    )


SESSION_ID_RE = re.compile(r"^session:[A-Za-z0-9][A-Za-z0-9._:-]{0,190}$")


class SessionOps:
    """The session operations of a :class:`~turngraph.Memory`."""

    name: str
    _store: Store
    _id: int
    _limits: Limits

    if TYPE_CHECKING:  # provided by Memory

        def _delete_in_tx(
            self, tx: WriteTx, row: ObservationRow, now: datetime
        ) -> DeleteResult: ...

        def _after_write(self) -> None: ...

    def create_session(self, metadata: Any = None, *, session_id: str | None = None) -> Session:
        """A new, empty session. ``metadata`` is any JSON value; ``{"user": NAME}`` names
        the person the first person refers to in user turns. With ``session_id`` (of the form
        ``session:<key>``) the session gets that id, or, if it exists, is returned as it is:
        a caller can derive one id per conversation and need no lookup table."""
        blob = self._metadata(metadata)
        now = datetime.now(UTC)
        if session_id is not None:
            session_id = required_text(
                session_id, field="session_id", limit=self._limits.session_id_chars
            )
            if not SESSION_ID_RE.match(session_id):
                raise ValidationError(
                    "session_id must look like session:<key> (letters, digits, '.', '_', "
                    "':', '-'; at most 200 characters)",
                    field="session_id",
                )
        with self._store.write(self._id) as tx:
            if session_id is None:
                session_id = new_id("session")
            elif tx.get_session(session_id) is not None:
                return to_session(session_row(tx, session_id))
            tx.insert_session(session_id, metadata=blob, now=now)
            return to_session(session_row(tx, session_id))

    def get_session(self, session_id: str) -> Session:
        session_id = required_text(
            session_id, field="session_id", limit=self._limits.session_id_chars
        )
        with self._store.read(self._id) as tx:
            return to_session(session_row(tx, session_id))

    def delete_session(self, session_id: str) -> int:
        """Delete a session and its turns, pruning what only they backed; returns the count."""
        session_id = required_text(
            session_id, field="session_id", limit=self._limits.session_id_chars
        )
        now = datetime.now(UTC)
        with self._store.write(self._id) as tx:
            session_row(tx, session_id)
            observation_ids = tx.session_observation_ids(session_id)
            for row in tx.get_observations(observation_ids):
                self._delete_in_tx(tx, row, now)
            tx.delete_session(session_id)
        self._after_write()  # entities re-folded without the turns: their texts to embed
        return len(observation_ids)

    def list_turns(
        self, session_id: str, *, limit: int = 100, cursor: str | None = None, offset: int = 0
    ) -> TurnPage:
        """A session's turns, oldest first. ``limit`` defaults to 100 and is clamped to 500;
        page with the opaque ``next_cursor`` or with ``offset``."""
        session_id = required_text(
            session_id, field="session_id", limit=self._limits.session_id_chars
        )
        limit, offset = page_bounds(limit, offset, maximum=self._limits.turns_per_page)
        after = 0 if cursor is None else _decode_cursor(cursor)
        with self._store.read(self._id) as tx:
            session_row(tx, session_id)
            rows = tx.list_turns(session_id, after_seq=after, offset=offset, limit=limit + 1)
        more = len(rows) > limit
        rows = rows[:limit]
        return TurnPage(
            turns=[to_turn(r) for r in rows],
            next_cursor=_encode_cursor(rows[-1].seq) if more and rows else None,
            has_more=more,
        )

    def _metadata(self, metadata: object) -> str:
        check_json_value(metadata, field="metadata")
        try:
            blob = json.dumps(metadata)
        except (TypeError, ValueError) as exc:
            raise ValidationError(
                f"metadata must be JSON-serializable: {exc}", field="metadata"
            ) from None
        most = self._limits.session_metadata_chars
        if len(blob) > most:
            raise ValidationError(f"metadata is over {most} characters as JSON", field="metadata")
        return blob


def _encode_cursor(seq: int) -> str:
    return base64.urlsafe_b64encode(f"seq:{seq}".encode()).decode().rstrip("=")


def _decode_cursor(cursor: object) -> int:
    if not isinstance(cursor, str):
        raise ValidationError("cursor must be a string from next_cursor", field="cursor")
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        prefix, _, number = text.partition(":")
        if prefix != "seq" or not number.isdigit():
            raise ValueError(text)
        return int(number)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise ValidationError(
            f"cursor {cursor!r} is not one this memory issued", field="cursor"
        ) from None
