"""A command as text to paste into a POSIX shell: the resume line `open --print`
prints (`cd DIR && COMMAND`), a handoff's start command with its brief as a quoted
heredoc, and the one shell word each argument becomes.

Every interface shows these lines (the CLI prints them, the page offers one to copy,
the MCP tools return them), so they are written once, below all of them. An argv is
quoted here and nowhere else: no id, path or brief can become more than one word, and
no character in one reaches a terminal to act on.
"""

from __future__ import annotations

import re
import shlex

from findsession.domain import Resume

#: Characters a terminal would act on or reorder if printed as they are.
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def shell_line(plan: Resume) -> str:
    """The command as one line to paste into a POSIX shell: `cd DIR && COMMAND`."""
    command = " ".join(shell_word(arg) for arg in plan.command)
    if plan.cwd is None:
        return command
    cd = "cd -- " if plan.cwd.startswith("-") else "cd "
    return f"{cd}{shell_word(plan.cwd)} && {command}"


def shell_word(text: str) -> str:
    """One shell word that means exactly `text`; characters a terminal would act on are
    written as `$'…'` escapes (bash, zsh, ksh), so printing the line is safe too."""
    if not _UNPRINTABLE.search(text):
        return shlex.quote(text)
    parts = []
    for ch in text:
        if ch in "\\'":
            parts.append("\\" + ch)
        elif _UNPRINTABLE.match(ch):
            parts.append(f"\\x{ord(ch):02x}" if ord(ch) < 0x80 else f"\\u{ord(ch):04x}")
        else:
            parts.append(ch)
    return "$'" + "".join(parts) + "'"


def start_line(plan: Resume) -> str:
    """The start command as shell text to paste: `cd DIR && agent "$(cat <<'END' …)"`,
    the brief (its last argument) as a quoted heredoc, so it reads as written and no `$`,
    backtick or quote in it means anything to the shell."""
    *command, prompt = plan.command
    end = "FINDSESSION_BRIEF"
    while end in prompt:
        end += "_"
    words = " ".join(shell_word(word) for word in command)
    line = f"{words} \"$(cat <<'{end}'\n{prompt.rstrip()}\n{end}\n)\""
    if plan.cwd is None:
        return line
    return f"cd {'-- ' if plan.cwd.startswith('-') else ''}{shell_word(plan.cwd)} && {line}"
