"""A memory whose embedder is an OpenAI-compatible embeddings endpoint, over real HTTP."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import turngraph
from turngraph.config import Settings

from ..fakes.openai_server import fake_openai

DIM = 26


def _letters(text: str) -> list[float]:
    """A deterministic stand-in embedding: letter counts (identical texts get cosine 1)."""
    counts = [0.0] * DIM
    for ch in text.lower():
        if "a" <= ch <= "z":
            counts[ord(ch) - 97] += 1.0
    return counts


def _embeddings(path: str, body: dict[str, Any]) -> dict[str, Any]:
    assert path == "/v1/embeddings"
    return {
        "object": "list",
        "model": body["model"],
        "data": [
            {"object": "embedding", "index": i, "embedding": _letters(text)}
            for i, text in enumerate(body["input"])
        ],
    }


def test_an_embeddings_endpoint_backs_dense_recall(tmp_path: Path) -> None:
    with fake_openai() as fake:
        fake.handler = _embeddings
        settings = Settings(embeddings_base_url=fake.base_url, embeddings_api_key="sk-e")
        with turngraph.open(tmp_path / "e.db", settings=settings) as db:
            mem = db.create_memory(
                "m", retrieval={"embedder": "openai:test-embed", "dimension": DIM}
            )
            mem.add_observation(title="Zebra", content="zebras zigzag in the zoo")
            mem.add_observation(title="Tea", content="a pot of tea at noon")
            rc = mem.recall("zebras zigzag in the zoo", mode="dense")
            assert rc.hits[0].source.slug == "zebra"
            assert mem.embedder is not None
            assert mem.embedder.id == "openai:test-embed"
        models = {r["body"]["model"] for r in fake.requests}
        assert models == {"test-embed"}
        assert all(h["Authorization"] == "Bearer sk-e" for h in fake.headers)
