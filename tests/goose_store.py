"""A Goose `sessions.db` built the way Goose builds one, for tests: its documented schema
(the `sessions` and `messages` tables with the columns later versions added), WAL
journal, and a connection held open like the running agent's. Written from the
documented format; no real database is copied."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE schema_version (version INTEGER PRIMARY KEY,
    applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL DEFAULT '',
    description TEXT NOT NULL DEFAULT '',
    user_set_name BOOLEAN DEFAULT FALSE,
    session_type TEXT NOT NULL DEFAULT 'user',
    working_dir TEXT NOT NULL,
    created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    extension_data TEXT DEFAULT '{}',
    total_tokens INTEGER,
    schedule_id TEXT,
    recipe_json TEXT,
    provider_name TEXT,
    parent_session_id TEXT
);
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL,
    content_json TEXT NOT NULL,
    created_timestamp INTEGER NOT NULL,
    timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
    tokens INTEGER,
    metadata_json TEXT,
    message_id TEXT
);
CREATE INDEX idx_messages_session ON messages(session_id);
"""

#: Goose 1.10's first schema: the title in `description`, no metadata, no session type.
FIRST_SCHEMA = """
CREATE TABLE sessions (id TEXT PRIMARY KEY, description TEXT NOT NULL DEFAULT '',
    working_dir TEXT NOT NULL, created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL,
    role TEXT NOT NULL, content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL);
"""


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def thinking(value: str) -> dict[str, Any]:
    return {"type": "thinking", "thinking": value, "signature": "sig"}


def tool_request(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {
        "type": "toolRequest",
        "id": call_id,
        "toolCall": {"status": "success", "value": {"name": name, "arguments": arguments}},
    }


def tool_response(call_id: str, output: str, error: bool = False) -> dict[str, Any]:
    result = {"content": [{"type": "text", "text": output}], "isError": error}
    return {
        "type": "toolResponse",
        "id": call_id,
        "toolResult": {"status": "success", "value": result},
    }


class GooseStore:
    """The agent's side: one connection that stays open and writes as Goose does."""

    def __init__(self, path: Path, journal: str = "wal", schema: str = SCHEMA) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.conn = sqlite3.connect(path, isolation_level=None)
        self.conn.execute(f"PRAGMA journal_mode = {journal}")
        self.conn.execute("PRAGMA wal_autocheckpoint = 0")  # commits stay in the -wal
        if not self.conn.execute("SELECT 1 FROM sqlite_master").fetchone():
            self.conn.executescript(schema)
        self.clock = 1_741_000_000

    def session(self, key: str, cwd: str, name: str = "", **columns: Any) -> None:
        names = ["id", "working_dir", *(["name"] if name else []), *columns]
        values = [key, cwd, *([name] if name else []), *columns.values()]
        marks = ", ".join("?" * len(values))
        self.conn.execute(f"INSERT INTO sessions ({', '.join(names)}) VALUES ({marks})", values)

    def message(
        self,
        key: str,
        role: str,
        *blocks: dict[str, Any],
        visible: bool = True,
        raw: str | None = None,
    ) -> None:
        """One message row; `raw` stands in for the content JSON (a broken row)."""
        self.clock += 30
        content = raw if raw is not None else json.dumps(list(blocks))
        has = {r[1] for r in self.conn.execute("PRAGMA table_info(messages)")}
        names = ["session_id", "role", "content_json", "created_timestamp"]
        values: list[Any] = [key, role, content, self.clock]
        if "metadata_json" in has:
            names.append("metadata_json")
            values.append(json.dumps({"userVisible": visible, "agentVisible": True}))
        if "message_id" in has:
            number = self.conn.execute("SELECT coalesce(max(id), 0) + 1 FROM messages").fetchone()[
                0
            ]
            names.append("message_id")
            values.append(f"msg_{key}_{number}")
        marks = ", ".join("?" * len(values))
        self.conn.execute(f"INSERT INTO messages ({', '.join(names)}) VALUES ({marks})", values)

    def replace_conversation(
        self, key: str, messages: list[tuple[str, list[dict[str, Any]]]]
    ) -> None:
        """Goose's `replace_conversation`: every message deleted, the new list inserted."""
        self.conn.execute("BEGIN")
        self.conn.execute("DELETE FROM messages WHERE session_id = ?", (key,))
        for role, blocks in messages:
            self.message(key, role, *blocks)
        self.conn.execute("COMMIT")

    def rename(self, key: str, name: str, by_user: bool = False) -> None:
        self.conn.execute(
            "UPDATE sessions SET name = ?, user_set_name = ? WHERE id = ?", (name, by_user, key)
        )

    def close(self) -> None:
        self.conn.close()
