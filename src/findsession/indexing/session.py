"""Rebuild a session from its stored messages: its row (title, times, parent), its turns
and its fingerprint as units, and the files it wrote (`writes`). No transcript is parsed
again.

A note's section becomes a unit of kind `doc` titled by its heading path, its text in the
prompt field: the person's own words, so `--speaker user` keeps notes.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from findsession.domain import Message, MessageKind, MetaEvent, MetaKind, Session, Turn
from findsession.indexing.report import IndexReport
from findsession.indexing.writes import write_rows
from findsession.redact import redact
from findsession.sources import SourceFile
from findsession.storage.base import UnitRow
from findsession.storage.views import IndexStore
from findsession.turns import OPENERS, OUTSIDE, FingerprintParts, choose_title, iter_turns

#: Messages read from the index at a time: rebuilding a session of any length costs the
#: memory of a page of messages and one turn, not of every message it holds.
PAGE = 2000


@dataclass
class _Facts:
    """What the session's row needs of its messages, gathered as they stream by."""

    content: bool = False
    messages: int = 0
    first_ts: str | None = None
    last_ts: str | None = None
    cwd: str | None = None
    git_branch: str | None = None
    version: str | None = None
    leaves: set[str] = field(default_factory=set)  # summaries' leaf uuids found here
    #: What `write_rows` reads (tool calls, failed outputs, where turns start), the rest
    #: of each message's text left out: a session's writes, not all its messages.
    for_writes: list[Message] = field(default_factory=list)
    opened: bool = False  # a message of a turn was seen

    def see(self, m: Message, wanted_leaves: set[str]) -> Message:
        self.messages += 1
        self.content = self.content or m.kind is not MessageKind.HARNESS
        if m.timestamp:
            self.first_ts = min(self.first_ts or m.timestamp, m.timestamp)
            self.last_ts = max(self.last_ts or m.timestamp, m.timestamp)
        self.cwd = self.cwd or m.cwd
        self.git_branch = m.git_branch or self.git_branch
        self.version = m.version or self.version
        if m.uuid and m.uuid in wanted_leaves:
            self.leaves.add(m.uuid)
        # What opens a turn is kept (without its text) so `write_rows` numbers turns as
        # search does, the first content of a session that opens with none typed too.
        opens = m.kind in OPENERS or (not self.opened and m.kind not in OUTSIDE)
        self.opened = self.opened or m.kind not in OUTSIDE
        if m.kind is MessageKind.TOOL_CALL:
            self.for_writes.append(m)
        elif opens or (m.kind is MessageKind.TOOL_OUTPUT and m.is_error):
            self.for_writes.append(replace(m, text=""))
        return m


def _messages(store: IndexStore, sid: str) -> Iterator[Message]:
    page, after = store.session_messages_page(sid, None, PAGE)
    yield from page
    while after is not None:
        page, after = store.session_messages_page(sid, after, PAGE)
        yield from page


def rebuild_session(
    store: IndexStore,
    sid: str,
    sf: SourceFile,
    file_session_id: str,
    path: str,
    report: IndexReport,
) -> None:
    """Recompute a session's row, turns and fingerprint from its stored messages, read
    once, a page at a time: each turn's unit is written as it is complete, the row (and
    the fingerprint, which needs its title) once every message was seen."""
    events = store.session_meta(sid)
    summaries = {e.leaf_uuid for e in events if e.kind is MetaKind.SUMMARY and e.leaf_uuid}
    facts = _Facts()
    built: list[Session] = []

    def units() -> Iterator[UnitRow]:
        parts = FingerprintParts()
        first: Turn | None = None
        for turn in iter_turns(facts.see(m, summaries) for m in _messages(store, sid)):
            first = first or (turn if turn.prompt.strip() else None)
            parts.add(turn)
            yield _unit(turn, sf.source)
        session = _session(store, sid, sf, file_session_id, path, events, facts, first)
        session.n_turns = parts.count
        built.append(session)
        fp = parts.result()
        if fp is not None:
            yield UnitRow(
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

    written = store.sync_units(sid, units())
    if not facts.content:
        if store.get_session(sid) is not None:
            store.delete_session(sid)
            report.sessions_changed += 1
        return
    inline_child = sid != file_session_id and not sf.sibling_sessions
    description = redact(sf.agent_description)[0] if sf.agent_description else None
    session = built[0]
    store.save_session(session, description if not inline_child else None)
    started = [c for e in events if e.kind is MetaKind.CHILDREN for c in e.value.split()]
    if started:
        store.adopt(sid, started)
    store.save_file_writes(sid, write_rows(facts.for_writes, sf.source, session.cwd))
    report.units_written += written
    report.sessions_changed += 1


def _session(
    store: IndexStore,
    sid: str,
    sf: SourceFile,
    file_session_id: str,
    path: str,
    events: list[MetaEvent],
    facts: _Facts,
    first: Turn | None,
) -> Session:
    """The session's row, from its metadata and what its messages showed."""
    meta: dict[MetaKind, str] = {}
    trusted_summary = None
    for event in events:
        if event.kind is MetaKind.SUMMARY:
            if event.leaf_uuid in facts.leaves:
                trusted_summary = event.value
        else:
            meta[event.kind] = event.value
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
    firsts = [first] if first else []
    return Session(
        id=sid,
        source=sf.source,
        file_path=path,
        cwd=facts.cwd,
        title=choose_title(meta, trusted_summary, firsts, agent_label, store.index_title(sid)),
        first_ts=facts.first_ts,
        last_ts=facts.last_ts,
        git_branch=facts.git_branch,
        version=facts.version,
        parent_id=parent_id,
        is_subagent=sf.is_subagent or inline_child or bool(sibling_parent),
        agent_type=agent_type if not inline_child else None,
        n_turns=0,
        n_messages=facts.messages,
    )


def _unit(t: Turn, source: str) -> UnitRow:
    return UnitRow(
        kind="turn" if t.heading is None else "doc",
        ordinal=t.ordinal,
        source=source,
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
