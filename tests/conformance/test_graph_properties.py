"""Property-based: random add/update/delete sequences keep the graph backed and degrees exact."""

from __future__ import annotations

from typing import Any

import hypothesis.strategies as st
from hypothesis import HealthCheck, settings
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    consumes,
    invariant,
    rule,
    run_state_machine_as_test,
)

from turngraph.core.validate import name_key

from .conftest import Opener
from .helpers import check_graph_invariants

# A small pool of names, spelled in several ways, so writes collide and merge often.
NAMES = ["Alice", "alice ", "Bob", "BOB", "Acme Corp", "acme  corp", "Berlin", "Zed"]
REL_TYPES = ["knows", "works_at", "lives_in"]

names = st.sampled_from(NAMES)
entity_lists = st.lists(
    st.builds(
        lambda n, d: {"name": n, "type": "other", "description": d},
        names,
        st.sampled_from(["first", "second", "third description"]),
    ),
    max_size=4,
)


def relationships_for(
    ents: list[dict[str, Any]], draw_pairs: list[tuple[int, int, str]]
) -> list[dict[str, Any]]:
    """Relationships among the entities of one write (distinct normalized endpoints)."""
    out = []
    for i, j, rtype in draw_pairs:
        if not ents:
            break
        a, b = ents[i % len(ents)]["name"], ents[j % len(ents)]["name"]
        if name_key(a) != name_key(b):
            out.append({"source": a, "type": rtype, "target": b})
    return out


pairs = st.lists(
    st.tuples(st.integers(0, 3), st.integers(0, 3), st.sampled_from(REL_TYPES)), max_size=4
)


class GraphMachine(RuleBasedStateMachine):
    """Random edits against one memory; ``open_db`` is set to the backend under test."""

    slugs = Bundle("slugs")
    open_db: Opener

    def __init__(self) -> None:
        super().__init__()
        self.db = self.open_db()
        self.mem = self.db.create_memory("prop")
        self.live: set[str] = set()

    def teardown(self) -> None:
        self.db.close()

    @rule(target=slugs, ents=entity_lists, rel_pairs=pairs)
    def add(self, ents: list[dict[str, Any]], rel_pairs: list[tuple[int, int, str]]) -> str:
        res = self.mem.add_observation(
            title="note",
            content="c",
            entities=ents,
            relationships=relationships_for(ents, rel_pairs),
        )
        self.live.add(res.observation.slug)
        return res.observation.slug

    @rule(slug=slugs, ents=entity_lists, rel_pairs=pairs, removals=st.lists(names, max_size=2))
    def update(
        self,
        slug: str,
        ents: list[dict[str, Any]],
        rel_pairs: list[tuple[int, int, str]],
        removals: list[str],
    ) -> None:
        if slug not in self.live:
            return
        keys = {name_key(e["name"]) for e in ents}
        # Only what the observation has can be removed from it (anything else is refused).
        has = {name_key(n) for n in self.mem.get_observation(slug).entities}
        removals = [r for r in removals if name_key(r) not in keys and name_key(r) in has]
        self.mem.update_observation(
            slug,
            entities=ents,
            relationships=relationships_for(ents, rel_pairs),
            remove_entities=removals,
        )

    @rule(slug=consumes(slugs))
    def delete(self, slug: str) -> None:
        if slug in self.live:
            self.mem.delete_observation(slug)
            self.live.discard(slug)

    @invariant()
    def graph_is_backed_and_degrees_are_exact(self) -> None:
        check_graph_invariants(self.mem, self.live)


def test_random_edit_sequences_keep_every_entity_and_relationship_backed(backend: Opener) -> None:
    machine = type("BackendGraphMachine", (GraphMachine,), {"open_db": staticmethod(backend)})
    run_state_machine_as_test(
        machine,
        settings=settings(
            max_examples=100,
            stateful_step_count=25,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
        ),
    )
