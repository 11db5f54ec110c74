"""The core: ``Database`` and ``Memory``, the write path, the read path and the rules of the
graph. It speaks to storage only through ``turngraph.store.base`` and knows nothing of the
faces (server, MCP, CLI, client, agent kit) that call it."""
