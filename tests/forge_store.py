"""A Forge `.forge.db` for tests, in the shapes Forge's own code writes (antinomyhq/forge,
`crates/forge_repo`). Forge could not be installed here (its install script fetches a
binary from GitHub; no package registry here held a build of it), so no store it wrote
is at hand.

The schema is its Diesel migrations' (`conversations`, after the one that added
`metrics`; the `workspace` and `indexing_auth` tables they added later dropped again).
`context` is a `ContextRecord` as `conversation_record.rs` serialises it: the
conversation id, `initiator` ("agent" for a subagent), `messages` each `{message,
usage?}` (older rows: the message alone), a message `{"text": {role, content,
raw_content?, tool_calls?, reasoning_details?, droppable?}}`, `{"tool": {name, call_id,
output: {is_error, values}}}` or `{"image": …}`, tool values `{"text": …}` or `{"aI":
{value, conversation_id}}`. Times are Diesel's `NaiveDateTime` texts in UTC. The
database is in WAL mode, as Forge sets it.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE conversations (
    conversation_id TEXT PRIMARY KEY NOT NULL,
    title TEXT,
    workspace_id BIGINT NOT NULL,
    context TEXT,
    created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at TIMESTAMP
);
CREATE INDEX idx_conversations_workspace_created ON conversations(workspace_id, created_at DESC);
CREATE INDEX idx_conversations_active_workspace_updated
ON conversations(workspace_id, updated_at DESC) WHERE context IS NOT NULL;
ALTER TABLE conversations ADD COLUMN metrics TEXT;
"""


def system(cwd: str) -> dict[str, Any]:
    """Forge's system prompt, cut to the part that names the folder."""
    content = (
        "You are Forge, an expert software engineering assistant.\n\n<system_information>\n"
        f"<operating_system>linux</operating_system>\n<current_working_directory>{cwd}"
        "</current_working_directory>\n<default_shell>/bin/bash</default_shell>\n"
        "<home_directory>/home/dev</home_directory>\n</system_information>"
    )
    return {"text": {"role": "System", "content": content}}


def task(typed: str, first: bool = True, date: str = "2026-12-07") -> dict[str, Any]:
    """What the person typed, as Forge's agent template puts it, `raw_content` as typed."""
    tag = "task" if first else "feedback"
    content = f"<{tag}>{typed}</{tag}>\n<system_date>{date}</system_date>"
    return {"text": {"role": "User", "content": content, "raw_content": {"Text": typed},
                     "model": "scripted-model"}}  # fmt: skip


def command(name: str, parameters: list[str], rendered: str) -> dict[str, Any]:
    """A custom command the person ran (`/name params`), rendered into the template."""
    raw = {"Command": {"name": name, "template": "{{parameters}}", "parameters": parameters}}
    content = f"<task>{rendered}</task>\n<system_date>2026-12-07</system_date>"
    return {"text": {"role": "User", "content": content, "raw_content": raw}}


def harness(content: str, droppable: bool = True) -> dict[str, Any]:
    """A user message Forge wrote itself (an attachment, piped input, a reminder)."""
    body: dict[str, Any] = {"role": "User", "content": content}
    if droppable:
        body["droppable"] = True
    return {"text": body}


def assistant(text: str, *calls: dict[str, Any], thinking: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"role": "Assistant", "content": text, "model": "scripted-model"}
    if calls:
        body["tool_calls"] = list(calls)
    if thinking:
        body["reasoning_details"] = [{"text": thinking, "type_of": "reasoning.text"}]
    return {"text": body}


def call(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "call_id": call_id, "arguments": arguments}


def result(call_id: str, name: str, text: str, failed: bool = False) -> dict[str, Any]:
    output = {"is_error": failed, "values": [{"text": text}]}
    return {"tool": {"name": name, "call_id": call_id, "output": output}}


def agent_result(call_id: str, name: str, answer: str, child: str) -> dict[str, Any]:
    """A subagent's answer, naming the conversation it ran in (and an empty value, as a
    `ToolValue::Empty` is written: a bare string)."""
    values = [{"aI": {"value": answer, "conversation_id": child}}, "empty"]
    return {"tool": {"name": name, "call_id": call_id,
                     "output": {"is_error": False, "values": values}}}  # fmt: skip


def wrapped(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Messages as the current record keeps them: each `{message, usage?}`."""
    usage = {"prompt_tokens": {"actual": 120}, "completion_tokens": {"actual": 40},
             "total_tokens": {"actual": 160}, "cached_tokens": {"actual": 0}}  # fmt: skip
    return [{"message": m, "usage": usage} if _said(m) else {"message": m} for m in messages]


def _said(message: dict[str, Any]) -> bool:
    """Whether the model said it (Forge keeps a request's token counts on its reply)."""
    return message.get("text", {}).get("role") == "Assistant"


class ForgeStore:
    """A `.forge.db` being written."""

    def __init__(self, db: Path) -> None:
        db.parent.mkdir(parents=True, exist_ok=True)
        self.conn = sqlite3.connect(db)
        self.conn.execute("PRAGMA journal_mode = WAL")
        self.conn.executescript(SCHEMA)

    def save(
        self,
        cid: str,
        title: str | None,
        messages: list[Any] | None,
        created: str,
        updated: str | None = None,
        *,
        started: str | None = None,
        initiator: str | None = None,
        direct: bool = False,
        raw_context: str | None = None,
    ) -> None:
        """Upsert one conversation as Forge's repository does (`created_at` kept)."""
        context = raw_context
        if messages is not None and raw_context is None:
            record: dict[str, Any] = {"conversation_id": cid}
            if initiator:
                record["initiator"] = initiator
            record["messages"] = messages if direct else wrapped(messages)
            record["max_tokens"] = 20480
            context = json.dumps(record, separators=(",", ":"))  # as serde_json writes
        metrics = json.dumps({"started_at": started or created.replace(" ", "T") + "Z",
                              "files_changed": {}})  # fmt: skip
        self.conn.execute(
            "INSERT INTO conversations (conversation_id, title, workspace_id, context, "
            "created_at, updated_at, metrics) VALUES (?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT(conversation_id) DO UPDATE SET title = excluded.title, "
            "context = excluded.context, updated_at = excluded.updated_at, "
            "metrics = excluded.metrics",
            (cid, title, 8127346, context, created, updated if context else None, metrics),
        )
        self.conn.commit()

    def close(self) -> None:
        self.conn.close()
