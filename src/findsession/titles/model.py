"""Titles from a language model the person runs: Ollama, or any OpenAI-compatible server.

Optional: `[titles] provider = "ollama"` or `"openai"`. The model reads what the index
holds of a session (redacted text: the person's first prompts and the files touched) and
answers a slug and a one-line summary. Its answer is cleaned to one line each (models
wrap answers in quotes, Markdown and `<think>` blocks); an answer that cannot be used,
or a server that cannot be reached, leaves the offline title in place.
"""

from __future__ import annotations

import os
import re
from typing import Any

from findsession.errors import FindsessionError
from findsession.remote_json import post_json
from findsession.titles.propose import Material, slug
from findsession.titles.settings import TitleSettings

TIMEOUT_S = 60
#: Characters of the session the model reads: enough to say what it was about.
BUDGET = 3000
SUMMARY_CHARS = 160

SYSTEM = (
    "You name coding-agent sessions so a person can find them again in a list.\n"
    "Answer with exactly two lines and nothing else:\n"
    "TITLE: 2 to 5 lowercase words joined by hyphens, naming the topic and the task"
    " (for example syncthing-conflict-fix)\n"
    "SUMMARY: one sentence of at most 20 words saying what the session set out to do"
)


class TitleModelError(FindsessionError):
    """The title model could not be reached, or answered outside its protocol."""


class UnusableAnswer(TitleModelError):
    """The model answered, but no title could be read from what it said."""


class ModelTitler:
    """One configured model; `propose` asks it for a (title, summary) pair."""

    def __init__(self, settings: TitleSettings) -> None:
        self.provider = settings.provider
        self.model = settings.model or ""
        self.url = settings.endpoint
        self.api_key = os.environ.get(settings.api_key_env) if settings.api_key_env else None
        self.identity = f"{self.provider}:{self.model}"

    def propose(self, material: Material) -> tuple[str, str | None]:
        """The model's slug and summary; `TitleModelError` when it gives none usable."""
        text = self.chat(SYSTEM, session_text(material), max_tokens=120)
        title, summary = clean_answer(text)
        if not title:
            raise UnusableAnswer(f"{self.identity} answered no usable title")
        return title, summary

    def chat(self, system: str, user: str, max_tokens: int) -> str:
        """The model's answer to one system and one user message (what `handoff` asks
        for its summary, too); `UnusableAnswer` when it answers without a message."""
        messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        if self.provider == "ollama":
            answer = self._post(
                f"{self.url}/api/chat",
                {
                    "model": self.model,
                    "messages": messages,
                    "stream": False,
                    "options": {"temperature": 0.2, "num_predict": max_tokens},
                },
            )
            text = _field(answer, "message", "content")
        else:
            base = self.url if self.url.endswith("/v1") else f"{self.url}/v1"
            answer = self._post(
                f"{base}/chat/completions",
                {
                    "model": self.model,
                    "messages": messages,
                    "temperature": 0.2,
                    "max_tokens": max_tokens,
                },
            )
            choices = answer.get("choices") if isinstance(answer, dict) else None
            first = choices[0] if isinstance(choices, list) and choices else None
            text = _field(first, "message", "content")
        if text is None:
            raise UnusableAnswer(f"{self.identity} answered without a message")
        return text

    def _post(self, endpoint: str, body: dict[str, Any]) -> Any:
        return post_json(
            endpoint, body, api_key=self.api_key, timeout=TIMEOUT_S, error=TitleModelError
        )


def _field(obj: Any, *keys: str) -> str | None:
    for key in keys:
        obj = obj.get(key) if isinstance(obj, dict) else None
    return obj if isinstance(obj, str) else None


def session_text(material: Material) -> str:
    """What the model reads: the project, the files touched, the prompts in order."""
    parts = []
    if material.project:
        parts.append(f"Project folder: {material.project}")
    if material.files:
        parts.append("Files touched: " + ", ".join(material.files[:15]))
    parts.append("What the person typed, in order:")
    used = sum(len(p) for p in parts)
    for n, prompt in enumerate(material.prompts, 1):
        room = BUDGET - used
        if room <= 40:
            break
        text = " ".join(prompt.split())[:room]
        parts.append(f"{n}. {text}")
        used += len(text)
    return "\n".join(parts)


_THINK = re.compile(r"<think>.*?(?:</think>|$)", re.S | re.I)
_LABEL = re.compile(r"^[\s>*_#`\"'-]*(title|summary)[\s*_`\"']*[:：]\s*(.*)$", re.I)
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def clean_answer(text: str) -> tuple[str, str | None]:
    """A model's answer as (slug, one-line summary or None).

    Lines labelled TITLE and SUMMARY are looked for anywhere (models add Markdown, quotes
    and preambles); with no TITLE label, the first line that is not a summary names it.
    """
    text = _THINK.sub("", text).replace("```", "\n")
    title_line = summary_line = None
    unlabelled = []
    for line in text.splitlines():
        match = _LABEL.match(line)
        if match:
            key, value = match.group(1).lower(), match.group(2)
            if key == "title" and title_line is None:
                title_line = value
            elif key == "summary" and summary_line is None:
                summary_line = value
        elif line.strip() and not line.rstrip().endswith(":"):  # not "Here it is:"
            unlabelled.append(line)
    if title_line is None and unlabelled:
        title_line = unlabelled[0]
    title = slug(_strip(title_line or ""))
    summary = " ".join(_CONTROL.sub(" ", _strip(summary_line or "")).split())
    if len(summary) > SUMMARY_CHARS:
        summary = summary[: SUMMARY_CHARS - 1].rstrip() + "…"
    return title, summary or None


def _strip(value: str) -> str:
    return value.strip().strip("*_`\"'“”‘’ ").strip()
