"""Plug-ins: embedders and extractors chosen by name through one registry.

A memory's retrieval configuration names its embedder (``"minilm-l6-v2-int8"``,
``"openai:text-embedding-3-small"``, ``"none"``) and :class:`~turngraph.config.Settings`
names the extractor (``"rules"``, ``"llm"``). The name is looked up here, in one registry per
kind, and nowhere else: recall, indexing, the server and the CLI all get their embedder from
:func:`embedder_for` (through ``Memory.embedder``) and their extractor from
:func:`extractor_from_settings`. The built-in ones are registered with the same calls an
outside package uses:

.. code-block:: python

    turngraph.register_embedder("hashing", lambda request: HashingEmbedder(request.dimension))
    db.create_memory("m", retrieval={"embedder": "hashing", "dimension": 64})

A registered name matches the configured name exactly or as a family, ``name:argument``
(``openai:<model>``: the factory receives ``argument="<model>"``). A package can also
declare its factories as entry points (groups ``turngraph.embedders`` and
``turngraph.extractors``, the entry point's name being the registered name); they are read
when a name is not found, so ``turngraph serve`` finds an installed plug-in with
no code of its own.

Embedders are built once per process per (name, dimension, endpoint) and shared. An
embedder's ``single_threaded()`` is what one query and the background indexer use, so the
registry never needs to know which embedder is which.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points

from turngraph.config import Settings
from turngraph.errors import ExtractionError, ValidationError
from turngraph.extract.base import Extractor
from turngraph.recall.embed import (
    DEFAULT_EMBEDDER,
    Embedder,
    OnnxEmbedder,
    OpenAIEmbedder,
    SentenceTransformerEmbedder,
)

NO_EMBEDDER = "none"  # a lexical-only memory: no embedder is built


@dataclass(frozen=True, slots=True)
class EmbedderRequest:
    """What an embedder factory is asked to build.

    ``name`` is the configured name as written; ``argument`` what follows ``family:`` (None
    when the name was registered exactly); ``dimension`` the memory's configured dimension
    (None only for an embedder that declares its own); ``base_url`` and ``api_key`` the
    database's embeddings endpoint settings (``Settings.embeddings_*``)."""

    name: str
    argument: str | None
    dimension: int | None
    base_url: str | None = None
    api_key: str | None = None


EmbedderFactory = Callable[[EmbedderRequest], Embedder]
ExtractorFactory = Callable[[Settings], Extractor]


@dataclass(frozen=True, slots=True)
class ExtractorPlugin:
    """A registered extractor: its factory, and whether what it builds may run in worker
    processes (picklable and stateless per turn, like the rules), so that
    ``Settings.extraction_workers`` spreads it over processes."""

    factory: ExtractorFactory
    processes: bool = False


_lock = threading.RLock()
_embedders: dict[str, EmbedderFactory] = {}
_extractors: dict[str, ExtractorPlugin] = {}
_shared: dict[tuple[str, int | None, str | None], Embedder] = {}


def _check_name(kind: str, name: str) -> None:
    if not name or ":" in name or name != name.strip() or name == NO_EMBEDDER:
        raise ValidationError(
            f"a {kind} is registered under a non-empty name without ':' or surrounding "
            f"spaces, other than {NO_EMBEDDER!r}; got {name!r}",
            field="name",
        )


def register_embedder(name: str, factory: EmbedderFactory, *, replace: bool = False) -> None:
    """Make ``name`` (and ``name:<argument>``) an embedder a retrieval configuration may
    name. ``factory`` builds it from an :class:`EmbedderRequest`; it raises
    :class:`~turngraph.errors.ValidationError` for a request it cannot serve (a missing
    dimension, argument or endpoint). A name already registered is refused unless
    ``replace``."""
    _check_name("embedder", name)
    with _lock:
        if name in _embedders and not replace:
            raise ValidationError(f"embedder {name!r} is already registered", field="name")
        _embedders[name] = factory


def register_extractor(
    name: str, factory: ExtractorFactory, *, processes: bool = False, replace: bool = False
) -> None:
    """Make ``name`` an extractor ``Settings(extractor=name)`` may name. ``factory`` builds
    it from the database's settings; ``processes`` says it may run in worker processes
    (see :class:`ExtractorPlugin`). A name already registered is refused unless
    ``replace``."""
    _check_name("extractor", name)
    with _lock:
        if name in _extractors and not replace:
            raise ValidationError(f"extractor {name!r} is already registered", field="name")
        _extractors[name] = ExtractorPlugin(factory, processes)


def unregister_embedder(name: str) -> None:
    """Forget a registered embedder (and the instances built from it)."""
    with _lock:
        _embedders.pop(name, None)
        for key in [k for k in _shared if k[0] == name or k[0].startswith(f"{name}:")]:
            del _shared[key]


def unregister_extractor(name: str) -> None:
    """Forget a registered extractor."""
    with _lock:
        _extractors.pop(name, None)


def embedder_names() -> list[str]:
    """The registered embedder names, sorted (entry points included)."""
    _read_entry_points("turngraph.embedders")
    with _lock:
        return sorted(_embedders)


def extractor_names() -> list[str]:
    """The registered extractor names, sorted (entry points included)."""
    _read_entry_points("turngraph.extractors")
    with _lock:
        return sorted(_extractors)


def _read_entry_points(group: str) -> None:
    """Register the factories installed packages declare under ``group``. Read on a name
    not found (a rare path: a configuration naming no registered plug-in), so a package
    installed while the process runs is found too; a name already registered in this
    process wins over an entry point of the same name."""
    embedders = group == "turngraph.embedders"
    for point in entry_points(group=group):
        with _lock:
            if point.name in (_embedders if embedders else _extractors):
                continue
        loaded = point.load()
        if embedders:
            register_embedder(point.name, loaded, replace=True)
        else:
            register_extractor(point.name, loaded, replace=True)


def _find_embedder(name: str) -> tuple[EmbedderFactory, str | None] | None:
    family, _, argument = name.partition(":")
    with _lock:
        if name in _embedders:
            return _embedders[name], None
        if argument and family in _embedders:
            return _embedders[family], argument
    return None


def _choices() -> str:
    return ", ".join([*embedder_names(), NO_EMBEDDER])


def embedder_for(
    name: str,
    dimension: int | None,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
) -> Embedder | None:
    """The embedder a retrieval configuration names (built once per process and shared), or
    None for ``"none"`` (a lexical-only memory). Raises
    :class:`~turngraph.errors.ValidationError` for a name no plug-in registered."""
    if name == NO_EMBEDDER:
        return None
    key = (name, dimension, base_url)
    found = _shared.get(key)  # the hot path: one dict read, no lock
    if found is not None:
        return found
    with _lock:
        found = _shared.get(key)
        if found is not None:
            return found
        plugin = _find_embedder(name)
        if plugin is None:
            _read_entry_points("turngraph.embedders")
            plugin = _find_embedder(name)
        if plugin is None:
            raise ValidationError(
                f"unknown embedder {name!r}; registered: {_choices()}", field="embedder"
            )
        factory, argument = plugin
        found = factory(EmbedderRequest(name, argument, dimension, base_url, api_key))
        _shared[key] = found
        return found


def load_embedder(
    name: str,
    dimension: int | None,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
) -> Embedder | None:
    """The embedder a retrieval configuration names, built and tried on one text: a
    :class:`~turngraph.errors.ValidationError` (field ``retrieval.embedder`` or
    ``retrieval.dimension``) says why it cannot serve, before anything relies on it."""
    try:
        built = embedder_for(name, dimension, base_url=base_url, api_key=api_key)
        if built is None:
            return None
        width = built.embed(["dimension check"]).shape[1]
    except ValidationError as exc:
        raise ValidationError(
            f"retrieval.embedder {name!r} cannot be used: {exc}", field="retrieval.embedder"
        ) from None
    except ExtractionError as exc:
        if "dimension" in exc.fields:
            raise ValidationError(
                f"retrieval.dimension is {dimension}, but embedder {name!r} makes vectors "
                f"of {exc.fields['dimension']}",
                field="retrieval.dimension",
            ) from None
        raise ValidationError(
            f"retrieval.embedder {name!r} did not embed a test text: {exc}",
            field="retrieval.embedder",
        ) from None
    except (OSError, RuntimeError, ValueError) as exc:  # a model that is absent or broken
        raise ValidationError(
            f"retrieval.embedder {name!r} did not load: {type(exc).__name__}: {exc}",
            field="retrieval.embedder",
        ) from None
    if width != dimension or built.dimension != dimension:
        raise ValidationError(
            f"retrieval.dimension is {dimension}, but embedder {name!r} makes vectors of {width}",
            field="retrieval.dimension",
        )
    return built


def extractor_from_settings(settings: Settings) -> Extractor:
    """The extractor ``settings.extractor`` names, spread over
    ``settings.extraction_workers`` processes when it may run in them. Raises
    :class:`~turngraph.errors.ValidationError` for a name no plug-in registered, or settings
    the extractor cannot run with."""
    name = settings.extractor
    with _lock:
        plugin = _extractors.get(name)
    if plugin is None:
        _read_entry_points("turngraph.extractors")
        with _lock:
            plugin = _extractors.get(name)
    if plugin is None:
        raise ValidationError(
            f"unknown extractor {name!r}; registered: {', '.join(extractor_names())}",
            field="extractor",
        )
    extractor = plugin.factory(settings)
    if plugin.processes and settings.extraction_workers > 0:
        from turngraph.core.extraction_pool import ProcessExtractor

        return ProcessExtractor(
            extractor,
            workers=settings.extraction_workers,
            timeout=settings.extraction_timeout_seconds,
        )
    return extractor


# The built-in plug-ins, registered like any other.


def _needs_dimension(request: EmbedderRequest) -> int:
    if request.dimension is None:
        raise ValidationError(f"embedder {request.name!r} needs a dimension", field="dimension")
    return request.dimension


def _needs_argument(request: EmbedderRequest) -> str:
    if not request.argument:
        raise ValidationError(
            f"embedder {request.name!r} needs a model: {request.name}:<model>", field="embedder"
        )
    return request.argument


def _onnx(request: EmbedderRequest) -> Embedder:
    return OnnxEmbedder()


def _sentence_transformers(request: EmbedderRequest) -> Embedder:
    return SentenceTransformerEmbedder(_needs_argument(request), _needs_dimension(request))


def _openai(request: EmbedderRequest) -> Embedder:
    model, dimension = _needs_argument(request), _needs_dimension(request)
    if not request.base_url:
        raise ValidationError(
            "embedder 'openai:...' needs an embeddings base URL (TURNGRAPH_EMBEDDINGS_BASE_URL)",
            field="embedder",
        )
    return OpenAIEmbedder(model, dimension, base_url=request.base_url, api_key=request.api_key)


def _rules(settings: Settings) -> Extractor:
    from turngraph.extract.rules import RuleExtractor

    return RuleExtractor()


def _llm(settings: Settings) -> Extractor:
    from turngraph.extract.llm import LLMExtractor

    if not settings.llm_base_url or not settings.llm_model:
        raise ValidationError(
            "the llm extractor needs llm_base_url and llm_model (TURNGRAPH_LLM_BASE_URL, "
            "TURNGRAPH_LLM_MODEL)",
            field="extractor",
        )
    return LLMExtractor(
        base_url=settings.llm_base_url,
        model=settings.llm_model,
        api_key=settings.llm_api_key,
        timeout=settings.llm_timeout_seconds,
    )


register_embedder(DEFAULT_EMBEDDER, _onnx)
register_embedder("st", _sentence_transformers)
register_embedder("openai", _openai)
register_extractor("rules", _rules, processes=True)
register_extractor("llm", _llm)

__all__ = [
    "NO_EMBEDDER",
    "EmbedderFactory",
    "EmbedderRequest",
    "ExtractorFactory",
    "ExtractorPlugin",
    "embedder_for",
    "embedder_names",
    "extractor_from_settings",
    "extractor_names",
    "load_embedder",
    "register_embedder",
    "register_extractor",
    "unregister_embedder",
    "unregister_extractor",
]
