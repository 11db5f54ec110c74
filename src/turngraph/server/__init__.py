"""The HTTP server: the memory API, the graph API and admin routes over one core.

``create_app`` and ``ServerSettings`` load on first use: the MCP face shares
``server/common.py``'s error mapping, and importing it must not load the app, whose offline
API docs come with the ``server`` extra only (``turngraph[mcp]`` brings FastAPI, not them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from turngraph.server.app import create_app
    from turngraph.server.settings import ServerSettings

__all__ = ["ServerSettings", "create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from turngraph.server.app import create_app

        return create_app
    if name == "ServerSettings":
        from turngraph.server.settings import ServerSettings

        return ServerSettings
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
