"""Write small Claude Code transcripts in the real on-disk format, for tests.

Each method appends the lines Claude Code itself would write (see
docs/transcript-formats in the project notes): typed prompts, assistant replies split
over several lines sharing `message.id`, tool calls and results, titles, summaries.
"""

from __future__ import annotations

import json
import uuid as uuidlib
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any


class Transcript:
    """Builds one session file; `lines` are dicts until `write()` or `append_to()`."""

    def __init__(
        self,
        session_id: str | None = None,
        cwd: str = "/home/dev/code/app",
        start: datetime | None = None,
        version: str = "2.1.30",
        sidechain: bool = False,
        agent_id: str | None = None,
    ) -> None:
        self.session_id = session_id or str(uuidlib.uuid4())
        self.cwd = cwd
        self.time = start or datetime(2026, 6, 11, 9, 0, tzinfo=UTC)
        self.version = version
        self.sidechain = sidechain
        self.agent_id = agent_id
        self.lines: list[dict[str, Any]] = []
        self.parent: str | None = None
        self._n = 0

    def _next_uuid(self) -> str:
        self._n += 1
        return str(
            uuidlib.uuid5(
                uuidlib.NAMESPACE_URL,
                f"{self.session_id}/{self.agent_id}/{self.sidechain}/{self._n}",
            )
        )

    def _base(self, kind: str) -> dict[str, Any]:
        self.time += timedelta(seconds=30)
        uid = self._next_uuid()
        line: dict[str, Any] = {
            "parentUuid": self.parent,
            "isSidechain": self.sidechain,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": self.version,
            "gitBranch": "main",
            "type": kind,
            "uuid": uid,
            "timestamp": self.time.strftime("%Y-%m-%dT%H:%M:%S.000Z"),
        }
        if self.agent_id:
            line["agentId"] = self.agent_id
        self.parent = uid
        return line

    def prompt(self, text: str | list[dict[str, Any]], **extra: Any) -> Transcript:
        line = self._base("user")
        line["message"] = {"role": "user", "content": text}
        line.update(extra)
        self.lines.append(line)
        return self

    def reply(self, *blocks: str | dict[str, Any], message_id: str | None = None) -> Transcript:
        """One API reply: each block on its own line, all sharing one message.id."""
        mid = message_id or f"msg_{self.session_id[:8]}_{self._n}"
        for block in blocks:
            content = {"type": "text", "text": block} if isinstance(block, str) else block
            line = self._base("assistant")
            line["message"] = {
                "id": mid,
                "type": "message",
                "role": "assistant",
                "model": "claude-test",
                "content": [content],
                "usage": {"input_tokens": 10, "output_tokens": 5},
            }
            line["requestId"] = "req_" + mid
            self.lines.append(line)
        return self

    def tool(
        self, name: str, tool_input: dict[str, Any], output: str, is_error: bool = False
    ) -> Transcript:
        """An assistant tool_use line and the user line carrying its result."""
        tool_id = f"toolu_{self._n:04d}"
        self.reply({"type": "tool_use", "id": tool_id, "name": name, "input": tool_input})
        line = self._base("user")
        result: dict[str, Any] = {"type": "tool_result", "tool_use_id": tool_id, "content": output}
        if is_error:
            result["is_error"] = True
        line["message"] = {"role": "user", "content": [result]}
        line["toolUseResult"] = {"stdout": output[:100]}
        self.lines.append(line)
        return self

    def attachment(self, attachment: dict[str, Any]) -> Transcript:
        """An `attachment` record (2.1.x): what the harness adds to the conversation,
        with the fields of a user or assistant line."""
        line = self._base("attachment")
        line["attachment"] = attachment
        self.lines.append(line)
        return self

    def meta_line(self, kind: str, **fields: Any) -> Transcript:
        self.lines.append({"type": kind, **fields, "sessionId": self.session_id})
        return self

    def title(self, text: str, kind: str = "custom-title") -> Transcript:
        key = {"custom-title": "customTitle", "ai-title": "aiTitle"}[kind]
        return self.meta_line(kind, **{key: text})

    def raw(self, text: str) -> Transcript:
        """A line exactly as given (malformed JSON, say)."""
        self.lines.append({"__raw__": text})
        return self

    def render(self) -> bytes:
        out = []
        for line in self.lines:
            if "__raw__" in line:
                out.append(line["__raw__"])
            else:
                out.append(json.dumps(line, ensure_ascii=False))
        return ("\n".join(out) + "\n").encode("utf-8") if out else b""

    def write(self, folder: Path, name: str | None = None) -> Path:
        """Write the lines so far as a new file; later lines go through `append_to`."""
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / (name or f"{self.session_id}.jsonl")
        path.write_bytes(self.render())
        self.lines = []
        return path

    def append_to(self, path: Path) -> bytes:
        """Append the lines added since the last write/append; return the bytes added."""
        data = self.render()
        with open(path, "ab") as fh:
            fh.write(data)
        self.lines = []
        return data


def project_dir(root: Path, cwd: str) -> Path:
    """Claude Code's folder name for a cwd: every non-alphanumeric character becomes '-'."""
    return root / "".join(c if c.isalnum() and c.isascii() else "-" for c in cwd)
