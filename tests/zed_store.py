"""A Zed `threads.db` built the way Zed builds one, for tests: the `threads` table as
Zed's agent creates it and the columns its later versions added, each thread saved as
Zed saves it (its `DbThread` document with `version`, as JSON compressed by zstd at level
3, upserted by id), and a connection held open like the running editor's. Written from
Zed's source (`crates/agent/src/db.rs`, `thread.rs`); no real database is copied."""

from __future__ import annotations

import json
import sqlite3
import uuid
from pathlib import Path
from typing import Any

import zstandard

SCHEMA = """
CREATE TABLE IF NOT EXISTS threads (
    id TEXT PRIMARY KEY,
    summary TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    data_type TEXT NOT NULL,
    data BLOB NOT NULL
);
ALTER TABLE threads ADD COLUMN parent_id TEXT;
ALTER TABLE threads ADD COLUMN folder_paths TEXT;
ALTER TABLE threads ADD COLUMN folder_paths_order TEXT;
ALTER TABLE threads ADD COLUMN created_at TEXT;
"""


def user(text: str, *mentions: tuple[str, str]) -> dict[str, Any]:
    """A user message: what was typed, and each `(path, content)` the person attached."""
    content: list[Any] = [{"Text": text}]
    for path, body in mentions:
        content.append({"Mention": {"uri": {"File": {"abs_path": path}}, "content": body}})
    return {"User": {"id": str(uuid.uuid4()), "content": content}}


def agent(*content: dict[str, Any], results: tuple[dict[str, Any], ...] = ()) -> dict[str, Any]:
    """An agent message with its content items and the results of its tool calls."""
    return {
        "Agent": {
            "content": list(content),
            "tool_results": {r["tool_use_id"]: r for r in results},
            "reasoning_details": None,
        }
    }


def text(value: str) -> dict[str, Any]:
    return {"Text": value}


def thinking(value: str) -> dict[str, Any]:
    return {"Thinking": {"text": value, "signature": "c2lnbmF0dXJl"}}


def tool_use(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {
        "ToolUse": {
            "id": call_id,
            "name": name,
            "raw_input": json.dumps(args),
            "input": args,
            "is_input_complete": True,
        }
    }


def result(call_id: str, name: str, output: str, is_error: bool = False) -> dict[str, Any]:
    return {
        "tool_use_id": call_id,
        "tool_name": name,
        "is_error": is_error,
        "content": {"Text": output},
        "output": None,
    }


def document(
    title: str, messages: list[Any], updated_at: str, snapshot: Any = None
) -> dict[str, Any]:
    """A `DbThread` as Zed serializes it (its fields, then the version)."""
    return {
        "title": title,
        "messages": messages,
        "updated_at": updated_at,
        "detailed_summary": None,
        "initial_project_snapshot": snapshot,
        "cumulative_token_usage": {
            "input_tokens": 0,
            "output_tokens": 0,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        },  # fmt: skip
        "request_token_usage": {},
        "model": {"provider": "zed.dev", "model": "claude-sonnet-4"},
        "profile": "write",
        "imported": False,
        "subagent_context": None,
        "speed": None,
        "thinking_enabled": False,
        "thinking_effort": None,
        "draft_prompt": None,
        "ui_scroll_position": None,
        "sandboxed_terminal_temp_dir": None,
        "version": "0.3.0",
    }


def project_snapshot(*worktrees: tuple[str, str | None]) -> dict[str, Any]:
    """The `ProjectSnapshot` Zed takes when a thread starts: each worktree's folder and
    its git state (the branch, `None` on a detached head)."""
    return {
        "worktree_snapshots": [
            {
                "worktree_path": path,
                "git_state": {
                    "remote_url": None,
                    "head_sha": "4f1c0de",
                    "current_branch": branch,
                    "diff": "",
                },
            }
            for path, branch in worktrees
        ],  # fmt: skip
        "unsaved_buffer_paths": [],
        "timestamp": "2026-02-06T02:10:31.190699425Z",
    }


class ZedStore:
    """`threads.db` with Zed's schema; `save` writes a thread the way Zed's
    `save_thread_sync` does."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.conn = sqlite3.connect(path, isolation_level=None)
        self.conn.executescript(SCHEMA)

    def save(
        self,
        key: str,
        title: str,
        messages: list[Any],
        updated_at: str = "2026-05-04T09:00:00.123456789+00:00",
        folders: tuple[str, ...] = (),
        parent: str | None = None,
        snapshot: Any = None,
    ) -> None:
        doc = document(title, messages, updated_at, snapshot)
        data = zstandard.ZstdCompressor(level=3).compress(json.dumps(doc).encode())
        paths = order = None
        if folders:
            ranked = sorted(range(len(folders)), key=lambda i: folders[i])
            paths = "\n".join(folders[i] for i in ranked)
            order = ",".join(str(i) for i in ranked)
        self.conn.execute(
            "INSERT INTO threads (id, parent_id, folder_paths, folder_paths_order, summary,"
            " updated_at, data_type, data, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT(id) DO UPDATE SET parent_id = excluded.parent_id,"
            " folder_paths = excluded.folder_paths,"
            " folder_paths_order = excluded.folder_paths_order, summary = excluded.summary,"
            " updated_at = excluded.updated_at, data_type = excluded.data_type,"
            " data = excluded.data",
            (key, parent, paths, order, title, updated_at, "zstd", data, updated_at),
        )

    def save_raw(self, key: str, title: str, data_type: str, data: bytes | str,
                 updated_at: str = "2025-06-01T10:00:00+00:00") -> None:  # fmt: skip
        """A row as it stands, data not made here (an older thread saved as plain JSON,
        a broken blob)."""
        self.conn.execute(
            "INSERT INTO threads (id, summary, updated_at, data_type, data, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (key, title, updated_at, data_type, data, updated_at),
        )

    def delete(self, key: str) -> None:
        self.conn.execute("DELETE FROM threads WHERE id = ?", (key,))

    def close(self) -> None:
        self.conn.close()
