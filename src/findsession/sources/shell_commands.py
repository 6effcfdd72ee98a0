"""A shell tool call's command line, read back from the stored call, for every agent.

Claude Code's `Bash`, Codex's `shell`/`exec_command`/`local_shell`, Gemini's
`run_shell_command`, Cline's `execute_command`, Cline CLI's `run_commands` (a list under
`commands:`, joined by `; `), Goose's `developer__shell`, Pi's `bash`,
... store their command under `command:` or `cmd:` (a list joined by spaces), Antigravity's
`run_command` under `CommandLine:`, or as the call's whole text.
"""

from __future__ import annotations

import json
import re

from findsession.domain import Message, MessageKind
from findsession.sources.file_writes import SHELL_TOOLS, uncut

_FIELD = re.compile(r"^(?:command|cmd|CommandLine|commands): ?(.*)$", re.MULTILINE)
_WRAPPER = re.compile(r"^(?:bash|sh|zsh) -l?c ")
#: Characters of a command kept: enough to recognise it by.
COMMAND_CHARS = 300


def shell_command(message: Message) -> str | None:
    """The command a shell tool call ran, on one line; None for any other message."""
    if message.kind is not MessageKind.TOOL_CALL or not message.tool_name:
        return None
    if message.tool_name.lower().removeprefix("developer__") not in SHELL_TOOLS:
        return None
    text, _ = uncut(message.text)
    match = _FIELD.search(text)
    if match:
        # The value runs to the next `key: ` line (Codex adds `workdir:`, Claude `description:`).
        rest = text[match.start(1) :]
        value = re.split(r"\n[A-Za-z_]+: ", rest, maxsplit=1)[0]
    else:
        value = text
    value = _listed(value)
    line = " ".join(_WRAPPER.sub("", value.strip()).split())
    if len(line) > COMMAND_CHARS:
        line = line[: COMMAND_CHARS - 1] + "…"
    return line or None


def _listed(value: str) -> str:
    """A JSON list of commands (Cline CLI's `commands`) as one line, `; ` between them."""
    if not value.lstrip().startswith("["):
        return value
    try:
        commands = json.loads(value)
    except (ValueError, RecursionError):
        return value
    if isinstance(commands, list) and commands and all(isinstance(c, str) for c in commands):
        return "; ".join(commands)
    return value
