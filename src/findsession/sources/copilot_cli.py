"""GitHub Copilot CLI sessions: where they are, what a file is, and the `Source` that
reads them.

This module and `copilot_cli_records` are the only code that knows Copilot CLI's format.
The CLI keeps one folder per session in `$COPILOT_HOME/session-state/` (default
`~/.copilot`): `<session id>/events.jsonl`, an append-only log of typed events, beside
`workspace.yaml` (the session's `name` and `cwd`, among other scalars). Older builds
wrote the log flat, `session-state/<session id>.jsonl`; where both exist the folder's
log is the live one. The Copilot desktop app shares the folder (`client_name` in
`workspace.yaml` tells them apart): its sessions are read the same way.

`session-store.db` beside it is an index the CLI derives from these logs, so it is not
read: it holds nothing the logs do not.

The first builds kept a session as one JSON document in `$COPILOT_HOME/
history-session-state/` (`copilot_cli_history`), read whole when its content changed;
one whose session also has a log in `session-state/` is left to the log. 1.0.10's
`workspace.yaml` holds the session's title as `summary:` (the CLI's own) where later
builds write `name:` (the person's, `/rename`).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import IO

from findsession.domain import MetaEvent, MetaKind, Resume, Session
from findsession.sources.base import Skip, Source, SourceFile, texts_by_line
from findsession.sources.copilot_cli_history import history_records, session_of
from findsession.sources.copilot_cli_records import EventParser
from findsession.sources.cursor import Cursor, Reading
from findsession.sources.json_doc import load_or_none, read_document
from findsession.sources.jsonl import clean_text, read_appended, texts_at
from findsession.sources.names import entry_name
from findsession.sources.opening import open_regular
from findsession.sources.places.clis import COPILOT_HISTORY as HISTORY
from findsession.sources.places.clis import COPILOT_STATE as STATE
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import option, resume_in_cwd
from findsession.sources.walking import walk

KIND = SourceKind.COPILOT_CLI
EVENTS = "events.jsonl"
WORKSPACE = "workspace.yaml"
#: `workspace.yaml` is a few hundred bytes; more than this is not one the CLI wrote.
_WORKSPACE_MAX = 64 * 1024


class CopilotCliSource(Source):
    """GitHub Copilot CLI's `~/.copilot/session-state/`."""

    kind = KIND
    #: 2: `workspace.yaml` is read as YAML, so a summary over several lines (a block
    #: scalar, a quoted one) is the title, not `|-` or its first line; a first-layout
    #: document's folder is the one its timeline says was trusted.
    #: 3: a tool call's arguments are read as every source reads them (`tool_args`): ones
    #: that are not an object (a list, a number) are shown as JSON, not dropped; a value
    #: over several lines is not one of the call's files.
    #: 4: a subagent's task written again as an inter-agent `user.message` (1.0.102) is
    #: not a prompt of the parent; a shell command that exited other than 0 is failed.
    reads = 4

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        return discover(root, skip)

    def describe(self, path: Path) -> SourceFile:
        return describe(path)

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        if is_history(sf.path):
            return read_document(fh, cursor, history_records)
        workspace = read_workspace(sf.path)
        parser = EventParser(workspace.get("cwd"))
        reading = read_appended(fh, cursor, parser.parse)
        # Line 0: not a line of the log. `/rename` sets `name`, so it is the person's;
        # 1.0.10 wrote the CLI's own title as `summary`.
        name, summary = workspace.get("name"), workspace.get("summary")
        if name and not reading.binary:
            reading.records.append(MetaEvent(MetaKind.CUSTOM_TITLE, name, 0))
        elif summary and not reading.binary:
            reading.records.append(MetaEvent(MetaKind.AI_TITLE, summary, 0))
        return reading

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: the name lives in `workspace.yaml`, which the CLI rewrites; findsession
        appends to no file but a transcript, and this log has no title event."""
        return None

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        """Each wanted message as the log holds it now. The log is parsed from its start,
        so a subagent's prompt names the task its parent gave, as it was indexed."""
        if is_history(path):
            with open_regular(str(path)) as fh:
                doc = load_or_none(fh.read())
            return texts_by_line(history_records(doc, []) if doc is not None else [], lines)
        parser = EventParser(read_workspace(path).get("cwd"))
        with open_regular(str(path)) as fh:
            return texts_at(fh, lines, parser.parse)

    def resume(self, session: Session) -> Resume:
        """`copilot --resume <id>`, in the session's directory: the CLI's own way back
        into a session, which then works in the directory it is started in."""
        return resume_in_cwd(session, "copilot", *option("--resume", session.id))


def discover(root: Path, skip: Skip | None = None) -> Iterator[Path]:
    """Every session log under `root`: each folder's `events.jsonl` (its other files and
    folders, checkpoints and plans, are not walked), and a flat `<id>.jsonl` in a
    `session-state` folder (or in the root) where no `<id>/events.jsonl` sits beside it.
    A Copilot home named as a root is read through its `session-state`. Symlinked
    folders are not followed."""
    if root.is_file():
        if root.name.endswith(".jsonl") or is_history(root):
            yield root
        return
    if (root / STATE).is_dir() or (root / HISTORY).is_dir():
        for place in (STATE, HISTORY):
            if (root / place).is_dir():
                yield from discover(root / place, skip)
        return
    if root.name == HISTORY:
        yield from _history_files(root, skip)
        return

    for base, dirs, files in walk(root, skip):
        if EVENTS in files:
            dirs[:] = []  # a session's folder: the rest is checkpoints and files
            yield base / EVENTS
            continue
        if base == root or base.name == STATE:
            for name in sorted(files):
                stem = name[: -len(".jsonl")]
                if name.endswith(".jsonl") and not (base / stem / EVENTS).is_file():
                    yield base / name


def _history_files(folder: Path, skip: Skip | None) -> Iterator[Path]:
    """The first layout's session documents in `folder`, but those whose session also has
    a log in `session-state/` beside it (the later CLI's own copy, which goes on)."""
    state = folder.parent / STATE
    for base, dirs, files in walk(folder, skip):
        dirs[:] = []
        for name in files:
            sid = session_of(name)
            if sid is None:
                continue
            logged = entry_name(sid) and (
                (state / sid / EVENTS).is_file() or (state / f"{sid}.jsonl").is_file()
            )
            if not logged:
                yield base / name


def is_history(path: Path) -> bool:
    """Whether `path` is a session document of the first layout."""
    return session_of(path.name) is not None


def describe(path: Path) -> SourceFile:
    """The session a log holds: its folder's name (the CLI names it by the session id),
    or, for a flat log, its file name; a first-layout document's, from its name."""
    if is_history(path):
        return SourceFile(path=path, source=KIND, session_id=session_of(path.name) or path.stem)
    sid = path.parent.name if path.name == EVENTS else path.name.removesuffix(".jsonl")
    return SourceFile(path=path, source=KIND, session_id=sid)


def read_workspace(log: Path) -> dict[str, str]:
    """The scalars of the `workspace.yaml` beside a log (`name`, `cwd`, …); empty when
    there is none or it cannot be read. It is YAML: the CLI writes a long `summary` as a
    block scalar (`|-`) or a quoted one over several lines, so it is read as YAML, and as
    flat `key: value` lines only where it is not (caught half written)."""
    if log.name != EVENTS:
        return {}
    try:
        with open_regular(str(log.with_name(WORKSPACE))) as fh:
            text = fh.read(_WORKSPACE_MAX).decode("utf-8", "replace")
    except OSError:
        return {}
    return _yaml_scalars(text) or _flat_scalars(text)


def _yaml_scalars(text: str) -> dict[str, str]:
    """The top-level scalars of a YAML mapping, as text; empty when it is no mapping."""
    import yaml  # on first use: most reads are of other sources

    try:
        data = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (yaml.YAMLError, ValueError, RecursionError):
        return {}
    if not isinstance(data, dict):
        return {}
    found: dict[str, str] = {}
    for key, value in data.items():
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            continue
        text_value = clean_text(str(value)).strip()
        if isinstance(key, str) and key and text_value:
            found[key] = text_value
    return found


def _flat_scalars(text: str) -> dict[str, str]:
    """`key: value` lines, for a file YAML cannot read: nothing nested in it is used."""
    found: dict[str, str] = {}
    for line in text.splitlines():
        if line[:1].isspace() or line.startswith("#") or ":" not in line:
            continue
        key, value = (s.strip() for s in line.split(":", 1))
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        if key and value:
            found[key] = clean_text(value)
    return found
