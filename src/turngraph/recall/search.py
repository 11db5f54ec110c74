"""Recall: rank, fuse and bound. No language model runs here; the query embedding is the only
model call, a few milliseconds on the CPU.

Semantic recall scores observations (turns included) with three signals: lexical full-text
ranking (the backend's own, stemmed; BM25 on SQLite) over the text and over its
conversational window (a turn with the one before and after it), dense similarity of the
query embedding, and the entities the query names or matches, whose linked observations are
lifted (entity-primary). Signals are fused by z-score. Structural recall (no query) filters
observations and returns the same shape.
"""

from __future__ import annotations

import math
import re
import threading
import time
import weakref
from collections.abc import Collection, Iterable, Sequence
from concurrent.futures import Future
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from turngraph.config import Limits
from turngraph.core.validate import (
    name_key,
    normalize_labels,
    normalize_tags,
    parse_datetime,
)
from turngraph.errors import ValidationError
from turngraph.extract.base import SINGLE_VALUED
from turngraph.models import Hit, MemoryContext, RecallResult
from turngraph.recall.assemble import ATTRIBUTE_HITS, Bounds, Early, assemble
from turngraph.recall.context import DEFAULT_TOKENS, current_facts, standing_instructions
from turngraph.recall.context import MAX_TOKENS as MAX_CONTEXT_TOKENS
from turngraph.recall.context import build as build_context
from turngraph.recall.currency import (
    MARGIN,
    W_SUPERSEDED,
    Anchor,
    Currency,
    anchor_clause,
    asks_about_now,
    time_tilt,
)
from turngraph.recall.dense import nearest_rows, passage_similarities
from turngraph.recall.embed import Embedder, Vectors
from turngraph.recall.facts import (
    CUES,
    Answer,
    about_user,
    answers,
    asked_keys,
    asks_about_state,
    instruction_answers,
    kin_of,
    names_value,
    question_time,
    user_entities,
    words_in,
)
from turngraph.recall.query_vectors import embed_query
from turngraph.recall.stages import Clock
from turngraph.recall.stopwords import QUESTION_STOPWORDS
from turngraph.recall.vectors import TEXT_ROWS
from turngraph.store.base import (
    AttributeRow,
    EntityRow,
    ObservationFilter,
    ReadTx,
    Store,
    TextSearch,
    TurnKey,
)

MODES = ("hybrid", "lexical", "dense", "graph")
DEFAULTS = {"k": 10, "entities": 10, "relationships": 20, "snippets": 10}
MAXIMA = {"k": 50, "entities": 50, "relationships": 100, "snippets": 50}
POOL = 150  # candidates per signal
# Fusion weights (z-score units).
W_CONTEXT = 1.0  # lexical weight of a turn's window, beside the turn's own text
W_DENSE = 0.7
W_ENTITY = 0.8  # linked to an entity the query names or matches
W_SPEAKER = 2.0  # said by a person the query names
W_SESSION = 0.15  # the turn's session matches the query as a whole (summed BM25)
W_WINDOW = 0.5  # dense similarity of the turn's window, added to the turn's own
W_ASSISTANT = 0.5  # an assistant's turn, below what the people said
W_RECENT = 0.5  # newest over oldest candidate, for a question about now (reversed: before)
W_AFTER = 3.0  # a passage that says what came after the value a question asks about
W_FACT = 8.0  # a fact that answers the question, above the passage that said it
TILTED = 60  # the best candidates that lean by their time
W_NAMED_FACT = 1.0  # a fact whose value (not key) the question names: above its passage
W_LATER = 2.0  # a passage told after the time a question about the past names
ANCHOR_SHARE = 0.5  # of the best match's score, from which a passage may place a question
DURING_DAY = timedelta(days=1)  # after the turn that places "when she ...", still then
EXACT_ENTITY = 3.0  # entity score bonus for a name the query spells out
ENTITY_FANOUT = 200  # observations taken per top entity
PRUNE_ABOVE_ROWS = 5_000  # memories this large drop query terms ...
PRUNE_SHARE = 0.05  # ... that match more than this share of their observations
NEIGHBOUR_SEEDS = 3  # top entities whose related entities join the ranking
NEIGHBOURS = 10
NEIGHBOUR_DECAY = 0.5
SCORE_SPREAD = 2.0  # fused-score units over which a score moves from 0.27 to 0.73
ENTITY_SIMILARITY = 0.3  # cosine from which a dense entity match counts as relevant
_WORD = re.compile(r"[\w'-]+")
# The passage signal reads a turn's text and its window; the title is left out.
PASSAGE_FIELDS = (("content", 1.0), ("context", W_CONTEXT))


def _bound(value: object, name: str) -> int:
    if value is None:
        return DEFAULTS[name]
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValidationError(
            f"{name if name == 'k' else 'max_' + name} must be a positive integer",
            field=name if name == "k" else f"max_{name}",
        )
    return min(value, MAXIMA[name])


def query_terms(text: str) -> list[str]:
    """Lexical terms of a query: lower-cased words minus question words, in order, unique."""
    seen: list[str] = []
    for word in _WORD.findall(text.lower()):
        word = word.strip("'-")
        if (
            (len(word) > 1 or word.isdigit())
            and word not in QUESTION_STOPWORDS
            and word not in seen
        ):
            seen.append(word)
    return seen


def _z(scores: dict[int, float]) -> dict[int, float]:
    if not scores:
        return {}
    values = np.fromiter(scores.values(), dtype=np.float64)
    std = float(values.std()) or 1.0
    mean = float(values.mean())
    return {key: (value - mean) / std for key, value in scores.items()}


def _fuse(signals: Sequence[tuple[dict[int, float], float]]) -> dict[int, float]:
    """Sum of weighted z-scores; a candidate a signal did not rank gets that signal's floor
    (its lowest z-score less 0.5). Each signal's mean and deviation are taken once, so a
    candidate costs one multiply-add per signal."""
    ids: set[int] = set()
    terms: list[tuple[dict[int, float], float, float, float]] = []
    for scores, weight in signals:
        ids |= scores.keys()
        if not scores:
            continue
        values = np.fromiter(scores.values(), dtype=np.float64, count=len(scores))
        mean, std = float(values.mean()), float(values.std()) or 1.0
        floor = weight * ((float(values.min()) - mean) / std - 0.5)
        terms.append((scores, weight / std, weight * mean / std, floor))
    fused: dict[int, float] = {}
    for key in ids:
        total = 0.0
        for scores, scale, shift, floor in terms:
            value = scores.get(key)
            total += floor if value is None else value * scale - shift
        fused[key] = total
    return fused


class RecallOps:
    """The recall of a :class:`~turngraph.Memory`."""

    name: str
    _store: Store
    _id: int
    _limits: Limits

    if TYPE_CHECKING:  # provided by Memory

        @property
        def embedder(self) -> Embedder | None: ...

    def recall(
        self,
        query: str | None = None,
        *,
        k: int = 10,
        mode: str = "hybrid",
        include: Sequence[str] = ("entities", "passages"),
        session_id: str | None = None,
        category: str | None = None,
        tags: Sequence[str] | None = None,
        since: datetime | str | None = None,
        until: datetime | str | None = None,
        entity: str | None = None,
        as_of: datetime | str | None = None,
        labels: Sequence[str] | None = None,
        max_entities: int | None = None,
        max_relationships: int | None = None,
        max_snippets: int | None = None,
    ) -> RecallResult:
        """Recall what the memory knows, bounded. With a query: semantic recall, entity-first
        (``mode``: hybrid, lexical, dense, graph). Without: structural recall by the filters.

        Filters (category, tags, time range, session, labels, entity, as_of) apply in both.
        ``k`` hits (default 10, at most 50); ceilings for entities (10, at most 50),
        relationships (20, at most 100) and snippets (10, at most 50); snippets are at most
        280 characters and flagged ``truncated``. ``truncated`` in the result names every
        ceiling that cut something.
        """
        started = time.perf_counter()
        clock = Clock()
        if query is not None and (not isinstance(query, str) or not query.strip()):
            raise ValidationError(
                "query must be a non-empty string (or None for structural recall)", field="query"
            )
        if mode not in MODES:
            raise ValidationError(f"mode must be one of {', '.join(MODES)}", field="mode")
        wanted = set(include)
        if not wanted <= {"entities", "passages"}:
            raise ValidationError("include takes 'entities' and/or 'passages'", field="include")
        bounds = Bounds(
            _bound(k, "k"),
            _bound(max_entities, "entities"),
            _bound(max_relationships, "relationships"),
            _bound(max_snippets, "snippets"),
        )
        if "entities" not in wanted:
            bounds = replace(bounds, entities=0, relationships=0)
        at = None if as_of is None else parse_datetime(as_of, field="as_of")
        lo = None if since is None else parse_datetime(since, field="since")
        hi = None if until is None else parse_datetime(until, field="until")
        if at is not None and (hi is None or at < hi):
            hi = at
        flt = ObservationFilter(
            category=None if category is None else str(category).strip().lower(),
            tags=tuple(normalize_tags(tags, limits=self._limits)) if tags else (),
            since=lo,
            until=hi,
            session_id=session_id,
            labels=tuple(normalize_labels(labels, self._limits)),
        )
        with self._store.read(self._id) as tx:
            if entity is not None:
                found = tx.find_entities([name_key(entity)]).get(name_key(entity))
                if found is None:
                    return RecallResult(
                        query=query, mode=mode, took_ms=(time.perf_counter() - started) * 1000
                    )
                flt = _replace(flt, entity_id=found.id)
            if query is None:
                result = self._structural(tx, flt, bounds, at)
            else:
                result = self._semantic(tx, query, mode, flt, bounds, at, clock)
        # A ceiling only counts as cutting something when that part was asked for.
        if "entities" not in wanted:
            result = result.model_copy(
                update={
                    "entities": [],
                    "relationships": [],
                    "truncated": [
                        t for t in result.truncated if not t.startswith(("entities", "relation"))
                    ],
                }
            )
        if "passages" not in wanted:
            result = result.model_copy(
                update={
                    "hits": [],
                    "snippets": [],
                    "truncated": [
                        t for t in result.truncated if not t.startswith(("hits", "snippets"))
                    ],
                }
            )
        result = result.model_copy(update={"took_ms": (time.perf_counter() - started) * 1000})
        clock.lap("assemble")
        return result

    def context(
        self,
        query: str,
        *,
        session_id: str | None = None,
        k: int = 10,
        labels: Sequence[str] | None = None,
        max_tokens: int = DEFAULT_TOKENS,
    ) -> MemoryContext:
        """What an agent pastes into its prompt before it answers ``query``: the standing
        instructions, the current facts about the people it concerns (the memory's user and
        anyone it names), and the passages recall finds (``k``, ``session_id`` and
        ``labels`` as for :meth:`recall`), each part labelled and all of it within
        ``max_tokens`` (estimated; 1 to 8,000, default 800). ``str()`` of the result is the
        text; ``cut`` says what did not fit."""
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
            raise ValidationError("max_tokens must be a positive integer", field="max_tokens")
        budget = min(max_tokens, MAX_CONTEXT_TOKENS)
        rc = self.recall(query, k=k, session_id=session_id, labels=labels)
        with self._store.read(self._id) as tx:
            instructions = standing_instructions(tx)
            people = {e.id: e for e in user_entities(tx)}
            people |= {e.id: e for e in self._named_entities(tx, query) if e.type == "person"}
            answering = [h.id for h in rc.hits if h.kind == "attribute"]
            facts = current_facts(tx, list(people), answering)
        passages = _passages(rc)
        cut = [t for t in rc.truncated if t.startswith("hits")]
        if budget < max_tokens:
            cut.append(f"max_tokens: {max_tokens} asked, {budget} is the most")
        return build_context(query, instructions, facts, passages, max_tokens=budget, cut=cut)

    # -- semantic --------------------------------------------------------------------------

    def _semantic(
        self,
        tx: ReadTx,
        query: str,
        mode: str,
        flt: ObservationFilter,
        bounds: Bounds,
        at: datetime | None,
        clock: Clock,
    ) -> RecallResult:
        terms = query_terms(query)
        embedder = self.embedder if mode in ("hybrid", "dense", "graph") else None
        # The embedding reads the question without the speakers it names (below); when it
        # names people already seen speaking here, it starts on that guess before the names
        # are read, and again only if the guess was wrong.
        guessed: tuple[str, Future[tuple[Vectors, float]]] | None = None
        if embedder is not None and mode != "dense":
            seen = SPEAKERS.named_in(self._store, tx.memory_id, query)
            if seen:
                guess = _without_names(query, terms, seen)[0]
                guessed = (guess, embed_query(embedder, guess))
        # Entities first: those the query spells out, then lexical and dense matches.
        # Dense mode is the embedder alone: no names, no lexical matches, no graph lift.
        named = self._named_entities(tx, query) if mode != "dense" else []
        # A speaker the query names is found by the entity and speaker signals; the passage
        # signals read what is asked about them. Their name would otherwise pull every turn
        # that merely addresses them ("Thanks, Melanie!") above the one that answers.
        speaking = tx.speakers_among([e.name for e in named if e.type == "person"])
        people = [e.name for e in named if e.name in speaking]
        topic, topic_terms = _without_names(query, terms, people)
        SPEAKERS.learn(self._store, tx.memory_id, people)
        clock.lap("query")
        # The query embedding runs on a worker thread while the text searches run here.
        pending = None
        if guessed is not None and guessed[0] == topic:
            pending = guessed[1]
        elif embedder is not None:
            pending = embed_query(embedder, topic)
        ent_signals: list[tuple[dict[int, float], float]] = []
        # What makes an entity worth returning: the query names it, matches its text, or
        # is close to it in meaning (a dense neighbour below ENTITY_SIMILARITY only ranks).
        entity_sources: set[int] = {e.id for e in named}
        # The entity and passage searches go to the store together.
        by_entity = terms and mode != "dense"
        by_passage = mode in ("hybrid", "lexical") and terms
        searches = []
        if by_entity:
            searches.append(TextSearch("entity", tuple(terms), limit=50))
        if by_passage:
            # One BM25 over the text and its window, the window weighted W_CONTEXT.
            selective = tuple(self._selective(tx, topic_terms))
            searches.append(TextSearch("observation", selective, limit=POOL, fields=PASSAGE_FIELDS))
        found = iter(tx.search_texts(searches))
        matched_entities: dict[int, float] = {}
        if by_entity:
            matched_entities = dict(next(found))
            ent_signals.append((matched_entities, 1.0))
            entity_sources |= matched_entities.keys()
        lexical: dict[int, float] = dict(next(found)) if by_passage else {}
        # The attribute search only serves a question that asks for a fact of no one it
        # names ("Who lives in Bristol?"): facts of a named person are read by entity.
        asking = (
            mode != "dense"
            and not any(e.type == "person" for e in named)
            and bool(asked_keys(query))
        )
        attributes = self._attribute_hits(tx, terms, at, flt) if asking else []
        # Read ahead while the embedding may still run: the observations of the entities
        # likely to rank first (those named, the best lexical matches) and the turn keys of
        # them and of the lexical matches, the facts that answer the question, what a
        # question about an earlier value names as coming after it.
        linked: dict[int, list[int]] = {}
        if pending is not None and mode != "dense":
            ahead = [e.id for e in named]
            ahead += [e for e, _ in sorted(matched_entities.items(), key=lambda m: -m[1])[:5]]
            linked = tx.observations_for_entities(list(dict.fromkeys(ahead)), limit=ENTITY_FANOUT)
        reads = {*lexical, *(oid for ids in linked.values() for oid in ids)}
        known = tx.turn_keys(list(reads)) if pending is not None else {}
        # The passages likely to be shown (the best lexical matches) are read now too: after
        # the embedding, only the rows the dense signal brought up are left to read.
        currency = Currency(tx, at)
        early = Early()
        if pending is not None:
            likely = sorted(lexical, key=lambda oid: -lexical[oid])[: bounds.k + ATTRIBUTE_HITS]
            early = Early.read(tx, likely)
            currency.replaced(likely)
        tilt = time_tilt(query)
        # "What did she think of reggaeton in February 2024?", "... before she moved to
        # Valencia?": what held then was said by then.
        clause = anchor_clause(query) if tilt <= 0 and mode != "dense" else None
        after = clause.clause if clause is not None and clause.how == "before" and tilt < 0 else ""
        texts = mode in ("hybrid", "lexical")
        placeable = tilt <= 0 and at is None and texts
        asked_at = question_time(query, datetime.now(UTC)) if placeable else None
        anchoring = clause is not None and placeable and asked_at is None
        facts_at = self._fact_anchor(tx, clause, named) if anchoring and clause else None
        # The turns that match the clause are read only when used: what came after it goes
        # down ("before"), and they place the question when no fact does.
        placing: list[tuple[int, float]] = []
        if clause is not None and texts and (after or (anchoring and facts_at is None)):
            placing = self._clause_matches(tx, clause.clause, people)
        if anchoring and clause:
            asked_at = facts_at or self._told_anchor(tx, clause.how, placing)
            if facts_at is None and clause.how == "during":
                facts_at = asked_at  # "when she climbed at Allez Up": then
        facts = (
            self._answers(tx, query, named, attributes, at, flt, tilt, facts_at, clause)
            if mode != "dense"
            else []
        )
        later = {e.id for e in self._named_entities(tx, after)} if after else set()
        demoted = _before_what(placing) if after else {}
        clock.lap("lexical")
        qvec: Vectors | None = None
        if pending is not None:
            qvec, took = pending.result()
            clock.add("embedding", took)
        clock.lap("embed wait")
        dense: dict[int, float] = {}
        if qvec is not None and embedder is not None:
            near = nearest_rows(self._store, tx, "entity", qvec, 50)
            ent_signals.append((near, W_DENSE))
            entity_sources |= {e for e, sim in near.items() if sim >= ENTITY_SIMILARITY}
            dense = passage_similarities(self._store, tx, qvec, pool=POOL, window_weight=W_WINDOW)
        ent_scores = _fuse(ent_signals)
        for entity in named:
            ent_scores[entity.id] = max(ent_scores.values(), default=0.0) + EXACT_ENTITY
        clock.lap("dense")
        # "before she moved to Eimsbüttel": Eimsbüttel's passages are not what is asked
        top_entities = sorted(ent_scores, key=lambda e: -ent_scores[e])[:5]
        top_entities = [e for e in top_entities if e not in later]
        lifting = [e for e in named if e.id not in later]
        lifted = (
            _entity_lift(tx, top_entities, ent_scores, lifting, linked) if mode != "dense" else {}
        )
        signals: list[tuple[dict[int, float], float]] = [(lexical, 1.0), (dense, W_DENSE)]
        if mode == "graph":
            signals = []
        fused = _fuse(signals)
        floor = min(fused.values(), default=0.0)
        for oid, lift in lifted.items():
            fused[oid] = fused.get(oid, floor) + W_ENTITY * lift
        candidates = list(fused)
        if flt == ObservationFilter():  # no filter: every candidate stands
            allowed = set(candidates)
        else:
            allowed = set(
                tx.filter_observations(
                    _replace(flt, ids=tuple(candidates)), limit=len(candidates) or 1
                )
            )
        kept = [c for c in candidates if c in allowed]
        # The turn keys not read ahead (of candidates only the dense signal brought up): of
        # the best of them. One below them could still climb by what its key adds (a
        # speaker the question names), rarely: on the ten LoCoMo conversations 3 of 1,540
        # top-ten sets changed, none of the recall figures.
        unread = [c for c in kept if c not in known]
        if len(unread) > KEYS_AFTER:
            unread = sorted(unread, key=lambda c: -fused[c])[:KEYS_AFTER]
        known.update(tx.turn_keys(unread))
        keys = {c: known[c] for c in kept if c in known}
        speakers = {e.key for e in named}
        sessions: dict[str, float] = {}
        for oid, key in keys.items():
            sessions[key.session_id] = sessions.get(key.session_id, 0.0) + lexical.get(oid, 0.0)
        order = {sid: i for i, sid in enumerate(sessions)}
        session_z = _z({order[sid]: score for sid, score in sessions.items()})
        for oid, key in keys.items():
            if key.speaker and _speaker_key(key.speaker) in speakers:
                fused[oid] += W_SPEAKER
            fused[oid] += W_SESSION * session_z.get(order[key.session_id], 0.0)
            if key.role == "assistant":
                fused[oid] -= W_ASSISTANT
        head = sorted(kept, key=lambda c: -fused[c])[:TILTED]
        when = early.times(tx, head) if tilt or facts or asked_at else {}
        if asked_at is not None:
            for oid, told in when.items():
                if told > asked_at:
                    fused[oid] -= W_LATER
        if tilt and when:
            # Among the best candidates, newer ones lean ahead for a question about now
            # (older ones for a question about an earlier value), by their order in time.
            times = sorted(set(when.values()))
            place = {t: i / max(len(times) - 1, 1) for i, t in enumerate(times)}
            for oid, at_time in when.items():
                fused[oid] += tilt * W_RECENT * place[at_time]
        for oid, drop in demoted.items():
            if oid in fused:
                fused[oid] -= drop
        ranked = sorted((c for c in candidates if c in allowed), key=lambda c: -fused[c])
        if asks_about_now(query):
            about = {e.id for e in named} | set(top_entities)
            ranked = _prefer_current(tx, ranked, fused, flt, currency, about, bounds.k)
        if tilt and when and mode == "hybrid" and asks_about_state(query):
            ranked = _in_order_told(ranked, fused, when, keys, lexical, dense, newest=tilt > 0)
        clock.lap("candidates")
        relevant: dict[int, float] = {}
        if bounds.entities:  # entities asked for (a recall of passages alone reads none)
            _expand_neighbours(tx, ent_scores, entity_sources)
            relevant = {e: _logistic(v) for e, v in ent_scores.items() if e in entity_sources}
        scores = {oid: _logistic(fused[oid]) for oid in ranked[: bounds.k + ATTRIBUTE_HITS]}
        # A fact is scored as the passage that said it, lifted by W_FACT: it answers the
        # question, but a newer passage that outranks its source may still say otherwise.
        edge = fused[ranked[min(bounds.k, len(ranked)) - 1]] if ranked else 0.0
        lifted_facts = {
            a.id: max(fused.get(a.observation_id, edge), edge) + _fact_lift(a, tilt, at)
            for a in facts
        }
        if tilt > 0:
            _doubt_facts(tx, facts, ranked, fused, keys, when, lifted_facts)
        fact_scores = {i: _logistic(v) for i, v in lifted_facts.items()}
        return assemble(
            tx,
            query,
            mode,
            ranked,
            scores,
            facts,
            relevant,
            bounds,
            currency,
            fact_scores,
            early=early.shown,
        )

    def _answers(
        self,
        tx: ReadTx,
        query: str,
        named: list[EntityRow],
        attributes: list[tuple[AttributeRow, float]],
        at: datetime | None,
        flt: ObservationFilter,
        tilt: float,
        placed_at: datetime | None = None,
        anchor: Anchor | None = None,
    ) -> list[Answer]:
        """The facts that answer the question (see :mod:`turngraph.recall.facts`): of the
        entities it names, of the memory's user when it asks about them, of the relatives
        a kin word reaches; within the filters. ``placed_at``: the moment a clause of the
        question placed it at (see :meth:`_fact_anchor`); ``anchor``: that clause."""
        asked = list(named)
        users = user_entities(tx) if about_user(query) or "'s" in query else []
        if about_user(query):
            asked += [e for e in users if e.id not in {n.id for n in named}]
        reached = kin_of(tx, query, named, users)
        if reached is not None:  # "Tunde's brother": the brother's facts, not Tunde's
            relatives, owners = reached
            asked = relatives + [e for e in asked if e.id not in owners]
            attributes = [(r, s) for r, s in attributes if r.entity_id not in owners]
        # A question that names a time ("in March 2024") or places itself by another fact
        # ("before she moved to Valencia") is answered as of then.
        when = at or placed_at or (question_time(query, datetime.now(UTC)) if tilt <= 0 else None)
        # What is asked is said outside the clause that places it ("Where did he live"
        # while he worked for Aker Solutions), which names another fact.
        facts = answers(
            tx,
            query,
            asked,
            tilt=tilt,
            at=when,
            matched=[row for row, _ in attributes],
            asking=anchor.main if anchor is not None and anchor.main else query,
        )
        facts += instruction_answers(tx, query, tilt=tilt, at=when)
        if facts and flt != ObservationFilter():
            allowed = set(
                tx.filter_observations(
                    _replace(flt, ids=tuple({a.observation_id for a in facts})),
                    limit=len(facts),
                )
            )
            facts = [a for a in facts if a.observation_id in allowed]
        return facts

    def _clause_matches(
        self, tx: ReadTx, clause: str, people: Sequence[str]
    ) -> list[tuple[int, float]]:
        """The passages that match what a question places itself by ("she moved to
        Eimsbüttel"), best first (BM25, so a name weighs more than "moved"): by their own
        words, not their window's, so that the turn after one that names it does not."""
        _, terms = _without_names(clause, query_terms(clause), people)
        if not terms:
            return []
        return tx.search_text(
            TextSearch("observation", tuple(terms), limit=POOL, fields=(("content", 1.0),))
        )

    def _fact_anchor(
        self, tx: ReadTx, clause: Anchor, named: Sequence[EntityRow]
    ) -> datetime | None:
        """The moment a question about the past asks about when it places itself by a fact
        (``clause``, see :func:`~turngraph.recall.currency.anchor_clause`) of the person it
        asks about (the memory's user when it names no one): "before she moved to Valencia"
        is the moment before her location became Valencia, "while he worked for Aker
        Solutions" the last moment his employer was Aker Solutions. None when the clause
        names no value of theirs, or one that still holds."""
        how, words = clause.how, words_in(clause.clause)
        owners = [e for e in named if e.type == "person"] or user_entities(tx)
        own = {w for e in owners for w in words_in(e.name)}
        rows = [
            r
            for r in tx.entity_attributes([e.id for e in owners], None)
            if names_value(r.value, words) and not names_value(r.value, own)
        ]
        just = timedelta(microseconds=1)
        if rows:
            if how == "before":
                return min(r.valid_from for r in rows) - just
            ended = [r.valid_until for r in rows if r.valid_until is not None]
            return max(ended) - just if ended else None
        return None

    def _told_anchor(
        self, tx: ReadTx, how: str, placing: Sequence[tuple[int, float]]
    ) -> datetime | None:
        """The same moment read from the passages when no fact places it: when the clause
        (``placing``) was first spoken of (the earliest of the turns that match it at least
        ANCHOR_SHARE as well as the best): just before it for "before", up to a day after it
        for "while"/"when" ("when she climbed at Allez Up"). For "before" it orders the
        passages only (the facts keep their own reading: "before his knee injury" may match
        the physio's turn weeks later); for "while"/"when" the facts are read as of it too."""
        if not placing:
            return None
        best = placing[0][1]
        strong = [oid for oid, score in placing if score >= ANCHOR_SHARE * best]
        told = tx.observation_times(strong).values()
        if not told:
            return None
        if how == "before":
            return min(told) - timedelta(microseconds=1)
        return min(told) + DURING_DAY  # what the turns said around it belongs to it too

    def _selective(self, tx: ReadTx, terms: list[str]) -> list[str]:
        """In a large memory, leave out query terms that match a large share of it.

        FTS5 scores every row an OR query matches, so a common term costs the most while its
        low IDF changes the ranking least; the dense signal still reads the whole query.
        Small memories keep every term.
        """
        if len(terms) < 2:
            return terms
        total = TEXT_ROWS.get(self._store, tx)
        if total < PRUNE_ABOVE_ROWS:
            return terms
        counts = tx.term_frequencies(
            TextSearch("observation", tuple(terms), limit=0, fields=PASSAGE_FIELDS)
        )
        keep = [t for t, n in zip(terms, counts, strict=True) if n <= PRUNE_SHARE * total]
        if not keep:
            keep = [min(zip(counts, terms, strict=True))[1]]
        return keep

    def _named_entities(self, tx: ReadTx, query: str) -> list[EntityRow]:
        words = _WORD.findall(query)
        keys: list[str] = []
        for size in (4, 3, 2, 1):
            for i in range(len(words) - size + 1):
                phrase = " ".join(words[i : i + size])
                if size == 1 and (phrase.lower() in QUESTION_STOPWORDS or len(phrase) < 2):
                    continue
                keys.append(name_key(re.sub(r"'s$", "", phrase)))
        found = tx.find_entities(keys)
        unique: dict[int, EntityRow] = {}
        for key in keys:
            if key in found:
                unique.setdefault(found[key].id, found[key])
        return list(unique.values())

    def _attribute_hits(
        self, tx: ReadTx, terms: Sequence[str], at: datetime | None, flt: ObservationFilter
    ) -> list[tuple[AttributeRow, float]]:
        if not terms:
            return []
        matches = tx.search_attributes(TextSearch("attribute", tuple(terms), limit=50))
        out: list[tuple[AttributeRow, float]] = []
        for row, score in matches:
            if at is None and row.valid_until is not None:
                continue
            if at is not None and not (
                row.valid_from <= at and (row.valid_until is None or row.valid_until > at)
            ):
                continue
            out.append((row, score))
        if flt != ObservationFilter() and out:
            allowed = set(
                tx.filter_observations(
                    _replace(flt, ids=tuple(r.observation_id for r, _ in out)), limit=len(out)
                )
            )
            out = [(r, s) for r, s in out if r.observation_id in allowed]
        return out

    # -- structural ------------------------------------------------------------------------

    def _structural(
        self, tx: ReadTx, flt: ObservationFilter, bounds: Bounds, at: datetime | None
    ) -> RecallResult:
        ids = tx.filter_observations(flt, limit=bounds.k + 1)
        more = len(ids) > bounds.k
        ids = ids[: bounds.k]
        links = tx.links_for_observations(ids)
        counts: dict[int, float] = {}
        for oid in ids:
            for entity_id in links.get(oid, []):
                counts[entity_id] = counts.get(entity_id, 0.0) + 1.0
        most = max(counts.values(), default=1.0)
        shares = {e: n / most for e, n in counts.items()}
        scores = {oid: 1.0 / (rank + 1) for rank, oid in enumerate(ids)}
        result = assemble(tx, None, "structural", ids, scores, [], shares, bounds, Currency(tx, at))
        if more:
            result = result.model_copy(
                update={
                    "truncated": [
                        *result.truncated,
                        f"hits: more observations match; showing the newest {bounds.k}",
                    ]
                }
            )
        return result


def _replace(flt: ObservationFilter, **changes: Any) -> ObservationFilter:
    return replace(flt, **changes)


def _entity_lift(
    tx: ReadTx,
    top: Sequence[int],
    scores: dict[int, float],
    named: Iterable[EntityRow],
    linked: dict[int, list[int]],
) -> dict[int, float]:
    """How much each observation is lifted by the entities it mentions (0..1 per entity);
    ``linked`` holds the observations of the entities already read."""
    if not top:
        return {}
    best = max(scores[e] for e in top) or 1.0
    named_ids = {e.id for e in named}
    lifted: dict[int, float] = {}
    missing = [e for e in top if e not in linked]
    if missing:
        linked.update(tx.observations_for_entities(missing, limit=ENTITY_FANOUT))
    for entity_id in top:
        obs_ids = linked.get(entity_id, [])
        weight = 1.0 if entity_id in named_ids else max(scores[entity_id] / best, 0.0)
        for oid in obs_ids:
            lifted[oid] = lifted.get(oid, 0.0) + weight
    return lifted


def _prefer_current(
    tx: ReadTx,
    ranked: list[int],
    fused: dict[int, float],
    flt: ObservationFilter,
    currency: Currency,
    about: set[int],
    k: int,
) -> list[int]:
    """For a question about the present: a passage that set a value of an entity the query is
    about, since replaced, drops by W_SUPERSEDED, and the passage that set the value current
    at ``at`` (now by default) is put just above where the old one stood."""
    head = ranked[: max(2 * k, 20)]
    replaced = currency.replaced(head)
    lifted: dict[int, float] = {}
    for oid in head:
        facts = [f for f in replaced.get(oid, ()) if f.entity_id in about]
        if not facts:
            continue
        stood = fused[oid]
        fused[oid] = stood - W_SUPERSEDED
        for fact in facts:
            if fact.successor is not None and fact.successor != oid:
                lifted[fact.successor] = max(lifted.get(fact.successor, stood), stood + MARGIN)
    if not replaced:
        return ranked
    known = set(ranked)
    outside = [oid for oid in lifted if oid not in known]
    if outside and flt != ObservationFilter():
        passing = set(tx.filter_observations(_replace(flt, ids=tuple(outside)), limit=len(outside)))
        lifted = {oid: v for oid, v in lifted.items() if oid in known or oid in passing}
    for oid, score in lifted.items():
        fused[oid] = max(fused.get(oid, score), score)
    return sorted(known | lifted.keys(), key=lambda c: -fused[c])


class KnownSpeakers:
    """The names of people recall has found speaking in a memory, kept per store (at most
    SPEAKERS_KEPT a memory), so that a question's embedding may start on a guess of its
    topic before the names it holds are read. Recall checks every guess against what it
    then reads, so a name kept here after its turns were deleted costs a second embedding,
    never a wrong result."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._data: weakref.WeakKeyDictionary[Store, dict[int, dict[str, str]]] = (
            weakref.WeakKeyDictionary()
        )

    def named_in(self, store: Store, memory_id: int, query: str) -> list[str]:
        """The kept speakers of the memory whose name the query holds (as a word)."""
        with self._lock:
            kept = self._data.get(store, {}).get(memory_id)
            if not kept:
                return []
            names = list(kept.values())
        words = set(_WORD.findall(query.casefold()))
        return [n for n in names if set(_WORD.findall(n.casefold())) <= words]

    def learn(self, store: Store, memory_id: int, names: Sequence[str]) -> None:
        if not names:
            return
        with self._lock:
            kept = self._data.setdefault(store, {}).setdefault(memory_id, {})
            for name in names:
                if len(kept) < SPEAKERS_KEPT:
                    kept.setdefault(name.casefold(), name)


SPEAKERS_KEPT = 256
SPEAKERS = KnownSpeakers()

# Dense-only candidates whose turn keys (speaker, session, role) are read after the
# embedding: the best this many.
KEYS_AFTER = 40
TOLD_HEAD = 10  # the best passages that a question about a state takes in the order told
TOLD_GAP = 3.0  # fused-score units within which a newer (older) passage goes above another


def _in_order_told(
    ranked: list[int],
    fused: dict[int, float],
    when: dict[int, datetime],
    keys: dict[int, TurnKey],
    lexical: dict[int, float],
    dense: dict[int, float],
    *,
    newest: bool,
) -> list[int]:
    """For a question about a state that changes over a life (where someone lives or works,
    their pets, their diet), now (``newest``) or before: among the best passages, a newer
    (for a question about an earlier value: an older) one said by a person, not the
    assistant, that shares a word with the question or is as near to it in meaning, goes
    just above another whose score it nearly reaches (within TOLD_GAP). Asked what holds now,
    the latest telling is the likelier answer, whether or not extraction caught the change
    (when it did, the old passage has already given way, see _prefer_current); asked what
    held before, the earlier one."""
    head = [oid for oid in ranked[:TOLD_HEAD] if oid in when]
    moved = False
    for i, above in enumerate(head):
        for below in head[i + 1 :]:
            key = keys.get(below)
            told_after = when[below] > when[above]
            if told_after != newest or (key is not None and key.role == "assistant"):
                continue
            # It must be about the question too: a word of it, or as near in meaning.
            if not lexical.get(below) and dense.get(below, 0.0) < dense.get(above, 0.0):
                continue
            if fused[above] - TOLD_GAP <= fused[below] <= fused[above]:
                fused[below] = fused[above] + MARGIN
                moved = True
    return sorted(ranked, key=lambda c: -fused[c]) if moved else ranked


DOUBT_HEAD = 5  # the best passages looked at for a newer word on what a fact says
# Words with which people say that something changed.
CHANGE_WORDS = frozenset(
    "new newly moved started joined switched changed anymore quit left stopped became "
    "officially".split()
)
# Of those, the verbs: they speak of the speaker's change only with the speaker as subject
# ("I've quit", "we moved"), not "my manager ... he's quit".
_NOW_ONLY = re.compile(r"\bnow (?:(?:it's|its|it is|there's|we have|i have) )?(?:just|only)\b")
_CHANGE_VERBS = frozenset("moved started joined switched changed quit left stopped became".split())
_FIRST_PERSON = frozenset("i i've i'm i'd we we've we're we'd".split())
NEAR_CHANGE = 6  # words between a change word and the word of what changed, at most


def speaks_of_change(
    words: Sequence[str], topic: Collection[str], also: Collection[str] = ()
) -> bool:
    """Whether a turn's words (lower case, in order) say that something of ``topic`` changed
    for the speaker: a change word near a topic word, either no verb ("new job", "not there
    anymore") or a verb right after "I" or "we" ("I've just started at", "we moved"), so
    that "blood work ... I've started iron" and "my manager ... he's quit" say nothing of
    the speaker's employer. ``also``: more change words the caller counts ("now")."""
    near = [i for i, word in enumerate(words) if word in topic]
    for i, word in enumerate(words):
        if (word not in CHANGE_WORDS and word not in also) or not any(
            abs(i - j) <= NEAR_CHANGE for j in near
        ):
            continue
        if word not in _CHANGE_VERBS or _FIRST_PERSON.intersection(words[max(i - 3, 0) : i]):
            return True
    return False


def _doubt_facts(
    tx: ReadTx,
    facts: Sequence[Answer],
    ranked: Sequence[int],
    fused: dict[int, float],
    keys: dict[int, TurnKey],
    when: dict[int, datetime],
    lifted: dict[str, float],
) -> None:
    """A current fact is what the memory extracted; a newer turn of the user's among the
    best passages that speaks of a change ("we moved", "new job") without naming the fact's
    value may say what the extraction missed. Such a fact gives way to that turn: it ranks
    just below it."""
    current = [a for a in facts if a.kind == "attribute" and a.until is None and a.value]
    if not current:
        return
    head = [oid for oid in ranked[:DOUBT_HEAD] if oid in keys and keys[oid].role == "user"]
    if not head:
        return
    said = {o.id: _WORD.findall(o.content.lower()) for o in tx.get_observations(head)}
    # "now it's just" / "now only": for a kind one may have several of, the set changed
    # ("now it's just Pickle, the cat next door"; "we now walk the dog" says nothing of it).
    now_only = {oid: bool(_NOW_ONLY.search(" ".join(words))) for oid, words in said.items()}
    for answer in current:
        value = set(_WORD.findall(answer.value.lower()))
        topic = set(CUES.get(answer.key, ()))
        single = answer.key in SINGLE_VALUED  # said again ("still at Globex"): no change
        for oid in head:
            if oid == answer.observation_id or when.get(oid, answer.since) <= answer.since:
                continue
            words = said.get(oid, [])
            also = ("now",) if not single and now_only.get(oid) else ()
            if speaks_of_change(words, topic, also) and not (single and value <= set(words)):
                lifted[answer.id] = min(lifted[answer.id], fused[oid] - MARGIN)
                break


def _passages(rc: RecallResult) -> list[Hit]:
    """The passages of a context: recall's hits but its facts and instructions, in order,
    with a fact hit standing for the turn that stated it (the fact is among the facts; its
    turn may say more: "My dog is called Pixel" behind "Dana pets: dog")."""
    snippets = {s.slug: s for s in rc.snippets}
    out: list[Hit] = []
    seen: set[str] = set()
    for hit in rc.hits:
        if hit.kind == "instruction" or hit.source.slug in seen:
            continue
        if hit.kind == "attribute":
            said = snippets.get(hit.source.slug)
            if said is None:
                continue
            kind = "turn" if hit.source.turn_id else "observation"
            update = {"kind": kind, "text": said.text, "observed_at": said.observed_at}
            hit = hit.model_copy(update=update)
        seen.add(hit.source.slug)
        out.append(hit)
    return out


def _fact_lift(answer: Answer, tilt: float, at: datetime | None) -> float:
    """How far a fact answering the question ranks above the passage that said it. A fact
    that ended with nothing after it ("not allergic to cats at all") says what no longer
    holds: for a question about now it is not the answer, and ranks as that passage."""
    until = answer.until
    if tilt > 0 and answer.successor is None and until is not None and (at is None or until <= at):
        return 0.0
    return W_NAMED_FACT if answer.named_only else W_FACT


def _before_what(placing: Sequence[tuple[int, float]]) -> dict[int, float]:
    """ "Where did she live before she moved to Eimsbüttel?": the passages that say what came
    after (``placing``: those matching "she moved to Eimsbüttel") are what the question is
    not about; each loses up to :data:`W_AFTER`, in proportion to how well it matches."""
    best = max((score for _, score in placing), default=0.0)
    if best <= 0:
        return {}
    return {oid: W_AFTER * min(1.0, 2 * score / best) for oid, score in placing}


def _logistic(value: float) -> float:
    """A fused score (a sum of weighted z-scores, 0 for an average candidate) on 0..1."""
    return 1.0 / (1.0 + math.exp(-value / SCORE_SPREAD))


def _without_names(query: str, terms: list[str], people: Sequence[str]) -> tuple[str, list[str]]:
    """The query and its terms without the names of the people it names (unless nothing
    else would be left)."""
    if not people:
        return query, terms
    text = query
    names: set[str] = set()
    for person in people:
        for name in (person, *person.split()):
            text = re.sub(rf"\b{re.escape(name)}(?:'s)?\b", " ", text, flags=re.IGNORECASE)
        names.update(query_terms(person))
    kept = [t for t in terms if t not in names]
    text = " ".join(text.split())
    if not kept or not _WORD.search(text):
        return query, terms
    return text, kept


@lru_cache(maxsize=4096)
def _speaker_key(speaker: str) -> str:
    return name_key(speaker)


def _expand_neighbours(tx: ReadTx, scores: dict[int, float], relevant: set[int]) -> None:
    """Entity-primary: the best relevant entities bring the entities they are related to
    (scored below them, and relevant through them), so recalling a person surfaces their
    organizations and projects."""
    if not scores:
        return
    floor = min(scores.values())
    seeds = [e for e in sorted(scores, key=lambda e: -scores[e]) if e in relevant]
    related = tx.neighbour_relationships(seeds[:NEIGHBOUR_SEEDS], limit=NEIGHBOURS)
    for entity_id, rels in related.items():
        for rel in rels:
            other = rel.target_id if rel.source_id == entity_id else rel.source_id
            decayed = floor + NEIGHBOUR_DECAY * (scores[entity_id] - floor)
            if decayed > scores.get(other, float("-inf")):
                scores[other] = decayed
            relevant.add(other)
