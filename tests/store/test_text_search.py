"""Text search through the storage protocol: the core asks in neutral terms (words, any or
all, fields and their weights, a limit) and the backend builds its own query."""

from __future__ import annotations

import pytest

from turngraph.store.base import Store, TextSearch, WriteTx

from .conftest import NOW, current_attribute, insert_note


def _entity(
    tx: WriteTx, key: str, type_: str, description: str = "", queries: tuple[str, ...] = ()
) -> int:
    """An entity named as its key, capitalized."""
    return tx.insert_entity(
        key=key,
        name=key.capitalize(),
        type=type_,
        description=description,
        retrieval_queries=queries,
        now=NOW,
    ).id


def _ids(found: list[tuple[int, float]]) -> set[int]:
    return {ref for ref, _ in found}


def test_any_matches_a_row_with_one_term_and_all_needs_every_term(
    store: Store, memory_id: int
) -> None:
    with store.write(memory_id) as tx:
        both = insert_note(tx, "a", "the violin and the piano")
        violin = insert_note(tx, "b", "a violin lesson")
        insert_note(tx, "c", "a piano tuner")
        insert_note(tx, "d", "nothing musical here")
    with store.read(memory_id) as rtx:
        any_ = rtx.search_text(TextSearch("observation", ("violin", "piano"), limit=10))
        all_ = rtx.search_text(
            TextSearch("observation", ("violin", "piano"), limit=10, match="all")
        )
        one = rtx.search_text(TextSearch("observation", ("violin",), limit=10))
    assert len(any_) == 3
    assert _ids(all_) == {both}
    assert _ids(one) == {both, violin}
    scores = [score for _, score in any_]
    assert scores == sorted(scores, reverse=True)  # best first, higher is better
    assert any_[0][0] == both  # the row with both terms ranks first


def test_fields_limit_where_a_term_is_looked_for(store: Store, memory_id: int) -> None:
    with store.write(memory_id) as tx:
        titled = insert_note(tx, "a", "plain words", title="harbour")
        said = insert_note(tx, "b", "we sailed into the harbour")
    with store.read(memory_id) as rtx:
        anywhere = rtx.search_text(TextSearch("observation", ("harbour",), limit=10))
        content = rtx.search_text(
            TextSearch("observation", ("harbour",), limit=10, fields=(("content", 1.0),))
        )
    assert _ids(anywhere) == {titled, said}
    assert _ids(content) == {said}


def test_field_weights_decide_the_order(store: Store, memory_id: int) -> None:
    with store.write(memory_id) as tx:
        own = insert_note(tx, "a", "the lighthouse keeper waved")
        near = insert_note(tx, "b", "someone waved back")
        tx.set_search_context(near, "the lighthouse keeper waved first")
    with store.read(memory_id) as rtx:

        def order(content: float, context: float) -> list[int]:
            fields = (("content", content), ("context", context))
            search = TextSearch("observation", ("lighthouse",), limit=10, fields=fields)
            return [ref for ref, _ in rtx.search_text(search)]

        content_first = order(1.0, 0.1)
        context_first = order(0.1, 1.0)
    # The turn that says the word itself carries it in both fields when its context holds
    # it too; here only ``own`` holds it in its content and only ``near`` in its context.
    assert content_first == [own, near]
    assert context_first == [near, own]


def test_limit_bounds_the_rows(store: Store, memory_id: int) -> None:
    with store.write(memory_id) as tx:
        for i in range(5):
            insert_note(tx, f"n{i}", f"report number {i} about the orchard")
    with store.read(memory_id) as rtx:
        found = rtx.search_text(TextSearch("observation", ("orchard",), limit=3))
    assert len(found) == 3


def test_a_search_stays_inside_its_memory(store: Store, memory_id: int) -> None:
    other = store.create_memory(name="other", visibility="private", retrieval="{}", now=NOW).id
    with store.write(memory_id) as tx:
        mine = insert_note(tx, "a", "the glacier melted")
    with store.write(other) as tx:
        insert_note(tx, "a", "the glacier grew")
    with store.read(memory_id) as rtx:
        found = rtx.search_text(TextSearch("observation", ("glacier",), limit=10))
        counts = rtx.term_frequencies(TextSearch("observation", ("glacier",), limit=0))
        rows = rtx.text_rows("observation")
    assert _ids(found) == {mine}
    assert counts == [1]
    assert rows == 1


def test_terms_are_words_never_query_syntax(store: Store, memory_id: int) -> None:
    with store.write(memory_id) as tx:
        quoted = insert_note(tx, "a", 'she said "NEAR" OR AND twice')
    hostile = ('"', "NEAR(", "OR", "AND", "*", "{content}", ":", "-x", "^")
    with store.read(memory_id) as rtx:
        for term in hostile:  # none raises; each is looked for as text
            rtx.search_text(TextSearch("observation", (term,), limit=10))
            rtx.term_frequencies(TextSearch("observation", (term,), limit=0))
        found = rtx.search_text(TextSearch("observation", ("near", "or"), limit=10, match="all"))
    assert _ids(found) == {quoted}


def test_term_frequencies_count_each_term_in_the_fields(store: Store, memory_id: int) -> None:
    with store.write(memory_id) as tx:
        insert_note(tx, "a", "red kite", title="bird")
        insert_note(tx, "b", "red fox")
        insert_note(tx, "c", "grey heron", title="bird")
    with store.read(memory_id) as rtx:
        everywhere = rtx.term_frequencies(
            TextSearch("observation", ("red", "bird", "owl"), limit=0)
        )
        content = rtx.term_frequencies(
            TextSearch("observation", ("red", "bird"), limit=0, fields=(("content", 1.0),))
        )
    assert everywhere == [2, 2, 0]
    assert content == [2, 0]


def test_entities_are_found_by_name_description_and_queries(store: Store, memory_id: int) -> None:
    with store.write(memory_id) as tx:
        by_name = _entity(tx, "quokka", "animal")
        by_text = _entity(tx, "rottnest", "place", "home of the quokka")
        by_query = _entity(tx, "ferry", "thing", "a boat", ("how to reach the quokka island",))
    with store.read(memory_id) as rtx:
        found = rtx.search_text(TextSearch("entity", ("quokka",), limit=10))
    assert _ids(found) == {by_name, by_text, by_query}


def test_searches_sent_together_answer_each_as_alone(store: Store, memory_id: int) -> None:
    with store.write(memory_id) as tx:
        insert_note(tx, "a", "the quokka crossed the harbour")
        insert_note(tx, "b", "a ferry to the harbour", title="quokka")
        insert_note(tx, "c", "nothing here")
        _entity(tx, "quokka", "animal")
    searches = [
        TextSearch("observation", ("quokka", "harbour"), limit=10),
        TextSearch("entity", ("quokka",), limit=10),
        TextSearch("observation", (), limit=10),  # no terms: nothing
        TextSearch("observation", ("quokka", "harbour"), limit=10, match="all"),
        TextSearch("observation", ("harbour",), limit=1, fields=(("content", 1.0),)),
    ]
    with store.read(memory_id) as rtx:
        together = rtx.search_texts(searches)
        alone = [rtx.search_text(search) for search in searches]
        with pytest.raises(ValueError, match="search_attributes"):
            rtx.search_texts([TextSearch("attribute", ("lisbon",), limit=10)])
    assert together == alone
    assert [len(found) for found in together] == [2, 1, 0, 2, 1]


def test_attributes_come_back_as_rows_with_their_ids(store: Store, memory_id: int) -> None:
    with store.write(memory_id) as tx:
        oid = insert_note(tx, "a", "Ada moved to Lisbon")
        ada = _entity(tx, "ada", "person")
        row = current_attribute(ada, "home_city", "Lisbon", oid)
        tx.insert_attribute(row)
    with store.read(memory_id) as rtx:
        found = rtx.search_attributes(TextSearch("attribute", ("lisbon",), limit=10))
        by_key = rtx.search_attributes(TextSearch("attribute", ("city",), limit=10))
    assert [(r.id, r.entity_id, r.value) for r, _ in found] == [("attribute-1", ada, "Lisbon")]
    assert [r.id for r, _ in by_key] == ["attribute-1"]


def test_a_search_names_only_fields_its_kind_has() -> None:
    with pytest.raises(ValueError, match="no text field 'content'"):
        TextSearch("entity", ("x",), limit=1, fields=(("content", 1.0),))
