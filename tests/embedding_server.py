"""A stand-in for an Ollama or OpenAI-compatible embedding server, over a real socket.

It speaks the real wire protocols (`POST /api/embed`, `POST /v1/embeddings`) and embeds
by hashing words into 64 buckets: crude, deterministic, and enough that texts sharing
words are close. It records every request so tests can check what was sent.
"""

from __future__ import annotations

import json
import re
import threading
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DIMS = 64


def hashed_vector(text: str) -> list[float]:
    vec = [0.0] * DIMS
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        vec[zlib.crc32(word.encode()) % DIMS] += 1.0
    return vec


class EmbeddingServer:
    """Serves until `close()`; `url` is its base address, `requests` what it received."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, dict[str, Any], dict[str, str]]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                owner.requests.append((self.path, body, dict(self.headers)))
                texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
                if self.path == "/api/embed":
                    answer: dict[str, Any] = {
                        "model": body["model"],
                        "embeddings": [hashed_vector(t) for t in texts],
                    }
                elif self.path == "/v1/embeddings":
                    data = [
                        {"object": "embedding", "index": i, "embedding": hashed_vector(t)}
                        for i, t in enumerate(texts)
                    ]
                    answer = {"object": "list", "data": data[::-1], "model": body["model"]}
                else:
                    self.send_error(404)
                    return
                payload = json.dumps(answer).encode()
                self.send_response(200)
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

    def inputs(self, path: str) -> list[str]:
        return [t for p, body, _ in self.requests if p == path for t in body["input"]]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
