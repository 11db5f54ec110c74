"""First start of a server: an admin key, a default memory, and how to use them."""

from __future__ import annotations

from turngraph.core.database import Database
from turngraph.errors import ConflictError, NotFoundError
from turngraph.server.settings import ServerSettings

DEFAULT_MEMORY = "default"


def first_start(db: Database, settings: ServerSettings) -> str | None:
    """On an empty database: create the ``admin`` principal with a key (the operator's
    ``TURNGRAPH_ADMIN_KEY`` if set) and a ``default`` memory. Returns the new key, or None
    when the database already had principals (or another server, starting at the same
    moment, made them first)."""
    access = db.access
    if not access.is_empty():
        return None
    try:
        access.create_principal("admin", kind="human", admin=True)
    except ConflictError:
        return None  # another server starting on the same database made it first
    _, key = access.create_key("admin", name="first-start", secret=settings.admin_key)
    try:
        db.memory(DEFAULT_MEMORY)
    except NotFoundError:
        db.create_memory(DEFAULT_MEMORY)
    return key


def banner(key: str, settings: ServerSettings) -> str:
    """The one-time message with the admin key and a copy-paste example."""
    url = f"http://{settings.host}:{settings.port}"
    shown = "(the key in TURNGRAPH_ADMIN_KEY)" if settings.admin_key else key
    export = '"$TURNGRAPH_ADMIN_KEY"' if settings.admin_key else f"'{key}'"
    return f"""
turngraph: first start. Admin key (shown once; store it now):

    {shown}

Try it (as the speaker "Sam", in a session of its own):

    export TURNGRAPH_KEY={export}
    curl -sS {url}/api/v1/{DEFAULT_MEMORY}/facts -H "Authorization: Bearer $TURNGRAPH_KEY" \\
         -H "Content-Type: application/json" \\
         -d '{{"text": "I work at Acme as CTO.", "speaker": "Sam"}}'
    curl -sS {url}/api/v1/{DEFAULT_MEMORY}/query -H "Authorization: Bearer $TURNGRAPH_KEY" \\
         -H "Content-Type: application/json" \\
         -d '{{"query": "Where does Sam work?"}}'

API docs: {url}/docs
Inspector (sign in with the key): {url}/ui/
"""
