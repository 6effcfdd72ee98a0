"""Warp's store from before its agent kept conversations (Warp before June 2025).

Such a `warp.sqlite` has no `agent_conversations`: each exchange with the agent is a row
of `ai_queries(id, exchange_id, conversation_id, start_ts, input, working_directory,
output_status, ...)` (`crates/persistence/migrations`, `split_ai_exchanges_table` in
warpdotdev/warp), `input` a JSON list whose `{"Query": {"text", "context"}}` items are
what the person typed (an exchange that carried a tool's result back has none), and the
answer a pane still showed a row of `ai_blocks(exchange_id, pane_leaf_uuid, output)`,
`output` `{"Received": {"output": [{"Text": {"text"}}, ...], "canceled"}}`. Warp caps the
queries and later removed the kept answers (`remove_persisted_ai_blocks`, November 2025),
so such a store holds the person's questions and the answers of the panes open then.
`start_ts` is UTC without an offset. A conversation is the exchanges of one
`conversation_id`, numbered from its first exchange's row; its change token is a digest
of its rows and their answers' sizes.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import dataclass, field
from typing import Any

from findsession.domain import Message, MessageKind
from findsession.sources import foreign_db
from findsession.sources.cursor import Record
from findsession.sources.epoch import iso_utc
from findsession.sources.jsonl import cap, clean_text

QUERIES = "ai_queries"
BLOCKS = "ai_blocks"
_NEEDS = {"exchange_id", "conversation_id", "input"}
PROMPT_CAP = 100_000


@dataclass
class Exchanges:
    """The exchanges of each conversation, in row order, and each one's token."""

    rows: dict[str, list[tuple[Any, ...]]] = field(default_factory=dict)
    tokens: dict[str, str] = field(default_factory=dict)


def is_older_store(conn: sqlite3.Connection) -> bool:
    """Whether the store keeps its exchanges in `ai_queries`, as Warp did before June 2025."""
    return foreign_db.columns(conn, QUERIES) >= _NEEDS


def exchanges(conn: sqlite3.Connection) -> Exchanges:
    """Every exchange, with the answer kept for it, grouped by conversation."""
    have = foreign_db.columns(conn, QUERIES)
    when = "q.start_ts" if "start_ts" in have else "NULL"
    folder = "q.working_directory" if "working_directory" in have else "NULL"
    answer = "NULL"
    if {"exchange_id", "output"} <= foreign_db.columns(conn, BLOCKS):
        answer = "(SELECT b.output FROM ai_blocks b WHERE b.exchange_id = q.exchange_id LIMIT 1)"
    found = Exchanges()
    rows = conn.execute(
        f"SELECT q.rowid, q.conversation_id, {when}, q.input, {folder}, {answer}"
        f" FROM {QUERIES} q ORDER BY q.rowid"
    )
    for row in rows:
        if isinstance(row[1], str) and row[1]:
            found.rows.setdefault(row[1], []).append(row)
    for key, listed in found.rows.items():
        own = ";".join(f"{r[0]}:{len(str(r[3]))}:{len(str(r[5] or ''))}" for r in listed)
        found.tokens[key] = hashlib.blake2b(own.encode(), digest_size=8).hexdigest()
    return found


def exchange_records(
    key: str, rows: list[tuple[Any, ...]], unknown: dict[str, int]
) -> list[Record]:
    """One conversation's prompts and the answers kept, numbered from its first row; an
    answer's item of a kind not known here is counted in `unknown` by kind."""
    rank = int(rows[0][0])
    out: list[Record] = []
    for position, (_, _, when, typed, folder, answer) in enumerate(rows, 1):
        base = {"line": foreign_db.line_of(rank, position), "timestamp": iso_utc(when),
                "cwd": clean_text(folder) if isinstance(folder, str) and folder else None,
                "session_key": key}  # fmt: skip
        for text in _queries(_json(typed)):
            out.append(Message(MessageKind.PROMPT, cap(text, PROMPT_CAP), **base))
        for text in _answers(_json(answer), unknown):
            out.append(Message(MessageKind.REPLY, cap(text, PROMPT_CAP), **base))
    return out


def _queries(items: Any) -> list[str]:
    """What the person typed: each `Query` item's text."""
    found = []
    for item in items if isinstance(items, list) else []:
        query = item.get("Query") if isinstance(item, dict) else None
        text = query.get("text") if isinstance(query, dict) else None
        if isinstance(text, str) and text.strip():
            found.append(clean_text(text.strip()))
    return found


def _answers(doc: Any, unknown: dict[str, int]) -> list[str]:
    """The answer's text items (`Received`, or what a cancel kept); another kind of item
    is reported."""
    found = []
    for status in doc.values() if isinstance(doc, dict) else []:
        items = status.get("output") if isinstance(status, dict) else None
        for item in items if isinstance(items, list) else []:
            if not isinstance(item, dict) or len(item) != 1:
                continue
            (kind, body), = item.items()
            text = body.get("text") if isinstance(body, dict) else None
            if kind == "Text" and isinstance(text, str):
                if text.strip():
                    found.append(clean_text(text.strip()))
            elif kind != "Text":
                name = clean_text(str(kind))[:40]
                unknown[name] = unknown.get(name, 0) + 1
    return found


def _json(value: Any) -> Any:
    if not isinstance(value, str):
        return None
    try:
        return json.loads(value)
    except (ValueError, RecursionError):
        return None
