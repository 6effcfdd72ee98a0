"""Cline and Roo Code tasks: where the VS Code extensions keep them, and their `Source`s.

Each extension keeps a folder per task in its global storage, inside the editor's user
folder: `<User>/globalStorage/saoudrizwan.claude-dev/tasks/<id>/` (Cline; the id is the
task's start in ms) and `<User>/globalStorage/rooveterinaryinc.roo-cline/tasks/<id>/`
(Roo Code; Kilo Code's legacy tasks, `kilocode.kilo-code/tasks/`, share its layout). A
task is a session; its `ui_messages.json` (`ui_messages`) is what is read, whole, each
time its content changed (`json_doc`), as the extension rewrites it after every message.
Beside it Roo Code writes `history_item.json` (the folder it worked in, its parent task),
and Cline keeps `state/taskHistory.json` beside `tasks/` (the folder each task started in).

Neither extension has a command that opens a task from outside the editor, so neither
resumes: the reason says where to find the task instead. Cline's CLI keeps its sessions
apart, in a layout of its own (`cline_cli`); `ClineSource` reads them too, as Cline's,
and resumes them with the CLI's `cline --id <id>`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import IO, Any

from findsession.domain import Message, Problem, Resume, Session
from findsession.sources import cline_cli
from findsession.sources.base import Skip, Source, SourceFile, texts_by_line
from findsession.sources.cursor import Cursor, Reading, Record
from findsession.sources.json_doc import load_or_none, read_document, side_object
from findsession.sources.jsonl import clean_text
from findsession.sources.opening import open_regular
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import no_resume, option, resume_in_cwd
from findsession.sources.ui_messages import cwd_from_requests, ui_records
from findsession.sources.walking import walk

UI_FILE = "ui_messages.json"
_SIDECAR_MAX = 4 * 1024 * 1024


class _TaskSource(Source):
    """What Cline and Roo Code share: the task layout and the UI message list."""

    kind: str
    agent: str

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        """Every task's `ui_messages.json` under `root` (a tasks folder, one task, or a
        copy of either); a task folder's own subfolders (checkpoints) are not entered."""
        if root.is_file():
            if root.name == UI_FILE:
                yield root
            return

        for folder, dirs, files in walk(root, skip):
            if UI_FILE in files:
                dirs[:] = []
                yield folder / UI_FILE

    def describe(self, path: Path) -> SourceFile:
        task = path.parent
        item = _history_item(task)
        parent = item.get("parentTaskId")
        parent = parent if isinstance(parent, str) and parent and parent != task.name else None
        return SourceFile(
            path=path,
            source=self.kind,
            session_id=task.name,
            is_subagent=parent is not None,
            parent_id=parent,
            agent_type=_str(item.get("mode")) if parent else None,
        )

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        return read_document(fh, cursor, lambda doc, problems: self.records(sf, doc, problems))

    def records(self, sf: SourceFile, doc: Any, problems: list[Problem]) -> list[Message]:
        """The task's messages, each with the folder the task worked in."""
        records = ui_records(doc, problems)
        cwd = task_cwd(sf.path.parent) or cwd_from_requests(doc)
        if cwd is None:
            return records
        return [_with_cwd(r, cwd) for r in records]

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        """Each wanted message as the file holds it now, numbered as `read` numbered it."""
        with open_regular(str(path)) as fh:
            doc = load_or_none(fh.read())
        return texts_by_line(self.recorded(path, doc) if doc is not None else [], lines)

    def recorded(self, path: Path, doc: Any) -> list[Record]:
        """The records of a file read again for `read_back` (its text, not its folder)."""
        return ui_records(doc, [])

    def resume(self, session: Session) -> Resume:
        return no_resume(
            f"{self.agent} runs inside the editor and has no command that opens a task: "
            f"open it from {self.agent}'s task history in the editor."
        )

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: the extension rewrites its files whole, a line appended would be lost
        (and break the JSON)."""
        return None


class ClineSource(_TaskSource):
    """Cline's tasks (`saoudrizwan.claude-dev`), in every editor that hosts it, and the
    sessions of its CLI (`cline_cli`)."""

    kind = SourceKind.CLINE
    #: 2: a CLI session's tool result holding the CLI's operation results (`{query,
    #: result, error, success}`) is their text, failed when one did not succeed; a
    #: command's output was empty and never failed, an edit's was its JSON.
    reads = 2
    agent = "Cline"

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        """The extension's tasks under `root` and the CLI's sessions: each session
        folder's `<stem>.messages.json` (the lead's and any teammate's)."""
        if root.is_file():
            if cline_cli.is_messages(root):
                yield root
            else:
                yield from super().discover(root, skip)
            return
        for folder, dirs, files in walk(root, skip):
            if UI_FILE in files:
                dirs[:] = []
                yield folder / UI_FILE
                continue
            found = sorted(f for f in files if cline_cli.is_messages(Path(f)))
            if found:
                dirs[:] = []
                yield from (folder / f for f in found)

    def describe(self, path: Path) -> SourceFile:
        if not cline_cli.is_messages(path):
            return super().describe(path)
        lead = path.parent.name
        own = cline_cli.stem(path)
        teammate = own != lead
        return SourceFile(
            path=path,
            source=self.kind,
            session_id=f"{lead}:{own}" if teammate else own,
            is_subagent=teammate,
            parent_id=lead if teammate else None,
        )

    def records(self, sf: SourceFile, doc: Any, problems: list[Problem]) -> list[Message]:
        if not cline_cli.is_messages(sf.path):
            return super().records(sf, doc, problems)
        manifest = side_object(sf.path.parent / f"{sf.path.parent.name}.json")
        return cline_cli.session_records(doc, manifest, problems)  # type: ignore[return-value]

    def recorded(self, path: Path, doc: Any) -> list[Record]:
        if not cline_cli.is_messages(path):
            return super().recorded(path, doc)
        return cline_cli.session_records(doc, {}, [])

    def resume(self, session: Session) -> Resume:
        """The CLI's own sessions resume in the CLI (`cline --id`, which opens its
        terminal UI and runs its tools in the folder it starts in); the extension's
        tasks only in the editor."""
        if session.file_path and cline_cli.is_messages(Path(session.file_path)):
            lead = session.id.split(":", 1)[0]
            return resume_in_cwd(session, "cline", *option("--id", lead))
        return super().resume(session)


class RooCodeSource(_TaskSource):
    """Roo Code's tasks (`rooveterinaryinc.roo-cline`) and Kilo Code's legacy ones."""

    kind = SourceKind.ROO_CODE
    agent = "Roo Code"


def task_cwd(task: Path) -> str | None:
    """The folder a task worked in: Roo Code's `history_item.json` `workspace`, else the
    `cwdOnTaskInitialization` Cline's `state/taskHistory.json` gives the task's id."""
    workspace = _history_item(task).get("workspace")
    if isinstance(workspace, str) and workspace:
        return _str(workspace)
    history = task.parent.parent / "state" / "taskHistory.json"
    try:
        stat = history.stat()
    except OSError:
        return None
    return _cline_history(str(history), stat.st_mtime_ns, stat.st_size).get(task.name)


def _history_item(task: Path) -> dict[str, Any]:
    """Roo Code's `history_item.json` of a task; empty when there is none or it is broken."""
    doc = _small_json(task / "history_item.json")
    return doc if isinstance(doc, dict) else {}


@lru_cache(maxsize=8)
def _cline_history(path: str, mtime_ns: int, size: int) -> dict[str, str]:
    """Task id -> the folder it started in, from Cline's task history (read once per
    change of it: a first run describes every task beside it)."""
    doc = _small_json(Path(path), limit=64 * _SIDECAR_MAX)
    found: dict[str, str] = {}
    for entry in doc if isinstance(doc, list) else []:
        if isinstance(entry, dict):
            tid, cwd = entry.get("id"), entry.get("cwdOnTaskInitialization")
            if isinstance(tid, str | int) and isinstance(cwd, str) and cwd:
                found[str(tid)] = _str(cwd)
    return found


def _small_json(path: Path, limit: int = _SIDECAR_MAX) -> Any:
    try:
        with open_regular(str(path)) as fh:
            data = fh.read(limit + 1)
    except OSError:
        return None
    if len(data) > limit:
        return None
    try:
        return json.loads(data.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return None


def _with_cwd(rec: Message, cwd: str) -> Message:
    return replace(rec, cwd=cwd)


def _str(value: Any) -> str | None:
    return clean_text(value) if isinstance(value, str) and value else None
