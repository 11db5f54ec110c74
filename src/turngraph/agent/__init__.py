"""The agent kit: the turn protocol over a memory, embedded or remote."""

from turngraph.agent.identifiers import extract_identifiers
from turngraph.agent.protocol import (
    AgentReply,
    MemoryCalls,
    OpenedTurn,
    RetrievedEntity,
    StoredMessage,
    TurnContext,
    TurnMemory,
    TurnResult,
    with_memory,
)

__all__ = [
    "AgentReply",
    "MemoryCalls",
    "OpenedTurn",
    "RetrievedEntity",
    "StoredMessage",
    "TurnContext",
    "TurnMemory",
    "TurnResult",
    "extract_identifiers",
    "with_memory",
]
