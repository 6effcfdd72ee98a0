"""iFlow CLI: where its sessions are, what their lines mean, and the `Source`.

iFlow CLI (a Gemini CLI fork whose sessions take Claude Code's shape) keeps its data in
`$IFLOW_HOME`, else `~/.iflow`; each session is `projects/<project>/<session id>.jsonl`,
`<project>` the folder the session ran in with every `/`, space and other sign made
`-`, the session id `session-<uuid>`. Each line is appended once: `{uuid, parentUuid,
sessionId, timestamp, type: user|assistant, isSidechain, message: {role, content},
cwd, gitBranch, version}`, with `toolUseResult: {toolName, status}` on a tool's result,
`isCompactSummary` on a compaction's summary and `isMeta` on what the CLI added: Claude
Code's lines, read by the same mapping (`claude_code_records.parse_record`). Two things
differ. A tool's result holds Gemini CLI's object, `{callId, responseParts:
{functionResponse: {response: {output | error}}}, resultDisplay}`, taken here for its
text. And while a reply streams, iFlow writes the assistant line again with the calls
still running, so a call comes in several lines: each is read once, at its first. The
models iFlow served think in the open: a reply's leading `<think>…</think>` is thinking.
What the CLI answers a slash command itself (an assistant line of model `slash-command`,
`{"slashCommandOutput": …}`) is harness text, not a reply.
(`SessionStorage` and `MessageManager` in iFlow CLI's published bundle.)

iFlow's service closed on 17 April 2026; the sessions stay on disk, and are read.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import IO, Any

from findsession.domain import Message, MessageKind, Resume, Session
from findsession.sources.base import Skip, Source, SourceFile, texts_by_line
from findsession.sources.claude_code_records import THINKING_CAP, parse_record
from findsession.sources.cursor import Cursor, Reading, Record
from findsession.sources.jsonl import (
    ReadStats,
    cap,
    clean_text,
    iter_objects,
    leading_thinking,
    read_appended,
)
from findsession.sources.opening import open_regular
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import option, resume_in_cwd
from findsession.sources.walking import walk

KIND = SourceKind.IFLOW
#: The "model" of an assistant line the CLI wrote itself, answering a slash command.
SLASH_COMMAND = "slash-command"
#: Calls remembered across reads to know one sent again: a call is re-sent in the lines
#: right after its first.
RECENT_CALLS = 64
_NOTE = (
    "iFlow's service closed on 17 April 2026: the CLI opens the session, but may no "
    "longer reach a model to go on with it."
)


class IflowSource(Source):
    """iFlow CLI's `projects/<project>/session-<id>.jsonl`."""

    kind = KIND
    #: 2: a reply's leading `<think>` block is thinking, not the reply; the CLI's own
    #: answer to a slash command is harness text.
    reads = 2

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        """Every session file under `root` (the projects folder, one project, or one
        session named itself)."""
        if root.is_file():
            if _is_session(root.name):
                yield root
            return
        for folder, _dirs, names in walk(root, skip):
            yield from (folder / name for name in names if _is_session(name))

    def describe(self, path: Path) -> SourceFile:
        return SourceFile(path=path, source=KIND, session_id=path.name[: -len(".jsonl")])

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        """The lines added since `cursor`; the calls seen last carry over in its state."""
        lines_before = cursor.lines if cursor is not None else 0
        seen: list[str] | None = None

        def parse(line: int, obj: dict[str, Any]) -> list[Record]:
            nonlocal seen
            if seen is None:  # a read from the top starts afresh, one read on goes on
                seen = _restored(cursor) if line > lines_before else []
            return line_records(line, obj, seen)

        reading = read_appended(fh, cursor, parse)
        if seen is None:
            seen = [] if reading.fresh else _restored(cursor)
        if reading.cursor.digest is not None and seen:
            state = {"calls": json.dumps(seen[-RECENT_CALLS:])}
            reading.cursor = Cursor(
                reading.cursor.offset, reading.cursor.lines, reading.cursor.digest, state
            )
        return reading

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        """Each wanted message as the file holds it now, numbered as `read` did."""
        seen: list[str] = []
        records: list[Record] = []
        with open_regular(str(path)) as fh:
            for number, obj in iter_objects(fh, 0, 0, ReadStats(0, 0)):
                records += line_records(number, obj, seen)
                if number >= max(lines, default=0):
                    break
        return texts_by_line(records, lines)

    def resume(self, session: Session) -> Resume:
        """`iflow --resume <id>`, in the session's folder: iFlow files sessions by the
        folder they ran in and looks the id up among that folder's."""
        return resume_in_cwd(session, "iflow", *option("--resume", session.id), note=_NOTE)

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: iFlow keeps no title of a session anywhere."""
        return None


def line_records(line: int, obj: dict[str, Any], seen: list[str]) -> list[Record]:
    """One line's records, a tool's result as its text (named after its tool), each
    call once, and a reply's leading `<think>` block as thinking."""
    records: list[Record] = []
    used = obj.get("toolUseResult")
    tool = used.get("toolName") if isinstance(used, dict) else None
    message = obj.get("message")
    own = isinstance(message, dict) and message.get("model") == SLASH_COMMAND
    for rec in parse_record(_readable(obj), line, False):
        if isinstance(rec, Message) and rec.kind is MessageKind.REPLY:
            records += [replace(rec, kind=MessageKind.HARNESS)] if own else _thought_apart(rec)
            continue
        if isinstance(rec, Message) and rec.kind is MessageKind.TOOL_OUTPUT and tool:
            rec = replace(rec, tool_name=clean_text(tool)) if isinstance(tool, str) else rec
        if isinstance(rec, Message) and rec.kind is MessageKind.TOOL_CALL and rec.tool_id:
            # A digest of the id: the cursor that keeps it is stored unredacted.
            key = hashlib.blake2b(rec.tool_id.encode("utf-8", "replace"), digest_size=8)
            if key.hexdigest() in seen:
                continue  # the same call, sent again while the reply streamed
            seen.append(key.hexdigest())
            del seen[:-RECENT_CALLS]
        records.append(rec)
    return records


def _thought_apart(reply: Message) -> list[Record]:
    """A reply that opens with `<think>…</think>` (the models iFlow served, MiniMax's and
    others, think in the open): the thinking, then what follows it, if anything."""
    thought, said = leading_thinking(reply.text)
    if not thought:
        return [reply]
    out: list[Record] = [replace(reply, kind=MessageKind.THINKING, text=cap(thought, THINKING_CAP))]
    return out + ([replace(reply, text=said.strip())] if said.strip() else [])


def _readable(obj: dict[str, Any]) -> dict[str, Any]:
    """The line with each tool result's Gemini-style object made its text, and marked
    failed when `toolUseResult.status` says it did not succeed."""
    message = obj.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if obj.get("type") != "user" or not isinstance(content, list):
        return obj
    status = obj.get("toolUseResult")
    status = status.get("status") if isinstance(status, dict) else None
    failed = isinstance(status, str) and status not in ("success", "")
    blocks = [
        {**b, "content": _result_text(b.get("content")), "is_error": failed or b.get("is_error")}
        if isinstance(b, dict) and b.get("type") == "tool_result"
        else b
        for b in content
    ]
    return {**obj, "message": {**message, "content": blocks}}


def _result_text(content: Any) -> Any:
    """A result's text: iFlow's object (`responseParts.functionResponse.response`'s
    `output` or `error`, else `resultDisplay`), or the content as it is."""
    if not isinstance(content, dict):
        return content
    parts = content.get("responseParts")
    call = parts.get("functionResponse") if isinstance(parts, dict) else None
    response = call.get("response") if isinstance(call, dict) else None
    if isinstance(response, dict):
        for key in ("output", "error"):
            if isinstance(response.get(key), str) and response[key].strip():
                return response[key]
    shown = content.get("resultDisplay")
    if isinstance(shown, str):
        return shown
    return json.dumps(shown, ensure_ascii=False) if shown is not None else ""


def _restored(cursor: Cursor | None) -> list[str]:
    state = cursor.state if cursor is not None and cursor.state else {}
    try:
        kept = json.loads(str(state.get("calls", "[]")))
    except (ValueError, RecursionError):
        return []
    return [c for c in kept if isinstance(c, str)] if isinstance(kept, list) else []


def _is_session(name: str) -> bool:
    return name.startswith("session-") and name.endswith(".jsonl")
