"""Opening a database and managing the memories it holds."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

from pydantic import ValidationError as PydanticValidationError

from turngraph.config import Settings
from turngraph.core.access import Access, check_id
from turngraph.core.extraction_pool import ProcessExtractor
from turngraph.core.memory import Memory
from turngraph.core.validate import validate_memory_name
from turngraph.errors import (
    ConflictError,
    ImmutableConfigError,
    NotFoundError,
    TurngraphError,
    ValidationError,
)
from turngraph.extract.base import Extractor
from turngraph.extract.rules import RuleExtractor
from turngraph.models import MemoryInfo, RetrievalConfig, Visibility
from turngraph.plugins import extractor_from_settings, load_embedder
from turngraph.recall.index import schedule, stop_indexer
from turngraph.store.base import MemoryRow, Store
from turngraph.store.sqlite import SQLiteStore

VISIBILITIES = ("private", "organization")
log = logging.getLogger("turngraph")


def open(
    url: str | Path, *, settings: Settings | None = None, extractor: Extractor | None = None
) -> Database:
    """Open (creating if needed) the database at ``url``: a file path, ``sqlite:///path`` or
    ``postgresql://user:password@host/database`` (an existing PostgreSQL database, whose
    tables are created on first open; needs the ``postgres`` extra).

    One database holds many memories. ``extractor`` reads turns (default: the one
    ``settings.extractor`` names in the registry of :mod:`turngraph.plugins`, the offline
    rules unless told otherwise). Raises
    :class:`~turngraph.errors.ValidationError` for a URL scheme turngraph does not know.
    """
    settings = settings or Settings()
    if extractor is None:
        extractor = extractor_from_settings(settings)
    db = Database(open_store(url, settings=settings), extractor=extractor)
    db.resume_indexing()
    return db


def open_store(url: str | Path, *, settings: Settings) -> Store:
    text = str(url)
    if text.startswith(("postgresql://", "postgres://")):
        # Imported here: psycopg is the optional `postgres` extra.
        try:
            from turngraph.store.postgres import PostgresStore
        except ImportError as exc:
            raise ValidationError(
                f"a PostgreSQL URL needs the postgres extra (pip install 'turngraph[postgres]'): "
                f"{exc}",
                field="url",
            ) from None
        return PostgresStore(text, settings=settings)
    if text.startswith("sqlite:///"):
        return SQLiteStore(text.removeprefix("sqlite:///"), settings=settings)
    if "://" in text:
        scheme = text.split("://", 1)[0]
        raise ValidationError(
            f"unsupported database URL scheme {scheme!r}; use a file path, sqlite:///PATH "
            "or postgresql://USER:PASSWORD@HOST/DATABASE",
            field="url",
        )
    return SQLiteStore(text, settings=settings)


def _visibility(value: object) -> Visibility:
    if value == "private":
        return "private"
    if value == "organization":
        return "organization"
    raise ValidationError(
        f"visibility must be one of {', '.join(VISIBILITIES)}, not {value!r}", field="visibility"
    )


def _retrieval(value: object) -> RetrievalConfig:
    if value is None:
        return RetrievalConfig()
    if isinstance(value, RetrievalConfig):
        config = value
    elif isinstance(value, dict):
        try:
            config = RetrievalConfig(**value)
        except (PydanticValidationError, TypeError) as exc:
            raise ValidationError(
                f"invalid retrieval configuration: {exc}", field="retrieval"
            ) from None
    else:
        raise ValidationError("retrieval must be a RetrievalConfig or a dict", field="retrieval")
    if not config.embedder.strip():
        raise ValidationError("retrieval.embedder must not be empty", field="retrieval.embedder")
    if config.embedder == "none":
        if "dimension" in config.model_fields_set and config.dimension not in (None, 0):
            raise ValidationError(
                "retrieval.dimension must be empty when embedder is 'none'",
                field="retrieval.dimension",
            )
        config = config.model_copy(update={"dimension": None})
    elif config.dimension is None or config.dimension <= 0:
        raise ValidationError(
            "retrieval.dimension must be a positive integer for a dense embedder",
            field="retrieval.dimension",
        )
    return config


class Database:
    """A store of many memories. Thread-safe; use one per process and share it."""

    def __init__(self, store: Store, *, extractor: Extractor | None = None) -> None:
        self.store = store
        self.extractor: Extractor = extractor or RuleExtractor()

    @property
    def url(self) -> str:
        return self.store.url

    def __enter__(self) -> Database:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Stop what this database started (its background indexer, after the batch it is
        embedding; its extraction workers) and close the store. Rows still queued for
        embedding stay queued; the next open embeds them."""
        stop_indexer(self.store)
        self.store.close()
        if isinstance(self.extractor, ProcessExtractor):
            self.extractor.close()

    def resume_indexing(self) -> int:
        """Hand rows left queued for embedding (a process stopped between a write and its
        indexing) to the background indexer; returns how many memories had rows waiting.
        :func:`open` calls it, so they are embedded at start, not on the memory's next write.
        """
        waiting = 0
        for row in self.store.list_memories():
            with self.store.read(row.id) as tx:
                if not tx.index_queue(limit=1):
                    continue
            try:
                embedder = Memory(self.store, row, self.extractor).embedder
            except (TurngraphError, OSError, RuntimeError, ValueError) as exc:
                # Its rows stay queued; the server refuses its requests until it loads.
                log.warning("memory %r cannot load its embedder: %s", row.name, exc)
                continue
            schedule(self.store, row.id, embedder)
            waiting += 1
        return waiting

    @property
    def access(self) -> Access:
        """Principals, keys and grants (what the server authenticates against)."""
        return Access(self.store)

    def create_memory(
        self,
        name: str,
        *,
        visibility: str = "private",
        retrieval: RetrievalConfig | dict[str, Any] | None = None,
        organization: str = "default",
        created_at: datetime | None = None,
    ) -> Memory:
        """Create a memory; its retrieval configuration is fixed from now on. ``organization``
        is whose principals may read it at organization visibility, and where its name is
        unique (another organization may have a memory of the same name). ``created_at``
        (default now) is for a memory restored from an export.

        Raises ConflictError if the organization has a memory of that name, ValidationError
        for a bad name,
        visibility or configuration (an embedder that does not load or embed, or whose vectors
        are not of the configured dimension).
        """
        validate_memory_name(name)
        vis = _visibility(visibility)
        config = _retrieval(retrieval)
        # Validated in full before anything is written: a configuration that cannot serve
        # would otherwise fail every write of the memory, and every start of a server.
        load_embedder(
            config.embedder,
            config.dimension,
            base_url=self.store.settings.embeddings_base_url,
            api_key=self.store.settings.embeddings_api_key,
        )
        row = self.store.create_memory(
            name=name,
            visibility=vis,
            retrieval=config.model_dump_json(),
            now=created_at or datetime.now(UTC),
            organization=check_id(organization, "organization"),
        )
        return Memory(self.store, row, self.extractor)

    def memory(self, name: str, *, create: bool = False, organization: str = "default") -> Memory:
        """The memory called ``name`` in ``organization``; NotFoundError if there is none,
        unless ``create``: then a missing memory is created (private, default retrieval), so
        code that sets up its memory can run any number of times."""
        if create:
            try:
                return self.create_memory(name, organization=organization)
            except ConflictError:
                pass  # it exists (perhaps created a moment ago by another process)
        return Memory(self.store, self._row(name, organization), self.extractor)

    def memory_of(self, row: MemoryRow) -> Memory:
        """The memory of a row already read (by ``store.get_memory``), without reading it
        again; ValueError when its stored retrieval configuration does not parse."""
        return Memory(self.store, row, self.extractor)

    def _row(self, name: str, organization: str) -> MemoryRow:
        validate_memory_name(name)
        row = self.store.get_memory(name, organization=organization)
        if row is None:
            raise NotFoundError(f"no memory named {name!r}", memory=name)
        return row

    def list_memories(self) -> list[MemoryInfo]:
        return [
            Memory(self.store, row, self.extractor).info() for row in self.store.list_memories()
        ]

    def update_memory(
        self,
        name: str,
        *,
        visibility: str | None = None,
        retrieval: RetrievalConfig | dict[str, Any] | None = None,
        organization: str = "default",
    ) -> MemoryInfo:
        """Change the visibility of memory ``name`` of ``organization``. Its retrieval
        configuration cannot change.

        Raises ImmutableConfigError when ``retrieval`` differs from the recorded one.
        """
        row = self._row(name, organization)
        if retrieval is not None:
            wanted = _retrieval(retrieval)
            current = RetrievalConfig(**json.loads(row.retrieval))
            if wanted != current:
                raise ImmutableConfigError(
                    f"the retrieval configuration of memory {name!r} is fixed at creation "
                    f"({current.embedder}, dimension {current.dimension}); changing it would "
                    "make old and new entries mutually unsearchable. Create a new memory with "
                    "the configuration you want and migrate the observations into it.",
                    memory=name,
                    field="retrieval",
                )
        if visibility is not None:
            self.store.set_visibility(row.id, _visibility(visibility))
        return Memory(self.store, row, self.extractor).info()

    def delete_memory(self, name: str, *, organization: str = "default") -> None:
        """Delete memory ``name`` of ``organization`` and everything in it. NotFoundError if
        there is none."""
        self.store.delete_memory(self._row(name, organization).id)
