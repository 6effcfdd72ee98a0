"""Building an agent's resume command as an argv list that no value can break.

Each source names its agent's command (`Source.resume`); these helpers keep an id or a
path one argument, whatever it holds. A value that starts with `-` would be read by the
agent's option parser as an option of its own, so it goes after `=` (an option's value)
or after `--` (a positional argument), the forms every parser the agents use accepts.
Nothing here goes through a shell, so spaces, quotes and newlines need no care.
"""

from __future__ import annotations

from findsession.domain import Resume, Session


def option(flag: str, value: str) -> list[str]:
    """`flag value`, or `flag=value` when the value would look like an option."""
    return [f"{flag}={value}"] if value.startswith("-") else [flag, value]


def positional(value: str) -> list[str]:
    """`value`, or `-- value` when it would look like an option."""
    return ["--", value] if value.startswith("-") else [value]


def resume_in_cwd(session: Session, *command: str, note: str | None = None) -> Resume:
    """The command, run in the session's own working directory (None when unknown)."""
    return Resume(command=tuple(command), cwd=session.cwd, session_id=session.id, note=note)


def resume_anywhere(session: Session, *command: str, note: str | None = None) -> Resume:
    """The command, for an agent that finds the session by its id from any folder: run in
    the session's working directory when it has one, else wherever the person is."""
    return Resume(
        command=tuple(command), cwd=session.cwd, session_id=session.id, note=note, anywhere=True
    )


def no_resume(reason: str) -> Resume:
    """No command: `reason` says why, in words an agent can pass on."""
    return Resume(reason=reason)
