"""Factory Droid sessions: where they are, what their lines mean, and the `Source`.

This module is the only code that knows Droid's format. A session is
`~/.factory/sessions/<project>/<session id>.jsonl` (`.factory` under
`$FACTORY_HOME_OVERRIDE` when set; `<project>` is the working directory with `/` made
`-`, a lossy name the records' `cwd` replaces; the earliest builds wrote the files
straight into `sessions/`), beside a `<session id>.settings.json` that holds the model.
Line 1 is `session_start` (`id`, `title`, `cwd`; a `Task` worker's names the session that
ran it in `callingSessionId`); then `message` lines `{id, parentId, timestamp,
message{role, content}}` whose content is Anthropic message blocks, the shapes Claude
Code writes: they are read by the same mapping (`claude_code_records.parse_record`).
Droid puts `<system-reminder>`s in front of what the person typed (or in a message of
their own); they are cut off, so the prompt is what was typed. A user message Droid
marks as its own (`visibility` `llm_only`: a background task's completion told to the
model, the summary a compaction carries on with; `user_only`: its notices, errors and
hook status, which it stores as a user message; `hiddenFromUserViews`; a hook's
`hookEventName`) is harness text, never a prompt.

A file only grows: it is read on from the JSON-lines cursor.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from findsession.domain import MetaEvent, MetaKind, Resume, Session
from findsession.sources.base import Skip, Source, SourceFile
from findsession.sources.claude_code_records import parse_record
from findsession.sources.cursor import Cursor, Reading, Record
from findsession.sources.jsonl import clean_text, read_appended, texts_at
from findsession.sources.opening import open_regular
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import option, resume_in_cwd
from findsession.sources.walking import files_ending

KIND = SourceKind.DROID
_HEADER_BYTES = 64 * 1024
#: The reminders Droid injects ahead of the typed text, in the same text block.
_REMINDERS = re.compile(r"\A(?:\s*<system-reminder>.*?</system-reminder>)+\s*", re.DOTALL)


class DroidSource(Source):
    """Factory Droid's `~/.factory/sessions/**/*.jsonl`."""

    kind = KIND
    #: 2: Droid's own user messages (a background task's completion told to its model,
    #: its notices, hooks') are harness, not prompts; a `Task` worker is linked to its caller.
    reads = 2

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        return discover(root, skip)

    def describe(self, path: Path) -> SourceFile:
        header = _header(path)
        sid = header.get("id")
        if not isinstance(sid, str) or not sid:
            sid = path.name[: -len(".jsonl")]
        caller = header.get("callingSessionId")
        caller = clean_text(caller) if isinstance(caller, str) and caller else None
        return SourceFile(
            path=path,
            source=KIND,
            session_id=clean_text(sid),
            is_subagent=caller is not None,
            parent_id=caller,
        )

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        # A read from the cursor starts after `session_start`: its `cwd` is read again.
        cwd = _header(fh).get("cwd") if cursor is not None else None
        return read_appended(fh, cursor, DroidParser(cwd if isinstance(cwd, str) else None).parse)

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: Droid keeps a session's title in its `session_start` line, written once
        at the top of the file; there is no record to append."""
        return None

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        parser = DroidParser()
        with open_regular(str(path)) as fh:
            return texts_at(fh, lines, parser.parse)

    def resume(self, session: Session) -> Resume:
        """`droid --resume <id>`, in the session's directory: Droid files each session
        under the directory it was started in."""
        return resume_in_cwd(session, "droid", *option("--resume", session.id))


class DroidParser:
    """Turns a session file's lines into records; knows the `session_start` cwd."""

    def __init__(self, cwd: str | None = None) -> None:
        self.cwd = cwd

    def parse(self, line: int, obj: dict[str, Any]) -> list[Record]:
        """Records of one line; unknown kinds give none."""
        kind = obj.get("type")
        if kind == "session_start":
            cwd = obj.get("cwd")
            self.cwd = cwd if isinstance(cwd, str) and cwd else self.cwd
            title = next(
                (t for t in (obj.get("sessionTitle"), obj.get("title")) if isinstance(t, str)),
                "",
            ).strip()
            return [MetaEvent(MetaKind.AI_TITLE, clean_text(title), line)] if title else []
        message = obj.get("message")
        if kind != "message" or not isinstance(message, dict):
            return []
        role = message.get("role")
        if role not in ("user", "assistant"):
            return []
        content = message.get("content")
        if role == "user":
            content = _without_reminders(content)
        shaped = {
            "type": role,
            "timestamp": obj.get("timestamp"),
            "cwd": obj.get("cwd") or self.cwd,
            "message": {"role": role, "content": content},
            "isMeta": role == "user" and _droids_own(message),
        }
        return list(parse_record(shaped, line, in_subagent_file=True))


def _droids_own(message: dict[str, Any]) -> bool:
    """A user message Droid wrote, not the person: shown only to its model or only to
    the person, hidden, or a hook's (as Droid itself leaves them out of what was typed)."""
    visibility = message.get("visibility")
    return (
        (visibility is not None and visibility != "both")
        or message.get("hiddenFromUserViews") is True
        or message.get("hookEventName") is not None
    )


def _without_reminders(content: Any) -> Any:
    """The user's content with the leading reminders cut from its text."""
    if isinstance(content, str):
        return _REMINDERS.sub("", content)
    if not isinstance(content, list):
        return content
    out = []
    for block in content:
        if isinstance(block, dict) and block.get("type") == "text":
            text = block.get("text")
            if isinstance(text, str):
                text = _REMINDERS.sub("", text)
                if not text.strip():
                    continue
                block = {**block, "text": text}
        out.append(block)
    return out


def discover(root: Path, skip: Skip | None = None) -> Iterator[Path]:
    """Every session file under `root`."""
    return files_ending(root, skip, ".jsonl")


def _header(source: Path | IO[bytes]) -> dict[str, Any]:
    """Line 1 when it is `session_start`; else nothing."""
    try:
        if isinstance(source, Path):
            with open_regular(str(source)) as fh:
                raw = fh.readline(_HEADER_BYTES)
        else:
            source.seek(0)
            raw = source.readline(_HEADER_BYTES)
        obj = json.loads(raw.decode("utf-8", "replace"))
    except (OSError, ValueError, RecursionError):
        return {}
    return obj if isinstance(obj, dict) and obj.get("type") == "session_start" else {}
