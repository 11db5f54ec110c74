"""Assembling a recall result: bounded hits, facts, entities, relationships and snippets."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from turngraph.core import graph
from turngraph.models import Hit, RecalledEntity, RecallResult, Snippet, Source
from turngraph.recall.currency import Currency
from turngraph.recall.facts import Answer
from turngraph.store.base import ObservationRow, ReadTx, ShownRows, TurnRow

SNIPPET_CHARS = 280
ATTRIBUTE_HITS = 5  # facts among the hits, at most (never more than k)


@dataclass
class Early:
    """Rows read while the query embedding ran (the passages likely to be shown): what the
    rest of the recall need not read again."""

    shown: ShownRows | None = None

    @classmethod
    def read(cls, tx: ReadTx, ids: Sequence[int]) -> Early:
        return cls(tx.shown_rows(ids, [], relationships=0))

    def times(self, tx: ReadTx, ids: Sequence[int]) -> dict[int, datetime]:
        """When each of ``ids`` was observed, read only for those not read early."""
        known = {o.id: o.observed_at for o in self.shown.observations} if self.shown else {}
        out = {oid: known[oid] for oid in ids if oid in known}
        out.update(tx.observation_times([oid for oid in ids if oid not in known]))
        return out


@dataclass(frozen=True, slots=True)
class Bounds:
    k: int
    entities: int
    relationships: int
    snippets: int


# The rows here are the store's own, already checked: models are built without validating
# them again (the most frequent objects a recall makes).


def assemble(
    tx: ReadTx,
    query: str | None,
    mode: str,
    ranked: Sequence[int],
    scores: dict[int, float],
    facts: Sequence[Answer],
    ent_scores: dict[int, float],
    bounds: Bounds,
    currency: Currency,
    fact_scores: dict[str, float] | None = None,
    *,
    early: ShownRows | None = None,
) -> RecallResult:
    """The result from ranked observations whose ``scores`` are on 0..1, the facts that answer
    the question (scored by ``fact_scores`` on the same scale, else placed first, in their
    order) and entity scores on 0..1.

    ``k`` bounds every hit: facts and passages together, best first. One hit per source
    observation: a fact stands for the turn that stated it, which is not listed again. What
    ranked below the ``k`` returned is reported in ``truncated``."""
    cut: list[str] = []
    facts = list(facts[: min(ATTRIBUTE_HITS, bounds.k)])
    stated = {a.observation_id for a in facts}
    passages = [oid for oid in ranked if oid not in stated]
    if fact_scores is not None:
        # The best k of facts and passages together: a fact may rank below a passage.
        pool = [(fact_scores[a.id], 0, i) for i, a in enumerate(facts)]
        pool += [(scores[oid], 1, i) for i, oid in enumerate(passages[: bounds.k])]
        chosen = sorted(pool, key=lambda t: -t[0])[: bounds.k]
        facts = [facts[i] for _, kind, i in sorted(chosen) if kind == 0]
        facts.sort(key=lambda a: -fact_scores[a.id])
        stated = {a.observation_id for a in facts}
        passages = [oid for oid in ranked if oid not in stated]
    top = passages[: bounds.k - len(facts)]
    dropped = len(ranked) - len([oid for oid in ranked if oid in stated]) - len(top)
    if dropped > 0:
        cut.append(f"hits: {dropped} more candidates ranked below the {bounds.k} returned (k)")
    # Entities: those relevant to the query, else those the top passages mention (none
    # when none are asked for).
    if not ent_scores and bounds.entities:
        links = tx.links_for_observations(top)
        for oid in top:
            for entity_id in links.get(oid, []):
                ent_scores[entity_id] = ent_scores.get(entity_id, 0.0) + scores[oid]
        most = max(ent_scores.values(), default=1.0) or 1.0
        ent_scores = {e: v / most for e, v in ent_scores.items()}
    ordered = sorted(ent_scores, key=lambda e: -ent_scores[e]) if bounds.entities else []
    if len(ordered) > bounds.entities:
        cut.append(f"entities: {len(ordered)} matched, {bounds.entities} returned (max_entities)")
    replaced = currency.replaced(top)
    # Read with the shown passages: the facts' turns, and the turns that replaced a value.
    later = {f.successor for notes in replaced.values() for f in notes if f.successor}
    later |= {a.successor for a in facts if a.successor is not None}
    extra = [oid for oid in (*stated, *later) if oid not in top]
    wanted = [*top, *dict.fromkeys(extra)]
    observations = {o.id: o for o in early.observations} if early else {}
    turns = dict(early.turns) if early else {}
    read = tx.shown_rows(
        [oid for oid in wanted if oid not in observations],
        ordered[: bounds.entities],
        relationships=bounds.relationships + 1 if bounds.entities else 0,
    )
    observations.update((o.id, o) for o in read.observations)
    turns.update(read.turns)
    events = tx.event_times([*top, *(a.observation_id for a in facts)])
    hits: list[Hit] = []
    best = max((scores[oid] for oid in top), default=0.5)
    for i, answer in enumerate(facts):
        obs = observations.get(answer.observation_id)
        by = None if answer.successor is None else _hit_id(observations, turns, answer.successor)
        hits.append(
            Hit.model_construct(
                id=answer.id,
                kind="attribute" if answer.kind == "attribute" else "instruction",
                text=_cut(answer.text),
                score=round(
                    fact_scores[answer.id]
                    if fact_scores is not None
                    else (1.0 + best) / 2 - i * 1e-4,
                    6,
                ),
                observed_at=answer.since,
                source=_source(obs, turns.get(obs.id))
                if obs
                else Source.model_construct(slug=answer.slug or ""),
                superseded=[answer.note] if answer.note else [],
                superseded_at=answer.until,
                superseded_by=by,
                occurred_at=_happened(obs, events),
            )
        )
    for oid in top:
        obs = observations.get(oid)
        if obs is None:
            continue
        notes = replaced.get(oid, ())
        first = min(notes, key=lambda f: f.until) if notes else None
        hits.append(
            _hit(
                obs,
                turns.get(oid),
                scores[oid],
                [f.note for f in notes],
                until=first.until if first else None,
                by=_hit_id(observations, turns, first.successor)
                if first and first.successor
                else None,
                occurred=_happened(obs, events),
            )
        )
    if fact_scores is not None:
        hits.sort(key=lambda h: -h.score)
    rows = read.entities
    entities = [
        RecalledEntity.model_construct(
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
        if hit.source.slug not in by_slug or any(s.slug == hit.source.slug for s in snippets):
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


def _hit_id(
    observations: dict[int, ObservationRow], turns: dict[int, TurnRow], oid: int
) -> str | None:
    """The id a hit on observation ``oid`` would have (None if it is gone)."""
    if oid in turns:
        return turns[oid].id
    obs = observations.get(oid)
    return f"observation:{obs.slug}" if obs else None


def _source(obs: ObservationRow, turn: TurnRow | None) -> Source:
    if turn is None:
        return Source.model_construct(slug=obs.slug)
    return Source.model_construct(
        slug=obs.slug,
        turn_id=turn.id,
        session_id=turn.session_id,
        seq=turn.seq,
        role=turn.role,
        speaker=turn.speaker,
    )


def _cut(text: str) -> str:
    return text if len(text) <= SNIPPET_CHARS else text[: SNIPPET_CHARS - 1].rstrip() + "\u2026"


def _hit(
    obs: ObservationRow,
    turn: TurnRow | None,
    score: float,
    superseded: list[str],
    *,
    until: datetime | None = None,
    by: str | None = None,
    occurred: datetime | None = None,
) -> Hit:
    text = obs.content
    if len(text) > SNIPPET_CHARS:
        text = text[: SNIPPET_CHARS - 1].rstrip() + "\u2026"
    return Hit.model_construct(
        id=turn.id if turn else f"observation:{obs.slug}",
        kind="turn" if turn else "observation",
        text=text,
        score=round(score, 6),
        observed_at=obs.observed_at,
        source=_source(obs, turn),
        superseded=superseded,
        superseded_at=until,
        superseded_by=by,
        occurred_at=occurred,
    )


def _happened(obs: ObservationRow | None, events: dict[int, list[datetime]]) -> datetime | None:
    """When what a passage reports happened, where it placed it before it was said ("we moved
    in yesterday"): the latest such time. None when it placed nothing (its time is then
    ``observed_at``), or only plans ahead of it."""
    if obs is None:
        return None
    before = [t for t in events.get(obs.id, ()) if t < obs.observed_at]
    return before[-1] if before else None


def _snippet(obs: ObservationRow, hit: Hit) -> Snippet:
    truncated = len(obs.content) > SNIPPET_CHARS
    text = obs.content if not truncated else obs.content[: SNIPPET_CHARS - 1].rstrip() + "\u2026"
    return Snippet.model_construct(
        slug=obs.slug,
        title=obs.title,
        text=text,
        truncated=truncated,
        observed_at=obs.observed_at,
        category=obs.category,
        source=hit.source,
        score=hit.score,
    )
