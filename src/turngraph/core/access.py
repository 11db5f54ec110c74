"""Who may do what: principals, API keys, and tiered connections to memories.

A principal (an agent, a person or a service) belongs to an organization and holds keys.
Access is granted per principal-to-memory connection in nested tiers: ``read`` (recall,
inspect, read in full, list and read files, state, turns) < ``read_write`` (adds remembering
turns, adding observations, storing files, running consolidation: additive only) < ``full``
(adds update, delete, forget, accepting merges: corrective). A memory at organization
visibility is readable by every principal of its organization without a connection. An admin
principal holds ``full`` on every memory of its organization and manages the principals, keys
and grants of every organization. Creating memories and opening one to its organization are
admin rights; an admin may let a principal create memories (``create_memories``).

A memory's name is unique within its organization, and a caller's name means its own
organization's memory (:meth:`Caller.find_memory`), or, where its organization has none by
that name, the memory of that name in another organization it is connected to. To any other
caller a memory of another organization does not exist: it is told "not found", as for a name
nobody uses, and may create a memory of the same name in its own organization.

Keys are ``tg_<id>_<secret>`` with a 192-bit random secret; only a SHA-256 of the whole key
is stored (a fast hash suffices for a random secret of that size), so a key is shown once.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from turngraph.core.validate import check_text
from turngraph.errors import ConflictError, ForbiddenError, NotFoundError, ValidationError
from turngraph.store.base import GrantRow, KeyRow, MemoryRow, PrincipalRow, Store

Tier = Literal["read", "read_write", "full"]
TIERS: tuple[Tier, ...] = ("read", "read_write", "full")
DEFAULT_TIER: Tier = "read_write"
KINDS = ("agent", "human", "service")
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$")
MIN_KEY_CHARS = 16


OVERWRITE_TIER: Tier = "full"  # read_write adds; replacing what is stored is full's


def require_overwrite(held: str) -> None:
    """Refuse replacing an existing file below the ``full`` tier: ``read_write`` may add
    files, not change them (ForbiddenError naming both tiers)."""
    if not tier_allows(held, OVERWRITE_TIER):
        raise ForbiddenError(
            f"overwriting a file needs the {OVERWRITE_TIER!r} tier; this connection holds "
            f"{held!r} (read_write may add files, not replace them)",
            tier=held,
        )


def tier_allows(held: str | None, needed: Tier) -> bool:
    """Whether a connection at tier ``held`` may do what needs ``needed`` (nested tiers)."""
    return held in TIERS and TIERS.index(held) >= TIERS.index(needed)


def check_tier(tier: object) -> Tier:
    if tier not in TIERS:
        raise ValidationError(f"tier must be one of {', '.join(TIERS)}", field="tier")
    return tier


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class Caller:
    """An authenticated principal, and the key it presented."""

    principal: PrincipalRow
    key_id: str

    def find_memory(self, store: Store, name: str) -> MemoryRow | None:
        """The memory this caller means by ``name``: its organization's, else the one of that
        name in another organization it is connected to; None when there is neither (whether
        or not another organization uses the name)."""
        found = self.reach(store, name)
        return None if found is None else found[0]

    def reach(self, store: Store, name: str) -> tuple[MemoryRow, Tier | None] | None:
        """The memory this caller means by ``name`` (as :meth:`find_memory`) with this
        caller's tier on it (None: no access at all), from one read of the store."""
        found = store.reach_memory(self.principal.id, self.principal.organization, name)
        if found is None:
            return None
        row, granted = found
        return row, self._tier(row, granted)

    def tier_on(self, store: Store, memory: MemoryRow) -> Tier | None:
        """This caller's effective tier on ``memory``; None when it has no access at all."""
        admin = self.principal.admin and memory.organization == self.principal.organization
        return self._tier(memory, None if admin else store.get_grant(self.principal.id, memory.id))

    def _tier(self, memory: MemoryRow, granted: str | None) -> Tier | None:
        own = memory.organization == self.principal.organization
        if self.principal.admin and own:
            return "full"
        if granted is not None:
            return check_tier(granted)
        if memory.visibility == "organization" and own:
            return "read"
        return None

    @property
    def may_create_memories(self) -> bool:
        return self.principal.admin or self.principal.create_memories

    def require(self, store: Store, memory: MemoryRow, needed: Tier) -> Tier:
        """The caller's tier on ``memory``, or ForbiddenError naming what is missing
        (NotFoundError, as for an unknown name, when the memory belongs to another
        organization and the caller has no connection to it)."""
        return self.allowed(memory, self.tier_on(store, memory), needed)

    def open(self, store: Store, name: str, needed: Tier) -> tuple[MemoryRow, Tier]:
        """The memory this caller means by ``name`` and its tier there, if that allows
        ``needed`` (:meth:`require`), from one read of the store; NotFoundError for a name
        it cannot reach."""
        found = self.reach(store, name)
        if found is None:
            raise NotFoundError(f"no memory named {name!r}", memory=name)
        row, held = found
        return row, self.allowed(row, held, needed)

    def allowed(self, memory: MemoryRow, held: Tier | None, needed: Tier) -> Tier:
        """``held`` if it allows ``needed`` on ``memory``, else the error :meth:`require`
        raises."""
        if held is None and memory.organization != self.principal.organization:
            raise NotFoundError(f"no memory named {memory.name!r}", memory=memory.name)
        if held is None:
            raise ForbiddenError(
                f"principal {self.principal.id!r} has no connection to memory {memory.name!r}",
                memory=memory.name,
            )
        if not tier_allows(held, needed):
            raise ForbiddenError(
                f"this needs the {needed!r} tier on memory {memory.name!r}; principal "
                f"{self.principal.id!r} holds {held!r}",
                memory=memory.name,
                tier=held,
            )
        return held


class Access:
    """Principals, keys and grants of one deployment (admin operations)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    # -- principals ------------------------------------------------------------------------

    def create_principal(
        self,
        principal_id: str,
        *,
        organization: str = "default",
        display_name: str | None = None,
        kind: str = "agent",
        admin: bool = False,
        create_memories: bool = False,
    ) -> PrincipalRow:
        check_id(principal_id, "principal")
        check_id(organization, "organization")
        if kind not in KINDS:
            raise ValidationError(f"kind must be one of {', '.join(KINDS)}", field="kind")
        name = (
            principal_id
            if display_name is None
            else check_text(display_name, field="display_name").strip()
        )
        if not name or len(name) > 200:
            raise ValidationError("display_name must be 1-200 characters", field="display_name")
        return self.store.create_principal(
            PrincipalRow(
                principal_id,
                organization,
                name,
                kind,
                admin,
                datetime.now(UTC),
                create_memories=bool(create_memories),
            )
        )

    def allow_memory_creation(self, principal_id: str, allowed: bool = True) -> PrincipalRow:
        """Let ``principal_id`` create memories (or take that right back)."""
        row = self.store.set_create_memories(principal_id, bool(allowed))
        if row is None:
            raise NotFoundError(f"no principal {principal_id!r}", principal=principal_id)
        return row

    def principal(self, principal_id: str) -> PrincipalRow:
        found = self.store.get_principal(principal_id)
        if found is None:
            raise NotFoundError(f"no principal {principal_id!r}", principal=principal_id)
        return found

    def list_principals(self) -> list[PrincipalRow]:
        return self.store.list_principals()

    def is_empty(self) -> bool:
        return self.store.count_principals() == 0

    # -- keys ------------------------------------------------------------------------------

    def create_key(
        self, principal_id: str, *, name: str = "default", secret: str | None = None
    ) -> tuple[KeyRow, str]:
        """A new key for ``principal_id``: ``(row, key)``. The key is never stored or shown
        again. ``secret`` adopts a key chosen by the operator (at least 16 characters)."""
        self.principal(principal_id)
        label = check_text(name, field="name").strip()
        if not label or len(label) > 100:
            raise ValidationError("key name must be 1-100 characters", field="name")
        key_id = secrets.token_hex(6)
        if secret is None:
            secret = f"tg_{key_id}_{secrets.token_urlsafe(24)}"
        elif not isinstance(secret, str) or len(secret) < MIN_KEY_CHARS or secret != secret.strip():
            raise ValidationError(
                f"a chosen key must be at least {MIN_KEY_CHARS} characters, without spaces "
                "around it",
                field="key",
            )
        row = KeyRow(key_id, principal_id, label, datetime.now(UTC))
        return self.store.add_key(row, hash_key(secret)), secret

    def list_keys(self, principal_id: str | None = None) -> list[KeyRow]:
        return self.store.list_keys(principal_id)

    def revoke_key(self, key_id: str) -> KeyRow:
        row = self.store.revoke_key(str(key_id), datetime.now(UTC))
        if row is None:
            raise NotFoundError(f"no key {key_id!r}", key=key_id)
        return row

    def authenticate(self, key: str | None) -> Caller | None:
        """The caller a presented key belongs to; None for a missing, unknown or revoked key."""
        if not key:
            return None
        found = self.store.find_key(hash_key(key))
        if found is None:
            return None
        row, principal = found
        return Caller(principal, row.id)

    # -- grants ----------------------------------------------------------------------------

    def grant(self, principal_id: str, memory: MemoryRow, tier: str = DEFAULT_TIER) -> Tier:
        """Connect ``principal_id`` to ``memory`` at ``tier`` (or change the tier).

        A principal reaches a memory of another organization by its name, so that name must
        not already mean another memory to it (its own organization's, or one it is connected
        to): ConflictError otherwise."""
        principal = self.principal(principal_id)
        checked = check_tier(tier)
        if memory.organization != principal.organization:
            held = [
                g.organization
                for g in self.store.list_grants(principal_id)
                if g.memory == memory.name and g.organization != memory.organization
            ]
            if self.store.get_memory(memory.name, organization=principal.organization):
                held.append(principal.organization)
            if held:
                raise ConflictError(
                    f"principal {principal_id!r} already reaches a memory named "
                    f"{memory.name!r} (of organization {held[0]!r}), so it could not reach "
                    "this one by its name",
                    principal=principal_id,
                    memory=memory.name,
                )
        self.store.set_grant(principal_id, memory.id, checked, datetime.now(UTC))
        return checked

    def revoke_grant(self, principal_id: str, memory: MemoryRow) -> None:
        if not self.store.remove_grant(principal_id, memory.id):
            raise NotFoundError(
                f"principal {principal_id!r} has no connection to memory {memory.name!r}",
                principal=principal_id,
                memory=memory.name,
            )

    def list_grants(self, principal_id: str | None = None) -> list[GrantRow]:
        return self.store.list_grants(principal_id)


def check_id(value: object, what: str) -> str:
    if not isinstance(value, str) or not _ID.match(value):
        raise ValidationError(
            f"invalid {what} id {value!r}: use 1-64 letters, digits, '.', '_', '@' or '-', "
            "starting with a letter or digit",
            field=what,
        )
    return value
