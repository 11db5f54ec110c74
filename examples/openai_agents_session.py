"""An OpenAI Agents SDK agent whose conversation is kept in turngraph.

    pip install 'turngraph[openai-agents]'
    python examples/openai_agents_session.py [DB] [--base-url URL --model NAME]

With ``--base-url`` (and OPENAI_API_KEY) the agent talks to that chat-completions endpoint.
Without it, the example starts a small local stand-in that answers from a script, so it runs
offline. Either way the second question is answered from the session turngraph kept.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from agents import Agent, OpenAIChatCompletionsModel, Runner, set_tracing_disabled
from openai import AsyncOpenAI

import turngraph
from turngraph.integrations.openai_agents import TurngraphSession, recall_tool

SCRIPT = ["Nice to meet you, Dana!", "You live in Leeds."]


@contextmanager
def stand_in() -> Iterator[str]:
    """A local chat-completions endpoint answering SCRIPT in order (the last after that)."""
    answers = iter(SCRIPT)
    last = SCRIPT[-1]

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            nonlocal last
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            last = next(answers, last)
            message: dict[str, Any] = {"role": "assistant", "content": last}
            body = json.dumps(
                {
                    "id": "stand-in",
                    "object": "chat.completion",
                    "created": 0,
                    "model": "stand-in",
                    "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
                }
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("db", nargs="?", help="the turngraph database (default: a temporary one)")
    parser.add_argument("--base-url", help="a chat-completions endpoint (default: a stand-in)")
    parser.add_argument("--model", default="gpt-4o-mini")
    args = parser.parse_args()
    set_tracing_disabled(True)
    db_path = Path(args.db) if args.db else Path(tempfile.mkdtemp()) / "agents.db"
    with (
        turngraph.open(db_path) as db,
        stand_in() if args.base_url is None else _given(args.base_url) as base_url,
    ):
        mem = db.memory("agent", create=True)
        client = AsyncOpenAI(base_url=base_url, api_key=os.environ.get("OPENAI_API_KEY", "none"))
        agent = Agent(
            name="helper",
            instructions="You are a helpful assistant. Ask your memory when you need to.",
            model=OpenAIChatCompletionsModel(model=args.model, openai_client=client),
            tools=[recall_tool(mem)],
        )
        session = TurngraphSession("dana", mem)
        first = Runner.run_sync(agent, "Hi, I'm Dana and I live in Leeds.", session=session)
        print("first answer:", first.final_output)
        second = Runner.run_sync(agent, "Where do I live?", session=session)
        print("second answer:", second.final_output)
        print("turns kept:", len(mem.list_turns(session.turngraph_session).turns))


@contextmanager
def _given(url: str) -> Iterator[str]:
    yield url


if __name__ == "__main__":
    main()
