"""A read transaction sees one state of its memory from its first statement to its last,
whatever is committed meanwhile (on PostgreSQL its BEGIN travels with its first statement,
so no round trip of its own opens it)."""

from __future__ import annotations

import threading

from turngraph.store.base import Store, TextSearch

from .conftest import insert_note

QUOKKA = TextSearch("observation", ("quokka",), limit=10)


def test_a_write_committed_during_a_read_is_not_seen_by_it(store: Store, memory_id: int) -> None:
    with store.write(memory_id) as tx:
        first = insert_note(tx, "a", "the first quokka")

    def write() -> None:
        with store.write(memory_id) as tx:
            insert_note(tx, "b", "the second quokka")

    with store.read(memory_id) as rtx:
        before = rtx.search_text(QUOKKA)
        counted = rtx.counts().observations
        writer = threading.Thread(target=write)
        writer.start()
        writer.join(30)
        assert not writer.is_alive()  # the write never waited for the read
        assert rtx.search_text(QUOKKA) == before
        assert rtx.counts().observations == counted == 1
        assert rtx.get_observations([first])[0].slug == "a"
    with store.read(memory_id) as rtx:
        assert len(rtx.search_text(QUOKKA)) == 2
        assert rtx.counts().observations == 2
