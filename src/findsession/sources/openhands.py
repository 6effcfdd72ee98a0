"""OpenHands: where its CLI keeps conversations, and the `Source` that reads them.

The OpenHands CLI (built on the OpenHands agent SDK) keeps each conversation in
`$OPENHANDS_CONVERSATIONS_DIR`, else `$OPENHANDS_PERSISTENCE_DIR/conversations`, else
`~/.openhands/conversations` (every system): a folder named by the conversation's id,
holding `base_state.json` (the conversation's state: its id, the agent, the workspace's
`working_dir`) and `events/`, one file per event (`openhands_records`), written once each.
A subagent started by the `task` or `delegate` tool keeps a conversation folder of its
own under its parent's `subagents/`.

The OpenHands app (its first server, run from its Docker image with `~/.openhands`
mounted as its file store) keeps each conversation in `~/.openhands/sessions/<id>/`:
`metadata.json` (its title, repository and branch, times) and `events/<n>.json`, one
file per event (`openhands_app_records`), beside pickled agent state and an
`event_cache/` of the same events in pages of 25, not read. A folder with no
`metadata.json` (the app lists none such) is not read either.

A conversation is its `base_state.json` (its `metadata.json` in the app), read with all
its events whenever the list of event files changed (the events folder is part of its
stamp), so an unchanged conversation costs two stats. OpenHands deletes a conversation
only when the person does.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from findsession.domain import MetaEvent, MetaKind, Problem, Resume, Session
from findsession.sources import budget
from findsession.sources.base import Skip, Source, SourceFile, texts_by_line
from findsession.sources.cursor import Cursor, Reading, Record
from findsession.sources.jsonl import clean_text
from findsession.sources.openhands_app_records import app_event_records
from findsession.sources.openhands_records import event_records
from findsession.sources.opening import open_regular
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import no_resume, option, resume_in_cwd
from findsession.sources.walking import walk

KIND = SourceKind.OPENHANDS
STATE = "base_state.json"
#: The app's conversation, beside its `events/`.
APP_STATE = "metadata.json"
#: The SDK's event file names: `event-<index>-<event id>.json`.
EVENT_NAME = re.compile(r"event-(\d{5,})-[0-9a-fA-F-]{8,}\.json")
#: The app's: `<event id>.json`.
APP_EVENT_NAME = re.compile(r"(\d{1,9})\.json")
_EVENT_BYTES = 16 << 20


class OpenHandsSource(Source):
    """The OpenHands CLI's `conversations/<id>/`, and the app's `sessions/<id>/`."""

    kind = KIND

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        """Every conversation's `base_state.json` under `root` (subagents' too), and every
        app conversation's `metadata.json` beside its `events/`."""
        if root.is_file():
            if root.name == STATE or (root.name == APP_STATE and _is_app(root.parent)):
                yield root
            return
        for folder, dirs, names in walk(root, skip):
            if STATE in names:
                yield folder / STATE
            elif APP_STATE in names and "events" in dirs:
                yield folder / APP_STATE
            # one file per event, and the app's pages of them: not walked
            dirs[:] = [d for d in dirs if d not in ("events", "event_cache")]

    def describe(self, path: Path) -> SourceFile:
        folder = path.parent
        if folder.parent.name == "subagents":
            parent = folder.parent.parent.name
            return SourceFile(path, KIND, folder.name, is_subagent=True, parent_id=parent)
        return SourceFile(path=path, source=KIND, session_id=folder.name)

    def stamp_paths(self, path: Path) -> list[str]:
        """The events folder: a new event is a new file there."""
        return [str(path.parent / "events")]

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        """Every event, whole, when the conversation's list of event files changed."""
        fh.seek(0)
        head = fh.read(_EVENT_BYTES)
        app = sf.path.name == APP_STATE
        cwd = None if app else _cwd(head)
        events = _events(sf.path.parent / "events", app)
        listing = "\n".join(f"{path.name}:{size}" for _, path, size in events)
        # the app's metadata whole: a new title is a change too
        held = head.decode("utf-8", "replace") if app else cwd
        digest = (
            "blake2b:"
            + hashlib.blake2b(
                f"{held}\n{listing}".encode("utf-8", "replace"), digest_size=16
            ).hexdigest()
        )
        now = Cursor(offset=0, lines=len(events), digest=digest)
        if cursor is not None and cursor.digest == digest:
            return Reading([], now, fresh=False, unchanged=True)
        problems: list[Problem] = []
        records = _app_records(events, head, problems) if app else _records(events, cwd, problems)
        return Reading(
            records,
            now,
            fresh=True,
            bytes_read=sum(size for _, _, size in events),
            lines_read=len(events),
            problems=problems,
        )

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        """Each wanted message as its event file holds it now, numbered as `read` did."""
        with open_regular(str(path)) as fh:
            head = fh.read(_EVENT_BYTES)
        app = path.name == APP_STATE
        wanted = [e for e in _events(path.parent / "events", app) if e[0] + 1 in lines]
        if app:
            return texts_by_line(_app_records(wanted, head, []), lines)
        return texts_by_line(_records(wanted, _cwd(head), []), lines)

    def resume(self, session: Session) -> Resume:
        """`openhands --resume <id>`, the CLI's own way back into a conversation, in the
        folder the conversation worked in (its agent works in the folder it starts in).
        None for the app's: it opens a conversation in its web page."""
        if session.file_path and Path(session.file_path).name == APP_STATE:
            return no_resume(
                "Open the conversation in the OpenHands app's page (its list of"
                f" conversations, or /conversations/{session.id})."
            )
        return resume_in_cwd(session, "openhands", *option("--resume", session.id))

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: a conversation's events are written once each; none holds a title."""
        return None


def _is_app(folder: Path) -> bool:
    return (folder / "events").is_dir() and not (folder / STATE).exists()


def _events(folder: Path, app: bool = False) -> list[tuple[int, Path, int]]:
    """`(index, path, size)` of each event file, in the order they were written."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    found = []
    name = APP_EVENT_NAME if app else EVENT_NAME
    for entry in entries:
        match = name.fullmatch(entry.name)
        if match and entry.is_file(follow_symlinks=False):
            try:
                found.append((int(match.group(1)), Path(entry.path), entry.stat().st_size))
            except OSError:
                continue
    return sorted(found)


def _records(
    events: list[tuple[int, Path, int]], cwd: str | None, problems: list[Problem]
) -> list[Record]:
    unknown: dict[str, list[int]] = {}
    records: list[Record] = []
    for line, event in _loaded(events, problems):
        records += event_records(event, line, cwd, unknown)
    _unknown(unknown, problems)
    return records


def _app_records(
    events: list[tuple[int, Path, int]], metadata: bytes, problems: list[Problem]
) -> list[Record]:
    """The app's events, on the branch its `metadata.json` names, and its title."""
    try:
        meta: Any = json.loads(metadata.decode("utf-8", "replace"))
    except (ValueError, RecursionError) as exc:
        problems.append(Problem(0, "unreadable metadata", str(exc)))
        meta = None
    meta = meta if isinstance(meta, dict) else {}
    unknown: dict[str, list[int]] = {}
    records: list[Record] = []
    branch = meta.get("selected_branch")
    branch = clean_text(branch) if isinstance(branch, str) and branch else None
    for line, event in _loaded(events, problems):
        records += app_event_records(event, line, branch, unknown)
    _unknown(unknown, problems)
    title = meta.get("title")
    if isinstance(title, str) and title.strip():
        records.append(MetaEvent(MetaKind.CUSTOM_TITLE, clean_text(title).strip()[:200], 0))
    return records


def _loaded(
    events: list[tuple[int, Path, int]], problems: list[Problem]
) -> Iterator[tuple[int, Any]]:
    """`(line, event)` of each event file that reads, its line one past its index."""
    spend = budget.current()
    for index, path, size in events:
        if not spend.line():
            break
        line = index + 1
        if size > _EVENT_BYTES:
            problems.append(Problem(line, "event too large", f"{path.name}: {size:,} bytes"))
            continue
        try:
            with open_regular(str(path)) as fh:
                event = json.loads(fh.read().decode("utf-8", "replace"))
        except (OSError, ValueError, RecursionError) as exc:
            problems.append(Problem(line, "unreadable event", f"{path.name}: {exc}"))
            continue
        yield line, event


def _unknown(unknown: dict[str, list[int]], problems: list[Problem]) -> None:
    for kind, lines in unknown.items():
        count = f"{len(lines)} event" + ("" if len(lines) == 1 else "s")
        problems.append(Problem(lines[0], "unknown event", f"{kind} ({count})"))


def _cwd(data: bytes) -> str | None:
    """The conversation's `workspace.working_dir`, from its state."""
    try:
        state: Any = json.loads(data.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return None
    workspace = state.get("workspace") if isinstance(state, dict) else None
    where = workspace.get("working_dir") if isinstance(workspace, dict) else None
    return clean_text(where) if isinstance(where, str) and where else None
