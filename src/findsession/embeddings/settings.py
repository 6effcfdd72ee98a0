"""The `[embedding]` table of the config file, typed and checked when the file is read.

Read once by `findsession.config` and passed down to whatever builds an embedder, so
an index run and the searches after it use the model the same file named, and a typo
in a key is reported instead of silently falling back to the default model.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from findsession.errors import FindsessionError


class BadEmbeddingSettings(FindsessionError):
    """A key or value of `[embedding]` that cannot be used (the config names the file)."""


@dataclass(frozen=True, slots=True)
class EmbeddingSettings:
    """Which embedder to use and how; every field has a default that needs no file."""

    #: `bundled`, `onnx`, `ollama`, `openai` or `none` (see findsession.embeddings).
    provider: str = "bundled"
    #: A bundled model's name (or `auto`), or the remote model's name.
    model: str | None = None
    #: An ONNX model folder, for `provider = "onnx"`.
    path: str | None = None
    #: The endpoint of a remote provider.
    url: str | None = None
    #: A remote model's context window, in tokens.
    context: int | None = None
    query_prefix: str | None = None
    document_prefix: str | None = None
    #: Tokens per chunk for a local model (at most its window).
    max_tokens: int | None = None
    #: The cosine a unit found only by meaning must reach to be shown.
    min_cosine: float | None = None
    #: The environment variable holding an `openai` endpoint's API key.
    api_key_env: str | None = None

    @classmethod
    def from_table(cls, table: Mapping[str, Any]) -> EmbeddingSettings:
        """Check each key's type; `BadEmbeddingSettings` names the first that is wrong."""
        known = {f.name: f for f in fields(cls)}
        values: dict[str, Any] = {}
        for key, value in table.items():
            if key not in known:
                names = ", ".join(known)
                raise BadEmbeddingSettings(f"unknown key {key!r} in [embedding] (known: {names})")
            values[key] = _checked(key, value)
        return cls(**values)


_INTEGERS = ("context", "max_tokens")


def _checked(key: str, value: Any) -> Any:
    if key in _INTEGERS:
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise BadEmbeddingSettings(f"[embedding] {key} must be a whole number above 0")
        return value
    if key == "min_cosine":
        if isinstance(value, bool) or not isinstance(value, int | float) or not -1 <= value <= 1:
            raise BadEmbeddingSettings("[embedding] min_cosine must be a number from -1 to 1")
        return float(value)
    if not isinstance(value, str):
        raise BadEmbeddingSettings(f"[embedding] {key} must be a string")
    return value
