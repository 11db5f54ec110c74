"""Reads recall makes of its candidates, checked on each backend directly."""

from __future__ import annotations

from turngraph.store.base import Store

from .conftest import NOW, insert_note


def test_each_entity_gives_its_newest_observations_up_to_the_limit(
    store: Store, memory_id: int
) -> None:
    with store.write(memory_id) as tx:
        ana, ben, cy = (
            tx.insert_entity(
                key=k, name=k, type="person", description="", retrieval_queries=(), now=NOW
            ).id
            for k in ("ana", "ben", "cy")
        )
        notes = [insert_note(tx, f"n{i}", f"note {i}") for i in range(4)]
        for seq, (note, who) in enumerate(
            [(notes[0], ana), (notes[1], ana), (notes[1], ben), (notes[2], ana), (notes[3], ben)]
        ):
            tx.put_link(
                note,
                who,
                explicit=True,
                type=None,
                description=None,
                retrieval_queries=(),
                seq=seq + 1,
            )
    with store.read(memory_id) as rtx:
        two = rtx.observations_for_entities([ben, cy, ana], limit=2)
        one = rtx.observations_for_entities([ana], limit=1)
        none = rtx.observations_for_entities([], limit=2)
    assert list(two) == [ben, cy, ana]
    assert two == {ben: [notes[3], notes[1]], cy: [], ana: [notes[2], notes[1]]}
    assert one == {ana: [notes[2]]}
    assert none == {}
