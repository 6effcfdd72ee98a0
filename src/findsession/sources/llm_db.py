"""The questions findsession asks the `llm` CLI's `logs.db`, read-only, and nothing else.

`llm` (Simon Willison's CLI) has logged every prompt to one SQLite file in two shapes:

- up to 0.31, a row per model call in `responses(id, model, prompt, system, response,
  conversation_id, datetime_utc, ...)` under `conversations(id, name, model)`, the
  fragments a prompt was given in `fragments` through `prompt_fragments` and
  `system_fragments` (0.24), tool calls and their results in `tool_calls` and
  `tool_results` (0.26; `exception` since 0.27), the reasoning text in `reasoning`;
- from 0.32 on, a content-addressed store: `messages(hash, parent_hash, role)` chained
  by their parents, each message's `parts(type, tool_name, text, payload)`, a text
  borrowing a fragment holding `{"text_ref": [{"fragment": id}, {"literal": ...}]}`;
  a conversation is a `threads` row whose id is the conversation's, each model call a
  `turns(thread_id, parent_message_hash, tip_message_hash, datetime_utc, ...)` row: the
  messages from its parent to its tip are what the call answered, the chain up to its
  parent what it was sent. The older tables are kept and still read by `llm`, and a
  conversation begun in them and continued since has rows in both, under one id.

Each query names only the columns the file has (`foreign_db.columns`). The connection
is the one `foreign_db.reading` opens.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import dataclass, field
from typing import Any

from findsession.sources import foreign_db

Conn = sqlite3.Connection
_LEGACY_NEEDS = {"id", "prompt", "response", "conversation_id"}
_TURN_NEEDS = {"id", "thread_id", "parent_message_hash", "tip_message_hash"}
#: Messages one turn may add before the walk back to its parent gives up (a loop in
#: a damaged chain ends here too).
_CHAIN_CAP = 10_000


@dataclass(frozen=True, slots=True)
class Conversation:
    """One conversation: its id, the rank that orders its line numbers, the name `llm`
    gave it, and a token that moves whenever any of its rows does."""

    key: str
    rank: int
    name: str | None
    token: str
    legacy: bool  # it has rows in `responses`
    turns: bool  # it has rows in `turns`


@dataclass(frozen=True, slots=True)
class Response:
    """One `responses` row of the older tables, with what hangs on it."""

    id: str
    prompt: str | None
    system: str | None
    response: str | None
    reasoning: str | None
    when: str | None
    fragments: tuple[str, ...] = ()  # the prompt's, then the system prompt's
    calls: tuple[tuple[str | None, str | None, str | None], ...] = ()  # name, args, id
    #: name, output, call id, exception
    results: tuple[tuple[str | None, str | None, str | None, str | None], ...] = ()


@dataclass(frozen=True, slots=True)
class Part:
    """One part of a stored message, its payload parsed (None: it did not parse)."""

    type: str | None
    text: str | None
    payload: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class StoredMessage:
    hash: str
    role: str | None
    parts: tuple[Part, ...]


@dataclass(frozen=True, slots=True)
class Turn:
    """One model call of the newer store: the messages it was given since the last
    answer (`inputs`, oldest first) and the ones it answered with (`outputs`)."""

    id: str
    when: str | None
    inputs: tuple[StoredMessage, ...]
    outputs: tuple[StoredMessage, ...]


@dataclass
class Store:
    """What the file holds: which of the two shapes, and the fragments read so far."""

    legacy: set[str] = field(default_factory=set)  # the `responses` columns
    turns: bool = False
    fragments: dict[int, str] = field(default_factory=dict)


def shape(conn: Conn) -> Store | None:
    """The shape of the store, or None when the file is not an `llm` log."""
    store = Store()
    have = foreign_db.columns(conn, "responses")
    if have >= _LEGACY_NEEDS:
        store.legacy = have
    store.turns = (
        foreign_db.columns(conn, "turns") >= _TURN_NEEDS
        and {"hash", "parent_hash", "role"} <= foreign_db.columns(conn, "messages")
        and {"message_hash", "type"} <= foreign_db.columns(conn, "parts")
    )
    return store if store.legacy or store.turns else None


def conversations(conn: Conn, store: Store) -> list[Conversation]:
    """Every conversation with something in it, each with its change token."""
    seen: dict[str, dict[str, Any]] = {}
    if store.legacy:
        for key, first, count, last in conn.execute(
            "SELECT coalesce(conversation_id, id), min(rowid), count(*), max(rowid)"
            " FROM responses GROUP BY 1"
        ):
            if isinstance(key, str) and key:
                seen[key] = {"rank": 2 * int(first), "own": f"r{count}:{last}", "legacy": True}
        if {"id", "name"} <= foreign_db.columns(conn, "conversations"):
            for key, name in conn.execute("SELECT id, name FROM conversations"):
                if key in seen and isinstance(name, str):
                    seen[key]["name"] = name
    if store.turns:
        named = {"id", "name", "tip_message_hash"} <= foreign_db.columns(conn, "threads")
        for key, count, last, tip, name, rank in conn.execute(
            "SELECT t.thread_id, count(*), max(t.rowid), max(t.tip_message_hash), "
            + ("h.name, h.rowid" if named else "NULL, NULL")
            + " FROM turns t "
            + ("LEFT JOIN threads h ON h.id = t.thread_id " if named else "")
            + "GROUP BY t.thread_id"
        ):
            if not isinstance(key, str) or not key:
                continue
            entry = seen.setdefault(key, {"legacy": False})
            # A thread's row id (odd) never meets a first response's (even).
            entry["rank"] = 2 * int(rank if isinstance(rank, int) else last) + 1
            entry["own"] = f"{entry.get('own', '')}|t{count}:{last}:{tip}:{name}"
            entry["turns"] = True
            if "name" not in entry and isinstance(name, str):
                entry["name"] = name
    found = []
    for key, entry in seen.items():
        own = f"{entry['rank']}:{entry['own']}:{entry.get('name')}"
        token = hashlib.blake2b(own.encode("utf-8", "replace"), digest_size=8).hexdigest()
        found.append(
            Conversation(
                key,
                entry["rank"],
                entry.get("name"),
                token,
                entry["legacy"],
                entry.get("turns", False),
            )  # fmt: skip
        )
    return sorted(found, key=lambda c: c.rank)


def responses(conn: Conn, store: Store, key: str) -> list[Response]:
    """A conversation's rows of the older tables, oldest first."""
    pick = foreign_db.picker(store.legacy)
    rows = conn.execute(
        f"SELECT id, prompt, {pick('system')}, response, {pick('reasoning')},"
        f" {pick('datetime_utc')} FROM responses WHERE coalesce(conversation_id, id) = ?"
        " ORDER BY rowid",
        (key,),
    ).fetchall()
    fragments = _response_fragments(conn, [r[0] for r in rows])
    calls = _by_response(conn, "tool_calls", ("name", "arguments", "tool_call_id"))
    results = _by_response(conn, "tool_results", ("name", "output", "tool_call_id", "exception"))
    return [
        Response(
            id=str(rid),
            prompt=_str(prompt),
            system=_str(system),
            response=_str(text),
            reasoning=_str(reasoning),
            when=_str(when),
            fragments=tuple(fragments.get(rid, ())),
            calls=tuple(calls(rid)),  # type: ignore[arg-type]
            results=tuple(results(rid)),  # type: ignore[arg-type]
        )  # fmt: skip
        for rid, prompt, system, text, reasoning, when in rows
    ]


def _response_fragments(conn: Conn, ids: list[Any]) -> dict[Any, list[str]]:
    """The fragments each response was given: its prompt's, then its system prompt's."""
    found: dict[Any, list[str]] = {}
    if not ids or "content" not in foreign_db.columns(conn, "fragments"):
        return found
    for table in ("prompt_fragments", "system_fragments"):
        if not {"response_id", "fragment_id"} <= foreign_db.columns(conn, table):
            continue
        for rid, content in conn.execute(
            f"SELECT x.response_id, f.content FROM {table} x JOIN fragments f"
            f" ON f.id = x.fragment_id WHERE x.response_id IN ({','.join('?' * len(ids))})"
            ' ORDER BY x.response_id, x."order"',
            ids,
        ):
            if isinstance(content, str):
                found.setdefault(rid, []).append(content)
    return found


def _by_response(conn: Conn, table: str, wanted: tuple[str, ...]) -> Any:
    """A lookup of `table`'s rows by response id (none when the table is not there)."""
    have = foreign_db.columns(conn, table)
    if "response_id" not in have:
        return lambda _rid: []
    cols = ", ".join(c if c in have else "NULL" for c in wanted)

    def rows(rid: Any) -> list[tuple[str | None, ...]]:
        return [
            tuple(_str(v) for v in row)
            for row in conn.execute(
                f"SELECT {cols} FROM {table} WHERE response_id = ? ORDER BY rowid", (rid,)
            )
        ]

    return rows


def turns(conn: Conn, store: Store, key: str) -> list[Turn]:
    """A conversation's model calls of the newer store, in the order they were made.

    A turn was sent the whole chain up to its parent; what it adds to the conversation
    is the end of that chain after the last answer (the person's new prompt, the tool
    results being handed back), then the messages from its parent to its tip. So a
    conversation carried on from the older tables, whose first turn was sent the older
    rows again as messages, gives each of them once.
    """
    when = "datetime_utc" if "datetime_utc" in foreign_db.columns(conn, "turns") else "NULL"
    rows = conn.execute(
        f"SELECT id, parent_message_hash, tip_message_hash, {when} FROM turns"
        f" WHERE thread_id = ? ORDER BY {when}, rowid",
        (key,),
    ).fetchall()
    found = []
    for tid, parent, tip, at in rows:
        outputs = _walk(conn, store, tip, until_hash=parent)
        inputs = _walk(conn, store, parent, until_role="assistant")
        found.append(Turn(str(tid), _str(at), tuple(inputs), tuple(outputs)))
    return found


def _walk(
    conn: Conn,
    store: Store,
    start: Any,
    until_hash: Any = None,
    until_role: str | None = None,
) -> list[StoredMessage]:
    """The messages from `start` back to (not including) the message `until_hash`, or
    the first of role `until_role`, oldest first."""
    chain: list[StoredMessage] = []
    at = start
    while isinstance(at, str) and len(chain) < _CHAIN_CAP:
        row = conn.execute(
            "SELECT parent_hash, role FROM messages WHERE hash = ?", (at,)
        ).fetchone()
        if row is None or at == until_hash or (until_role and row[1] == until_role):
            break
        chain.append(StoredMessage(at, _str(row[1]), _parts(conn, store, at)))
        at = row[0]
    chain.reverse()
    return chain


def _parts(conn: Conn, store: Store, message: str) -> tuple[Part, ...]:
    parts = []
    for kind, text, payload in conn.execute(
        "SELECT type, text, payload FROM parts WHERE message_hash = ? ORDER BY position",
        (message,),
    ):
        parsed: dict[str, Any] | None = {}
        if isinstance(payload, str) and payload:
            try:
                loaded = json.loads(payload)
            except (ValueError, RecursionError):
                loaded = None
            parsed = loaded if isinstance(loaded, dict) else None
        parts.append(Part(_str(kind), _str(text), parsed))
    return tuple(parts)


def fragment(conn: Conn, store: Store, fragment_id: Any) -> str | None:
    """A fragment's text, by its id (kept for the rest of the read)."""
    if not isinstance(fragment_id, int) or isinstance(fragment_id, bool):
        return None
    if fragment_id not in store.fragments:
        row = None
        if "content" in foreign_db.columns(conn, "fragments"):
            row = conn.execute(
                "SELECT content FROM fragments WHERE id = ?", (fragment_id,)
            ).fetchone()
        store.fragments[fragment_id] = row[0] if row and isinstance(row[0], str) else ""
    return store.fragments[fragment_id]


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None
