"""Integrations with agent frameworks, each behind its own extra: ``langgraph`` (a LangGraph
store over a turngraph memory) and ``openai_agents`` (an Agents SDK session and recall
tool)."""
