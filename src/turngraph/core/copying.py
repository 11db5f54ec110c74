"""`turngraph copy SRC DST`: whole memories from one database to another, on any backends.

A copy is made row by row through the storage protocol, so it works between any two
backends (SQLite to PostgreSQL and back): observations with their tags, files, entity
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

from turngraph.errors import ConflictError, NotFoundError, ValidationError
from turngraph.store.base import MemoryRow, ObservationFilter, ReadTx, Store, WriteTx

ALL = 10**9  # a limit that reads every row


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
            _copy_rows(r, w, embeds=embeds)
    except BaseException:
        dst.delete_memory(new.id)
        raise
    return new


def _copy_rows(r: ReadTx, w: WriteTx, *, embeds: bool) -> None:
    entities = _copy_entities(r, w)
    observations = _copy_observations(r, w, entities)
    relationships = _copy_relationships(r, w, entities)
    for old, new in observations.items():
        for b in r.observation_backings(old):
            w.put_backing(
                new,
                relationships[b.relationship_id],
                description=b.description,
                weight=b.weight,
                seq=b.seq,
            )
    w.recompute_degrees(entities.values())
    _copy_turns(r, w, observations)
    for a in r.attributes_for_observations(sorted(observations)):
        w.insert_attribute(
            dataclasses.replace(
                a, entity_id=entities[a.entity_id], observation_id=observations[a.observation_id]
            )
        )
    for old, new in observations.items():
        for f in r.facts_for_observation(old):
            w.insert_fact(dataclasses.replace(f, observation_id=new))
    for old, context in r.search_contexts().items():
        w.set_search_context(observations[old], context)
        if embeds:
            w.enqueue("window", observations[old])
    for listed in r.list_files(prefix=None):
        found = r.get_file(listed.path, with_data=True)
        assert found is not None
        w.put_file(found)
    for p in r.list_proposals(status=None):
        pid = w.insert_proposal(
            canonical_key=p.canonical_key,
            canonical_name=p.canonical_name,
            duplicate_key=p.duplicate_key,
            duplicate_name=p.duplicate_name,
            type=p.type,
            reasons=p.reasons,
            score=p.score,
            now=p.created_at,
        )
        if p.status != "open" or p.decided_at is not None:
            w.set_proposal_status(pid, p.status, now=p.decided_at or p.created_at)
    for key_a, key_b, at in r.rejections():
        w.reject_pair(key_a, key_b, now=at)
    for slug, at in r.retired_slugs():
        w.retire_slug(slug, now=at)
    for idem in r.idempotency_rows():
        w.put_idempotency(idem)
    w.raise_seq(r.write_seq())


def _copy_entities(r: ReadTx, w: WriteTx) -> dict[int, int]:
    entities: dict[int, int] = {}
    for e in r.iter_entities():
        new = w.insert_entity(
            key=e.key,
            name=e.name,
            type=e.type,
            description=e.description,
            retrieval_queries=e.retrieval_queries,
            now=e.created_at,
            memory_category=e.memory_category,
        )
        if e.updated_at != e.created_at:
            w.update_entity(
                new.id,
                type=e.type,
                description=e.description,
                retrieval_queries=e.retrieval_queries,
                now=e.updated_at,
            )
        entities[e.id] = new.id
    for key, name, entity_id in r.alias_rows():
        w.add_alias(key=key, name=name, entity_id=entities[entity_id])
    return entities


def _copy_observations(r: ReadTx, w: WriteTx, entities: dict[int, int]) -> dict[int, int]:
    observations: dict[int, int] = {}
    ids = sorted(r.filter_observations(ObservationFilter(), limit=ALL))
    for o in r.get_observations(ids):
        fields = {
            "title": o.title,
            "content": o.content,
            "category": o.category,
            "tags": o.tags,
            "observed_at": o.observed_at,
            "confidence": o.confidence,
            "source": o.source,
        }
        new = w.insert_observation(slug=o.slug, now=o.created_at, **fields)  # type: ignore[arg-type]
        if o.updated_at != o.created_at:
            w.update_observation(new, now=o.updated_at, **fields)  # type: ignore[arg-type]
        w.set_observation_files(new, r.observation_files(o.id))
        for a in r.observation_assertions(o.id):
            w.put_link(
                new,
                entities[a.entity_id],
                explicit=a.explicit,
                type=a.type,
                description=a.description,
                retrieval_queries=a.retrieval_queries,
                seq=a.seq,
            )
        observations[o.id] = new
    return observations


def _copy_relationships(r: ReadTx, w: WriteTx, entities: dict[int, int]) -> dict[int, int]:
    found = {}
    for old in entities:
        rows, _ = r.entity_relationships(old, limit=ALL)
        found.update({rel.id: rel for rel in rows})
    times = r.relationship_times()
    relationships: dict[int, int] = {}
    for rel in sorted(found.values(), key=lambda x: x.id):
        created, updated = times[rel.id]
        new = w.insert_relationship(
            source_id=entities[rel.source_id],
            type=rel.type,
            target_id=entities[rel.target_id],
            now=created,
            memory_category=rel.memory_category,
            valid_from=rel.valid_from,
        )
        w.update_relationship(new, description=rel.description, weight=rel.weight, now=updated)
        w.set_relationship_validity(
            new,
            memory_category=rel.memory_category,
            valid_from=rel.valid_from,
            valid_until=rel.valid_until,
        )
        relationships[rel.id] = new
    return relationships


def _copy_turns(r: ReadTx, w: WriteTx, observations: dict[int, int]) -> None:
    sessions = r.list_sessions(offset=0, limit=ALL)
    for s in sorted(sessions, key=lambda x: (x.created_at, x.id)):
        w.insert_session(s.id, metadata=s.metadata, now=s.created_at)
        for _ in range(s.turn_count):
            w.next_turn_seq(s.id)
        for t in r.list_turns(s.id, after_seq=0, offset=0, limit=ALL):
            w.insert_turn(
                turn_id=t.id,
                session_id=t.session_id,
                seq=t.seq,
                role=t.role,
                speaker=t.speaker,
                observation_id=observations[t.observation_id],
                extracted=t.extracted,
                labels=t.labels,
                now=t.created_at,
            )


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
