"""`turngraph copy SRC DST`: whole memories from one database to another, on any backends.

A copy is made row by row through the storage protocol, as the records of
:mod:`turngraph.core.records` (the same ones ``turngraph export`` writes), so it works between
any two backends (SQLite to PostgreSQL and back): observations with their tags, files, entity
assertions and relationship backings (each with its write sequence), entities with their
aliases, relationships, sessions and turns, attribute versions with their history, turn
facts, files, merge proposals and rejections, retired slugs and idempotency records; and,
when the whole database is copied, principals, API keys (their hashes) and grants. Row ids
are the destination's own; everything else, timestamps included, is kept. Vectors are not
copied: the destination embeds the copied rows again with the memory's own embedder (the
same model gives the same vectors). Each memory is copied in one write transaction of the
destination: it lands whole or not at all.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable

from turngraph.core.records import copy_rows
from turngraph.errors import ConflictError, NotFoundError, ValidationError
from turngraph.store.base import MemoryRow, Store


def copy_memories(
    src: Store,
    dst: Store,
    *,
    names: list[str] | None = None,
    organization: str = "default",
    log: Callable[[str], None] = lambda _: None,
) -> list[MemoryRow]:
    """Copy the memories named (all of them when ``names`` is None, and then principals, keys
    and grants too) from ``src`` to ``dst``. Raises ConflictError, before writing anything,
    when ``dst`` already holds a memory of the same name and organization."""
    if src.url == dst.url:
        raise ValidationError("source and destination are the same database", field="dst")
    if names is None:
        rows = src.list_memories()
    else:
        rows = []
        for name in names:
            row = src.get_memory(name, organization=organization)
            if row is None:
                raise NotFoundError(f"no memory {name!r} in {src.url}", memory=name)
            rows.append(row)
    taken = [r.name for r in rows if dst.get_memory(r.name, organization=r.organization)]
    if taken:
        raise ConflictError(
            f"{dst.url} already has memories named {', '.join(map(repr, taken))}",
            memory=taken[0],
        )
    copied = [copy_memory(src, dst, row) for row in rows]
    for row in copied:
        log(f"copied memory {row.name!r}")
    if names is None:
        _copy_access(src, dst, {(r.name, r.organization): r for r in copied}, log)
    return copied


def copy_memory(src: Store, dst: Store, row: MemoryRow) -> MemoryRow:
    """Copy one memory; its new row in ``dst``."""
    new = dst.create_memory(
        name=row.name,
        visibility=row.visibility,
        retrieval=row.retrieval,
        now=row.created_at,
        organization=row.organization,
    )
    try:
        embeds = json.loads(row.retrieval).get("embedder") != "none"
        with src.read(row.id) as r, dst.write(new.id) as w:
            copy_rows(r, w, embeds=embeds)
    except BaseException:
        dst.delete_memory(new.id)
        raise
    return new


def _copy_access(
    src: Store, dst: Store, memories: dict[tuple[str, str], MemoryRow], log: Callable[[str], None]
) -> None:
    """Principals, their keys (hashes, revocations) and their grants on the copied memories;
    a principal the destination already has is left as it is there."""
    have = {p.id for p in dst.list_principals()}
    hashes = src.key_hashes()
    copied = 0
    for p in src.list_principals():
        if p.id in have:
            continue
        dst.create_principal(p)
        for key in src.list_keys(p.id):
            dst.add_key(dataclasses.replace(key, revoked_at=None), hashes[key.id])
            if key.revoked_at is not None:
                dst.revoke_key(key.id, key.revoked_at)
        copied += 1
    for g in src.list_grants():
        row = memories.get((g.memory, g.organization))
        if row is not None:
            dst.set_grant(g.principal_id, row.id, g.tier, g.created_at)
    log(f"copied {copied} principal(s) with their keys and grants")
