"""Which copy of a session stays when two files hold it: the newer one.

A chat app's exports of one account hold the same conversations under the same ids
(`sources.chat_export`), each with its revision (`MetaKind.REVISION`, the app's
last-changed time). Read after a newer export, an older one must not put its older copy
of a conversation back over the newer: such a conversation is left as the index holds
it, and the older file is noted as repeating the newer one's, so that pruning the newer
export reads the older one again and the conversation stays while any export holds it.
A copy of the same revision is the same conversation: it is left as held too, so a
newer export costs only the conversations that changed since the last one. Within one
file, a changed copy always replaces the file's own.
"""

from __future__ import annotations

from dataclasses import replace

from findsession.domain import MetaEvent, MetaKind
from findsession.sources.cursor import Reading
from findsession.storage.base import Storage


def newer_copies_kept(store: Storage, session_id: str, path: str, reading: Reading) -> Reading:
    """`reading` without the sessions it replaces whose copy another file holds at the
    same or a newer revision."""
    incoming = {
        r.session_key: r.value
        for r in reading.records
        if isinstance(r, MetaEvent) and r.kind is MetaKind.REVISION and r.session_key
    }
    older: set[str] = set()
    holders: set[str] = set()
    for key in reading.replaced & incoming.keys():
        sid = f"{session_id}:{key}"
        holder = store.session_file(sid)
        if holder is None or holder == path:
            continue  # a new session, or this file's own copy changed
        held = [e.value for e in store.session_meta(sid) if e.kind is MetaKind.REVISION]
        if held and max(held) >= incoming[key]:
            older.add(key)
            holders.add(holder)
    if not older:
        return reading
    if holders:
        store.add_replays(path, holders)
    kept = [r for r in reading.records if r.session_key not in older]
    return replace(reading, records=kept, replaced=reading.replaced - older)
