"""A Devin CLI `sessions.db` for tests, in the shapes other tools' readers found in real
stores (the CLI is closed source, and no real store of a person's was found published).

The schema is the one an isolated run of the CLI was seen to create (the `sessions`,
`message_nodes` and `tool_call_state` tables, times in Unix seconds), with schema 17's
`subagent_heads` as other readers of the store declare it; a node's
`chat_message` is `{message_id, role, content, thinking?, tool_calls?, tool_call_id?,
metadata}` as the readers of kenn-io/agentsview and getagentseal/codeburn, and the
synthetic stores other readers test against, show it: `metadata.is_user_input` true on
what the person typed, `null` on what the CLI wrote as the user (a summarizer's
instructions, a keep-alive "continue"); a compaction's summary a `system` node whose own
`metadata` names the last node it summarised (`summarized_from`), the messages it
copied onto the new chain naming their originals (`compact/prior_node_ids`); each tool
call's last state an Agent Client Protocol `tool_call` and `tool_call_update`. The
database is in WAL mode, as SQLite stores of running agents are.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE app_state (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  working_directory TEXT NOT NULL,
  backend_type TEXT NOT NULL,
  model TEXT NOT NULL,
  agent_mode TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  last_activity_at INTEGER NOT NULL,
  title TEXT,
  main_chain_id INTEGER,
  shell_last_seen_index INTEGER DEFAULT 0,
  cogs_json TEXT,
  workspace_dirs TEXT,
  hidden INTEGER NOT NULL DEFAULT 0,
  metadata TEXT
);
CREATE TABLE message_nodes (
  row_id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL,
  node_id INTEGER NOT NULL,
  parent_node_id INTEGER,
  chat_message TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  metadata TEXT,
  FOREIGN KEY (session_id) REFERENCES sessions(id),
  UNIQUE(session_id, node_id)
);
CREATE TABLE prompt_history (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  content TEXT NOT NULL,
  timestamp INTEGER NOT NULL,
  session_id TEXT NOT NULL,
  is_shell INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE tool_call_state (
  session_id TEXT NOT NULL,
  tool_call_id TEXT NOT NULL,
  tool_call_json TEXT,
  tool_call_update_json TEXT,
  PRIMARY KEY (session_id, tool_call_id),
  FOREIGN KEY (session_id) REFERENCES sessions(id)
);
CREATE TABLE subagent_heads (
  session_id TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  chain_node_id INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (session_id, agent_id)
);
"""
#: Before `tool_call_state`, and with only the columns every reader asks for.
OLDER_SCHEMA = """
CREATE TABLE sessions (
  id TEXT PRIMARY KEY, title TEXT, working_directory TEXT, model TEXT,
  created_at INTEGER, last_activity_at INTEGER, main_chain_id INTEGER,
  hidden INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE message_nodes (
  row_id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, node_id INTEGER NOT NULL,
  parent_node_id INTEGER, chat_message TEXT NOT NULL, created_at INTEGER NOT NULL, metadata TEXT
);
"""
BASE = 1_796_000_000  # 2026-11-30, in seconds as the CLI writes


class DevinStore:
    """A store being written: sessions, nodes and tool states, committed as they go."""

    def __init__(self, path: Path, schema: str = SCHEMA) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.conn = sqlite3.connect(path, isolation_level=None)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.executescript(schema)
        self.clock = BASE
        self.message_ids = 0

    def session(
        self,
        sid: str,
        cwd: str,
        title: str | None,
        *,
        head: int | None = None,
        hidden: bool = False,
    ) -> None:
        cols = {r[1] for r in self.conn.execute("PRAGMA table_info(sessions)")}
        row: dict[str, Any] = {
            "id": sid, "working_directory": cwd, "title": title, "main_chain_id": head,
            "created_at": self.clock, "last_activity_at": self.clock, "hidden": int(hidden),
            "backend_type": "cli", "model": "swe-1-7", "agent_mode": "normal",
        }  # fmt: skip
        row = {k: v for k, v in row.items() if k in cols}
        names = ", ".join(row)
        marks = ", ".join("?" for _ in row)
        self.conn.execute(f"INSERT INTO sessions ({names}) VALUES ({marks})", tuple(row.values()))

    def head(self, sid: str, node: int | None) -> None:
        """Moves the session's main chain to end at `node`, as the CLI does each turn."""
        self.conn.execute(
            "UPDATE sessions SET main_chain_id = ?, last_activity_at = ? WHERE id = ?",
            (node, self.clock, sid),
        )

    def node(
        self,
        sid: str,
        node: int,
        parent: int | None,
        message: dict[str, Any] | str,
        placement: dict[str, Any] | None = None,
    ) -> None:
        """One message node; `message` a dict (given a `message_id` when it has none) or
        the raw text of a broken one."""
        self.clock += 3
        if isinstance(message, dict) and "message_id" not in message:
            self.message_ids += 1
            message = {"message_id": f"dm-{self.message_ids:04d}", **message}
        text = message if isinstance(message, str) else json.dumps(message)
        self.conn.execute(
            "INSERT INTO message_nodes (session_id, node_id, parent_node_id, chat_message,"
            " created_at, metadata) VALUES (?, ?, ?, ?, ?, ?)",
            (sid, node, parent, text, self.clock, json.dumps(placement) if placement else None),
        )

    def state(self, sid: str, call_id: str, call: dict[str, Any], update: dict[str, Any]) -> None:
        """A tool call's last state, written again in place as the call goes on."""
        self.conn.execute(
            "INSERT OR REPLACE INTO tool_call_state VALUES (?, ?, ?, ?)",
            (sid, call_id, json.dumps({"toolCallId": call_id, **call}),
             json.dumps({"toolCallId": call_id, **update})),
        )  # fmt: skip

    def subagent_head(self, sid: str, agent: str, node: int) -> None:
        """Where a subagent's chain ends now (`subagent_heads`, schema 17), moved as it goes."""
        self.conn.execute(
            "INSERT OR REPLACE INTO subagent_heads VALUES (?, ?, ?, ?)",
            (sid, agent, node, self.clock),
        )

    def close(self) -> None:
        self.conn.close()


def user(text: str, typed: bool | None = True, **more: Any) -> dict[str, Any]:
    """A user message; `typed` None for one the CLI wrote as the user."""
    source = "user" if typed else "cache_keepalive"
    meta = {"is_user_input": typed, "telemetry": {"source": source, "operation": "unknown"}}
    return {"role": "user", "content": text, "metadata": meta, **more}


def system(text: str) -> dict[str, Any]:
    return {"role": "system", "content": text, "metadata": {"is_user_input": None}}


def assistant(
    text: str = "", *calls: dict[str, Any], thinking: str | None = None, request: str = ""
) -> dict[str, Any]:
    out: dict[str, Any] = {"role": "assistant", "content": text}
    if thinking:
        out["thinking"] = {"thinking": thinking, "signature": "c2ln", "signature_type": "anthropic"}
    if calls:
        out["tool_calls"] = list(calls)
    out["metadata"] = {"request_id": request} if request else {}
    return out


def call(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {"id": call_id, "index": 0, "kind": "function", "name": name, "arguments": arguments}


def result(call_id: str, text: str, **extensions: Any) -> dict[str, Any]:
    """A tool's result; `extensions` its `metadata.extensions` (a `run_subagent` result's
    `subagent/agent_id` and `subagent/chain_node_id`, given as `subagent__agent_id=...`)."""
    meta: dict[str, Any] = {
        "telemetry": {"source": "tool_result", "operation": call_id.split(":")[0]}}
    if extensions:
        meta["extensions"] = {k.replace("__", "/"): v for k, v in extensions.items()}
    return {"role": "tool", "tool_call_id": call_id, "content": text, "metadata": meta}
