"""gptme conversations: where they are, which file holds each, and the `Source`.

gptme keeps each conversation in a folder of its logs folder: `$GPTME_LOGS_HOME`, else
`$XDG_DATA_HOME/gptme/logs`, else `~/.local/share/gptme/logs` (the data folder
`platformdirs` gives elsewhere: `~/Library/Application Support/gptme` on macOS,
`%LOCALAPPDATA%\\gptme\\gptme` on Windows). The folder's name is the conversation's id
(`2026-12-06-flying-sad-alien` when gptme named it, the name given to `--name`
otherwise) and holds:

- `conversation.jsonl`: the messages, one a line, appended as the conversation goes on
  and written again whole after an `/undo` or `/edit` (read on from a byte offset, read
  again from the start when the bytes before it changed: `gptme_records`);
- `config.toml`: `[chat] name` (the title gptme's model gave it, or `/rename`'s) and
  `workspace`, with `workspace` beside it, a link to the folder it works in;
- `branches/<name>.jsonl`: the conversation as it was before each `/undo` or `/edit`
  (`main-undo-0`, …): earlier copies of the same messages, not read;
- `lossless.jsonl`, once `/compact` replaced the conversation with a summary: every
  message, kept on as the conversation goes on. It is read instead, under the same id;
- `subagent-meta.json` in a subagent's folder (`subagent-<id>…`): `parent_logdir`,
  the folder of the conversation that started it.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from findsession.domain import MetaEvent, MetaKind, Resume, Session
from findsession.sources.base import Skip, Source, SourceFile, texts_by_line
from findsession.sources.cursor import Cursor, Reading, Record
from findsession.sources.gptme_records import PENDING_CAP, Calls, line_records, workdir
from findsession.sources.json_doc import side_object
from findsession.sources.jsonl import ReadStats, clean_text, iter_objects, read_with_state
from findsession.sources.opening import open_regular
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import option, resume_in_cwd
from findsession.sources.walking import walk

KIND = SourceKind.GPTME
CONVERSATION, LOSSLESS = "conversation.jsonl", "lossless.jsonl"
CONFIG, SUBAGENT = "config.toml", "subagent-meta.json"
_SIDE_BYTES = 1 << 20
#: How far into a conversation its system information is looked for (the messages
#: before the first prompt: gptme's own, the system prompt tens of KB among them).
_HEAD_LINES, _HEAD_BYTES = 16, 1 << 20
#: A name gptme gave, not a person: the day, then words (`2026-12-06-flying-sad-alien`);
#: its server's forks (`chat-<time>`), a UUID, a subagent's folder.
_GENERATED = re.compile(r"\A(?:\d{4}-\d{2}-\d{2}-|chat-\d|subagent-|[0-9a-f]{8}-[0-9a-f]{4}-)")


class GptmeSource(Source):
    """gptme's `logs/<conversation>/conversation.jsonl` (or its `lossless.jsonl`)."""

    kind = KIND

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        """Each conversation's file under `root` (the logs folder, one conversation's
        folder, a copy, or one file): its `lossless.jsonl` when it has one, else its
        `conversation.jsonl`. Nothing inside a conversation's folder is another's (its
        branches, views, and a workspace kept in it)."""
        if root.is_file():
            if root.name in (CONVERSATION, LOSSLESS):
                yield root
            return
        for folder, dirs, names in walk(root, skip):
            if CONVERSATION in names or LOSSLESS in names:
                yield folder / (LOSSLESS if LOSSLESS in names else CONVERSATION)
                dirs[:] = []

    def describe(self, path: Path) -> SourceFile:
        folder = path.parent
        supersedes = (folder / CONVERSATION,) if path.name == LOSSLESS else ()
        meta = side_object(folder / SUBAGENT) if folder.name.startswith("subagent-") else {}
        parent = meta.get("parent_logdir")
        parent_id = Path(parent).name if isinstance(parent, str) and parent.strip() else None
        prompt = meta.get("prompt")
        return SourceFile(
            path=path,
            source=KIND,
            session_id=folder.name,
            is_subagent=parent_id is not None,
            parent_id=parent_id,
            supersedes=supersedes,
            agent_type="subagent" if parent_id else None,
            agent_description=clean_text(prompt)[:500] if parent_id and isinstance(prompt, str)
            else None,
        )  # fmt: skip

    def stamp_paths(self, path: Path) -> list[str]:
        """`config.toml`, where a title lands (gptme names a conversation after its
        first replies) without a new message."""
        return [str(path.with_name(CONFIG))]

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        """The messages added since `cursor`; the calls still waiting for their result
        carry over in the cursor's state."""
        config = _config(sf.path.parent)
        cwd = workspace(sf.path.parent, config) or _head_workdir(fh) or _home_path(config)
        reading, _ = read_with_state(
            fh, cursor, lambda line, obj, calls: line_records(line, obj, calls, cwd),
            Calls, _restored, _state,
        )  # fmt: skip
        if not reading.binary:
            reading.records += _titles(sf.path.parent, config)
        return reading

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        """Each wanted message as the file holds it now, numbered as `read` did."""
        calls = Calls()
        records: list[Record] = []
        last = max(lines, default=0)
        with open_regular(str(path)) as fh:
            for number, obj in iter_objects(fh, 0, 0, ReadStats(0, 0)):
                records += line_records(number, obj, calls, None)
                if number >= last:
                    break
        return texts_by_line(records, lines)

    def resume(self, session: Session) -> Resume:
        """`gptme --name <id>`, what gptme itself prints to go back into a conversation
        (it opens the conversation of that name in its logs folder, from any folder),
        run in the conversation's workspace, where its tools work."""
        return resume_in_cwd(session, "gptme", *option("--name", session.id))

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: gptme keeps a title in `config.toml`; a line appended to the
        conversation would be read as a message."""
        return None


def workspace(folder: Path, config: dict[str, Any]) -> str | None:
    """The folder a conversation works in, as gptme finds it: the `workspace` link beside
    it (or the folder of that name, for a workspace kept in the log), else an absolute
    `[chat] workspace` of its `config.toml`."""
    link = folder / "workspace"
    try:
        if link.is_symlink():
            target = os.readlink(link)
            return clean_text(target) if os.path.isabs(target) else None
        if link.is_dir():
            return clean_text(str(link))
    except OSError:
        pass
    chat = config.get("chat") if isinstance(config.get("chat"), dict) else {}
    value = chat.get("workspace")
    if isinstance(value, str) and os.path.isabs(value):
        return clean_text(value)
    return None


def _home_path(config: dict[str, Any]) -> str | None:
    """`[chat] workspace` written from the home folder (`~/greeter`), as gptme reads it:
    in this machine's home."""
    chat = config.get("chat") if isinstance(config.get("chat"), dict) else {}
    value = chat.get("workspace")
    if isinstance(value, str) and value.startswith("~"):
        return clean_text(os.path.expanduser(value))
    return None


def _head_workdir(fh: IO[bytes]) -> str | None:
    """The workspace gptme's system information names, in the conversation's first
    messages (its hidden system messages, before the first prompt)."""
    fh.seek(0)
    spent = 0
    for _ in range(_HEAD_LINES):
        raw = fh.readline(_HEAD_BYTES)
        spent += len(raw)
        if not raw or spent > _HEAD_BYTES:
            break
        try:
            obj = json.loads(raw.decode("utf-8", "replace"))
        except (ValueError, RecursionError):
            continue
        if not isinstance(obj, dict) or obj.get("role") != "system":
            break
        found = workdir(obj)
        if found:
            return found
    return None


def _titles(folder: Path, config: dict[str, Any]) -> list[Record]:
    """`[chat] name`, the title gptme's model gave the conversation (or `/rename`'s: the
    file does not say which); and a name the person gave with `--name` (one that does
    not start with a day, as gptme's own names do), which wins."""
    records: list[Record] = []
    chat = config.get("chat") if isinstance(config.get("chat"), dict) else {}
    name = chat.get("name")
    if isinstance(name, str) and name.strip():
        records.append(MetaEvent(MetaKind.AI_TITLE, clean_text(name.strip())[:200], 0))
    if not _GENERATED.match(folder.name):
        records.append(MetaEvent(MetaKind.CUSTOM_TITLE, clean_text(folder.name)[:200], 0))
    return records


def _config(folder: Path) -> dict[str, Any]:
    """The conversation's `config.toml`; {} when it is missing or does not parse."""
    try:
        with open_regular(str(folder / CONFIG)) as fh:
            return tomllib.loads(fh.read(_SIDE_BYTES).decode("utf-8", "replace"))
    except (OSError, ValueError):
        return {}


def _state(calls: Calls) -> dict[str, str | int] | None:
    """The calls waiting for their result and the last one answered (ids and tool names:
    nothing of what was said, as the index keeps a cursor unredacted)."""
    if not calls.pending and calls.last is None:
        return None
    kept = {"pending": calls.pending[-PENDING_CAP:], "last": calls.last}
    return {"calls": json.dumps(kept)}


def _restored(cursor: Cursor | None) -> Calls:
    """The calls the last read left waiting for their result."""
    state = cursor.state if cursor is not None and cursor.state else {}
    try:
        kept = json.loads(str(state.get("calls", "{}")))
    except (ValueError, RecursionError):
        kept = {}
    kept = kept if isinstance(kept, dict) else {}
    pairs = kept.get("pending") if isinstance(kept.get("pending"), list) else []
    last = kept.get("last")
    return Calls(
        pending=[(p[0], p[1]) for p in pairs if _pair(p)],
        last=(last[0], last[1]) if _pair(last) else None,
    )


def _pair(value: Any) -> bool:
    return isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) for v in value)
