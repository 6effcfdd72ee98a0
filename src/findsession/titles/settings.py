"""The `[titles]` table of the config file, typed and checked when the file is read.

A title is proposed offline unless `provider` names a model the person runs; a title is
written only on the machine `writer` names (transcripts synced between machines fork when
two of them append), and never to a transcript written in the last `quiet_minutes`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from findsession.errors import FindsessionError

PROVIDERS = ("offline", "ollama", "openai")
OLLAMA_URL = "http://localhost:11434"


class BadTitleSettings(FindsessionError):
    """A key or value of `[titles]` that cannot be used (the config names the file)."""


@dataclass(frozen=True, slots=True)
class TitleSettings:
    """How titles are made and where they may be written; defaults need no file."""

    #: `offline` (distinctive terms, no model), `ollama` or `openai` (any server speaking
    #: OpenAI's /v1/chat/completions).
    provider: str = "offline"
    #: The model's endpoint (Ollama's default: http://localhost:11434).
    url: str | None = None
    #: The model's name, as its server knows it.
    model: str | None = None
    #: The environment variable holding an `openai` endpoint's API key.
    api_key_env: str | None = None
    #: The one machine allowed to append title lines (compared with `[machine] name` or
    #: `FINDSESSION_MACHINE`).
    writer: str | None = None
    #: A transcript written within this many minutes is left alone: the agent may be in it.
    quiet_minutes: float = 30.0

    @classmethod
    def from_table(cls, table: Mapping[str, Any]) -> TitleSettings:
        """Check each key; `BadTitleSettings` names the first that is wrong."""
        known = {f.name for f in fields(cls)}
        values: dict[str, Any] = {}
        for key, value in table.items():
            if key not in known:
                names = ", ".join(sorted(known))
                raise BadTitleSettings(f"unknown key {key!r} in [titles] (known: {names})")
            values[key] = _checked(key, value)
        settings = cls(**values)
        if settings.provider != "offline" and not settings.model:
            raise BadTitleSettings(
                f"[titles] provider {settings.provider!r} needs `model`, the name its server"
                " knows the model by"
            )
        if settings.provider == "openai" and not settings.url:
            raise BadTitleSettings("[titles] provider 'openai' needs `url`, the server's address")
        return settings

    @property
    def endpoint(self) -> str:
        return (self.url or (OLLAMA_URL if self.provider == "ollama" else "")).rstrip("/")


def _checked(key: str, value: Any) -> Any:
    if key == "quiet_minutes":
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise BadTitleSettings("[titles] quiet_minutes must be a number of minutes, 0 or more")
        return float(value)
    if not isinstance(value, str) or not value.strip():
        raise BadTitleSettings(f"[titles] {key} must be a non-empty string")
    if key == "provider" and value not in PROVIDERS:
        raise BadTitleSettings(
            f"unknown [titles] provider {value!r} (known: {', '.join(PROVIDERS)})"
        )
    return value.strip()
