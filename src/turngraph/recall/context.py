"""The context payload: what an agent pastes into its prompt before it answers a message.

Three labelled parts, filled in this order until the token budget is spent:

1. **Instructions**: every standing instruction in force (the newest first); an agent
   that drops one breaks a promise to its user, so they come before anything else.
2. **Facts**: the current facts about the people the message concerns (the memory's user,
   and anyone it names): first those that answer the message (recall's fact hits), then
   who they are (the keys in :data:`PROFILE_KEYS`), then the rest, newest first. Each
   cites the turn that said it.
3. **Passages**: recall's passages, best first, each with its time, its speaker and any
   fact it stated that no longer holds (a fact hit is given as the turn that stated it).

Tokens are estimated as one per four characters (no tokenizer of the caller's model is
known here); what did not fit is listed in ``cut``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

from turngraph.models import ContextFact, Hit, Instruction, MemoryContext, Source
from turngraph.store.base import AttributeRow, ReadTx

DEFAULT_TOKENS = 800
MAX_TOKENS = 8_000
CHARS_PER_TOKEN = 4
NOTE_ROOM = 24  # tokens kept for the note on what was left out
STANDING_READ = 200  # instructions read at most
FACTS_READ = 60  # facts considered at most
# What says who a person is, in the order a reader wants it.
PROFILE_KEYS = (
    "preferred_name",
    "name",
    "location",
    "employer",
    "job_title",
    "manager",
    "partner",
    "relationship_status",
    "family",
    "pets",
    "diet",
    "allergies",
    "health",
    "school",
    "learning",
    "languages",
    "age",
    "birthday",
    "hometown",
    "nationality",
)


def tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def standing_instructions(tx: ReadTx) -> list[Instruction]:
    rows = tx.list_facts(kind="instruction", category=None, as_of=None, limit=STANDING_READ)
    said = [Instruction.model_validate(json.loads(r.data)) for r in reversed(rows)]
    return said


def current_facts(
    tx: ReadTx, entity_ids: Sequence[int], answering: Sequence[str]
) -> list[AttributeRow]:
    """The current attribute versions of the entities: those whose ids ``answering`` lists
    first, then the profile keys, then the rest, newest first."""
    rows = [r for r in tx.entity_attributes(list(entity_ids), None) if r.valid_until is None]
    first = {a: i for i, a in enumerate(answering)}
    rank = {k: i for i, k in enumerate(PROFILE_KEYS)}
    rows.sort(
        key=lambda r: (
            first.get(r.id, len(first)),
            rank.get(r.key, len(rank)),
            -r.valid_from.timestamp(),
        )
    )
    return rows[:FACTS_READ]


def _fact_line(f: ContextFact) -> str:
    return f"- {f.entity} {f.key.replace('_', ' ')}: {f.value} (since {f.since:%Y-%m-%d})"


def _passage_line(hit: Hit) -> str:
    who = hit.source.speaker or hit.source.role
    line = f"- [{hit.observed_at:%Y-%m-%d %H:%M}]"
    if who and hit.kind == "turn":
        line += f" {who}:"
    line += f" {hit.text}"
    if hit.superseded:
        line += f" (no longer true: {'; '.join(hit.superseded)})"
    return line


def build(
    query: str,
    instructions: Sequence[Instruction],
    facts: Sequence[AttributeRow],
    passages: Sequence[Hit],
    *,
    max_tokens: int,
    cut: Sequence[str] = (),
) -> MemoryContext:
    """Fill the three parts in order within ``max_tokens``; see the module docstring."""
    lines: list[str] = []
    # Room is kept for the note that says what was left out.
    used = NOTE_ROOM if max_tokens > 2 * NOTE_ROOM else 0
    cuts = list(cut)

    def fits(line: str) -> bool:
        nonlocal used
        cost = tokens(line) + 1
        if used + cost > max_tokens:
            return False
        used += cost
        lines.append(line)
        return True

    def part(header: str, items: Sequence[str], name: str) -> int:
        """Add the header and as many items as fit; how many did."""
        nonlocal used
        if not items:
            return 0
        if used + tokens(header) + tokens(items[0]) + 2 > max_tokens:
            cuts.append(f"{name}: {len(items)} did not fit the {max_tokens}-token budget")
            return 0
        fits(header)
        for i, item in enumerate(items):
            if not fits(item):
                cuts.append(f"{name}: {len(items) - i} did not fit the {max_tokens}-token budget")
                return i
        return len(items)

    n = part(
        "Instructions (standing, follow them):",
        [f"- {i.description}" for i in instructions],
        "instructions",
    )
    kept_i = list(instructions[:n])
    shown = [
        ContextFact(
            entity=r.entity_name,
            key=r.key,
            value=r.value,
            since=r.valid_from,
            source=Source(slug=r.source_slug or "", turn_id=r.source_turn),
        )
        for r in facts
    ]
    n = part("Facts (current):", [_fact_line(f) for f in shown], "facts")
    kept_f = shown[:n]
    n = part("Passages (best first):", [_passage_line(h) for h in passages], "passages")
    kept_p = list(passages[:n])
    if cuts:
        note = "(left out: " + "; ".join(cuts) + ")"
        room = max_tokens - tokens("\n".join(lines)) - 1
        if room > 8:
            lines.append(
                note if tokens(note) <= room else note[: room * CHARS_PER_TOKEN - 4] + "...)"
            )
    text = "\n".join(lines)
    return MemoryContext(
        query=query,
        instructions=kept_i,
        facts=kept_f,
        passages=kept_p,
        cut=cuts,
        max_tokens=max_tokens,
        tokens=tokens(text),
        text=text,
    )
