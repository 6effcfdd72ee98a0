"""The rows the store hands to the indexer and takes back from it."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

#: Columns of `sessions` that are fields of `Session`, under the same names.
_SESSION_COLUMNS = (
    "id",
    "source",
    "file_path",
    "cwd",
    "title",
    "first_ts",
    "last_ts",
    "git_branch",
    "version",
    "parent_id",
    "is_subagent",
    "agent_type",
    "n_turns",
    "n_messages",
    "missing",
)


@dataclass(slots=True)
class FileState:
    """What the index remembers of one transcript file, to read only what changed."""

    path: str
    source: str
    root: str | None
    session_id: str | None
    size: int
    mtime_ns: int
    offset: int
    lines: int
    tail_hash: str | None
    status: str = "ok"
    error: str | None = None


@dataclass(frozen=True, slots=True)
class UnitRow:
    """A searchable unit as the store keeps it."""

    kind: str
    ordinal: int
    source: str
    ts: str | None
    title: str
    prompt: str
    reply: str
    tools: str
    tool_names: list[str]
    files: list[str]

    def digest(self) -> str:
        payload = json.dumps(
            [self.ts, self.title, self.prompt, self.reply, self.tools, self.tool_names, self.files],
            ensure_ascii=False,
        )
        return hashlib.blake2b(payload.encode("utf-8"), digest_size=16).hexdigest()
