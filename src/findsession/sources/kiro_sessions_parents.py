"""The session a Kiro subagent's session was started from, found by its id.

Kiro keeps a subagent's chat as a session of its own, `sess_<id>/` beside its parent's in
the workspace's folder, and nothing in it names the parent that the readers of real
files show. What names it is the parent's `sub_agent_start` (and `sub_agent_complete`)
event, `{subSessionId, subAgentName, prompt}`: its parent is the session of the same
workspace whose `messages.jsonl` holds such an event naming it.

Only sessions that could be its parent are looked at: begun no later than it and
written to since it began (by their `session.json` and their file's time), the newest
`_FILES` of them, each up to `_BYTES`, and only a file that holds the id's bytes is
parsed.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from findsession.sources.json_doc import side_object
from findsession.sources.opening import open_regular

_FILES = 64
_BYTES = 64 << 20
_STARTS = ("sub_agent_start", "sub_agent_complete")


@dataclass(frozen=True, slots=True)
class Started:
    """Who started a subagent's session, and what it asked of it."""

    parent: str
    agent: str | None
    task: str | None


def subagent_parent(path: Path, messages: str, meta: str) -> Started | None:
    """The session of the workspace whose events start the subagent session whose
    `messages.jsonl` is `path`; None when none does (a main session)."""
    folder = path.parent
    sid = folder.name
    ids = {sid, sid.removeprefix("sess_")}
    needle = re.compile(
        rb'"subSessionId"\s*:\s*"(?:' + b"|".join(re.escape(i.encode()) for i in ids) + rb')"'
    )
    began = _began(folder / meta)
    for candidate in _candidates(folder, messages, meta, began):
        found = _naming(candidate, needle, ids)
        if found is not None:
            return Started(candidate.parent.name, *found)
    return None


def _candidates(folder: Path, messages: str, meta: str, began: float | None) -> list[Path]:
    try:
        entries = [e for e in os.scandir(folder.parent) if e.is_dir(follow_symlinks=False)]
    except OSError:
        return []
    found: list[tuple[float, Path]] = []
    for entry in entries:
        if entry.name == folder.name:
            continue
        log = Path(entry.path) / messages
        try:
            written = log.stat().st_mtime
        except OSError:
            continue
        if began is not None:
            if written < began:
                continue  # not written to since the subagent began
            theirs = _began(Path(entry.path) / meta)
            if theirs is not None and theirs > began:
                continue  # begun after it
        found.append((written, log))
    found.sort(reverse=True)
    return [log for _, log in found[:_FILES]]


Named = tuple[str | None, str | None]


def _naming(log: Path, needle: re.Pattern[bytes], ids: set[str]) -> Named | None:
    """The subagent's name and task from the first event of `log` that starts it."""
    try:
        with open_regular(str(log)) as fh:
            data = fh.read(_BYTES)
    except OSError:
        return None
    for match in needle.finditer(data):
        start = data.rfind(b"\n", 0, match.start()) + 1
        end = data.find(b"\n", match.end())
        try:
            event = json.loads(data[start : end if end >= 0 else len(data)])
        except (ValueError, RecursionError):
            continue
        payload = event.get("payload") if isinstance(event, dict) else None
        if not isinstance(payload, dict) or payload.get("type") not in _STARTS:
            continue
        if payload.get("subSessionId") not in ids:
            continue
        agent, task = payload.get("subAgentName"), payload.get("prompt")
        return (agent if isinstance(agent, str) and agent else None,
                task if isinstance(task, str) and task else None)  # fmt: skip
    return None


def _began(meta: Path) -> float | None:
    """When a session began, by its `session.json`'s `createdAt` (ISO text or
    milliseconds), in seconds since the epoch."""
    when = side_object(meta).get("createdAt")
    if isinstance(when, int | float) and not isinstance(when, bool):
        return when / 1000
    if isinstance(when, str):
        try:
            return datetime.fromisoformat(when.replace("Z", "+00:00")).timestamp()
        except ValueError:
            return None
    return None
