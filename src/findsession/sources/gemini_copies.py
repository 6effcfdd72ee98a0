"""Which copy of a Gemini CLI chat is read, when one project's chat sits in two folders.

Gemini CLI kept a project's chats in `tmp/<SHA-256 of the project's path>/chats/`; newer
builds keep them in `tmp/<slug>/chats/` (the slug from `projects.json`) and left the
older folder where it was, so a chat may be in both, under the same file name and
`sessionId`. Read twice, the first copy found (the hashed folder sorts first) became the
session and the other only its replays: when only the newer copy had the CLI's
`summary`, the session lost its title. One copy is read: the one with a `summary`, else
the larger, else the slug folder's; the other is left out, and dropped from the index
when the chosen copy is first read (`SourceFile.supersedes`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from findsession.domain import Problem
from findsession.sources.gemini_log import parse_json, parse_jsonl
from findsession.sources.gemini_projects import twin_folder
from findsession.sources.opening import open_regular


def other_copy(
    path: Path, session_id: str | None, session_of: Callable[[Path], str | None]
) -> Path | None:
    """The same chat (its file name, with either suffix, and `session_id`, as
    `session_of` reads a file's) in the project's other folder, if there is one."""
    chats = path.parent
    if chats.name != "chats" or not session_id:
        return None
    twin = twin_folder(chats.parent)
    if twin is None or twin == chats.parent:
        return None
    stem = path.name.rsplit(".", 1)[0]
    for name in (f"{stem}.jsonl", f"{stem}.json"):
        candidate = twin / "chats" / name
        if candidate.is_file() and session_of(candidate) == session_id:
            return candidate
    return None


def is_preferred(path: Path, other: Path) -> bool:
    """Whether `path`, not `other`, is the copy to read: the one with a summary, else
    the larger, else the one outside the hashed folder."""
    return _weight(path) > _weight(other)


def _weight(path: Path) -> tuple[bool, int, bool]:
    try:
        with open_regular(str(path)) as fh:
            data = fh.read()
    except OSError:
        return (False, -1, False)
    parse = parse_jsonl if path.name.endswith(".jsonl") else parse_json
    problems: list[Problem] = []
    summary = parse(data, problems).summary
    hashed = len(path.parent.parent.name) == 64
    return (bool(summary), len(data), not hashed)
