"""The HTTP server: the memory API, the graph API and admin routes over one core."""

from turngraph.server.app import create_app
from turngraph.server.settings import ServerSettings

__all__ = ["ServerSettings", "create_app"]
