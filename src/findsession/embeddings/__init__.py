"""Embedding providers and the one the config file chooses.

`[embedding] provider` is `bundled` (the default: a model shipped in the package),
`onnx` (a model folder of the user's), `ollama`, `openai` (any compatible endpoint) or
`none` (keyword search only). A bundled `model` is `all-MiniLM-L6-v2` (English, fast),
`multilingual-e5-small` (100+ languages) or `auto`, which the index resolves to the one
that reads the corpus (see findsession.indexing.model_choice).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from findsession.embeddings.base import Embedder, EmbeddingUnavailable
from findsession.embeddings.settings import BadEmbeddingSettings, EmbeddingSettings

PROVIDERS = ("bundled", "onnx", "ollama", "openai", "none")
ENGLISH_MODEL = "all-MiniLM-L6-v2"
MULTILINGUAL_MODEL = "multilingual-e5-small"
AUTO = "auto"
#: Short names people type for the bundled models.
MODEL_ALIASES = {"minilm": ENGLISH_MODEL, "e5": MULTILINGUAL_MODEL}
#: What a bundled `model` is when the config names none.
DEFAULT_MODEL = MULTILINGUAL_MODEL
_loaded: dict[tuple[EmbeddingSettings, str], Embedder] = {}
Settings = EmbeddingSettings | Mapping[str, Any]


def typed(settings: Settings) -> EmbeddingSettings:
    """`settings` as `EmbeddingSettings` (a plain table is checked on the way)."""
    if isinstance(settings, EmbeddingSettings):
        return settings
    try:
        return EmbeddingSettings.from_table(settings)
    except BadEmbeddingSettings as exc:
        raise EmbeddingUnavailable(str(exc)) from None


def bundled_model_setting(settings: Settings) -> str | None:
    """The bundled model the config asks for (a name or `auto`); None for other providers."""
    settings = typed(settings)
    if settings.provider != "bundled":
        return None
    name = settings.model or DEFAULT_MODEL
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


def build_embedder(settings: Settings, auto: str = ENGLISH_MODEL) -> Embedder:
    """The provider `settings` (the config's `[embedding]` table) describe; a bundled
    `model = "auto"` becomes `auto`."""
    settings = typed(settings)
    provider = settings.provider
    if provider == "none":
        raise EmbeddingUnavailable('the config sets [embedding] provider = "none"')
    if provider in ("bundled", "onnx"):
        from findsession.embeddings.onnx_local import OnnxEmbedder, bundled_model_dir

        if provider == "onnx" and not settings.path:
            raise EmbeddingUnavailable('[embedding] provider = "onnx" needs a `path`')
        if settings.path and provider == "onnx":
            folder = Path(settings.path)
        else:
            name = bundled_model_setting(settings)
            folder = bundled_model_dir(auto if name == AUTO else name)
        overrides = {
            "query_prefix": settings.query_prefix,
            "document_prefix": settings.document_prefix,
            "max_tokens": settings.max_tokens,
            "min_cosine": settings.min_cosine,
        }
        return OnnxEmbedder(folder, overrides)
    if provider in ("ollama", "openai"):
        from findsession.embeddings.remote import OllamaEmbedder, OpenAIEmbedder, api_key_from

        min_cosine = settings.min_cosine or 0.0
        if provider == "ollama":
            model = settings.model or "nomic-embed-text"
            nomic = model.startswith("nomic-embed-text")  # trained with task prefixes
            return OllamaEmbedder(
                url=settings.url or "http://localhost:11434",
                model=model,
                context=settings.context or 8192,
                query_prefix=_prefix(settings.query_prefix, "search_query: " if nomic else ""),
                document_prefix=_prefix(
                    settings.document_prefix, "search_document: " if nomic else ""
                ),
                min_cosine=min_cosine,
            )
        if not settings.url or not settings.model:
            raise EmbeddingUnavailable('[embedding] provider = "openai" needs `url` and `model`')
        return OpenAIEmbedder(
            url=settings.url,
            model=settings.model,
            context=settings.context or 512,
            query_prefix=settings.query_prefix or "",
            document_prefix=settings.document_prefix or "",
            api_key=api_key_from(settings.api_key_env),
            min_cosine=min_cosine,
        )
    known = ", ".join(PROVIDERS)
    raise EmbeddingUnavailable(f"unknown [embedding] provider {provider!r} (known: {known})")


def _prefix(given: str | None, default: str) -> str:
    """A configured prefix, even an empty one, else the model's own."""
    return default if given is None else given


def configured_embedder(settings: Settings, auto: str | None = None) -> Embedder:
    """The embedder `settings` name, loaded once per process.

    `auto` is the bundled model `model = "auto"` stands for; without one, the English
    model (search passes the model the index's vectors were made with).
    """
    key = (typed(settings), auto or ENGLISH_MODEL)
    if key not in _loaded:
        _loaded[key] = build_embedder(*key)
    return _loaded[key]


__all__ = [
    "AUTO",
    "ENGLISH_MODEL",
    "MULTILINGUAL_MODEL",
    "Embedder",
    "EmbeddingSettings",
    "EmbeddingUnavailable",
    "PROVIDERS",
    "build_embedder",
    "bundled_model_setting",
    "configured_embedder",
    "model_of_identity",
]
