"""The memory the inspector's browser tests (and its screenshots) look at: a short two-person
chat from tests/data, two observations naming one company two ways (so consolidation proposes
a merge), and a text file."""

from __future__ import annotations

import json
from pathlib import Path

import turngraph

CONVERSATION = Path(__file__).parent.parent / "data" / "inspector_conversation.json"
MEMORY = "demo"


def seed(db: turngraph.Database, name: str = MEMORY) -> turngraph.Memory:
    """Create memory ``name`` in ``db`` and fill it; returns it."""
    mem = db.create_memory(name)
    conversation = json.loads(CONVERSATION.read_text(encoding="utf-8"))
    for session in conversation["sessions"]:
        mem.create_session(session_id=session["id"])
        for message in session["messages"]:
            mem.remember(
                message["content"],
                session_id=session["id"],
                speaker=message["speaker"],
                observed_at=message["ts"],
            )
    mem.add_observation(
        title="Acme renewal",
        content="Acme Corporation renewed its contract for two years.",
        category="meeting",
        entities=[
            {"name": "Acme Corporation", "type": "organization", "description": "A customer"}
        ],
    )
    mem.add_observation(
        title="Acme pilot",
        content="Acme Corp kicked off the pilot with Maya.",
        category="meeting",
        entities=[
            {"name": "Acme Corp", "type": "organization", "description": "Our biggest customer"},
            {"name": "Maya", "type": "person", "description": "CTO at Acme"},
        ],
        relationships=[{"source": "Maya", "type": "works_at", "target": "Acme Corp"}],
    )
    mem.add_observation(
        title="Porto meetup",
        content="Maya met Ana at a meetup in Porto.",
        category="meeting",
        entities=[
            {"name": "Maya", "type": "person", "description": "CTO at Acme"},
            {"name": "Ana", "type": "person", "description": "A nurse in Porto"},
        ],
        relationships=[{"source": "Maya", "type": "knows", "target": "Ana"}],
    )
    mem.consolidate()
    mem.put_file(
        "notes/acme.md",
        b"# Acme\n\nPilot goes live in May. <script>document.title='pwned'</script>\n",
        description="Notes on the Acme pilot",
        content_type="text/markdown",
    )
    return mem
