"""The questions findsession asks Hermes Agent's `state.db`, read-only, and nothing else.

Hermes writes a row per session in `sessions(id, source, parent_session_id, started_at,
ended_at, end_reason, title, cwd, model_config, system_prompt, ...)` and a row per message
in `messages(id, session_id, role, content, tool_call_id, tool_calls, tool_name,
timestamp, reasoning, active, compacted, observed, ...)`, in the order they were said
(`id` counts up). The schema grew over Hermes' releases (version 6 had neither `cwd` nor
`active`; 22 has both): each query names only the columns the file has.

A session's children share its `parent_session_id`, and Hermes tells them apart as this
module does (`hermes_state`):

- a continuation: the parent ended with `end_reason = 'compression'` (context
  compression before 0.19 ended the session and went on in a new one, which starts with
  copies of the messages it kept). A conversation is its first session and every
  continuation after it: one findsession session, under the first one's id.
- a branch (`/branch`): `_branched_from` in its `model_config` (or, before that marker,
  a parent that ended `branched` before it began). Its own session, which starts with
  a copy of the parent's messages so far (`branch_base`).
- any other child, a delegated subagent (`_delegate_from`, `source = 'subagent'`) among
  them: a subagent of its parent's conversation.

Since 0.19, compression keeps one session: the messages it summarised stay as rows with
`active = 0, compacted = 1`, and the summary, with copies of the messages it kept, comes
after them. `/undo` and `/rewind` leave what they took back as `active = 0, compacted =
0`: no longer part of the conversation, and not read. The connection is the one
`foreign_db.reading` opens.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from dataclasses import dataclass
from typing import Any

from findsession.sources import foreign_db

Conn = sqlite3.Connection
_SESSION_NEEDS = {"id"}
_MESSAGE_NEEDS = {"id", "session_id", "role", "content"}
#: Parents a chain is followed through before a loop in damaged rows stops it.
_DEPTH = 64
_SESSION_COLUMNS = ("id", "source", "parent_session_id", "started_at", "ended_at",
                    "end_reason", "title", "cwd", "model_config")  # fmt: skip
_CWD = re.compile(r"^Current working directory: (.+)$", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Store:
    """The columns the file's two tables have."""

    sessions: frozenset[str]
    messages: frozenset[str]


@dataclass(frozen=True, slots=True)
class SessionRow:
    id: str
    source: str | None
    parent: str | None
    started: float | None
    ended: float | None
    end_reason: str | None
    title: str | None
    cwd: str | None
    config: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Conversation:
    """One findsession session: a Hermes session and its continuations.

    `rank` (its first message's id: a message's id stays when the file is compacted,
    where a session's row id may not) orders its line numbers; `token` moves whenever
    any of its rows does. `branch_of` is the parent of a branch, whose copied messages
    the branch does not repeat; `parent` the conversation a subagent was started from."""

    key: str
    segments: tuple[str, ...]
    rank: int
    token: str
    title: str | None
    cwd: str | None
    source: str | None
    parent: str | None = None
    branch_of: str | None = None


@dataclass(frozen=True, slots=True)
class MessageRow:
    id: int
    session: str
    role: str | None
    content: Any
    call_id: str | None
    calls: str | None
    tool: str | None
    when: float | None
    reasoning: str | None
    observed: bool
    #: Taken back by `/undo` or `/rewind` (inactive and not compacted).
    rewound: bool


def shape(conn: Conn) -> Store | None:
    """The store's columns, or None when the file is not Hermes' store."""
    sessions = foreign_db.columns(conn, "sessions")
    messages = foreign_db.columns(conn, "messages")
    if not (sessions >= _SESSION_NEEDS and messages >= _MESSAGE_NEEDS):
        return None
    return Store(frozenset(sessions), frozenset(messages))


def conversations(conn: Conn, store: Store) -> list[Conversation]:
    """Every conversation with a message, each with its change token, oldest first."""
    rows = {row.id: row for row in _session_rows(conn, store)}
    counts = _message_counts(conn, store)
    kinds = {sid: _kind(row, rows) for sid, row in rows.items()}
    chains: dict[str, list[str]] = {}
    for sid in sorted(rows, key=lambda s: (rows[s].started or 0.0, s)):
        chains.setdefault(_head(sid, rows, kinds), []).append(sid)
    for sid in counts:  # messages of a session with no row of its own
        if sid not in rows:
            chains.setdefault(sid, [sid])
    found = []
    for key, segments in chains.items():
        held = [counts[s] for s in segments if s in counts]
        if not held:
            continue
        first = min(h[1] for h in held)
        head = rows.get(key)
        kind = kinds.get(key, "main")
        parent = head.parent if head else None
        if head and kind == "subagent":
            parent = _head(_str(head.config.get("_delegate_from")) or parent, rows, kinds)
        own = (
            "|".join(f"{s}:{counts.get(s)}:{_fact(rows.get(s))}" for s in segments)
            + f"|{kind}:{parent}:{first}"
        )
        token = hashlib.blake2b(own.encode("utf-8", "replace"), digest_size=8).hexdigest()
        found.append(
            Conversation(
                key=key,
                segments=tuple(segments),
                rank=first,
                token=token,
                title=_title([rows[s].title for s in segments if s in rows]),
                cwd=next((rows[s].cwd for s in segments if s in rows and rows[s].cwd), None),
                source=head.source if head else None,
                parent=parent if kind == "subagent" else None,
                branch_of=parent if kind == "branch" else None,
            )
        )
    return sorted(found, key=lambda c: c.rank)


def _session_rows(conn: Conn, store: Store) -> list[SessionRow]:
    cols = ", ".join(map(foreign_db.picker(store.sessions), _SESSION_COLUMNS))
    found = []
    for sid, source, parent, started, ended, reason, title, cwd, config in conn.execute(
        f"SELECT {cols} FROM sessions"
    ):
        if not isinstance(sid, str) or not sid:
            continue
        found.append(
            SessionRow(
                sid,
                _str(source),
                _str(parent) or None,
                _num(started),
                _num(ended),
                _str(reason),
                _str(title),
                _str(cwd) or None,
                _config(config),
            )
        )
    return found


def _message_counts(conn: Conn, store: Store) -> dict[str, tuple[int, int, int, int]]:
    """Per session: its messages, the first and last id, and how many are live (an
    `/undo`, a compression, a restored rewind each move one of these)."""
    live = "sum(active)" if "active" in store.messages else "count(*)"
    counts = {}
    for sid, count, first, last, alive in conn.execute(
        f"SELECT session_id, count(*), min(id), max(id), {live} FROM messages GROUP BY 1"
    ):
        if isinstance(sid, str) and isinstance(first, int) and isinstance(last, int):
            counts[sid] = (int(count), first, last, int(alive or 0))
    return counts


def _fact(row: SessionRow | None) -> str:
    if row is None:
        return "-"
    return f"{row.title}:{row.end_reason}:{row.parent}:{row.cwd}"


def _kind(row: SessionRow, rows: dict[str, SessionRow]) -> str:
    """`main`, `continuation`, `branch` or `subagent` (see the module's docstring)."""
    parent = rows.get(row.parent or "")
    if parent is None or parent.id == row.id:
        return "main"
    if "_branched_from" in row.config:
        return "branch"
    if "_delegate_from" in row.config or row.source == "subagent":
        return "subagent"
    after = row.started is None or parent.ended is None or row.started >= parent.ended
    if parent.end_reason == "compression" and after:
        return "continuation"
    if parent.end_reason == "branched" and after:
        return "branch"
    return "subagent"


def _head(sid: str | None, rows: dict[str, SessionRow], kinds: dict[str, str]) -> str | None:
    """The first session of the conversation `sid` continues."""
    seen = set()
    while sid and kinds.get(sid) == "continuation" and sid not in seen and len(seen) < _DEPTH:
        seen.add(sid)
        sid = rows[sid].parent
    return sid


def _title(titles: list[str | None]) -> str | None:
    """A conversation's title: its first session's, which its continuations repeat with
    a number (`name #2`), unless a later one was named otherwise."""
    named = [t.strip() for t in titles if t and t.strip()]
    if not named:
        return None
    first, last = named[0], named[-1]
    if titles[0] and re.fullmatch(re.escape(first) + r" #\d+", last):
        return first
    return last


def messages(conn: Conn, store: Store, segments: tuple[str, ...]) -> list[MessageRow]:
    """The messages of a conversation's sessions, in the order they were written."""
    have = store.messages
    pick = foreign_db.picker(have)
    reasoning = (
        "coalesce(reasoning, reasoning_content)"
        if {"reasoning", "reasoning_content"} <= have
        else pick("reasoning")
    )
    rewound = "(active = 0 AND coalesce(compacted, 0) = 0)" if "active" in have else "0"
    if "active" in have and "compacted" not in have:
        rewound = "(active = 0)"
    cols = (
        f"id, session_id, role, content, {pick('tool_call_id')},"
        f" {pick('tool_calls')}, {pick('tool_name')},"
        f" {pick('timestamp')}, {reasoning}, {pick('observed')}, {rewound}"
    )
    marks = ",".join("?" * len(segments))
    found = []
    for row in conn.execute(
        f"SELECT {cols} FROM messages WHERE session_id IN ({marks}) ORDER BY id", segments
    ):
        mid, sid, role, content, call_id, calls, tool, when, thought, observed, back = row
        found.append(
            MessageRow(
                int(mid),
                str(sid),
                _str(role),
                content,
                _str(call_id) or None,
                _str(calls),
                _str(tool) or None,
                _num(when),
                _str(thought) or None,
                bool(observed),
                bool(back),
            )
        )
    return found


def branch_base(
    conn: Conn, store: Store, conversation: Conversation, rows: list[MessageRow]
) -> list[MessageRow]:
    """For a branch, the messages its parent's conversation held when it was made (what
    `/branch` copied into it); for any other conversation, none."""
    if conversation.branch_of is None or not rows:
        return []
    lineage = _lineage(conn, store, conversation.branch_of)
    return [m for m in messages(conn, store, lineage) if m.id < rows[0].id and not m.rewound]


def _lineage(conn: Conn, store: Store, sid: str) -> tuple[str, ...]:
    """`sid` and the sessions it continues, oldest first."""
    chain = [sid]
    if not {"parent_session_id", "end_reason"} <= store.sessions:
        return tuple(chain)
    while len(chain) < _DEPTH:
        row = conn.execute(
            "SELECT p.id FROM sessions s JOIN sessions p ON p.id = s.parent_session_id"
            " WHERE s.id = ? AND p.end_reason = 'compression'",
            (chain[0],),
        ).fetchone()
        if row is None or row[0] in chain:
            break
        chain.insert(0, row[0])
    return tuple(chain)


def prompt_cwd(conn: Conn, store: Store, segments: tuple[str, ...]) -> str | None:
    """The working directory Hermes wrote into a session's system prompt, for a session
    whose row has none (releases before the `cwd` column, a branch or a subagent)."""
    if "system_prompt" not in store.sessions:
        return None
    for sid in segments:
        row = conn.execute("SELECT system_prompt FROM sessions WHERE id = ?", (sid,)).fetchone()
        match = _CWD.search(row[0]) if row and isinstance(row[0], str) else None
        if match and match.group(1).strip():
            return match.group(1).strip()
    return None


def _config(value: Any) -> dict[str, Any]:
    if not isinstance(value, str) or not value.startswith("{"):
        return {}
    try:
        loaded = json.loads(value)
    except (ValueError, RecursionError):
        return {}
    return loaded if isinstance(loaded, dict) else {}


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
