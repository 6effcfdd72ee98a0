"""When a title line may be written to a transcript (or taken out again), and why not.

A transcript is the person's record of their work, and an agent may be appending to it
while we look: a line is written only when every check here passes, each refusal with a
reason that says what to do. The checks run on the open file itself (its `fstat`), not
on a name that could be swapped between the check and the write.
"""

from __future__ import annotations

import os
import stat

from findsession.storage.base import FileState
from findsession.titles.report import Reason

PERSON_TITLE = Reason(
    "person_title", "it has a title the person gave, and the person's title always wins"
)
OURS = Reason("titled_by_findsession", "findsession titled it already")
AGENT_TITLE = Reason(
    "agent_title",
    "it has its agent's own title, which the agent may update as the work goes on; name"
    " this session alone to replace it",
)
NOTHING = Reason("nothing_to_name", "too little was typed in it to name it")
NOT_REGULAR = Reason("not_a_file", "its transcript is not a regular file")
MISSING = Reason("transcript_missing", "its transcript is gone")
CHANGED = Reason(
    "changed_since_indexed",
    "the transcript changed since it was indexed: index it again, then write",
)
NO_NEWLINE = Reason(
    "no_trailing_newline",
    "the transcript's last line has no newline (it may be half written): a line appended"
    " now would join it",
)


def machine_refusal(writer: str | None, machine: str | None) -> Reason | None:
    """None when this machine is the one configured to write titles.

    Transcripts synced between machines fork when two of them append, and hostnames can
    be equal on two machines, so the writer is named in the config, never guessed.
    """
    if writer is None:
        return Reason(
            "no_writer",
            "no machine is configured to write titles: set [titles] writer to the name of"
            " the one machine that may append to transcripts",
        )
    if machine is None:
        return Reason(
            "no_machine_name",
            "this machine has no name to compare with [titles] writer: set"
            " FINDSESSION_MACHINE or [machine] name in the config",
        )
    if machine != writer:
        return Reason(
            "not_writer",
            f"this machine is {machine!r} and only {writer!r} ([titles] writer) writes titles:"
            " transcripts synced between machines fork when two of them append",
        )
    return None


def quiet_refusal(st: os.stat_result, now: float, quiet_minutes: float) -> Reason | None:
    """None when the file was last written at least `quiet_minutes` ago (a time in the
    future counts as now: a clock may be off, and waiting costs nothing)."""
    if not stat.S_ISREG(st.st_mode):
        return NOT_REGULAR
    age_minutes = (now - st.st_mtime) / 60
    if age_minutes < quiet_minutes:
        ago = max(0, int(age_minutes))
        return Reason(
            "recently_modified",
            f"it was written {ago} minute{'s' if ago != 1 else ''} ago, within the quiet"
            f" period of {quiet_minutes:g} minutes ([titles] quiet_minutes): the agent may"
            " still be writing it",
        )
    return None


def indexed_refusal(st: os.stat_result, state: FileState | None) -> Reason | None:
    """None when the file has the size and mtime the index recorded: then the index
    knows every title in it, and the next index run can be told exactly what we add."""
    if (
        state is None
        or state.status != "ok"
        or state.size != st.st_size
        or state.mtime_ns != st.st_mtime_ns
    ):
        return CHANGED
    return None


def ends_with_newline(fd: int, size: int) -> bool:
    """Whether the file's last byte is a newline (an empty file has no line to join)."""
    if size == 0:
        return True
    os.lseek(fd, size - 1, os.SEEK_SET)
    return os.read(fd, 1) == b"\n"


def transcript_refusal(
    fd: int, st: os.stat_result, state: FileState | None, quiet_minutes: float, now: float
) -> Reason | None:
    """Every check on the open transcript, most telling first: None when a line may be
    appended to it now."""
    refusal = quiet_refusal(st, now, quiet_minutes) or indexed_refusal(st, state)
    if refusal is None and not ends_with_newline(fd, st.st_size):
        refusal = NO_NEWLINE
    return refusal


def preview_refusal(
    path: str, state: FileState | None, quiet_minutes: float, now: float
) -> Reason | None:
    """What `transcript_refusal` would say now, from a descriptor opened read-only: the
    answer a proposal shows before anything is written."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        return MISSING
    except OSError as exc:
        return Reason("cannot_open", f"its transcript cannot be opened ({exc.strerror or exc})")
    try:
        return transcript_refusal(fd, os.fstat(fd), state, quiet_minutes, now)
    finally:
        os.close(fd)
