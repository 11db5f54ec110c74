"""Assembling a recall result: bounded hits, facts, entities, relationships and snippets."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from turngraph.core import graph
from turngraph.models import Hit, RecalledEntity, RecallResult, Snippet, Source
from turngraph.recall.currency import Currency
from turngraph.store.base import AttributeRow, ObservationRow, ReadTx, TurnRow

SNIPPET_CHARS = 280
ATTRIBUTE_HITS = 5  # attribute facts among the hits, at most


@dataclass(frozen=True, slots=True)
class Bounds:
    k: int
    entities: int
    relationships: int
    snippets: int


def assemble(
    tx: ReadTx,
    query: str | None,
    mode: str,
    ranked: Sequence[int],
    scores: dict[int, float],
    attributes: Sequence[tuple[AttributeRow, float]],
    ent_scores: dict[int, float],
    bounds: Bounds,
    currency: Currency,
) -> RecallResult:
    """The result from ranked observations whose ``scores`` are on 0..1 and entity
    scores on 0..1. One hit per source observation: a turn never appears twice."""
    cut: list[str] = []
    top = list(ranked[: bounds.k])
    # Entities: those relevant to the query, else those the top passages mention.
    if not ent_scores:
        links = tx.links_for_observations(top)
        for oid in top:
            for entity_id in links.get(oid, []):
                ent_scores[entity_id] = ent_scores.get(entity_id, 0.0) + scores[oid]
        most = max(ent_scores.values(), default=1.0) or 1.0
        ent_scores = {e: v / most for e, v in ent_scores.items()}
    ordered = sorted(ent_scores, key=lambda e: -ent_scores[e])
    if len(ordered) > bounds.entities:
        cut.append(f"entities: {len(ordered)} matched, {bounds.entities} returned (max_entities)")
    read = tx.shown_rows(top, ordered[: bounds.entities], relationships=bounds.relationships + 1)
    observations = {o.id: o for o in read.observations}
    turns = read.turns
    replaced = currency.replaced(top)
    hits: list[Hit] = []
    for oid in top:
        obs = observations.get(oid)
        if obs is not None:
            notes = [f.note for f in replaced.get(oid, ())]
            hits.append(_hit(obs, turns.get(oid), scores[oid], notes))
    # Attribute facts the query matched follow the passages (they never displace one and
    # score below the last), each citing the turn or observation it came from, at most
    # one per source.
    shown = {h.source.slug for h in hits}
    below = min((h.score for h in hits), default=1.0)
    facts = 0
    for row, score in attributes:
        if facts == ATTRIBUTE_HITS:
            break
        slug = row.source_slug or ""
        if slug in shown:
            continue
        shown.add(slug)
        facts += 1
        hits.append(
            Hit(
                id=row.id,
                kind="attribute",
                text=f"{row.entity_name} {row.key.replace('_', ' ')}: {row.value}",
                score=round(below * score / (score + 1.0), 6) if score > 0 else 0.0,
                observed_at=row.valid_from,
                source=Source(slug=slug, turn_id=row.source_turn),
            )
        )
    rows = read.entities
    entities = [
        RecalledEntity(
            name=rows[e].name,
            type=rows[e].type,
            description=rows[e].description,
            degree=rows[e].degree,
            score=round(ent_scores[e], 6),
        )
        for e in ordered[: bounds.entities]
        if e in rows
    ]
    rels = read.relationships
    if len(rels) > bounds.relationships:
        cut.append(
            f"relationships: more than {bounds.relationships} among the returned "
            "entities (max_relationships)"
        )
    snippets: list[Snippet] = []
    by_slug = {o.slug: o for o in observations.values()}
    for hit in hits:
        if hit.kind == "attribute":
            continue
        if len(snippets) == bounds.snippets:
            cut.append(f"snippets: more than {bounds.snippets} source observations (max_snippets)")
            break
        snippets.append(_snippet(by_slug[hit.source.slug], hit))
    return RecallResult(
        query=query,
        mode=mode,
        entities=entities,
        relationships=[graph.to_relationship(r) for r in rels[: bounds.relationships]],
        snippets=snippets,
        hits=hits,
        truncated=cut,
    )


def _source(obs: ObservationRow, turn: TurnRow | None) -> Source:
    if turn is None:
        return Source(slug=obs.slug)
    return Source(
        slug=obs.slug,
        turn_id=turn.id,
        session_id=turn.session_id,
        seq=turn.seq,
        role=turn.role,
        speaker=turn.speaker,
    )


def _hit(obs: ObservationRow, turn: TurnRow | None, score: float, superseded: list[str]) -> Hit:
    text = obs.content
    if len(text) > SNIPPET_CHARS:
        text = text[: SNIPPET_CHARS - 1].rstrip() + "\u2026"
    return Hit(
        id=turn.id if turn else f"observation:{obs.slug}",
        kind="turn" if turn else "observation",
        text=text,
        score=round(score, 6),
        observed_at=obs.observed_at,
        source=_source(obs, turn),
        superseded=superseded,
    )


def _snippet(obs: ObservationRow, hit: Hit) -> Snippet:
    truncated = len(obs.content) > SNIPPET_CHARS
    text = obs.content if not truncated else obs.content[: SNIPPET_CHARS - 1].rstrip() + "\u2026"
    return Snippet(
        slug=obs.slug,
        title=obs.title,
        text=text,
        truncated=truncated,
        observed_at=obs.observed_at,
        category=obs.category,
        source=hit.source,
        score=hit.score,
    )
