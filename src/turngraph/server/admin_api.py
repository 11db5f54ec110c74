"""Admin routes (``/v1/admin/...``, admin keys only): principals, keys, grants. And
``/v1/whoami`` for any key."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Response
from pydantic import BaseModel, ConfigDict, Field

from turngraph.core.access import Caller
from turngraph.core.database import Database
from turngraph.errors import ForbiddenError, NotFoundError
from turngraph.server.common import CallerDep, DatabaseDep, authenticated, responses
from turngraph.store.base import GrantRow, MemoryRow

router = APIRouter(tags=["admin"])


def admin(caller: CallerDep) -> Caller:
    if not caller.principal.admin:
        raise ForbiddenError("this needs an admin key")
    return caller


AdminDep = Annotated[Caller, Depends(admin)]
ERRS = responses(400, 401, 403, 404, 409)


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PrincipalIn(_In):
    id: str = Field(min_length=1, max_length=64)
    organization: str = Field(default="default", min_length=1, max_length=64)
    display_name: str | None = Field(default=None, max_length=200)
    kind: Literal["agent", "human", "service"] = "agent"
    admin: bool = False
    create_memories: bool = False


class PrincipalPatch(_In):
    create_memories: bool


class PrincipalOut(BaseModel):
    id: str
    organization: str
    display_name: str
    kind: str
    admin: bool
    create_memories: bool
    created_at: datetime


class KeyIn(_In):
    principal: str = Field(min_length=1, max_length=64)
    name: str = Field(default="default", min_length=1, max_length=100)


class KeyOut(BaseModel):
    id: str
    principal_id: str
    name: str
    created_at: datetime
    revoked_at: datetime | None = None


class MintedKey(KeyOut):
    key: str  # shown once


class GrantIn(_In):
    principal: str = Field(min_length=1, max_length=64)
    memory: str = Field(min_length=1, max_length=64)
    # The memory's organization (a name is unique per organization); the admin's by default.
    organization: str | None = Field(default=None, min_length=1, max_length=64)
    tier: Literal["read", "read_write", "full"] = "read_write"


class GrantOut(BaseModel):
    principal_id: str
    memory: str
    organization: str  # the memory's
    tier: str
    created_at: datetime | None = None


class WhoAmIOut(BaseModel):
    principal: PrincipalOut
    key_id: str
    grants: list[GrantOut]


def _principal(row: Any) -> PrincipalOut:
    return PrincipalOut(
        id=row.id,
        organization=row.organization,
        display_name=row.display_name,
        kind=row.kind,
        admin=row.admin,
        create_memories=row.admin or row.create_memories,
        created_at=row.created_at,
    )


def _grant(row: GrantRow) -> GrantOut:
    return GrantOut(
        principal_id=row.principal_id,
        memory=row.memory,
        organization=row.organization,
        tier=row.tier,
        created_at=row.created_at,
    )


def _memory(db: Database, name: str, organization: str) -> MemoryRow:
    row = db.store.get_memory(name, organization=organization)
    if row is None:
        raise NotFoundError(
            f"no memory named {name!r} in organization {organization!r}",
            memory=name,
            organization=organization,
        )
    return row


def _key(row: Any) -> KeyOut:
    return KeyOut(
        id=row.id,
        principal_id=row.principal_id,
        name=row.name,
        created_at=row.created_at,
        revoked_at=row.revoked_at,
    )


@router.get("/v1/whoami", response_model=WhoAmIOut, responses=responses(401))
def whoami(db: DatabaseDep, caller: Annotated[Caller, Depends(authenticated)]) -> WhoAmIOut:
    """The key's principal and its connections (an admin reaches every memory of its
    organization in full)."""
    grants = [_grant(g) for g in db.access.list_grants(caller.principal.id)]
    if caller.principal.admin:
        own = caller.principal.organization
        grants = [
            GrantOut(principal_id=caller.principal.id, memory=m.name, organization=own, tier="full")
            for m in db.store.list_memories()
            if m.organization == own
        ] + [g for g in grants if g.organization != own]
    return WhoAmIOut(principal=_principal(caller.principal), key_id=caller.key_id, grants=grants)


@router.post("/v1/admin/principals", status_code=201, response_model=PrincipalOut, responses=ERRS)
def create_principal(body: PrincipalIn, db: DatabaseDep, _: AdminDep) -> PrincipalOut:
    row = db.access.create_principal(
        body.id,
        organization=body.organization,
        display_name=body.display_name,
        kind=body.kind,
        admin=body.admin,
        create_memories=body.create_memories,
    )
    return _principal(row)


@router.patch("/v1/admin/principals/{principal}", response_model=PrincipalOut, responses=ERRS)
def update_principal(
    principal: str, body: PrincipalPatch, db: DatabaseDep, _: AdminDep
) -> PrincipalOut:
    """Let a principal create memories (``create_memories``), or take that right back."""
    return _principal(db.access.allow_memory_creation(principal, body.create_memories))


@router.get("/v1/admin/principals", response_model=list[PrincipalOut], responses=ERRS)
def list_principals(db: DatabaseDep, _: AdminDep) -> list[PrincipalOut]:
    return [_principal(p) for p in db.access.list_principals()]


@router.post("/v1/admin/keys", status_code=201, response_model=MintedKey, responses=ERRS)
def create_key(body: KeyIn, db: DatabaseDep, _: AdminDep) -> MintedKey:
    """A new key for a principal. The key is in this response only; it is stored hashed."""
    row, key = db.access.create_key(body.principal, name=body.name)
    return MintedKey(**_key(row).model_dump(), key=key)


@router.get("/v1/admin/keys", response_model=list[KeyOut], responses=ERRS)
def list_keys(db: DatabaseDep, _: AdminDep, principal: str | None = None) -> list[KeyOut]:
    return [_key(k) for k in db.access.list_keys(principal)]


@router.delete("/v1/admin/keys/{key_id}", response_model=KeyOut, responses=ERRS)
def revoke_key(key_id: str, db: DatabaseDep, _: AdminDep) -> KeyOut:
    return _key(db.access.revoke_key(key_id))


@router.put("/v1/admin/grants", response_model=GrantOut, responses=ERRS)
def grant(body: GrantIn, db: DatabaseDep, caller: AdminDep) -> GrantOut:
    """Connect a principal to a memory at a tier (default ``read_write``), or change it. The
    memory is the one of that name in ``organization`` (the admin's by default)."""
    row = _memory(db, body.memory, body.organization or caller.principal.organization)
    tier = db.access.grant(body.principal, row, body.tier)
    return GrantOut(
        principal_id=body.principal, memory=row.name, organization=row.organization, tier=tier
    )


@router.get("/v1/admin/grants", response_model=list[GrantOut], responses=ERRS)
def list_grants(db: DatabaseDep, _: AdminDep, principal: str | None = None) -> list[GrantOut]:
    return [_grant(g) for g in db.access.list_grants(principal)]


@router.delete("/v1/admin/grants/{principal}/{memory}", status_code=204, responses=ERRS)
def revoke_grant(
    principal: str,
    memory: str,
    db: DatabaseDep,
    caller: AdminDep,
    organization: Annotated[str | None, Query(min_length=1, max_length=64)] = None,
) -> Response:
    """Disconnect a principal from the memory of that name in ``organization`` (the admin's
    by default)."""
    row = _memory(db, memory, organization or caller.principal.organization)
    db.access.revoke_grant(principal, row)
    return Response(status_code=204)
