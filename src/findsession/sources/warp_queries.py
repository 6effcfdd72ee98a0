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
of its rows and their answers' sizes (`warp_db.exchanges`).
"""

from __future__ import annotations

import json
from typing import Any

from findsession.domain import Message, MessageKind
from findsession.sources import foreign_db
from findsession.sources.cursor import Record
from findsession.sources.epoch import iso_utc
from findsession.sources.jsonl import cap, clean_text

PROMPT_CAP = 100_000


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
            ((kind, body),) = item.items()
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
