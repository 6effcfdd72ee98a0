"""Embedding providers and the one the config file chooses.

`[embedding] provider` is `bundled` (the default: all-MiniLM-L6-v2 shipped in the
package), `onnx` (a model folder of the user's), `ollama`, `openai` (any compatible
endpoint) or `none` (keyword search only).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from findsession.embeddings.base import Embedder, EmbeddingUnavailable

PROVIDERS = ("bundled", "onnx", "ollama", "openai", "none")
_loaded: dict[str, Embedder] = {}


def build_embedder(settings: dict[str, Any]) -> Embedder:
    """The provider `settings` (the config's `[embedding]` table) describe."""
    provider = settings.get("provider", "bundled")
    prefixes = {
        "query_prefix": settings.get("query_prefix"),
        "document_prefix": settings.get("document_prefix"),
    }
    if provider == "none":
        raise EmbeddingUnavailable('the config sets [embedding] provider = "none"')
    if provider in ("bundled", "onnx"):
        from findsession.embeddings.onnx_local import OnnxEmbedder, bundled_model_dir

        if provider == "onnx" and not settings.get("path"):
            raise EmbeddingUnavailable('[embedding] provider = "onnx" needs a `path`')
        folder = Path(settings["path"]) if provider == "onnx" else bundled_model_dir()
        overrides = {
            **prefixes,
            "max_tokens": settings.get("max_tokens"),
            "min_cosine": settings.get("min_cosine"),
        }
        return OnnxEmbedder(folder, overrides)
    if provider in ("ollama", "openai"):
        from findsession.embeddings.remote import OllamaEmbedder, OpenAIEmbedder, api_key_from

        if provider == "ollama":
            model = settings.get("model", "nomic-embed-text")
            nomic = model.startswith("nomic-embed-text")  # trained with task prefixes
            return OllamaEmbedder(
                url=settings.get("url", "http://localhost:11434"),
                model=model,
                context=int(settings.get("context", 8192)),
                query_prefix=settings.get("query_prefix", "search_query: " if nomic else ""),
                document_prefix=settings.get(
                    "document_prefix", "search_document: " if nomic else ""
                ),
                min_cosine=float(settings.get("min_cosine", 0.0)),
            )
        if not settings.get("url") or not settings.get("model"):
            raise EmbeddingUnavailable('[embedding] provider = "openai" needs `url` and `model`')
        return OpenAIEmbedder(
            url=settings["url"],
            model=settings["model"],
            context=int(settings.get("context", 512)),
            query_prefix=settings.get("query_prefix") or "",
            document_prefix=settings.get("document_prefix") or "",
            api_key=api_key_from(settings.get("api_key_env")),
            min_cosine=float(settings.get("min_cosine", 0.0)),
        )
    known = ", ".join(PROVIDERS)
    raise EmbeddingUnavailable(f"unknown [embedding] provider {provider!r} (known: {known})")


def configured_embedder() -> Embedder:
    """The config file's provider, loaded once per process."""
    from findsession.config import load_config

    settings = load_config().embedding
    key = repr(sorted(settings.items()))
    if key not in _loaded:
        _loaded[key] = build_embedder(settings)
    return _loaded[key]


__all__ = ["Embedder", "EmbeddingUnavailable", "PROVIDERS", "build_embedder", "configured_embedder"]
