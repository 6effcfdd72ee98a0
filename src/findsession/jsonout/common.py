"""What every JSON shape shares: the schema names (one place, so a version bump is seen
beside all the others), `dumps`, and a session's object, which every result that names a
session holds.

Separate from the builders so that each command family's module imports only this.
"""

from __future__ import annotations

import json
import re
from typing import Any

from findsession.domain import Session

SEARCH_SCHEMA = "findsession.search/1"
READ_SCHEMA = "findsession.read/1"
STATUS_SCHEMA = "findsession.status/1"
INDEX_SCHEMA = "findsession.index/1"
FORGET_SCHEMA = "findsession.forget/1"
SESSIONS_SCHEMA = "findsession.sessions/1"
SOURCES_SCHEMA = "findsession.sources/1"
OPEN_SCHEMA = "findsession.open/1"
AUDIT_SCHEMA = "findsession.audit/1"
TITLES_SCHEMA = "findsession.titles/1"
PUSH_SCHEMA = "findsession.push/1"
SHARES_SCHEMA = "findsession.shares/1"
SERVER_SCHEMA = "findsession.server/1"
UNDO_SCHEMA = "findsession.titles-undo/1"
HANDOFF_SCHEMA = "findsession.handoff/1"
BLAME_SCHEMA = "findsession.blame/1"


# JSON escapes only U+0000-U+001F; DEL, the C1 controls (U+009B is a CSI to some
# terminals) and bidi controls would reach a terminal as they are.
_UNESCAPED = re.compile("[\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]")


def dumps(data: dict[str, Any]) -> str:
    """`data` as indented JSON, text as the transcript has it, safe to print to a
    terminal: every control character is a `\\uXXXX` escape, so the parsed value is
    unchanged and nothing reaches the terminal to act on it."""
    text = json.dumps(data, ensure_ascii=False, indent=2)
    # These characters can only stand inside JSON strings, where an escape means the same.
    return _UNESCAPED.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def session_json(s: Session) -> dict[str, Any]:
    """A session as every result that names one shows it."""
    return {
        "id": s.id,
        "title": s.title,
        "source": s.source,
        "cwd": s.cwd,
        "path": s.file_path,
        "git_branch": s.git_branch,
        "started": s.first_ts,
        "ended": s.last_ts,
        "turns": s.n_turns,
        "subagent": s.is_subagent,
        "parent_id": s.parent_id,
        "agent_type": s.agent_type,
        # The model that wrote the last reply, where the source names one (a chat app's
        # export: `gpt-4o`); null for the agents, whose transcripts are read without it.
        "model": s.version,
        "missing": s.missing,
        "owner": s.owner,
        "machine": s.machine,
        "yours": s.yours,
    }
