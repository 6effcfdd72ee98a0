"""Embedding providers and the one the config file chooses.

`[embedding] provider` is `bundled` (the default: a model shipped in the package),
`onnx` (a model folder of the user's), `ollama`, `openai` (any compatible endpoint) or
`none` (keyword search only). A bundled `model` is `all-MiniLM-L6-v2` (English, fast),
`multilingual-e5-small` (100+ languages) or `auto`, which the index resolves to the one
that reads the corpus (see findsession.indexing.model_choice).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from findsession.embeddings.base import Embedder, EmbeddingUnavailable

PROVIDERS = ("bundled", "onnx", "ollama", "openai", "none")
ENGLISH_MODEL = "all-MiniLM-L6-v2"
MULTILINGUAL_MODEL = "multilingual-e5-small"
AUTO = "auto"
#: Short names people type for the bundled models.
MODEL_ALIASES = {"minilm": ENGLISH_MODEL, "e5": MULTILINGUAL_MODEL}
#: What a bundled `model` is when the config names none.
DEFAULT_MODEL = MULTILINGUAL_MODEL
_loaded: dict[str, Embedder] = {}


def bundled_model_setting(settings: dict[str, Any]) -> str | None:
    """The bundled model the config asks for (a name or `auto`); None for other providers."""
    if settings.get("provider", "bundled") != "bundled":
        return None
    name = str(settings.get("model", DEFAULT_MODEL))
    name = MODEL_ALIASES.get(name.lower(), name)
    if name != AUTO and name not in (ENGLISH_MODEL, MULTILINGUAL_MODEL):
        known = ", ".join((ENGLISH_MODEL, MULTILINGUAL_MODEL, AUTO))
        raise EmbeddingUnavailable(f"unknown bundled [embedding] model {name!r} (known: {known})")
    return name


def model_of_identity(identity: str | None) -> str | None:
    """The bundled model whose vectors an index holds, from the identity stored with them."""
    for name in (MULTILINGUAL_MODEL, ENGLISH_MODEL):
        if identity and identity.startswith(f"onnx:{name}"):
            return name
    return None


def build_embedder(settings: dict[str, Any], auto: str = ENGLISH_MODEL) -> Embedder:
    """The provider `settings` (the config's `[embedding]` table) describe; a bundled
    `model = "auto"` becomes `auto`."""
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
        if provider == "onnx":
            folder = Path(settings["path"])
        else:
            name = bundled_model_setting(settings)
            folder = bundled_model_dir(auto if name == AUTO else name)
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


def configured_embedder(auto: str | None = None) -> Embedder:
    """The config file's provider, loaded once per process.

    `auto` is the bundled model `model = "auto"` stands for; without one, the English
    model (search passes the model the index's vectors were made with).
    """
    from findsession.config import load_config

    settings = load_config().embedding
    auto = auto or ENGLISH_MODEL
    key = repr((sorted(settings.items()), auto))
    if key not in _loaded:
        _loaded[key] = build_embedder(settings, auto)
    return _loaded[key]


__all__ = [
    "AUTO",
    "ENGLISH_MODEL",
    "MULTILINGUAL_MODEL",
    "Embedder",
    "EmbeddingUnavailable",
    "PROVIDERS",
    "build_embedder",
    "bundled_model_setting",
    "configured_embedder",
    "model_of_identity",
]
