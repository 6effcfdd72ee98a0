"""A Crush database for tests, in Crush's documented schema, written the way Crush writes
(or in the first OpenCode's, the schema Crush grew from).

The schema and the shapes of `parts` come from Crush's own migrations and message
model (`internal/db/migrations/`, `internal/message/content.go`): sessions and messages
with times in Unix seconds, parts as `[{type, data}]`. The database is in WAL mode like
Crush's, and the connection stays open as Crush's does, so a commit can sit in `-wal`.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    parent_session_id TEXT,
    title TEXT NOT NULL,
    message_count INTEGER NOT NULL DEFAULT 0,
    prompt_tokens INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0,
    cost REAL NOT NULL DEFAULT 0.0,
    updated_at INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    summary_message_id TEXT,
    todos TEXT
);
CREATE TABLE messages (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    role TEXT NOT NULL,
    parts TEXT NOT NULL DEFAULT '[]',
    model TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    finished_at INTEGER,
    provider TEXT,
    is_summary_message INTEGER DEFAULT 0 NOT NULL,
    FOREIGN KEY (session_id) REFERENCES sessions (id) ON DELETE CASCADE
);
CREATE INDEX idx_messages_session_id ON messages (session_id);
"""
#: The first OpenCode's store (`internal/db/migrations/` of the Go program Crush grew
#: from): the same two tables before Crush's later columns (`todos`, `provider`,
#: `is_summary_message`); its summary is the message `summary_message_id` names.
FIRST_OPENCODE_SCHEMA = """
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    parent_session_id TEXT,
    title TEXT NOT NULL,
    message_count INTEGER NOT NULL DEFAULT 0,
    prompt_tokens INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0,
    cost REAL NOT NULL DEFAULT 0.0,
    updated_at INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    summary_message_id TEXT
);
CREATE TABLE files (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    path TEXT NOT NULL,
    content TEXT NOT NULL,
    version TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE TABLE messages (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    role TEXT NOT NULL,
    parts TEXT NOT NULL DEFAULT '[]',
    model TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    finished_at INTEGER,
    FOREIGN KEY (session_id) REFERENCES sessions (id) ON DELETE CASCADE
);
CREATE INDEX idx_messages_session_id ON messages (session_id);
"""
START = 1_780_000_000  # 2026-05-28, seconds


def compact(value: Any) -> str:
    """JSON as Go's encoder writes it: no spaces."""
    return json.dumps(value, separators=(",", ":"))


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "data": {"text": value}}


def call(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    data = {"id": call_id, "name": name, "input": compact(args), "finished": True}
    return {"type": "tool_call", "data": data}


def result(call_id: str, name: str, content: str, error: bool = False) -> dict[str, Any]:
    data = {"tool_call_id": call_id, "name": name, "content": content, "is_error": error}
    return {"type": "tool_result", "data": data}


FINISH = {"type": "finish", "data": {"reason": "end_turn", "time": START}}


class CrushStore:
    """One `crush.db`, held open by the "agent" between writes."""

    def __init__(self, path: Path, journal: str = "wal", schema: str = SCHEMA) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.conn = sqlite3.connect(path, isolation_level=None)
        self.conn.execute(f"PRAGMA journal_mode = {journal}")
        self.conn.executescript(schema)
        self.flags = "is_summary_message" in schema
        self.clock = START
        self.n = 0

    def session(self, sid: str, title: str, parent: str | None = None) -> str:
        self.clock += 10
        self.conn.execute(
            "INSERT INTO sessions (id, parent_session_id, title, updated_at, created_at)"
            " VALUES (?, ?, ?, ?, ?)",
            (sid, parent, title, self.clock, self.clock),
        )
        return sid

    def message(self, sid: str, role: str, parts: list[Any] | str, summary: bool = False) -> str:
        self.clock += 30
        self.n += 1
        mid = f"msg-{self.n}"
        raw = parts if isinstance(parts, str) else compact(parts)
        self.conn.execute(
            "INSERT INTO messages (id, session_id, role, parts, model, created_at, updated_at,"
            " finished_at) VALUES (?, ?, ?, ?, 'claude-sonnet', ?, ?, ?)",
            (mid, sid, role, raw, self.clock, self.clock, self.clock),
        )
        if summary and self.flags:
            self.conn.execute("UPDATE messages SET is_summary_message = 1 WHERE id = ?", (mid,))
        elif summary:  # the first OpenCode: the session names its summary
            self.conn.execute("UPDATE sessions SET summary_message_id = ? WHERE id = ?", (mid, sid))
        return mid

    def stream(self, mid: str, parts: list[Any]) -> None:
        """What Crush does while a reply streams: the same row, its parts rewritten."""
        self.clock += 1
        self.conn.execute(
            "UPDATE messages SET parts = ?, updated_at = ?, finished_at = ? WHERE id = ?",
            (compact(parts), self.clock, self.clock, mid),
        )

    def close(self) -> None:
        self.conn.close()
