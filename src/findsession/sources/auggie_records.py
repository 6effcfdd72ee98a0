"""An Auggie session as format-free records, from its JSON document.

A session file is `{sessionId, created, modified, chatHistory, agentState, title?,
customTitle?, subAgents?, parentConversationId?, ...}` (Auggie's session store). Each
`chatHistory` entry is `{exchange, completed, sequenceId, finishedAt, changedFiles,
isHistorySummary, ...}`; an exchange is one request to the model and its answer:
`request_message` (what was typed, empty when the request only carries tool results),
`request_nodes` (`type` 0 a text node, 1 a tool result `{tool_use_id, content,
is_error, content_nodes}`, 4 the IDE state with the workspace folders, 10 the summary of
the history Auggie dropped from what it sends, `history_summary_node.summary_text`),
`response_text` (the reply) and `response_nodes` (`type` 0 a piece of the reply, 5 a
tool call `{tool_use_id, tool_name, input_json}`, 8 thinking `{content | summary}`). A
tool's result comes in the next exchange's request. A summary is a compaction's, not
what was typed: the type-10 node, a text node Auggie wraps in `<supervisor>` with a
`<summary`, and an entry marked `isHistorySummary`.

`subAgents` (kept only where Auggie is set to record them) are the sub-agents the session
ran, `{name, model, finishedAt, chatHistory}`, each read as a subagent of the session.

Times are each exchange's `finishedAt`; the first prompt takes the session's `created`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from findsession.domain import Message, MessageKind, MetaEvent, MetaKind, Problem
from findsession.sources.cursor import Record
from findsession.sources.epoch import iso_utc
from findsession.sources.jsonl import cap, clean_text
from findsession.sources.tool_args import call_message, parsed, result_message

PROMPT_CAP = 100_000
THINKING_CAP = 8_000
TOOL_INPUT_CAP = 2_000
TOOL_OUTPUT_CAP = 4_000
#: The argument names Auggie's tools give a file (`view`, `save-file`,
#: `str-replace-editor`). `remove-files`' list is read back from the stored call, once
#: redacted (`file_writes`): a list of strings may be a command line.
_FILE_KEYS = ("path", "file_path")
_TEXT, _TOOL_RESULT, _IDE_STATE, _SUMMARY = 0, 1, 4, 10
_REPLY, _TOOL_USE, _THINKING = 0, 5, 8


def session_records(doc: Any, problems: list[Problem]) -> list[Record]:
    """Every message of the session, numbered by its history entry (from 1), then those
    of its sub-agents after them, then its titles at line 0."""
    if not isinstance(doc, dict):
        problems.append(Problem(1, "not a JSON object", type(doc).__name__))
        return []
    history = _list(doc.get("chatHistory"))
    cwd = workspace(history)
    records = _history(history, cwd, iso_utc(doc.get("created")), None, 1)
    line = len(history) + 1
    for n, agent in enumerate(_list(doc.get("subAgents"))):
        if not isinstance(agent, dict):
            continue
        turns = _list(agent.get("chatHistory"))
        records += _history(turns, cwd, None, f"subagent-{n + 1}", line)
        line += len(turns)
    for key, kind in (("title", MetaKind.AI_TITLE), ("customTitle", MetaKind.CUSTOM_TITLE)):
        title = doc.get(key)
        if isinstance(title, str) and title.strip():
            records.append(MetaEvent(kind, clean_text(title.strip()), 0))
    return records


def workspace(history: list[Any]) -> str | None:
    """The session's folder, as Auggie finds it for its list of sessions: the first
    workspace folder of the first IDE state a request carried."""
    for node in _nodes(history, "request_nodes"):
        state = node.get("ide_state_node") if node.get("type") == _IDE_STATE else None
        folders = state.get("workspace_folders") if isinstance(state, dict) else None
        if isinstance(folders, list) and folders and isinstance(folders[0], dict):
            root = _str(folders[0].get("repository_root")) or _str(folders[0].get("folder_root"))
            if root:
                return root
    return None


def _history(
    history: list[Any], cwd: str | None, created: str | None, key: str | None, first: int
) -> list[Record]:
    names: dict[str, str] = {}
    records: list[Record] = []
    for n, entry in enumerate(history):
        exchange = entry.get("exchange") if isinstance(entry, dict) else None
        if not isinstance(exchange, dict):
            continue
        when = iso_utc(entry.get("finishedAt"))
        base = {"line": first + n, "cwd": cwd, "timestamp": when, "session_key": key}
        said = _request_text(exchange)
        for summary in _summaries(exchange):
            records.append(Message(MessageKind.COMPACT_SUMMARY, cap(summary, PROMPT_CAP), **base))
        if entry.get("isHistorySummary") is True:
            if said:
                records.append(Message(MessageKind.COMPACT_SUMMARY, cap(said, PROMPT_CAP), **base))
        elif said:
            stamp = (created or when) if n == 0 else when
            records.append(
                Message(MessageKind.PROMPT, cap(said, PROMPT_CAP), **{**base, "timestamp": stamp})
            )
        records += _results(exchange, base, names)
        records += _response(exchange, base, names)
    return records


def _request_text(exchange: dict[str, Any]) -> str:
    """What the request says in words: its message, else its text nodes."""
    message = _str(exchange.get("request_message"))
    if message and message.strip():
        return "" if _supervised(message) else message.strip()
    texts = [
        text
        for node in _list(exchange.get("request_nodes"))
        if isinstance(node, dict) and node.get("type") == _TEXT
        and not _supervised(text := _str(_dict(node.get("text_node")).get("content")) or "")
    ]
    return "\n".join(t for t in texts if t.strip()).strip()


def _summaries(exchange: dict[str, Any]) -> list[str]:
    """The history summaries a request carries, as Auggie finds them."""
    message = _str(exchange.get("request_message")) or ""
    out = [message.strip()] if _supervised(message) else []
    for node in _list(exchange.get("request_nodes")):
        if not isinstance(node, dict):
            continue
        if node.get("type") == _SUMMARY:
            text = _str(_dict(node.get("history_summary_node")).get("summary_text"))
        elif node.get("type") == _TEXT:
            text = _str(_dict(node.get("text_node")).get("content"))
            text = text if text and _supervised(text) else None
        else:
            continue
        if text and text.strip() and text.strip() not in out:
            out.append(text.strip())
    return out


def _supervised(text: str) -> bool:
    """A summary Auggie put in a text node: `<supervisor>` … `<summary` … `</supervisor>`."""
    text = text.strip()
    return text.startswith("<supervisor>") and text.endswith("</supervisor>") and "<summary" in text


def _results(
    exchange: dict[str, Any], base: dict[str, Any], names: dict[str, str]
) -> list[Record]:
    out: list[Record] = []
    for node in _list(exchange.get("request_nodes")):
        if not isinstance(node, dict) or node.get("type") != _TOOL_RESULT:
            continue
        result = _dict(node.get("tool_result_node"))
        call_id = _str(result.get("tool_use_id"))
        text = _str(result.get("content")) or "\n".join(
            _str(part.get("text_content")) or ""
            for part in _list(result.get("content_nodes"))
            if isinstance(part, dict)
        )
        text = text.strip()
        if not text:
            continue
        name, failed = names.get(call_id or ""), result.get("is_error") is True
        out.append(result_message(name, call_id, text, failed, base, TOOL_OUTPUT_CAP))
    return out


def _response(
    exchange: dict[str, Any], base: dict[str, Any], names: dict[str, str]
) -> list[Record]:
    nodes = [n for n in _list(exchange.get("response_nodes")) if isinstance(n, dict)]
    out: list[Record] = []
    thoughts = []
    for node in nodes:
        if node.get("type") == _THINKING:
            thinking = _dict(node.get("thinking"))
            thoughts.append(_str(thinking.get("content")) or _str(thinking.get("summary")) or "")
    thought = "\n".join(t for t in thoughts if t.strip()).strip()
    if thought:
        out.append(Message(MessageKind.THINKING, cap(thought, THINKING_CAP), **base))
    reply = _str(exchange.get("response_text")) or "".join(
        _str(n.get("content")) or "" for n in nodes if n.get("type") == _REPLY
    )
    if reply.strip():
        out.append(Message(MessageKind.REPLY, cap(reply.strip(), PROMPT_CAP), **base))
    seen: set[str] = set()
    for node in nodes:
        call = _dict(node.get("tool_use")) if node.get("type") == _TOOL_USE else {}
        name = _str(call.get("tool_name"))
        call_id = _str(call.get("tool_use_id"))
        if not name or (call_id and call_id in seen):
            continue
        if call_id:
            seen.add(call_id)
            names[call_id] = name
        args = parsed(call.get("input_json"))
        out.append(call_message(name, call_id, args, base, _FILE_KEYS, TOOL_INPUT_CAP))
    return out


def _nodes(history: list[Any], key: str) -> Iterator[dict[str, Any]]:
    for entry in history:
        exchange = entry.get("exchange") if isinstance(entry, dict) else None
        for node in _list(exchange.get(key)) if isinstance(exchange, dict) else []:
            if isinstance(node, dict):
                yield node


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _str(value: Any) -> str | None:
    return clean_text(value) if isinstance(value, str) and value else None
