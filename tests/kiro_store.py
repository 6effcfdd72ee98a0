"""A Kiro CLI database for tests, in the documented shape of its `conversations_v2` table.

`key` is the directory a conversation ran in, `value` the conversation as JSON
(`{conversation_id, history: [{user, assistant, request_metadata}]}`), times in
milliseconds. Written from the documented format, in WAL mode like the CLI's, with the
connection held open between writes as the running CLI holds it.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE conversations_v2 (
    key TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    value TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (key, conversation_id)
);
"""
START_MS = 1_780_000_000_000


def prompt(text: str, cwd: str, when: str = "2026-05-28T10:00:00-07:00") -> dict[str, Any]:
    return {
        "content": {"Prompt": {"prompt": text}},
        "timestamp": when,
        "env_context": {"env_state": {"current_working_directory": cwd}},
    }


def results(*pairs: tuple[str, str]) -> dict[str, Any]:
    found = [
        {"tool_use_id": tid, "content": [{"Text": out}], "status": "Success"} for tid, out in pairs
    ]
    return {"content": {"ToolUseResults": {"tool_use_results": found}}}


def reply(mid: str, text: str) -> dict[str, Any]:
    return {"Response": {"message_id": mid, "content": text}}


def tool_use(mid: str, text: str, *uses: tuple[str, str, dict[str, Any]]) -> dict[str, Any]:
    calls = [{"id": tid, "name": name, "args": args} for tid, name, args in uses]
    return {"ToolUse": {"message_id": mid, "content": text, "tool_uses": calls}}


class KiroStore:
    """One `data.sqlite3`, held open by the "CLI" between writes."""

    def __init__(self, path: Path, journal: str = "wal") -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.conn = sqlite3.connect(path, isolation_level=None)
        self.conn.execute(f"PRAGMA journal_mode = {journal}")
        self.conn.executescript(SCHEMA)
        self.clock = START_MS

    def put(self, key: str, cid: str, history: list[dict[str, Any]] | str) -> None:
        """Write a conversation under a directory, as the CLI does after every turn."""
        self.clock += 60_000
        value = (
            history
            if isinstance(history, str)
            else json.dumps({"conversation_id": cid, "history": history})
        )
        self.conn.execute(
            "INSERT INTO conversations_v2 (key, conversation_id, value, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?) ON CONFLICT (key, conversation_id)"
            " DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
            (key, cid, value, self.clock, self.clock),
        )

    def close(self) -> None:
        self.conn.close()
