"""What a Hermes Agent `state.db` holds, counted without findsession: the typed prompts,
tool calls and tool results of each conversation, by rules simpler than the source's
and written apart from it, so the two can be held against each other.

- A conversation is a session whose parent did not end in `compression`, with every
  session that continues it (`parent_session_id` whose row ended so).
- A row taken back (`active = 0` and `compacted = 0`) is not counted.
- A prompt is a `user` row whose text does not open with `[` (Hermes' own notes all
  do), or the words after a scheduled job's, a quoted reply's or a system note's
  opening `[…]` and a blank line, or a `/skill` invocation, counted as `/<name>
  <instruction>`. A text met before in an earlier session of the conversation or among
  the rows a compaction summarised (`compacted = 1`), which it copies, is not counted
  again; nor one the parent of a branch holds (what `/branch` copied).
- A call is an id in an `assistant` row's `tool_calls`, a result a `tool` row's
  `tool_call_id` unless the terminal printed nothing and succeeded: each once, and none
  the branch's parent made.
"""

from __future__ import annotations

import json
import re
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

_SKILL = re.compile(r'\A\[IMPORTANT: The user has invoked the "([^"]+)" skill')
_SAID = "alongside the skill invocation: "
_NOTE = re.compile(
    r'\A\[(?:Replying to: "|System note:|[A-Z]+: You are running as a scheduled cron)'
)


@dataclass
class Counted:
    prompts: list[str] = field(default_factory=list)
    calls: set[str] = field(default_factory=set)
    results: set[str] = field(default_factory=set)


def counted(db: Path) -> dict[str, Counted]:
    """Each conversation, by its first session's id."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        sessions = {
            sid: (parent, reason, config or "")
            for sid, parent, reason, config in conn.execute(
                "SELECT id, parent_session_id, end_reason, model_config FROM sessions"
            )
        }
        columns = {row[1] for row in conn.execute("PRAGMA table_info(messages)")}
        live = "active = 1 OR compacted = 1" if "compacted" in columns else "1"
        compacted = "compacted = 1" if "compacted" in columns else "0"
        rows = conn.execute(
            f"SELECT session_id, role, content, tool_calls, tool_call_id, {compacted}"
            f" FROM messages WHERE {live} ORDER BY id"
        ).fetchall()
    finally:
        conn.close()

    def first(sid: str) -> str:
        while sessions.get(sid, (None, None, ""))[0] in sessions:
            parent = sessions[sid][0]
            if sessions[parent][1] != "compression":
                break
            sid = parent
        return sid

    out: dict[str, Counted] = {}
    summarised: dict[str, set[str]] = {}  # texts a compaction copies, by conversation
    texts_of: dict[str, set[str]] = {}  # texts of each session
    earlier: dict[str, set[str]] = {}  # texts of the conversation's earlier sessions
    last: dict[str, str] = {}
    for sid, role, content, calls, call_id, compacted in rows:
        key = first(sid)
        if last.get(key, sid) != sid:
            earlier.setdefault(key, set()).update(texts_of.get(last[key], set()))
        last[key] = sid
        c = out.setdefault(key, Counted())
        if role == "user" and isinstance(content, str):
            text = content.strip()
            while _NOTE.match(text) and "]\n\n" in text:
                text = text.split("]\n\n", 1)[1].strip()
            skill = _SKILL.match(text)
            if skill:
                said = text.rsplit(_SAID, 1)[-1].strip() if _SAID in text else ""
                text = f"/{skill.group(1)} {said}".strip()
            gone = summarised.get(key, set()) | earlier.get(key, set())
            if text and (skill or not text.startswith("[")) and text not in gone:
                c.prompts.append(text)
            texts_of.setdefault(sid, set()).add(text)
            if compacted:
                summarised.setdefault(key, set()).add(text)
        elif role == "assistant" and calls:
            c.calls |= {call["id"] for call in json.loads(calls)}
        elif role == "tool" and call_id and not _quiet(content):
            c.results.add(call_id)
    for key, c in out.items():
        parent, _, config = sessions.get(key, (None, None, ""))
        if parent and "_branched_from" in config:
            base = out.get(first(parent), Counted())
            c.prompts = [p for p in c.prompts if p not in base.prompts]
            c.calls -= base.calls
            c.results -= base.results
    return {key: c for key, c in out.items() if c.prompts or c.calls}


def _quiet(content: object) -> bool:
    """A terminal command that printed nothing and succeeded: nothing to read."""
    try:
        data = json.loads(content) if isinstance(content, str) else None
    except ValueError:
        return False
    return isinstance(data, dict) and data.get("output") == "" and data.get("exit_code") == 0
