"""Reading a `state.vscdb` by chat: only the chats whose change token moved are read
again, each whole (`Reading.replaced`).

A composer's token comes from one aggregate statement over the key index
(`cursor_ide_db.composer_tokens`): its row's id, the text of its `lastUpdatedAt`, and
the number and highest row id of its bubble rows. Cursor's tables replace a row on
every write, so a rewritten composer or bubble gets a new row id even when no time in
it moved; nothing of a bubble's value is read to know that it changed. An `ItemTable`
chat's token is a digest of its own object (`cursor_ide_layouts`). The tokens ride in
the file's cursor; a database whose chats did not change costs that one statement and
the few `ItemTable` lookups.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from findsession.domain import Message, Problem
from findsession.sources import cursor_ide_db as db
from findsession.sources import foreign_db
from findsession.sources.cursor import Cursor, Reading, Record
from findsession.sources.cursor_ide_layouts import (
    ITEM_KEYS,
    PROMPTS_KEY,
    item_chats,
    item_token,
    ordered_bubbles,
    unread_prompts,
)
from findsession.sources.cursor_ide_records import Chat, chat_records, loads, rank_of

#: A chat's project folder, from its own object (None: the place does not tell).
Folder = Callable[[dict[str, Any]], str | None]
#: Token keys of whole `ItemTable` values (never a chat's key).
_ITEM = "item:"


def read_store(path: Path, cursor: Cursor | None, agent: str, folder: Folder) -> Reading:
    """What changed in the database since `cursor`: the changed chats, whole."""
    size = os.stat(path).st_size
    with foreign_db.reading(path) as conn:
        have = db.tables(conn)
        if not have & {db.KV, db.ITEMS}:
            reason = f"not a chat database: it has neither a {db.KV} nor an {db.ITEMS} table"
            return Reading([], Cursor(size, 0, None), fresh=False, problems=[Problem(0, reason)])
        old = foreign_db.tokens(cursor)
        problems: list[Problem] = []
        tokens, items = _item_tokens(conn, have, agent, folder, old, problems)
        composers = _composer_tokens(conn) if db.KV in have else {}
        tokens.update(composers)
        now = foreign_db.cursor(size, sum(not k.startswith(_ITEM) for k in tokens), tokens)
        keys = [k for k in foreign_db.changed(old, tokens) if not k.startswith(_ITEM)]
        if not keys and not problems:
            return Reading([], now, fresh=False, unchanged=True)
        records: list[Record] = []
        rows = nbytes = 0
        for key in keys:
            if key in composers:
                chat, n, size_read = load_composer(conn, key, agent, folder, problems)
                rows, nbytes = rows + n, nbytes + size_read
            else:
                chat = items[key]
            if chat is not None:
                records.extend(chat_records(chat, problems))
    return Reading(
        records,
        now,
        fresh=False,
        replaced=frozenset(keys),
        bytes_read=nbytes,
        lines_read=rows,
        problems=problems,
    )


def load_composer(
    conn: Any, key: str, agent: str, folder: Folder, problems: list[Problem]
) -> tuple[Chat | None, int, int]:
    """A composer and its bubble rows as one chat, with the rows and bytes read; None
    (and a problem) for a composer whose value does not parse."""
    raw = db.composer_value(conn, key)
    if raw is None:
        return None, 0, 0
    line = foreign_db.line_of(rank_of(key), 0)
    try:
        data = loads(raw)
    except ValueError as exc:
        problems.append(Problem(line, f"malformed composer JSON: {exc}", key))
        return None, 1, _size(raw)
    if not isinstance(data, dict):
        problems.append(Problem(line, "a composer that is not a JSON object", key))
        return None, 1, _size(raw)
    rows = db.bubble_values(conn, key)
    chat = Chat(key, data, ordered_bubbles(data, dict(rows)), folder(data), agent)
    return chat, 1 + len(rows), _size(raw) + sum(_size(v) for _, v in rows)


def read_back(
    path: Path, lines: set[int], agent: str, folder: Folder
) -> dict[tuple[int, int], str]:
    """Each wanted message as the database holds it now, numbered as `read_store` did."""
    ranks = {foreign_db.position_of(line)[0] for line in lines}
    texts: dict[tuple[int, int], str] = {}
    with foreign_db.reading(path) as conn:
        have = db.tables(conn)
        chats: list[Chat] = []
        if db.ITEMS in have:
            _, items = _item_tokens(conn, have, agent, folder, {}, [])
            chats += [c for key, c in items.items() if rank_of(key) in ranks]
        if db.KV in have:
            for key in db.composer_ids(conn):
                if rank_of(key) in ranks:
                    chat = load_composer(conn, key, agent, folder, [])[0]
                    chats += [chat] if chat is not None else []
    for chat in chats:
        parts: dict[int, int] = {}
        for rec in chat_records(chat, []):
            part = parts.get(rec.line, 0)
            parts[rec.line] = part + 1
            if isinstance(rec, Message) and rec.line in lines:
                texts[(rec.line, part)] = rec.text
    return texts


def _item_tokens(
    conn: Any,
    have: set[str],
    agent: str,
    folder: Folder,
    old: dict[str, str],
    problems: list[Problem],
) -> tuple[dict[str, str], dict[str, Chat]]:
    """The chats of `ItemTable`'s chat lists with their tokens, and each list's own
    token; a list's problems are reported only when the list itself changed."""
    tokens: dict[str, str] = {}
    chats: dict[str, Chat] = {}
    if db.ITEMS not in have:
        return tokens, chats
    values = db.item_values(conn, (*ITEM_KEYS, PROMPTS_KEY))
    for item, value in values.items():
        tokens[_ITEM + item] = whole = item_token(value)
        if item == PROMPTS_KEY:
            continue
        found: list[Problem] = []
        for key, (token, chat) in item_chats({item: value}, agent, folder({}), found).items():
            if key not in chats:
                tokens[key], chats[key] = token, chat
        if old.get(_ITEM + item) != whole:
            problems.extend(found)
    if PROMPTS_KEY in values and old.get(_ITEM + PROMPTS_KEY) != tokens[_ITEM + PROMPTS_KEY]:
        unread = unread_prompts(values[PROMPTS_KEY], list(chats.values()))
        problems.extend([unread] if unread else [])
    return tokens, chats


def _composer_tokens(conn: Any) -> dict[str, str]:
    tokens: dict[str, str] = {}
    for cid, at, updated, bubbles in db.composer_tokens(conn):
        stamp = (updated or "").split(",", 1)[0].split("}", 1)[0].strip()
        tokens[cid] = f"{at}:{stamp}:{bubbles}"
    return tokens


def _size(value: Any) -> int:
    if isinstance(value, bytes | str):
        return len(value)
    return len(json.dumps(value)) if value is not None else 0
