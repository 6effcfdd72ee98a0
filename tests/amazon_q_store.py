"""An Amazon Q Developer CLI `data.sqlite3` for tests, built with the sqlite3 module from
the schema its own migrations create (000 to 007: `migrations`, `history`, `state`,
`auth_kv`, and 007's `conversations(key TEXT PRIMARY KEY, value TEXT)`), written as the
CLI writes it: `INSERT OR REPLACE` of the whole conversation under its directory after
every turn.

The values are conversations in the shapes the CLI's serde derives give them: 1.13 on,
a history of `{user, assistant, request_metadata}` with a user `timestamp`; 1.10 to 1.12,
a history of `[user, assistant]` pairs and a `latest_summary` that is a bare string. The
text is made up for the tests; none of it is a real person's.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

MIGRATIONS = """
CREATE TABLE IF NOT EXISTS migrations (
    id INTEGER PRIMARY KEY, version INTEGER NOT NULL, migration_time INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS history (
    id INTEGER PRIMARY KEY, command TEXT, shell TEXT, pid INTEGER, session_id TEXT,
    cwd TEXT, start_time INTEGER, hostname TEXT, exit_code INTEGER, end_time INTEGER,
    duration INTEGER
);
CREATE TABLE state (key TEXT PRIMARY KEY, value BLOB);
CREATE TABLE auth_kv (key TEXT PRIMARY KEY, value TEXT);
"""
CONVERSATIONS = "CREATE TABLE conversations (key TEXT PRIMARY KEY, value TEXT);"


def env(cwd: str) -> dict[str, Any]:
    return {
        "env_state": {
            "operating_system": "linux",
            "current_working_directory": cwd,
            "environment_variables": [],
        }
    }


def user(content: dict[str, Any], cwd: str, when: str | None) -> dict[str, Any]:
    said: dict[str, Any] = {"additional_context": "", "env_context": env(cwd), "content": content}
    if when is not None:  # 1.13 on
        said["timestamp"] = when
    said["images"] = None
    return said


def prompt(text: str, cwd: str, when: str | None = None) -> dict[str, Any]:
    return user({"Prompt": {"prompt": text}}, cwd, when)


def results(cwd: str, *found: tuple[str, str, str], when: str | None = None) -> dict[str, Any]:
    """`(tool use id, text, "Success"|"Error")` each."""
    out = [{"tool_use_id": t, "content": [{"Text": x}], "status": s} for t, x, s in found]
    return user({"ToolUseResults": {"tool_use_results": out}}, cwd, when)


def reply(mid: str, text: str) -> dict[str, Any]:
    return {"Response": {"message_id": mid, "content": text}}


def tool_use(mid: str, text: str, *uses: tuple[str, str, dict[str, Any]]) -> dict[str, Any]:
    calls = [
        {"id": tid, "name": name, "orig_name": name, "args": args, "orig_args": args}
        for tid, name, args in uses
    ]
    return {"ToolUse": {"message_id": mid, "content": text, "tool_uses": calls}}


def conversation(
    cid: str, history: list[Any], transcript: list[str], summary: Any = None
) -> dict[str, Any]:
    """A whole `ConversationState` as the CLI serializes it: 1.19's fields, or 1.10's
    when the history is of `[user, assistant]` pairs."""
    state: dict[str, Any] = {
        "conversation_id": cid,
        "next_message": None,
        "history": history,
        "valid_history_range": [0, len(history)],
        "transcript": transcript,
        "tools": {},
        "context_manager": None,
        "context_message_length": None,
        "latest_summary": summary,
    }
    if history and isinstance(history[0], list):
        return state
    return {
        **state,
        "model_info": None,
        "file_line_tracker": {},
        "checkpoint_manager": None,
        "mcp_enabled": True,
    }


class AmazonQStore:
    """One `data.sqlite3`, as the CLI leaves it between turns."""

    def __init__(self, path: Path, conversations: bool = True) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.conn = sqlite3.connect(path, isolation_level=None)
        self.conn.executescript(MIGRATIONS + (CONVERSATIONS if conversations else ""))
        last = 8 if conversations else 6
        for version in range(last):
            self.conn.execute(
                "INSERT INTO migrations (version, migration_time) VALUES (?, 1750000000)",
                (version,),
            )

    def put(self, key: str, value: dict[str, Any] | str) -> None:
        """Write a conversation under its directory, as the CLI does after every turn."""
        text = value if isinstance(value, str) else json.dumps(value)
        self.conn.execute(
            "INSERT OR REPLACE INTO conversations (key, value) VALUES (?1, ?2)", (key, text)
        )

    def close(self) -> None:
        self.conn.close()
