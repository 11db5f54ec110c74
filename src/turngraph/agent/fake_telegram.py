"""A local stand-in for the Telegram Bot API, over real HTTP (``/bot<token>/<method>``): what
``make telegram-demo`` talks to, and what the Telegram adapter's tests drive.

It records every call, answers sendMessage with increasing message ids (or with a queued
failure), sendChatAction with true, and getUpdates from a queue of updates.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class FakeTelegram:
    token: str = "123:TEST"
    base_url: str = ""
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    updates: list[dict[str, Any]] = field(default_factory=list)
    # Answers for the next sendMessage calls, in order: (status, body); then the default.
    send_answers: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    next_id: int = 40

    def sent(self) -> list[dict[str, Any]]:
        return [params for method, params in self.calls if method == "sendMessage"]


@contextmanager
def fake_telegram() -> Iterator[FakeTelegram]:
    state = FakeTelegram()
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            params = json.loads(self.rfile.read(length) or b"{}")
            prefix = f"/bot{state.token}/"
            if not self.path.startswith(prefix):
                self._answer(404, {"ok": False, "error_code": 404, "description": "Not Found"})
                return
            method = self.path[len(prefix) :]
            with lock:
                state.calls.append((method, params))
                if method == "sendMessage":
                    if state.send_answers:
                        status, body = state.send_answers.pop(0)
                    else:
                        state.next_id += 1
                        status, body = (
                            200,
                            {
                                "ok": True,
                                "result": {
                                    "message_id": state.next_id,
                                    "chat": {"id": params["chat_id"]},
                                    "text": params["text"],
                                },
                            },
                        )
                elif method == "sendChatAction":
                    status, body = 200, {"ok": True, "result": True}
                elif method == "getUpdates":
                    offset = params.get("offset") or 0
                    pending = [u for u in state.updates if u["update_id"] >= offset]
                    status, body = 200, {"ok": True, "result": pending}
                else:
                    status, body = 404, {"ok": False, "error_code": 404, "description": "Not Found"}
            self._answer(status, body)

        def _answer(self, status: int, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.base_url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
