"""What a person typed to Codex, apart from the text Codex puts around it.

A `response_item` user message carries what was typed and what Codex injects beside it
(AGENTS.md, the environment, shell commands the person ran, aborted-turn notes, skills,
subagent notifications), a list that grows with every release; a rollout written before
Codex recorded events has nothing else, so there the prompt is the message less the
injected kinds known here. The IDE extensions and Codex Desktop wrap what was typed in a
context of their own, taken off wherever the prompt comes from.
"""

from __future__ import annotations

import re
from typing import Any

from findsession.sources.codex_items import block_type, texts
from findsession.sources.jsonl import clean_text

#: Injected `response_item` user text; only consulted in rollouts without events.
INJECTED_PREFIXES = (
    "# AGENTS.md instructions",
    "<INSTRUCTIONS>",
    "<environment_context>",
    "<user_instructions>",
    "<permissions instructions>",
    "<collaboration_mode>",
    "<user_shell_command>",
    "<turn_aborted>",
    "<skill>",
    "<subagent_notification>",
    "<goal_context>",
    "<codex_internal_context",
    "<model_switch>",
)
#: The IDE extensions wrap what was typed in the open tabs, the selection and so on;
#: Codex Desktop in the files attached to the message (a long paste is kept as one).
IDE_CONTEXT = "# Context from my IDE setup:"
ATTACHED_FILES = "# Files mentioned by the user:"
IDE_REQUEST = "## My request for Codex:"
#: An attached paste: `## <its first line>: <home>/attachments/<id>/pasted-text.txt`.
_PASTED = re.compile(r"^## (.+): \S.*[\\/]attachments[\\/][^\\/]+[\\/]pasted-text\.txt$", re.M)
_CWD = re.compile(r"<environment_context>.*?<cwd>([^<]+)</cwd>", re.DOTALL)


def typed_in(content: list[Any]) -> str:
    """What a `response_item` user message's text blocks hold of what was typed: the
    blocks Codex injected left out, the rest as `typed_text`."""
    typed = [
        t
        for b in content
        if block_type(b) in ("input_text", "text")
        and isinstance(t := b.get("text"), str)
        and not t.lstrip().startswith(INJECTED_PREFIXES)
    ]
    return typed_text("\n".join(typed))


def typed_text(text: str) -> str:
    """What the person typed: the request, without the IDE context wrapped around it, and
    the start of each long paste Codex Desktop kept as an attached file (the rest of the
    paste is in that file, not in the rollout)."""
    text = clean_text(text).strip()
    if IDE_REQUEST in text and text.startswith((IDE_CONTEXT, ATTACHED_FILES, "## ")):
        context, text = (part.strip() for part in text.rsplit(IDE_REQUEST, 1))
        if context.startswith(ATTACHED_FILES):
            pasted = [m.group(1) for m in _PASTED.finditer(context)]
            text = "\n\n".join([text, *pasted]).strip()
    return text


def injected_cwd(content: list[Any]) -> str | None:
    """The project folder the environment Codex injected names, if it names one."""
    found = _CWD.search(texts(content))
    return clean_text(found.group(1).strip()) if found else None
