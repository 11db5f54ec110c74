"""Server settings: flags over ``TURNGRAPH_*`` environment variables over defaults."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from turngraph.config import Settings
from turngraph.errors import ValidationError

_CORE = Settings()  # the core's defaults


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """Everything ``turngraph serve`` reads. Each field is also ``TURNGRAPH_<FIELD>``."""

    host: str = "127.0.0.1"
    port: int = 8765
    db: str = "./turngraph.db"
    # Requests larger than this are refused with 413 before they are read in full.
    max_body_bytes: int = 12 * 1024 * 1024
    # A request still running after this long is answered with 503 (the work it started
    # finishes or rolls back on its own; writes are atomic).
    request_timeout_seconds: float = 30.0
    # A slow client's bounds (server/connections.py): a request's headers must arrive within
    # this many seconds of its first byte, its body within body_timeout_seconds after them,
    # and one address holds at most connections_per_client connections (503 beyond).
    head_timeout_seconds: float = 10.0
    body_timeout_seconds: float = 60.0
    connections_per_client: int = 100
    # The admin key adopted on first start with an empty database (else one is generated).
    admin_key: str | None = field(default=None, repr=False)
    # Core settings passed to the database.
    extractor: str = "rules"
    llm_base_url: str | None = None
    llm_model: str | None = None
    llm_api_key: str | None = field(default=None, repr=False)
    embeddings_base_url: str | None = None
    embeddings_api_key: str | None = field(default=None, repr=False)
    # The longest reading one turn may take: the rules (in their worker processes) and a
    # language-model endpoint. Past it the turn is stored without extracted facts and the
    # answer is 502 naming the turn.
    extraction_timeout_seconds: float = _CORE.extraction_timeout_seconds
    llm_timeout_seconds: float = _CORE.llm_timeout_seconds
    # On PostgreSQL: the most connections this server holds (size the database's
    # max_connections for servers x this), and how long a request waits for a free one.
    postgres_pool_size: int = _CORE.postgres_pool_size
    postgres_pool_timeout_seconds: float = _CORE.postgres_pool_timeout_seconds

    def __post_init__(self) -> None:
        for name in (
            "head_timeout_seconds",
            "body_timeout_seconds",
            "extraction_timeout_seconds",
            "llm_timeout_seconds",
        ):
            if not 0 < getattr(self, name) < math.inf:
                raise ValidationError(
                    f"TURNGRAPH_{name.upper()} must be a number of seconds above 0, got "
                    f"{getattr(self, name)}",
                    field=name,
                )
        if self.connections_per_client < 1:
            raise ValidationError(
                "TURNGRAPH_CONNECTIONS_PER_CLIENT must be at least 1, got "
                f"{self.connections_per_client}",
                field="connections_per_client",
            )
        if self.postgres_pool_size < 1:
            raise ValidationError(
                f"TURNGRAPH_POSTGRES_POOL_SIZE must be at least 1, got {self.postgres_pool_size}",
                field="postgres_pool_size",
            )
        if not 0 < self.postgres_pool_timeout_seconds < math.inf:
            raise ValidationError(
                "TURNGRAPH_POSTGRES_POOL_TIMEOUT_SECONDS must be a number of seconds above 0, got "
                f"{self.postgres_pool_timeout_seconds}",
                field="postgres_pool_timeout_seconds",
            )

    @classmethod
    def load(cls, environ: Mapping[str, str] | None = None, **flags: Any) -> ServerSettings:
        """Defaults, then ``TURNGRAPH_*`` variables, then ``flags`` that are not None."""
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for f in fields(cls):
            raw = env.get(f"TURNGRAPH_{f.name.upper()}")
            if raw is not None and raw != "":
                values[f.name] = _convert(f.name, raw, f.type)
        values.update({k: v for k, v in flags.items() if v is not None})
        return cls(**values)

    def core(self) -> Settings:
        return Settings(
            extractor=self.extractor,
            llm_base_url=self.llm_base_url,
            llm_model=self.llm_model,
            llm_api_key=self.llm_api_key,
            embeddings_base_url=self.embeddings_base_url,
            embeddings_api_key=self.embeddings_api_key,
            extraction_timeout_seconds=self.extraction_timeout_seconds,
            llm_timeout_seconds=self.llm_timeout_seconds,
            postgres_pool_size=self.postgres_pool_size,
            postgres_pool_timeout_seconds=self.postgres_pool_timeout_seconds,
            index_in_background=True,
            extraction_workers=2,
        )


def _convert(name: str, raw: str, kind: object) -> Any:
    text = str(kind)
    try:
        if text.startswith("int"):
            return int(raw)
        if text.startswith("float"):
            return float(raw)
    except ValueError:
        raise ValidationError(
            f"TURNGRAPH_{name.upper()} must be a number, got {raw!r}", field=name
        ) from None
    return raw
