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

#: Characters a terminal would act on or reorder if printed as they are, and the bytes of
#: a name that is not UTF-8 (each read as a lone surrogate).
_UNPRINTABLE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)


def shell_line(plan: Resume) -> str:
    """The command as one line to paste into a POSIX shell: `cd DIR && COMMAND`."""
    command = " ".join(shell_word(arg) for arg in plan.command)
    if plan.cwd is None:
        return command
    cd = "cd -- " if plan.cwd.startswith("-") else "cd "
    return f"{cd}{shell_word(plan.cwd)} && {command}"


def shell_word(text: str) -> str:
    """One word that means exactly `text` to every POSIX shell (sh, dash, bash, zsh, ksh)
    and that is safe to print: a terminal acts on none of its characters.

    Printable text is single-quoted. Text holding characters a terminal would act on (or
    bytes that are not UTF-8) is made by `printf` from octal escapes, `"$(printf
    '…\\001…')"`: bash's `$'…'` means `$` and a quoted word to dash, which then ran
    what followed a quote in the text. Line feeds at the end, which a command
    substitution drops, follow in single quotes as they are."""
    body = text.rstrip("\n")
    tail = text[len(body) :]
    if not _UNPRINTABLE.search(body):
        word = shlex.quote(body) if body or not tail else ""
    else:
        word = f"\"$(printf '{_printf_format(body)}')\""
    return word + (f"'{tail}'" if tail else "")


def _printf_format(text: str) -> str:
    """`text` as a `printf` format that prints it byte for byte: unprintable characters
    as three-digit octal escapes of their bytes, `%` and `\\` doubled, the quote (and a
    leading `-`, which `printf` could take for an option) escaped too."""
    parts = []
    for n, ch in enumerate(text):
        if ch == "%":
            parts.append("%%")
        elif ch == "\\":
            parts.append("\\\\")
        elif ch == "'" or (ch == "-" and n == 0) or _UNPRINTABLE.match(ch):
            parts.append("".join(f"\\{byte:03o}" for byte in _bytes(ch)))
        else:
            parts.append(ch)
    return "".join(parts)


def _bytes(ch: str) -> bytes:
    """A character's UTF-8 bytes; a byte of a name that is not UTF-8 (a surrogate as
    Python decodes one) as itself."""
    try:
        return ch.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate no decoding made: no byte stands for it
        return "\ufffd".encode()


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
