"""Connections a slow or greedy client cannot hold open: bounds uvicorn does not set.

uvicorn closes an idle keep-alive connection, but a client that sends a request's headers one
byte at a time, or its body a few bytes a minute, holds its connection (and a file
descriptor) for as long as it likes; a few hundred such clients exhaust a process's file
limit. The HTTP protocol here is uvicorn's h11 protocol with three bounds added:

- a request's head (request line and headers) must arrive within ``head_seconds`` of its
  first byte, or of the connection's opening; else the server answers 408 and closes;
- its body must arrive within ``body_seconds`` of the head; else the connection is closed
  (the handler waiting for it sees the client gone and writes nothing);
- one client address holds at most ``per_client`` connections; a connection beyond that is
  answered 503 and closed at once.

The time the application takes to answer is not bounded here (``request_timeout_seconds``
does that). Behind a reverse proxy every connection comes from the proxy's address: raise
``per_client`` there and let the proxy bound clients (the README says what to set).
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

if TYPE_CHECKING:
    from turngraph.server.settings import ServerSettings


@dataclass(frozen=True)
class ConnectionLimits:
    head_seconds: float = 10.0
    body_seconds: float = 60.0
    per_client: int = 100


def _plain(status: int, reason: str, text: str) -> bytes:
    body = ('{"message": "' + text + '"}').encode()
    return (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    ).encode() + body


class _BoundedH11(H11Protocol):
    limits: ClassVar[ConnectionLimits]
    open_per_client: ClassVar[Counter[str]]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._peer: str | None = None
        self._refused = False
        self._phase = "head"  # head: awaiting a request's head; body; app: with the app
        self._timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        peer = transport.get_extra_info("peername")
        self._peer = str(peer[0]) if isinstance(peer, tuple) and peer else None
        if self._peer is not None:
            if self.open_per_client[self._peer] >= self.limits.per_client:
                self._refused = True
                transport.write(
                    _plain(
                        503,
                        "Service Unavailable",
                        f"too many connections from this address "
                        f"(at most {self.limits.per_client})",
                    )
                )
                transport.close()
                return
            self.open_per_client[self._peer] += 1
        super().connection_made(transport)
        self._arm(self.limits.head_seconds)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._refused:
            return
        self._disarm()
        if self._peer is not None:
            self.open_per_client[self._peer] -= 1
            if self.open_per_client[self._peer] <= 0:
                del self.open_per_client[self._peer]
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        if self._phase == "app" and self.conn.their_state is h11.IDLE:
            self._phase = "head"  # the next request on a kept-alive connection begins
            self._arm(self.limits.head_seconds)
        super().data_received(data)
        state = self.conn.their_state
        if state is h11.SEND_BODY and self._phase == "head":
            self._phase = "body"
            self._arm(self.limits.body_seconds)
        elif state in (h11.DONE, h11.MUST_CLOSE, h11.CLOSED, h11.ERROR):
            self._phase = "app"
            self._disarm()

    def _arm(self, seconds: float) -> None:
        self._disarm()
        self._timer = self.loop.call_later(seconds, self._expired)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _expired(self) -> None:
        self._timer = None
        if self.transport.is_closing():
            return
        if self._phase == "head":
            self.transport.write(
                _plain(
                    408,
                    "Request Timeout",
                    f"the request's headers did not arrive within {self.limits.head_seconds:g} s",
                )
            )
            self.transport.close()
        elif self._phase == "body":
            self.transport.close()


def bounded_protocol(limits: ConnectionLimits) -> type[H11Protocol]:
    """uvicorn's h11 protocol with ``limits`` (pass as ``uvicorn.Config(http=...)``); each
    class counts its own connections, so make one per server."""
    return type(
        "BoundedH11Protocol",
        (_BoundedH11,),
        {"limits": limits, "open_per_client": Counter()},
    )


def uvicorn_config(app: Any, settings: ServerSettings, **options: Any) -> uvicorn.Config:
    """How turngraph runs under uvicorn: its HTTP protocol bounded by ``settings``."""
    limits = ConnectionLimits(
        head_seconds=settings.head_timeout_seconds,
        body_seconds=settings.body_timeout_seconds,
        per_client=settings.connections_per_client,
    )
    return uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        http=bounded_protocol(limits),
        log_level="warning",
        **options,
    )
