"""`findsession open`: go back into a session in its own agent and directory.

`open N` takes result N of the last search shown in this terminal, `open SESSION` an id
or unique prefix. The agent then replaces this process (`os.execvp`), in the session's
working directory, so the terminal is the agent's as if it had been started by hand.
Nothing is run when the command would go wrong: no command for the source, a working
directory that is unknown or gone, an agent that is not on PATH; each is said in one
line, with the command to run by hand on stdout. `--print` prints the command as a shell
line instead; `--json` prints the plan. A session whose transcript its agent deleted is
written back from the archive first (said on stderr, with `--print` too: the printed
command works only once the file is back); one the archive holds no copy of is said in
one line, and nothing is run.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import sys

from rich.console import Console

from findsession import jsonout, render
from findsession.api import Findsession
from findsession.cli.console import say
from findsession.cli.terminal import terminal_id
from findsession.domain import Resume, Session
from findsession.errors import FindsessionError

#: `open 2` is a result's number; anything else is a session id or prefix. Four digits
#: covers the longest list a search shows (1000); an id starting with digits is told
#: apart by giving more of it than that.
_POSITION = re.compile(r"[0-9]{1,4}")
#: Characters a terminal would act on or reorder if printed as they are, and the bytes of
#: a name that is not UTF-8 (each read as a lone surrogate).
_UNPRINTABLE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)


def open_session(args: argparse.Namespace, fs: Findsession, out: Console, err: Console) -> int:
    target = args.target.strip()
    if not target:
        raise FindsessionError("name the session to open: its number in the last search, or id")
    if _POSITION.fullmatch(target):
        session = fs.shown(terminal_id(), int(target))
    else:
        session = fs.session(target)
    plan = fs.resume(session)
    if args.json:
        print(jsonout.dumps(jsonout.open_json(session, plan)))
        return 0
    if not plan.available:
        raise FindsessionError(f"{_named(session)} cannot be resumed: {plan.reason}")
    if plan.restore is not None:
        restore(fs, session, plan, err)
    line = shell_line(plan)
    if plan.note:
        say(err, f"note: {plan.note}")
    problem = (
        f"its transcript is on {plan.machine}, not this machine"
        if plan.machine
        else directory_problem(plan)
    )
    return print_or_run(
        fs,
        plan,
        line,
        problem,
        err,
        run=not args.print,
        cannot=f", so {_named(session)} cannot be resumed here",
        starting=f"resuming {_named(session)} in {render.home(plan.cwd)}",
    )


def restore(fs: Findsession, session: Session, plan: Resume, err: Console) -> None:
    """Write the gone transcript back from the archive, saying so; or why it cannot be."""
    gone = plan.restore
    if gone is None:
        return
    if not gone.held:
        raise FindsessionError(f"{_named(session)} cannot be resumed: {gone.reason}")
    target = fs.session(plan.session_id) if plan.session_id else session
    done = fs.restore(target)
    for restored in done.restored:
        say(
            err,
            f"restored {render.home(restored.path)} from the archive"
            f" ({restored.bytes:,} bytes, checked against the archive's checksums)",
        )
    for note in done.notes:
        say(err, f"note: {note}")


def print_or_run(
    fs: Findsession,
    plan: Resume,
    line: str,
    problem: str | None,
    err: Console,
    *,
    run: bool,
    cannot: str,
    starting: str,
) -> int:
    """The command as `line` for the person to run (`run` False; a `problem` is a
    warning), or the agent started in its place, only when nothing stands in the way:
    the directory is there and the agent is on PATH; else the line and why not.
    `open` and `handoff --to --run` both end here, so both make the same checks."""
    if not run:
        print(line)
        if problem:
            say(err, f"warning: {problem}")
        return 0
    if problem:
        print(line)
        raise FindsessionError(f"{problem}; nothing was run (the command is above)")
    agent = plan.command[0]
    if shutil.which(agent) is None:
        print(line)
        raise FindsessionError(
            f"{agent!r} is not on PATH{cannot}: install it, or run the command above where"
            " it is"
        )
    err.print(starting, soft_wrap=True)
    become(fs, plan)
    return 0  # not reached: the agent has taken this process over


def become(fs: Findsession, plan: Resume) -> None:
    """Replace this process with the agent, in the session's directory."""
    sys.stdout.flush()
    sys.stderr.flush()
    fs.close()
    try:
        os.chdir(plan.cwd or ".")
        os.execvp(plan.command[0], list(plan.command))
    except (OSError, ValueError) as exc:  # ValueError: a NUL inside an argument
        raise FindsessionError(f"could not start {plan.command[0]!r}: {exc}") from exc


def directory_problem(plan: Resume) -> str | None:
    """Why the command cannot run where it must, or None."""
    if plan.cwd is None:
        return (
            "the index has no working directory for this session, and the agent finds it"
            " only from there: run the command in the session's project folder"
        )
    if not plan.cwd_exists:
        return (
            f"the session's working directory {render.printable(plan.cwd)} no longer exists"
            " (moved or deleted?): the agent finds the session only from there"
        )
    return None


def _named(session: Session) -> str:
    title = render.printable(session.title or "")
    return f"session {session.id}" + (f" ({title})" if title else "")


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
