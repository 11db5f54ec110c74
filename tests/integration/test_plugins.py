"""Plug-ins: an embedder and an extractor that turngraph has never heard of, registered by
name from this module (or declared as an entry point by an installed package), serve a
memory embedded and through the server exactly as the built-in ones do."""

from __future__ import annotations

import re
import textwrap
import zlib
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

import turngraph
from turngraph.extract.base import RawEntity, RawExtraction, TurnContext
from turngraph.plugins import (
    embedder_names,
    extractor_names,
    unregister_embedder,
    unregister_extractor,
)
from turngraph.recall.embed import Vectors
from turngraph.recall.index import wait_for_index

DIMENSION = 64


class HashingEmbedder:
    """Words hashed into a fixed number of buckets: a bag of words as a unit vector. It
    records what it embeds, and on which view (``many``: a batch of a write; ``single``: the
    view ``single_threaded`` gives for a query and for the background indexer)."""

    def __init__(self, dimension: int, log: list[tuple[str, str]], view: str = "many") -> None:
        self.id = f"hashing-{dimension}"
        self.dimension = dimension
        self.log = log
        self.view = view
        self._single: HashingEmbedder | None = None

    def embed(self, texts: Sequence[str]) -> Vectors:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            self.log.append((self.view, text))
            for word in re.findall(r"[a-z]+", text.lower()):
                out[row, zlib.crc32(word.encode()) % self.dimension] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        normalized: Vectors = (out / norms).astype(np.float32)
        return normalized

    def single_threaded(self) -> HashingEmbedder:
        if self._single is None:
            self._single = HashingEmbedder(self.dimension, self.log, "single")
        return self._single


class ShoutingExtractor:
    """Every capitalized word of a turn is a place (the rules would read these as people)."""

    name = "shouting"

    def extract(self, text: str, context: TurnContext) -> RawExtraction:
        names = dict.fromkeys(re.findall(r"\b[A-Z][a-z]+\b", text))
        return RawExtraction(entities=tuple(RawEntity(n, "place") for n in names))


@pytest.fixture
def hashing() -> Iterator[list[tuple[str, str]]]:
    log: list[tuple[str, str]] = []
    turngraph.register_embedder(
        "test-hashing",
        lambda request: HashingEmbedder(request.dimension or DIMENSION, log),
    )
    yield log
    unregister_embedder("test-hashing")


TURNS = [
    "I paddled my kayak down the river at dawn.",
    "The quarterly budget review ran over by an hour.",
    "We baked sourdough bread with rye flour.",
]


def test_a_registered_embedder_serves_remember_and_recall(
    tmp_path: Path, hashing: list[tuple[str, str]]
) -> None:
    assert "test-hashing" in embedder_names()
    with turngraph.open(tmp_path / "m.db") as db:
        mem = db.create_memory("m", retrieval={"embedder": "test-hashing", "dimension": DIMENSION})
        for text in TURNS:
            mem.remember(text)
        written = [text for view, text in hashing if view == "many"]
        assert any(TURNS[0] in text for text in written)  # the write embedded its turn
        found = mem.recall("kayak river", mode="dense", k=1)
    assert [hit.text for hit in found.hits] == [TURNS[0]]
    # The query ran on the embedder's single-threaded view: no isinstance on a built-in.
    assert ("single", "kayak river") in hashing


def test_the_background_indexer_uses_the_single_threaded_view(
    tmp_path: Path, hashing: list[tuple[str, str]]
) -> None:
    settings = turngraph.Settings(index_in_background=True)
    with turngraph.open(tmp_path / "b.db", settings=settings) as db:
        mem = db.create_memory("m", retrieval={"embedder": "test-hashing", "dimension": DIMENSION})
        hashing.clear()  # the creation's dimension check
        mem.remember(TURNS[1])
        assert wait_for_index(db.store)
        assert hashing
        assert {view for view, _ in hashing} == {"single"}
        assert [h.text for h in mem.recall("budget review", mode="dense", k=1).hits] == [TURNS[1]]


def test_a_registered_embedder_serves_through_the_server(
    tmp_path: Path, hashing: list[tuple[str, str]]
) -> None:
    from tests.http.conftest import running

    with running(tmp_path / "s.db") as srv, turngraph.Client(srv.url, srv.admin_key) as client:
        remote = client.create_memory(
            "m", retrieval={"embedder": "test-hashing", "dimension": DIMENSION}
        )
        for text in TURNS:
            remote.remember(text)
        assert wait_for_index(srv.db.store)
        found = remote.recall("sourdough rye bread", mode="dense", k=1)
        assert srv.db.memory("m").retrieval.embedder == "test-hashing"
    assert [hit.text for hit in found.hits] == [TURNS[2]]
    assert ("single", "sourdough rye bread") in hashing


def test_an_unknown_embedder_is_refused_naming_the_registered_ones(tmp_path: Path) -> None:
    with turngraph.open(tmp_path / "u.db") as db:
        with pytest.raises(turngraph.ValidationError, match="unknown embedder") as caught:
            db.create_memory("m", retrieval={"embedder": "nope", "dimension": 8})
        assert caught.value.fields["field"] == "retrieval.embedder"
        assert "minilm-l6-v2-int8" in str(caught.value)
        assert db.list_memories() == []


def test_a_name_is_registered_once_unless_replaced(hashing: list[tuple[str, str]]) -> None:
    with pytest.raises(turngraph.ValidationError, match="already registered"):
        turngraph.register_embedder("test-hashing", lambda request: HashingEmbedder(8, []))
    with pytest.raises(turngraph.ValidationError, match="without ':'"):
        turngraph.register_embedder("a:b", lambda request: HashingEmbedder(8, []))


def test_a_registered_extractor_reads_the_turns(tmp_path: Path) -> None:
    turngraph.register_extractor("test-shouting", lambda settings: ShoutingExtractor())
    try:
        assert "test-shouting" in extractor_names()
        settings = turngraph.Settings(extractor="test-shouting")
        with turngraph.open(tmp_path / "e.db", settings=settings) as db:
            mem = db.create_memory("m", retrieval={"embedder": "none"})
            mem.remember("Yesterday Quentin met Rosalind")
            types = {e.name: e.type for e in mem.list_entities()}
    finally:
        unregister_extractor("test-shouting")
    assert types.get("Quentin") == "place"
    assert types.get("Rosalind") == "place"


def test_an_installed_package_declares_an_embedder_as_an_entry_point(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    (site / "tiny_embedder-1.0.dist-info").mkdir(parents=True)
    (site / "tiny_embedder-1.0.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: tiny-embedder\nVersion: 1.0\n"
    )
    (site / "tiny_embedder-1.0.dist-info" / "entry_points.txt").write_text(
        "[turngraph.embedders]\ntest-tiny = tiny_embedder:build\n"
    )
    (site / "tiny_embedder.py").write_text(
        textwrap.dedent(
            """
            from tests.integration.test_plugins import HashingEmbedder

            def build(request):
                return HashingEmbedder(request.dimension, [])
            """
        )
    )
    monkeypatch.syspath_prepend(str(site))
    try:
        with turngraph.open(tmp_path / "p.db") as db:
            mem = db.create_memory("m", retrieval={"embedder": "test-tiny", "dimension": 16})
            mem.remember(TURNS[0])
            assert mem.embedder is not None
            assert mem.embedder.dimension == 16
            assert [h.text for h in mem.recall("kayak", mode="dense", k=1).hits] == [TURNS[0]]
    finally:
        unregister_embedder("test-tiny")


def test_only_an_extractor_registered_for_processes_is_spread_over_workers(
    tmp_path: Path,
) -> None:
    from turngraph.core.extraction_pool import ProcessExtractor

    settings = turngraph.Settings(extraction_workers=1)
    with turngraph.open(tmp_path / "r.db", settings=settings) as db:
        assert isinstance(db.extractor, ProcessExtractor)
        mem = db.create_memory("m", retrieval={"embedder": "none"})
        assert mem.remember("I live in Leeds").extraction.attributes
    turngraph.register_extractor("test-shouting", lambda settings: ShoutingExtractor())
    try:
        shouting = turngraph.Settings(extractor="test-shouting", extraction_workers=1)
        with turngraph.open(tmp_path / "s.db", settings=shouting) as db:
            assert isinstance(db.extractor, ShoutingExtractor)
    finally:
        unregister_extractor("test-shouting")
