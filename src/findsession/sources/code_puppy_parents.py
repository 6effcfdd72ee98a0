"""The session a Code Puppy subagent was started from, found by its id.

A subagent's `subagent_sessions/<session id>.json` names no parent, and its `.txt`
only the agent and its first prompt. What names it is its parent's `invoke_agent` (or
`invoke_agent_with_model`) result: `{response, agent_name, session_id, …}`. A parent
is a main session in `autosaves/` (beside `subagent_sessions/` in a copy of Code
Puppy's folder, or in the cache folder) or another subagent (a subagent that invoked
one). A later call may continue the same subagent session by its id: its parent is the
session whose result names it first.

Only files that hold the id's bytes are parsed, the newest `_FILES` of each folder at
most, each up to `_BYTES`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from findsession.sources.code_puppy_records import invoked_session
from findsession.sources.opening import open_regular

_FILES = 200
_BYTES = 64 << 20


def subagent_parent(path: Path, elsewhere: list[Path]) -> str | None:
    """The name of the session whose `invoke_agent` result first names the subagent
    session at `path`; None when none does."""
    sid = path.stem
    needle = sid.encode()
    folders = [path.parent.parent / "autosaves", *elsewhere, path.parent]
    best: tuple[str, str] | None = None
    for candidate in _candidates(dict.fromkeys(folders), path):
        data = _head(candidate)
        if data is None or needle not in data:
            continue
        when = _first_naming(data, sid)
        if when is not None and (best is None or when < best[0]):
            best = (when, candidate.stem)
    return best[1] if best else None


def _candidates(folders: dict[Path, None], own: Path) -> list[Path]:
    found: list[Path] = []
    for folder in folders:
        try:
            entries = [e for e in os.scandir(folder) if e.name.endswith(".json")]
        except OSError:
            continue
        entries = [e for e in entries if not e.name.endswith(("_meta.json", "_acp.json"))]
        entries.sort(key=_mtime, reverse=True)
        found += [Path(e.path) for e in entries[:_FILES] if Path(e.path) != own]
    return found


def _mtime(entry: os.DirEntry[str]) -> float:
    try:
        return entry.stat(follow_symlinks=False).st_mtime
    except OSError:
        return 0.0


def _head(path: Path) -> bytes | None:
    try:
        with open_regular(str(path)) as fh:
            return fh.read(_BYTES)
    except OSError:
        return None


def _first_naming(data: bytes, sid: str) -> str | None:
    """The time of the first `invoke_agent` result in an envelope that names `sid`
    (its time's text, or "" when it has none)."""
    try:
        doc = json.loads(data.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return None
    messages = doc.get("messages") if isinstance(doc, dict) else None
    for msg in messages if isinstance(messages, list) else []:
        parts = msg.get("parts") if isinstance(msg, dict) else None
        for part in parts if isinstance(parts, list) else []:
            if invoked_session(part) == sid:
                when = part.get("timestamp") or msg.get("timestamp")
                return when if isinstance(when, str) else ""
    return None
