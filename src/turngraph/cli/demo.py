"""A short tour of the memory graph, printed as it runs (``turngraph demo``, ``make run``)."""

from __future__ import annotations

from pathlib import Path

import turngraph
from turngraph.errors import NotFoundError


def run_demo(db_path: str | Path, *, memory: str = "demo") -> None:
    """Write a few observations to ``memory`` in ``db_path``, show the graph, delete one."""
    out = print
    db = turngraph.open(db_path)
    name = memory if memory != "default" else "demo"
    try:
        db.delete_memory(name)
        out(f"reset memory {name!r} in {db.url}")
    except NotFoundError:
        pass
    mem = db.create_memory(name)
    out(f"created memory {name!r} in {db.url}\n")

    first = mem.add_observation(
        title="Kickoff with Acme",
        content="Alice (Head of Platform at Acme) ran the kickoff. Acme wants the pilot live "
        "before the Berlin summit.",
        category="meeting",
        tags=["acme", "pilot"],
        entities=[
            {
                "name": "Acme Corp",
                "type": "organization",
                "description": "Our biggest customer; manufacturer piloting our product",
                "retrieval_queries": ["who is our biggest customer?"],
            },
            {
                "name": "Alice",
                "type": "person",
                "description": "Head of Platform at Acme; our main contact",
            },
            {
                "name": "Berlin summit",
                "type": "event",
                "description": "Industry summit in Berlin; the pilot's deadline",
            },
        ],
        relationships=[
            {
                "source": "Alice",
                "type": "works_at",
                "target": "Acme Corp",
                "description": "Head of Platform",
            },
            {
                "source": "Acme Corp",
                "type": "targets",
                "target": "Berlin summit",
                "description": "wants the pilot live before it",
            },
        ],
    )
    _show_write(first)

    second = mem.add_observation(
        title="Pilot scope call",
        content="Bob from our side agreed the pilot scope with Alice: two plants, six weeks.",
        category="call",
        tags=["acme"],
        entities=[
            {"name": "Bob", "type": "person", "description": "Our account engineer for Acme"},
            {"name": " alice ", "description": "Head of Platform at Acme; signs off the pilot"},
        ],
        relationships=[
            {
                "source": "Bob",
                "type": "works_with",
                "target": "Alice",
                "description": "agreed the pilot scope together",
            }
        ],
    )
    _show_write(second)

    out("\nthe graph now:")
    for e in mem.list_entities():
        out(f"  {e.name} ({e.type}, degree {e.degree}): {e.description}")
    alice = mem.get_entity("ALICE")
    out(f"\nget_entity('ALICE') -> {alice.name}, backed by {', '.join(alice.observations)}")
    for r in alice.relationships:
        out(f"  {r.source} -[{r.type}]-> {r.target}: {r.description}")

    out(f"\ndeleting {first.observation.slug!r} ...")
    gone = mem.delete_observation(first.observation.slug)
    out(f"  pruned entities: {', '.join(gone.pruned_entities) or 'none'}")
    for ref in gone.pruned_relationships:
        out(f"  pruned relationship: {ref.source} -[{ref.type}]-> {ref.target}")
    out("\nwhat survives (each still backed by a live observation):")
    for e in mem.list_entities():
        out(f"  {e.name} ({e.type}, degree {e.degree}): {e.description}")
    info = mem.info()
    out(
        f"\n{info.observations} observation(s), {info.entities} entities, "
        f"{info.relationships} relationship(s) in {name!r}. "
        f"Try: turngraph entities --db {db_path} --memory {name}"
    )
    db.close()


def _show_write(res: turngraph.WriteResult) -> None:
    print(f"wrote {res.observation.slug!r}: {res.observation.title}")
    for e in res.entities:
        state = "new" if e.is_new else "merged into existing"
        print(f"  {e.name} ({e.type}) {state}, degree {e.degree}")
    for h in res.hints:
        print(f"  review hint: {h.message}")
