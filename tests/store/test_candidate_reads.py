"""Reads recall makes of its candidates, checked on each backend directly."""

from __future__ import annotations

from turngraph.store.base import Store, WriteTx

from .conftest import NOW, insert_note


def _people(tx: WriteTx, *keys: str) -> list[int]:
    """An entity of type person per key, named by it."""
    return [
        tx.insert_entity(
            key=k, name=k, type="person", description="", retrieval_queries=(), now=NOW
        ).id
        for k in keys
    ]


def test_each_entity_gives_its_newest_observations_up_to_the_limit(
    store: Store, memory_id: int
) -> None:
    with store.write(memory_id) as tx:
        ana, ben, cy = _people(tx, "ana", "ben", "cy")
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


def test_each_entity_gives_its_strongest_relationships_either_way_round(
    store: Store, memory_id: int
) -> None:
    with store.write(memory_id) as tx:
        ana, ben, cy, dee = _people(tx, "ana", "ben", "cy", "dee")
        rels = {}
        # ben's own relationship to itself is one relationship, read once.
        edges = ((ana, ben, 1.0), (cy, ana, 3.0), (ana, dee, 2.0), (ben, ben, 0.5))
        for source, target, weight in edges:
            rel = tx.insert_relationship(source_id=source, type="knows", target_id=target, now=NOW)
            tx.update_relationship(rel, description="", weight=weight, now=NOW)
            rels[source, target] = rel
    with store.read(memory_id) as rtx:
        found = rtx.neighbour_relationships([dee, ana, ben], limit=2)
        alone = rtx.entity_relationships(ana, limit=2)
        none = rtx.neighbour_relationships([], limit=2)
        wide = rtx.neighbour_relationships([ben], limit=5)
    assert list(found) == [dee, ana, ben]
    ids = {e: [r.id for r in found[e]] for e in found}
    assert ids == {
        dee: [rels[ana, dee]],
        ana: [rels[cy, ana], rels[ana, dee]],
        ben: [rels[ana, ben], rels[ben, ben]],
    }
    assert ([r.id for r in alone[0]], alone[1]) == (ids[ana], 3)
    assert none == {}
    assert [r.id for r in wide[ben]] == [rels[ana, ben], rels[ben, ben]]
    assert [r.id for r in wide[ben]] == [rels[ana, ben], rels[ben, ben]]


def test_entities_are_found_by_their_key_before_an_alias(store: Store, memory_id: int) -> None:
    def entity(key: str, name: str) -> int:
        return tx.insert_entity(
            key=key, name=name, type="person", description="", retrieval_queries=(), now=NOW
        ).id

    with store.write(memory_id) as tx:
        bob, rob, ann = entity("bob", "Bob"), entity("rob", "Rob"), entity("ann", "Ann")
        tx.add_alias(key="robert", name="Robert", entity_id=bob)
        tx.add_alias(key="rob", name="Rob", entity_id=bob)  # also another entity's own key
    with store.read(memory_id) as rtx:
        found = rtx.find_entities(["ann", "robert", "rob", "nobody", "ann"])
    assert {key: e.id for key, e in found.items()} == {"ann": ann, "robert": bob, "rob": rob}
    assert found["robert"].name == "Bob"


def test_the_rows_a_result_shows_come_together(store: Store, memory_id: int) -> None:
    with store.write(memory_id) as tx:
        ana, ben, cy, dee = _people(tx, "ana", "ben", "cy", "dee")
        note = insert_note(tx, "a-note", "a note")
        said = insert_note(tx, "a-turn", "a turn")
        tx.insert_session("s1", metadata="{}", now=NOW)
        tx.insert_turn(
            turn_id="t1",
            session_id="s1",
            seq=1,
            role="user",
            speaker="Ana",
            observation_id=said,
            extracted="{}",
            labels=(),
            now=NOW,
        )
        rels = {}
        for source, target, weight in ((ana, ben, 1.0), (ben, cy, 3.0), (cy, ana, 2.0)):
            rels[source, target] = tx.insert_relationship(
                source_id=source, type="knows", target_id=target, now=NOW
            )
            tx.update_relationship(rels[source, target], description="", weight=weight, now=NOW)
        tx.insert_relationship(source_id=ana, type="knows", target_id=dee, now=NOW)  # dee: out
        # The strongest one has ended: current relationships come first.
        tx.set_relationship_validity(
            rels[ben, cy], memory_category=None, valid_from=None, valid_until=NOW
        )
    with store.read(memory_id) as rtx:
        read = rtx.shown_rows([said, 999, note], [cy, 998, ben, ana], relationships=5)
        first = rtx.shown_rows([], [ana, ben, cy], relationships=1)
        nothing = rtx.shown_rows([], [], relationships=2)
    assert [o.slug for o in read.observations] == ["a-turn", "a-note"]
    assert {oid: (t.id, t.speaker) for oid, t in read.turns.items()} == {said: ("t1", "Ana")}
    assert {e: row.key for e, row in read.entities.items()} == {ana: "ana", ben: "ben", cy: "cy"}
    assert [r.id for r in read.relationships] == [rels[cy, ana], rels[ana, ben], rels[ben, cy]]
    assert [r.id for r in first.relationships] == [rels[cy, ana]]
    assert (nothing.observations, nothing.turns, nothing.entities) == ([], {}, {})
    assert nothing.relationships == []
