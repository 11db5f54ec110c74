"""Builders and invariant checks shared by the conformance tests."""

from __future__ import annotations

from typing import Any

import turngraph


def entity(
    name: str, description: str | None = None, type: str = "person", **extra: Any
) -> dict[str, Any]:
    return {"name": name, "type": type, "description": description or f"{name}, for tests", **extra}


def rel(source: str, type: str, target: str, **extra: Any) -> dict[str, Any]:
    return {"source": source, "type": type, "target": target, **extra}


def counts(mem: turngraph.Memory) -> tuple[int, int, int, int]:
    info = mem.info()
    return info.observations, info.entities, info.relationships, info.files


def check_graph_invariants(mem: turngraph.Memory, live_slugs: set[str]) -> None:
    """Every entity and relationship is backed by a live observation; degrees are exact.

    Uses only the public API, so it holds the same on every backend.
    """
    backed_entities: set[str] = set()
    backed_rels: set[tuple[str, str, str]] = set()
    for slug in live_slugs:
        obs = mem.get_observation(slug)
        backed_entities.update(obs.entities)
        for r in obs.relationships:
            backed_rels.add((r.source, r.type, r.target))
            # A backing observation is linked to both ends of what it backs.
            assert r.source in obs.entities, (slug, r)
            assert r.target in obs.entities, (slug, r)
    entities = mem.list_entities(limit=1000)
    names = {e.name for e in entities}
    assert names == backed_entities, names ^ backed_entities
    all_rels: set[tuple[str, str, str]] = set()
    for e in entities:
        full = mem.get_entity(e.name)
        assert full.observations, f"{e.name} has no observation"
        assert set(full.observations) <= live_slugs, (e.name, full.observations)
        touching = {(r.source, r.type, r.target) for r in full.relationships}
        all_rels |= touching
        assert full.degree == len(touching), (e.name, full.degree, touching)
        assert full.description.strip()
    assert all_rels == backed_rels, all_rels ^ backed_rels
    info = mem.info()
    assert (info.observations, info.entities, info.relationships) == (
        len(live_slugs),
        len(names),
        len(backed_rels),
    )
