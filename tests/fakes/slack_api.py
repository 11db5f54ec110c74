"""A local stand-in for Slack's Web API ``chat.postMessage``, over real HTTP."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class FakeSlack:
    base_url: str = ""
    posts: list[dict[str, Any]] = field(default_factory=list)
    auth: list[str] = field(default_factory=list)
    # Answers for the next posts, in order: (status, body, headers); then the default.
    answers: list[tuple[int, dict[str, Any], dict[str, str]]] = field(default_factory=list)
    clock: int = 1000


@contextmanager
def fake_slack() -> Iterator[FakeSlack]:
    state = FakeSlack()
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            with lock:
                state.auth.append(self.headers.get("Authorization", ""))
                if self.path != "/api/chat.postMessage":
                    status, answer, headers = 404, {"ok": False, "error": "unknown_method"}, {}
                elif state.answers:
                    status, answer, headers = state.answers.pop(0)
                else:
                    state.posts.append(body)
                    state.clock += 1
                    ts = f"{state.clock}.000100"
                    status, headers = 200, {}
                    answer = {
                        "ok": True,
                        "channel": body["channel"],
                        "ts": ts,
                        "message": {"text": body["text"], "ts": ts},
                    }
            data = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.base_url = f"http://127.0.0.1:{server.server_address[1]}/api"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
