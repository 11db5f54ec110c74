"""A LangGraph graph whose long-term memory is a turngraph memory.

    pip install 'turngraph[langgraph]'
    python examples/langgraph_store.py

One node remembers what each user says and reads back what it knows about them, through the
store the graph was compiled with. No language model is called; swap the node for
``create_react_agent(model, tools, store=store)`` to give an agent the same memory.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.store.base import BaseStore

import turngraph
from turngraph.integrations.langgraph import TurngraphStore


class State(TypedDict):
    user: str
    said: str
    known: list[str]


def remember(state: State, *, store: BaseStore) -> dict[str, Any]:
    namespace = ("users", state["user"], "memories")
    store.put(namespace, f"m{len(store.search(namespace, limit=100))}", {"text": state["said"]})
    return {"known": [item.value["text"] for item in store.search(namespace, limit=100)]}


def main() -> None:
    db_path = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp()) / "lg.db"
    with turngraph.open(db_path) as db:
        store = TurngraphStore(db.memory("agent", create=True))
        graph = StateGraph(State)
        graph.add_node("remember", remember)
        graph.add_edge(START, "remember")
        graph.add_edge("remember", END)
        app = graph.compile(store=store)
        for said in ("I live in Leeds.", "My dog is called Pixel.", "I started at Acme."):
            out = app.invoke({"user": "dana", "said": said, "known": []})
        print("known about dana:", out["known"])
        best = store.search(("users", "dana"), query="what is her dog's name?", limit=1)
        print("search 'what is her dog's name?':", best[0].value["text"])


if __name__ == "__main__":
    main()
