"""A local stand-in for an OpenAI-compatible chat-completions endpoint, over real HTTP.

It records each request and answers with whatever the test queued: a JSON body (wrapped as a
chat completion), a raw string, or an error status.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    status: int = 200
    content: str | None = None  # the assistant message text
    raw: str | None = None  # the whole response body, as is


@dataclass
class FakeOpenAI:
    base_url: str = ""
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    replies: list[Reply] = field(default_factory=list)
    # When set, answers every request from its JSON body (queued replies are not used).
    handler: Callable[[str, dict[str, Any]], dict[str, Any]] | None = None

    def reply_json(self, payload: dict[str, Any]) -> None:
        self.replies.append(Reply(content=json.dumps(payload)))


def _completion(content: str) -> str:
    return json.dumps(
        {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": 0,
            "model": "fake",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": content, "refusal": None},
                }
            ],
        }
    )


@contextmanager
def fake_openai() -> Iterator[FakeOpenAI]:
    state = FakeOpenAI()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            state.requests.append({"path": self.path, "body": body})
            state.headers.append(dict(self.headers))
            if state.handler is not None:
                reply = Reply(raw=json.dumps(state.handler(self.path, body)))
            else:
                reply = state.replies.pop(0) if state.replies else Reply(status=500, raw="no reply")
            data = reply.raw if reply.raw is not None else _completion(reply.content or "")
            encoded = data.encode()
            self.send_response(reply.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(encoded)))
            self.end_headers()
            # A client that gave up waiting (a timeout under test) has nothing to be told.
            with contextlib.suppress(ConnectionError):
                self.wfile.write(encoded)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)
