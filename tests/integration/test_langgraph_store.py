"""turngraph as LangGraph's long-term memory: TurngraphStore against the real ``langgraph``
package, through its BaseStore API (sync and async) and inside a compiled graph whose node
reads and writes the store. No model is called."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypedDict

import pytest

import turngraph

pytest.importorskip("langgraph")  # the langgraph extra; `make test` installs it

from langgraph.graph import END, START, StateGraph
from langgraph.store.base import BaseStore, GetOp, ListNamespacesOp, PutOp, SearchOp

from turngraph.integrations.langgraph import TurngraphStore

DANA = ("users", "dana", "memories")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[TurngraphStore]:
    with turngraph.open(tmp_path / "lg.db") as db:
        yield TurngraphStore(db.create_memory("agent"))  # the default embedder: real search


def test_items_round_trip_and_keep_their_times(store: TurngraphStore) -> None:
    assert isinstance(store, BaseStore)
    store.put(DANA, "home", {"text": "Dana lives in Leeds.", "kind": "fact"})
    first = store.get(DANA, "home")
    assert first is not None
    assert (first.namespace, first.key, first.value) == (
        DANA,
        "home",
        {"text": "Dana lives in Leeds.", "kind": "fact"},
    )
    time.sleep(0.01)
    store.put(DANA, "home", {"text": "Dana moved to York.", "kind": "fact"})
    second = store.get(DANA, "home")
    assert second is not None
    assert second.value["text"] == "Dana moved to York."
    assert second.created_at == first.created_at
    assert second.updated_at > first.updated_at
    # Keys and namespace parts of any characters stay apart.
    store.put(("a/b", "c d"), "../k?", {"v": 1})
    store.put(("a", "b"), "k", {"v": 2})
    got = store.get(("a/b", "c d"), "../k?")
    assert got is not None
    assert got.value == {"v": 1}
    store.delete(DANA, "home")
    assert store.get(DANA, "home") is None
    assert store.get(DANA, "never") is None
    store.delete(DANA, "never")  # deleting nothing is no error


def test_search_by_prefix_filter_and_query(store: TurngraphStore) -> None:
    store.put(DANA, "dog", {"text": "Dana's dog is a beagle called Pixel.", "kind": "pet", "n": 3})
    store.put(DANA, "job", {"text": "Dana works as a nurse at St Mary's.", "kind": "work", "n": 5})
    store.put(DANA, "diet", {"text": "Dana eats no meat.", "kind": "food", "n": 1})
    store.put(("users", "sam"), "dog", {"text": "Sam has no pets.", "kind": "pet", "n": 9})
    store.put(DANA, "secret", {"text": "The dog's vet is Dr Ruiz."}, index=False)
    assert {i.key for i in store.search(("users", "dana"))} == {"dog", "job", "diet", "secret"}
    assert [i.key for i in store.search(("users",), filter={"kind": "pet"})] == ["dog", "dog"]
    assert [i.key for i in store.search(DANA, filter={"n": {"$gte": 3, "$lt": 9}})] == [
        "dog",
        "job",
    ]
    found = store.search(("users", "dana"), query="what is the name of her dog?", limit=2)
    assert found[0].key == "dog"
    assert found[0].score is not None
    assert "secret" not in [i.key for i in found]  # index=False: found by key, not by query
    by_field = ("users", "dana", "notes")
    store.put(by_field, "n1", {"title": "Knitting club", "body": "x" * 10}, index=["title"])
    assert store.search(by_field, query="knitting")[0].key == "n1"
    page = store.search(("users",), limit=2, offset=1)
    assert len(page) == 2
    with pytest.raises(ValueError, match="unknown filter operator"):
        store.search(DANA, filter={"n": {"$near": 1}})


def test_namespaces_are_listed_by_prefix_suffix_and_depth(store: TurngraphStore) -> None:
    for ns in (DANA, ("users", "sam", "memories"), ("users", "sam", "todos"), ("docs",)):
        store.put(ns, "k", {"v": 1})
    assert store.list_namespaces() == [
        ("docs",),
        ("users", "dana", "memories"),
        ("users", "sam", "memories"),
        ("users", "sam", "todos"),
    ]
    assert store.list_namespaces(prefix=("users", "sam")) == [
        ("users", "sam", "memories"),
        ("users", "sam", "todos"),
    ]
    assert store.list_namespaces(suffix=("memories",)) == [DANA, ("users", "sam", "memories")]
    assert store.list_namespaces(prefix=("users", "*", "todos")) == [("users", "sam", "todos")]
    assert store.list_namespaces(max_depth=2) == [("docs",), ("users", "dana"), ("users", "sam")]
    assert store.list_namespaces(limit=1, offset=1) == [("users", "dana", "memories")]


def test_batches_and_the_async_api(store: TurngraphStore) -> None:
    results = store.batch(
        [
            PutOp(DANA, "a", {"text": "alpha"}),
            PutOp(DANA, "b", {"text": "beta"}),
            GetOp(DANA, "a"),
            SearchOp(("users",), filter={"text": "beta"}),
            ListNamespacesOp(match_conditions=None, max_depth=None, limit=10, offset=0),
            PutOp(DANA, "a", None),
            GetOp(DANA, "a"),
        ]
    )
    assert results[0] is None
    assert results[2].value == {"text": "alpha"}  # type: ignore[union-attr]
    assert [i.key for i in results[3]] == ["b"]  # type: ignore[union-attr]
    assert results[4] == [DANA]
    assert results[6] is None

    async def run() -> None:
        await store.aput(DANA, "c", {"text": "gamma"})
        item = await store.aget(DANA, "c")
        assert item is not None
        assert item.value == {"text": "gamma"}
        assert [i.key for i in await store.asearch(DANA)] == ["b", "c"]
        assert await store.alist_namespaces() == [DANA]
        await store.adelete(DANA, "c")
        assert await store.aget(DANA, "c") is None

    asyncio.run(run())


class _State(TypedDict):
    user: str
    said: str
    known: list[str]


def test_a_compiled_graph_keeps_its_memories_in_turngraph(store: TurngraphStore) -> None:
    """A LangGraph node writes and reads long-term memory through the store it was compiled
    with, across two runs."""

    def remember(state: _State, *, store: BaseStore) -> dict[str, Any]:
        namespace = ("users", state["user"], "memories")
        count = len(store.search(namespace))
        store.put(namespace, f"m{count}", {"text": state["said"]})
        return {"known": [i.value["text"] for i in store.search(namespace, limit=10)]}

    graph = StateGraph(_State)
    graph.add_node("remember", remember)
    graph.add_edge(START, "remember")
    graph.add_edge("remember", END)
    app = graph.compile(store=store)
    app.invoke({"user": "dana", "said": "I live in Leeds.", "known": []})
    out = app.invoke({"user": "dana", "said": "My dog is Pixel.", "known": []})
    assert out["known"] == ["I live in Leeds.", "My dog is Pixel."]
    assert store.memory.info().observations == 2


def test_the_example_runs(tmp_path: Path) -> None:
    import subprocess
    import sys

    example = Path(__file__).resolve().parents[2] / "examples" / "langgraph_store.py"
    done = subprocess.run(
        [sys.executable, str(example), str(tmp_path / "example.db")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "search 'what is her dog's name?': My dog is called Pixel." in done.stdout


def test_search_stays_in_its_namespace_and_put_survives_a_deleted_observation(
    store: TurngraphStore,
) -> None:
    for i in range(30):  # many other users talk about pizza
        for j in range(3):
            store.put(("memories", f"user{i}"), f"k{j}", {"text": f"user{i} likes pizza {j}"})
    store.put(("memories", "zed"), "garden", {"text": "zed grows tomatoes"})
    store.put(("memories", "zed"), "food", {"text": "zed likes pizza with olives"})
    found = store.search(("memories", "zed"), query="pizza")
    assert found[0].key == "food"
    assert found[0].score is not None
    # An item whose observation was removed by other means can still be updated.
    item = store._record("langgraph/memories/zed/food.json")
    assert item is not None
    store.memory.delete_observation(item["slug"])
    store.put(("memories", "zed"), "food", {"text": "zed likes pizza with capers"})
    again = store.search(("memories", "zed"), query="capers")
    assert again[0].key == "food"


def test_a_react_agent_with_langmems_tools_keeps_its_memories_here(store: TurngraphStore) -> None:
    """``create_react_agent(..., store=TurngraphStore(...))`` with LangMem's memory tools:
    a scripted chat model (no model is called) saves a memory, then finds it."""
    langmem = pytest.importorskip("langmem")
    import warnings

    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage

    class Scripted(GenericFakeChatModel):
        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
            return self

    replies = iter(
        [
            AIMessage(
                content="",
                tool_calls=[
                    {
                        "name": "manage_memory",
                        "args": {"content": "Dana's dog is called Pixel", "action": "create"},
                        "id": "c1",
                    }
                ],
            ),
            AIMessage(content="Saved."),
            AIMessage(
                content="",
                tool_calls=[{"name": "search_memory", "args": {"query": "dog"}, "id": "c2"}],
            ),
            AIMessage(content="Your dog is Pixel."),
        ]
    )
    namespace = ("memories", "dana")
    tools = [
        langmem.create_manage_memory_tool(namespace=namespace),
        langmem.create_search_memory_tool(namespace=namespace),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # moved to langchain.agents in v1
        from langgraph.prebuilt import create_react_agent

        agent = create_react_agent(Scripted(messages=replies), tools=tools, store=store)
    agent.invoke({"messages": [{"role": "user", "content": "Remember my dog is Pixel."}]})
    saved = store.search(namespace)
    assert [i.value for i in saved] == [{"content": "Dana's dog is called Pixel"}]
    out = agent.invoke({"messages": [{"role": "user", "content": "What's my dog called?"}]})
    found = out["messages"][-2].content  # the search tool's answer, read from turngraph
    assert "Pixel" in found
    assert store.memory.info().observations == 1
