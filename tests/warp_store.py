"""A Warp store (`warp.sqlite`) built as Warp's own code builds it, for the tests.

The tables are those Warp's migrations make (`crates/persistence/migrations`: the
conversations and tasks tables, the trigger that moves `last_modified_at`, the later
`summary` column); a conversation is saved as `upsert_agent_conversation` saves it (its
row upserted, each task's row upserted, the tasks it no longer holds deleted). Each task
is encoded here, field by field, as `task.proto` of warpdotdev/warp-proto-apis lays it
out: an encoder of its own, so the reader is not checked against itself.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

SCHEMA = """
CREATE TABLE agent_conversations (
    id INTEGER PRIMARY KEY NOT NULL,
    conversation_id TEXT NOT NULL,
    conversation_data TEXT NOT NULL,
    last_modified_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    summary TEXT
);
CREATE TRIGGER update_last_modified_at_for_agent_conversations AFTER
UPDATE ON agent_conversations FOR EACH ROW WHEN NEW.last_modified_at IS OLD.last_modified_at
BEGIN UPDATE agent_conversations SET last_modified_at = CURRENT_TIMESTAMP WHERE id = OLD.id; END;
CREATE UNIQUE INDEX ux_agent_conversations_conversation_id ON agent_conversations (conversation_id);
CREATE TABLE agent_tasks (
    id INTEGER PRIMARY KEY NOT NULL,
    conversation_id TEXT NOT NULL,
    task_id TEXT NOT NULL,
    task BLOB NOT NULL,
    last_modified_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    FOREIGN KEY (conversation_id) REFERENCES agent_conversations (conversation_id)
);
CREATE TRIGGER update_last_modified_at_for_agent_tasks AFTER
UPDATE ON agent_tasks FOR EACH ROW WHEN NEW.last_modified_at IS OLD.last_modified_at
BEGIN UPDATE agent_tasks SET last_modified_at = CURRENT_TIMESTAMP WHERE id = OLD.id; END;
CREATE UNIQUE INDEX ux_agent_tasks_task_id ON agent_tasks (task_id);
CREATE TABLE ai_queries (
    id INTEGER PRIMARY KEY NOT NULL,
    exchange_id TEXT NOT NULL UNIQUE,
    conversation_id TEXT NOT NULL,
    start_ts DATETIME NOT NULL,
    input TEXT NOT NULL,
    working_directory TEXT,
    output_status TEXT NOT NULL,
    model_id TEXT NOT NULL DEFAULT '',
    planning_model_id TEXT NOT NULL DEFAULT '',
    coding_model_id TEXT NOT NULL DEFAULT ''
);
"""


def _varint(n: int) -> bytes:
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def num(field: int, value: int) -> bytes:
    return _varint(field << 3) + _varint(value)


def string(field: int, value: str | bytes) -> bytes:
    data = value.encode() if isinstance(value, str) else value
    return _varint(field << 3 | 2) + _varint(len(data)) + data


def msg(field: int, *parts: bytes) -> bytes:
    return string(field, b"".join(parts))


def stamp(seconds: int) -> bytes:
    """`Message.timestamp` (14): a `google.protobuf.Timestamp`."""
    return msg(14, num(1, seconds), num(2, 500_000_000))


def message(mid: str, seconds: int, kind: bytes) -> bytes:
    """One `Message`: its id, its time, and its one kind (already a field)."""
    return string(1, mid) + stamp(seconds) + kind


def user(query: str, pwd: str | None = None, selected: str = "", attached=()) -> bytes:
    context = msg(1, string(1, pwd)) if pwd else b""
    context += msg(6, string(1, selected)) if selected else b""
    for path, content in attached:
        context += msg(9, msg(1, string(1, path), string(2, content)))
    return msg(2, string(1, query), msg(2, context) if context else b"")


def output(text: str) -> bytes:
    return msg(3, string(1, text))


def reasoning(text: str) -> bytes:
    return msg(15, string(1, text))


def summary(text: str) -> bytes:
    return msg(16, msg(1, string(1, text)))


def system(query: str) -> bytes:
    """A `SystemQuery` of Warp's own: an `AutoCodeDiff` with its query."""
    return msg(9, msg(1, string(1, query)))


def todos() -> bytes:
    return msg(10, msg(1, msg(1, string(1, "todo"))))


def shell(call_id: str, command: str) -> bytes:
    return msg(4, string(1, call_id), msg(2, string(1, command)))


def shell_done(call_id: str, command: str, out: str, code: int = 0, pwd: str = "") -> bytes:
    context = msg(11, msg(1, string(1, pwd))) if pwd else b""
    finished = msg(5, string(1, out), num(2, code))
    return msg(5, string(1, call_id), context, msg(2, string(3, command), finished))


def read_files(call_id: str, *paths: str) -> bytes:
    return msg(4, string(1, call_id), msg(5, *(msg(1, string(1, p)) for p in paths)))


def files_read(call_id: str, *files: tuple[str, str]) -> bytes:
    contents = b"".join(msg(1, string(1, p), string(2, c)) for p, c in files)
    return msg(5, string(1, call_id), msg(5, msg(1, contents)))


def file_diffs(call_id: str, summary_: str, diffs=(), new=(), deleted=()) -> bytes:
    body = string(1, summary_)
    body += b"".join(msg(2, string(1, p), string(2, s), string(3, r)) for p, s, r in diffs)
    body += b"".join(msg(3, string(1, p), string(2, c)) for p, c in new)
    body += b"".join(msg(4, string(1, p)) for p in deleted)
    return msg(4, string(1, call_id), msg(6, body))


def diffs_applied(call_id: str, *paths: str) -> bytes:
    updated = b"".join(msg(2, msg(1, string(1, p))) for p in paths)
    return msg(5, string(1, call_id), msg(6, msg(1, updated)))


def diffs_failed(call_id: str, why: str) -> bytes:
    return msg(5, string(1, call_id), msg(6, msg(2, string(1, why))))


def mcp(call_id: str, name: str, query: str) -> bytes:
    entry = msg(1, string(1, "query"), msg(2, string(3, query)))  # Struct{fields: {query}}
    return msg(4, string(1, call_id), msg(12, string(1, name), msg(2, entry)))


def subagent(call_id: str, task_id: str, payload: str) -> bytes:
    return msg(4, string(1, call_id), msg(19, string(1, task_id), string(2, payload)))


def server_call(call_id: str) -> bytes:
    return msg(4, string(1, call_id), msg(4, string(1, "opaque")))


def task(task_id: str, description: str, messages: list[bytes], parent: str = "") -> bytes:
    deps = msg(3, string(1, parent)) if parent else b""
    return (
        string(1, task_id) + string(2, description) + deps + b"".join(msg(5, m) for m in messages)
    )


class WarpStore:
    """A `warp.sqlite` at `path`, in WAL mode as Warp keeps it."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.conn = sqlite3.connect(path)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.executescript(SCHEMA)

    def save(self, conversation: str, tasks: list[tuple[str, bytes]], **data: object) -> None:
        """Upsert the conversation and its tasks, deleting the tasks it no longer has."""
        record = json.dumps({"server_conversation_token": None, **data})
        with self.conn:
            self.conn.execute(
                "INSERT INTO agent_conversations (conversation_id, conversation_data)"
                " VALUES (?, ?) ON CONFLICT(conversation_id) DO UPDATE SET"
                " conversation_data = excluded.conversation_data",
                (conversation, record),
            )
            for task_id, blob in tasks:
                self.conn.execute(
                    "INSERT INTO agent_tasks (conversation_id, task_id, task) VALUES (?, ?, ?)"
                    " ON CONFLICT(task_id) DO UPDATE SET task = excluded.task",
                    (conversation, task_id, blob),
                )
            kept = [t for t, _ in tasks]
            marks = ",".join("?" * len(kept)) or "''"
            self.conn.execute(
                f"DELETE FROM agent_tasks WHERE conversation_id = ? AND task_id NOT IN ({marks})",
                (conversation, *kept),
            )

    def raw_task(self, conversation: str, task_id: str, blob: bytes) -> None:
        with self.conn:
            self.conn.execute(
                "INSERT INTO agent_tasks (conversation_id, task_id, task) VALUES (?, ?, ?)",
                (conversation, task_id, blob),
            )

    def close(self) -> None:
        self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self.conn.close()
