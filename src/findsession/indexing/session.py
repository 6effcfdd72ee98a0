"""Rebuild a session from its stored messages: its row (title, times, parent), its turns
and its fingerprint as units, and the files it wrote (`writes`). No transcript is parsed
again.

A note's section becomes a unit of kind `doc` titled by its heading path, its text in the
prompt field: the person's own words, so `--speaker user` keeps notes.
"""

from __future__ import annotations

from findsession.domain import MessageKind, MetaKind, Session
from findsession.indexing.report import IndexReport
from findsession.indexing.writes import write_rows
from findsession.redact import redact
from findsession.sources import SourceFile
from findsession.storage.base import Storage, UnitRow
from findsession.turns import build_turns, choose_title, fingerprint


def rebuild_session(
    store: Storage, sid: str, sf: SourceFile, file_session_id: str, path: str, report: IndexReport
) -> None:
    """Recompute a session's row, turns and fingerprint from its stored messages."""
    messages = store.session_messages(sid)
    if not any(m.kind is not MessageKind.HARNESS for m in messages):
        if store.get_session(sid) is not None:
            store.delete_session(sid)
            report.sessions_changed += 1
        return
    meta: dict[MetaKind, str] = {}
    uuids = {m.uuid for m in messages if m.uuid}
    trusted_summary = None
    for event in store.session_meta(sid):
        if event.kind is MetaKind.SUMMARY:
            if event.leaf_uuid in uuids:
                trusted_summary = event.value
        else:
            meta[event.kind] = event.value
    turns = build_turns(messages)
    # Lines the parser routed to a child session (inline subagents) live in the
    # file of their parent.
    inline_child = sid != file_session_id and not sf.sibling_sessions
    parent_id = file_session_id if inline_child else sf.parent_id
    sibling_parent = meta.get(MetaKind.PARENT) if sf.sibling_sessions else None
    if sibling_parent:
        parent_id = f"{file_session_id}:{sibling_parent}"
    if sf.is_subagent and parent_id is None:
        parent_id = store.parent_of(sid)
    agent_label = None
    description = redact(sf.agent_description)[0] if sf.agent_description else None
    agent_type = redact(sf.agent_type)[0] if sf.agent_type else None
    if description and not inline_child:
        agent_label = f"{agent_type or 'agent'}: {description}"
    timestamps = sorted(m.timestamp for m in messages if m.timestamp)
    session = Session(
        id=sid,
        source=sf.source,
        file_path=path,
        cwd=next((m.cwd for m in messages if m.cwd), None),
        title=choose_title(meta, trusted_summary, turns, agent_label, store.index_title(sid)),
        first_ts=timestamps[0] if timestamps else None,
        last_ts=timestamps[-1] if timestamps else None,
        git_branch=next((m.git_branch for m in reversed(messages) if m.git_branch), None),
        version=next((m.version for m in reversed(messages) if m.version), None),
        parent_id=parent_id,
        is_subagent=sf.is_subagent or inline_child or bool(sibling_parent),
        agent_type=agent_type if not inline_child else None,
        n_turns=len(turns),
        n_messages=len(messages),
    )
    store.save_session(session, description if not inline_child else None)
    store.save_file_writes(sid, write_rows(messages, sf.source, session.cwd))
    units = [
        UnitRow(
            kind="turn" if t.heading is None else "doc",
            ordinal=t.ordinal,
            source=sf.source,
            ts=t.timestamp,
            # Redacted here too: the heading is part of the section's text, which the
            # indexer redacted, but the path also names the document's title.
            title="" if t.heading is None else redact(t.heading)[0],
            prompt=t.prompt,
            reply=t.reply,
            tools=t.tools_text,
            tool_names=t.tool_names,
            files=t.files,
        )
        for t in turns
    ]
    fp = fingerprint(turns)
    if fp is not None:
        units.append(
            UnitRow(
                kind="session",
                ordinal=0,
                source=sf.source,
                ts=session.last_ts,
                title=session.title or "",
                prompt=fp.prompt,
                reply=fp.reply,
                tools="",
                tool_names=[],
                files=[],
            )
        )
    report.units_written += store.sync_units(sid, units)
    report.sessions_changed += 1
