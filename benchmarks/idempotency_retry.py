"""Retries with one Idempotency-Key after a timeout: how many copies of the write are stored.

Each trial sends one turn to the memory API of a real server (uvicorn on 127.0.0.1) whose
extractor is a language model behind a local chat-completions endpoint that answers after
``--delay`` seconds, so the request times out (``--timeout``) while its worker goes on. The
client then retries with the same key every ``--every`` seconds until it gets an answer that
is not 409 or 503, and the turns holding the trial's text are counted.

    python benchmarks/idempotency_retry.py --trials 12
"""

from __future__ import annotations

import argparse
import json
import socket
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import uvicorn

import turngraph
from turngraph.server import ServerSettings, create_app

EXTRACTION = {
    "entities": [],
    "attributes": [],
    "relations": [],
    "actions": [],
    "instructions": [],
    "uncertainties": [],
}


def slow_endpoint(delay: float) -> ThreadingHTTPServer:
    """A chat-completions endpoint that answers an empty extraction after ``delay`` s."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            time.sleep(delay)
            message = {"role": "assistant", "content": json.dumps(EXTRACTION)}
            body = json.dumps(
                {
                    "id": "c",
                    "object": "chat.completion",
                    "created": 0,
                    "model": "m",
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
    return server


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=12)
    parser.add_argument("--timeout", type=float, default=0.3, help="request timeout (s)")
    parser.add_argument("--delay", type=float, default=1.5, help="extraction time (s)")
    parser.add_argument("--every", type=float, default=0.2, help="retry interval (s)")
    args = parser.parse_args()

    endpoint = slow_endpoint(args.delay)
    path = Path(tempfile.mkdtemp()) / "retry.db"
    with turngraph.open(path) as db:
        db.access.create_principal("admin", admin=True)
        _, key = db.access.create_key("admin")
        db.create_memory("m", retrieval={"embedder": "none"})
    port = free_port()
    settings = ServerSettings(
        db=str(path),
        port=port,
        request_timeout_seconds=args.timeout,
        extractor="llm",
        llm_base_url=f"http://127.0.0.1:{endpoint.server_address[1]}/v1",
        llm_model="m",
    )
    server = uvicorn.Server(
        uvicorn.Config(create_app(settings), host="127.0.0.1", port=port, log_level="critical")
    )
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.02)

    copies: list[int] = []
    url = f"http://127.0.0.1:{port}/api/v1/m"
    with httpx.Client(timeout=60) as http:
        for trial in range(args.trials):
            headers = {"Authorization": f"Bearer {key}", "Idempotency-Key": f"trial-{trial}"}
            session = http.post(f"{url}/sessions", headers=headers).json()["id"]
            body = {"text": f"Trial number {trial}.", "session_id": session}
            statuses = []
            while True:
                status = http.post(f"{url}/facts", headers=headers, json=body).status_code
                statuses.append(status)
                if status not in (409, 503):
                    break
                time.sleep(args.every)
            time.sleep(args.delay + 0.5)  # let any other worker still running land
            turns = http.get(f"{url}/sessions/{session}/turns", headers=headers).json()["turns"]
            copies.append(len(turns))
            print(f"trial {trial}: {len(turns)} stored; answers {statuses}")
    server.should_exit = True
    endpoint.shutdown()
    twice = sum(1 for c in copies if c > 1)
    print(
        f"\n{args.trials} trials (timeout {args.timeout:g} s, extraction {args.delay:g} s, retry "
        f"every {args.every:g} s): {twice} stored more than once, at most {max(copies)} copies"
    )


if __name__ == "__main__":
    main()
