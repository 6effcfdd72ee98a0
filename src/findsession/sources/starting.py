"""Starting an agent afresh with a first prompt, for `findsession handoff --to AGENT`.

A handoff carries a session on in a new one: the agent started in the session's
directory with the brief as what it is first told. Only agents whose command line takes
a first prompt and stays interactive are listed (`claude PROMPT`, `codex PROMPT`,
`gemini -i PROMPT`, ...); one that only runs a prompt and exits would end the handoff
where it should begin. The argv keeps the prompt one argument (`resuming`), so nothing
in the brief can be read as an option.
"""

from __future__ import annotations

import os

from findsession.domain import Resume
from findsession.sources.registry import HANDOFF_AGENTS, STARTS
from findsession.sources.resuming import option, positional


def start_command(agent: str, prompt: str, cwd: str | None) -> Resume:
    """How to start `agent` in `cwd` with `prompt` as its first message, or why not (an
    agent this list does not know). Returned as a `Resume` so `open`'s checks apply."""
    start = STARTS.get(agent.strip().lower())
    if start is None:
        return Resume(
            reason=f"findsession knows no way to start {agent!r} with a first prompt"
            f" (it knows {', '.join(HANDOFF_AGENTS)})"
        )
    command = start.command
    argv = (*command[:-1], *option(command[-1], prompt)) if start.as_option else (
        *command, *positional(prompt))  # fmt: skip
    return Resume(
        command=tuple(argv),
        cwd=cwd,
        cwd_exists=bool(cwd) and os.path.isdir(cwd or ""),
    )
