"""Embedding servers the user runs: Ollama, or anything speaking OpenAI's /v1/embeddings.

Only the standard library's HTTP client is used, and only to the URL the user put in the
config: nothing leaves the machine unless they chose a remote server. We cannot run the
server's tokenizer, so long texts are cut by characters with a margin for the window.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from findsession.embeddings.base import EmbeddingUnavailable, Role, char_spans, normalize
from findsession.remote_json import post_json

#: Characters per chunk for each token of the model's window: English averages about 4
#: per token; 3 leaves room for code and other languages.
CHARS_PER_TOKEN = 3
BATCH = 32
TIMEOUT_S = 120


class _HttpEmbedder:
    kind = ""

    def __init__(
        self,
        url: str,
        model: str,
        context: int,
        query_prefix: str = "",
        document_prefix: str = "",
        api_key: str | None = None,
        min_cosine: float = 0.0,
    ) -> None:
        self.min_cosine = min_cosine
        self.cosine_margin = 0.35
        self.url = url.rstrip("/")
        self.model = model
        self.context = context
        self.query_prefix = query_prefix
        self.document_prefix = document_prefix
        self.api_key = api_key
        probe = self._request(["dimension probe"])
        self.dims = int(probe.shape[1])
        self.identity = (
            f"{self.kind}:{model}:{self.dims}d:{context}t:{query_prefix!r}:{document_prefix!r}"
        )

    def spans(self, text: str) -> list[tuple[int, int]]:
        window = max(200, (self.context - 16) * CHARS_PER_TOKEN)
        return char_spans(text, window, overlap=window // 8)

    def embed(self, texts: list[str], role: Role) -> np.ndarray:
        prefix = self.query_prefix if role == "query" else self.document_prefix
        parts = [
            self._request([prefix + t for t in texts[i : i + BATCH]])
            for i in range(0, len(texts), BATCH)
        ]
        return normalize(np.concatenate(parts)) if parts else np.zeros((0, self.dims), "f4")

    def _request(self, texts: list[str]) -> np.ndarray:
        raise NotImplementedError

    def _post(self, endpoint: str, body: dict[str, Any]) -> Any:
        return post_json(
            endpoint, body, api_key=self.api_key, timeout=TIMEOUT_S, error=EmbeddingUnavailable
        )


class OllamaEmbedder(_HttpEmbedder):
    """Ollama's /api/embed, with the context length set on every request.

    Ollama's default context is 2,048 tokens and it truncates longer input without a
    word, so the window is always sent explicitly and texts are cut to fit it.
    """

    kind = "ollama"

    def _request(self, texts: list[str]) -> np.ndarray:
        answer = self._post(
            f"{self.url}/api/embed",
            {
                "model": self.model,
                "input": texts,
                "truncate": True,
                "options": {"num_ctx": self.context},
            },
        )
        try:
            return np.asarray(answer["embeddings"], dtype=np.float32).reshape(len(texts), -1)
        except (KeyError, TypeError, ValueError) as exc:
            raise EmbeddingUnavailable(f"unexpected answer from Ollama: {exc}") from exc


class OpenAIEmbedder(_HttpEmbedder):
    """An OpenAI-compatible /v1/embeddings endpoint (llama.cpp, vLLM, LM Studio, ...)."""

    kind = "openai"

    def _request(self, texts: list[str]) -> np.ndarray:
        base = self.url if self.url.endswith("/v1") else f"{self.url}/v1"
        answer = self._post(f"{base}/embeddings", {"model": self.model, "input": texts})
        try:
            rows = sorted(answer["data"], key=lambda d: d["index"])
            return np.asarray([r["embedding"] for r in rows], dtype=np.float32).reshape(
                len(texts), -1
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise EmbeddingUnavailable(f"unexpected answer from {base}: {exc}") from exc


def api_key_from(env_name: str | None) -> str | None:
    return os.environ.get(env_name) if env_name else None
