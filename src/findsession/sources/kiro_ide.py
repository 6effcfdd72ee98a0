"""Kiro IDE: where its agent's chats are, and the `Source` that reads them.

Kiro IDE (AWS's editor built on VS Code, its agent built on Continue) keeps its chats in
its `User` folder's `globalStorage/kiro.kiroagent/` (`<config>/Kiro/User` as for any
editor of VS Code's family, `places.common.user_folder`):

- `workspace-sessions/<workspace>/<session id>.json`, one per chat, the folder named by
  the workspace's path in base64 (`=` written `_`), beside `sessions.json`, the list of
  them with each one's creation time: Continue's layout and Continue's session
  document, read by Continue's reader (`continue_records`); a chat is read whole when
  its file or its workspace's runs changed;
- `<hash of the workspace's path>/<folder>/<hash of the run's id>`: one JSON document
  per run of the agent (each answer), named by the first 32 hexadecimal digits of the
  SHA-256 of the workspace's path and of the `executionId`, with
  `<hash of the workspace's path>/f62de366d0006e17ea00a01f6624aabf`, the workspace's
  list of runs with their start and end: what the agent said and did
  (`kiro_ide_records`), where the session file holds a placeholder.

Not read: `dev_data/devdata.sqlite` (Continue's usage ledger: tokens by model, no
conversation), `index/` (the code index), the `kiro.kiroAgent` row of `state.vscdb`
(settings). Kiro has no command that opens a chat by its id.

Kiro's later layout, `~/.kiro/sessions/<workspace>/sess_<id>/` (Kiro 1.0 and later),
is a second place of the same source: the same program's chats, under the same name,
gone back to the same way (`kiro_sessions`). A root is read as the layout it is.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import IO, Any

from findsession.domain import Message, Problem, Resume, Session
from findsession.sources import kiro_sessions
from findsession.sources.base import Skip, Source, SourceFile, texts_by_line
from findsession.sources.continue_dev import LISTING, session_times
from findsession.sources.continue_records import session_records
from findsession.sources.cursor import Cursor, Reading, Record
from findsession.sources.epoch import epoch_iso
from findsession.sources.json_doc import load_or_none, read_document
from findsession.sources.kiro_ide_records import execution_records
from findsession.sources.opening import open_regular
from findsession.sources.places.editors import KIRO_IDE_SESSIONS as SESSIONS
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import no_resume

KIND = SourceKind.KIRO_IDE
#: The name Kiro gives each workspace's list of the agent's runs.
RUNS = "f62de366d0006e17ea00a01f6624aabf"
#: What Kiro's session file holds for an answer its run keeps.
PLACEHOLDER = "On it."
_LOG_BYTES = 64 << 20
_REASON = (
    "Kiro has no command that opens a chat by its id: open the workspace in Kiro and "
    "pick the chat from its chat panel's session history"
)


class KiroIdeSource(Source):
    """Kiro IDE's `workspace-sessions/<workspace>/<id>.json` and its agent's runs, and
    its later `~/.kiro/sessions/<workspace>/sess_<id>/messages.jsonl`."""

    kind = KIND
    #: 2: a subagent's session in the later layout is linked to the session that
    #: started it.
    reads = 2

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        """Every session file of every workspace's folder under `root` (the agent's
        folder, its `workspace-sessions`, one workspace's folder, or a session file); or,
        of the later layout, each session's `messages.jsonl`."""
        if kiro_sessions.is_layout(root):
            yield from kiro_sessions.discover(root, skip)
            return
        if root.is_file():
            if _is_session(root.name):
                yield root
            return
        if (root / SESSIONS).is_dir():
            root = root / SESSIONS
        folders = _entries(root, skip, dirs=True)
        for folder in folders or [root]:
            yield from (folder / n for n in _names(folder, skip) if _is_session(n))

    def changed_file(self, path: Path) -> Path | None:
        """Of the later layout, the session whose `session.json` changed (a title Kiro
        gave it), and nothing for a file inside a session's folder (its snapshots)."""
        folder = kiro_sessions.session_folder(path)
        if folder is None:
            return super().changed_file(path)
        return kiro_sessions.changed_file(path, folder)

    def describe(self, path: Path) -> SourceFile:
        if path.name == kiro_sessions.MESSAGES:
            return kiro_sessions.describe(path, KIND)
        return SourceFile(path=path, source=KIND, session_id=path.name[: -len(".json")])

    def stamp_paths(self, path: Path) -> list[str]:
        """The workspace's list of runs, which changes as a run starts and ends while
        the session file may not; the later layout's `session.json`, where a title lands."""
        if path.name == kiro_sessions.MESSAGES:
            return kiro_sessions.stamp_paths(path)
        runs = _runs_list(path)
        return [str(runs)] if runs is not None else []

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        """The whole chat, when its file or its workspace's runs changed; of the later
        layout, the events added since `cursor`."""
        if sf.path.name == kiro_sessions.MESSAGES:
            return kiro_sessions.read(sf.path, fh, cursor)
        made, saved = session_times(sf.path, fh)
        stamp = _stamp(_runs_list(sf.path))
        if cursor is not None and (cursor.state or {}).get("runs") != stamp:
            cursor = None  # a run ended or began: read the chat again, whole
        reading = read_document(fh, cursor, lambda doc, problems: _records(
            sf.path, doc, made, saved, problems))  # fmt: skip
        reading.cursor = replace(reading.cursor, state={"runs": stamp})
        return reading

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        """Each wanted message as the session and its runs hold it now."""
        if path.name == kiro_sessions.MESSAGES:
            return kiro_sessions.read_back(path, lines)
        with open_regular(str(path)) as fh:
            doc = load_or_none(fh.read())
        records = _records(path, doc, None, None, []) if doc is not None else []
        return texts_by_line(records, lines)

    def resume(self, session: Session) -> Resume:
        return no_resume(_REASON)

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: Kiro rewrites the session file whole, a line appended would be lost; the
        later layout keeps its title in `session.json`, which Kiro rewrites too."""
        return None


def _records(
    path: Path, doc: Any, made: str | None, saved: str | None, problems: list[Problem]
) -> list[Record]:
    """The chat's messages, its answers read from the agent's runs, each at the time
    its run started (a prompt at the time of the run it started)."""
    agent = path.parent.parent.parent
    seen: set[str] = set()
    starts = _starts(_runs_list(path))
    times: dict[int, str] = {}

    def answer(item: dict[str, Any], base: dict[str, Any]) -> list[Record] | None:
        run_id = item.get("executionId")
        if not isinstance(run_id, str) or not run_id:
            return None  # an answer of Continue's own shape
        run = _run(agent, run_id, base["line"], problems)
        started = epoch_iso(starts.get(run_id) or (run or {}).get("startTime"))
        if started:
            times.setdefault(base["line"] - 1, started)
            times[base["line"]] = started
        if run is None:
            return []  # the placeholder is no answer
        return execution_records(run, seen, {**base, "timestamp": started or base["timestamp"]})

    records = session_records(doc, made, saved, problems, answer)
    return [
        replace(r, timestamp=times[r.line]) if isinstance(r, Message) and r.line in times else r
        for r in records
    ]


def _run(agent: Path, run_id: str, line: int, problems: list[Problem]) -> Any:
    """The run `run_id` as a document, wherever a workspace keeps it; None when it is
    not there (Kiro deletes a chat's runs with it) or does not read as JSON."""
    name = _digest(run_id)
    for found in sorted(agent.glob(f"*/*/{name}")):
        try:
            with open_regular(str(found)) as fh:
                doc = load_or_none(fh.read(_LOG_BYTES))
        except OSError as exc:
            problems.append(Problem(line, "run not read", f"{run_id}: {exc}"))
            return None
        if isinstance(doc, dict) and doc.get("executionId") == run_id:
            return doc
        problems.append(Problem(line, "run not read", f"{run_id}: not the run's document"))
        return None
    return None


def _runs_list(path: Path) -> Path | None:
    """The list of runs of the session file's workspace, named by its folder."""
    name = path.parent.name
    try:
        workspace = base64.b64decode(name.rstrip("_") + "=" * (-len(name.rstrip("_")) % 4))
    except (binascii.Error, ValueError):
        return None
    return path.parent.parent.parent / _digest(workspace.decode("utf-8", "replace")) / RUNS


def _starts(runs: Path | None) -> dict[str, float]:
    """When each run of the workspace started (milliseconds), by its id."""
    if runs is None:
        return {}
    try:
        with open_regular(str(runs)) as fh:
            doc = json.loads(fh.read(_LOG_BYTES))
    except (OSError, ValueError, RecursionError):
        return {}
    listed = doc.get("executions") if isinstance(doc, dict) else None
    return {
        run["executionId"]: run["startTime"]
        for run in (listed if isinstance(listed, list) else [])
        if isinstance(run, dict)
        and isinstance(run.get("executionId"), str)
        and isinstance(run.get("startTime"), int | float)
    }


def _stamp(path: Path | None) -> str:
    try:
        st = os.stat(path) if path is not None else None
    except OSError:
        st = None
    return f"{st.st_size}:{st.st_mtime_ns}" if st is not None else "-"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def _is_session(name: str) -> bool:
    return name.endswith(".json") and name != LISTING


def _entries(root: Path, skip: Skip, *, dirs: bool) -> list[Path]:
    try:
        found = [
            e
            for e in os.scandir(root)
            if (e.is_dir(follow_symlinks=False) if dirs else e.is_file(follow_symlinks=False))
        ]
    except FileNotFoundError:
        return []
    except OSError as exc:
        skip(root, f"cannot read the folder: {exc.strerror or exc}")
        return []
    return sorted(Path(e.path) for e in found)


def _names(folder: Path, skip: Skip) -> list[str]:
    return [p.name for p in _entries(folder, skip, dirs=False)]
