"""A stand-in for an Ollama or OpenAI-compatible chat server, over a real socket.

It speaks the real wire protocols: Ollama's `POST /api/chat` (answering, without
streaming, one object with `message.content` and `done`) and OpenAI's
`POST /v1/chat/completions` (`choices[0].message.content`), and refuses as they do: a
model it does not serve is a 404 with Ollama's `{"error": ...}` body, a request without
messages a 400. What it answers is `reply(messages)`, set by each test; every request is
recorded so tests can check what was sent (and what was not).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Messages = list[dict[str, str]]


class ChatServer:
    """Serves until `close()`; `url` is its base address, `requests` what it received."""

    def __init__(self, model: str = "qwen2.5:3b") -> None:
        self.model = model
        self.requests: list[tuple[str, dict[str, Any], dict[str, str]]] = []
        self.reply: Callable[[Messages], str] = lambda messages: (
            "TITLE: syncthing-conflict-fix\n"
            "SUMMARY: Merge a Syncthing conflict copy of the todo list."
        )
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                owner.requests.append((self.path, body, dict(self.headers)))
                if self.path not in ("/api/chat", "/v1/chat/completions"):
                    self._send(404, {"error": "404 page not found"})
                elif body.get("model") != owner.model:
                    model = body.get("model")
                    self._send(404, {"error": f'model "{model}" not found, try pulling it first'})
                elif not isinstance(body.get("messages"), list) or not body["messages"]:
                    self._send(400, {"error": "messages are required"})
                elif self.path == "/api/chat":
                    self._send(200, owner._ollama(body))
                else:
                    self._send(200, owner._openai(body))

            def _send(self, code: int, answer: dict[str, Any]) -> None:
                payload = json.dumps(answer).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def _ollama(self, body: dict[str, Any]) -> dict[str, Any]:
        return {
            "model": body["model"],
            "created_at": "2026-06-11T09:00:00.000000Z",
            "message": {"role": "assistant", "content": self.reply(body["messages"])},
            "done_reason": "stop",
            "done": True,
            "total_duration": 1_000_000,
            "prompt_eval_count": 120,
            "eval_count": 20,
        }

    def _openai(self, body: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1781168400,
            "model": body["model"],
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": self.reply(body["messages"])},
                    "logprobs": None,
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 120, "completion_tokens": 20, "total_tokens": 140},
        }

    def sent(self, path: str) -> list[dict[str, Any]]:
        """The bodies of the requests made to `path`."""
        return [body for p, body, _ in self.requests if p == path]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
