"""How to go back into a session, as JSON: the resume object a search hit carries, and
`findsession.open/1`.

Separate because both the search results and `open` hold it.
"""

from __future__ import annotations

from typing import Any

from findsession.domain import Resume, Session
from findsession.jsonout.common import OPEN_SCHEMA, session_json


def resume_json(r: Resume | None) -> dict[str, Any] | None:
    """How to go back into a session: the agent's command as an argv list (never a shell
    line), the directory to run it in and whether it still exists, the session it
    resumes (a subagent's parent), a note, the machine to run it on when it is not this
    one, and `restore` when its transcript is gone (the archive holds a copy `open`
    writes back first, or why it cannot come back); or, when `available` is false, the
    reason."""
    if r is None:
        return None
    return {
        "available": r.available,
        "command": list(r.command) if r.available else None,
        "cwd": r.cwd,
        "cwd_exists": r.cwd_exists,
        "anywhere": r.anywhere,
        "session_id": r.session_id,
        "note": r.note,
        "reason": r.reason,
        "machine": r.machine,
        "restore": None
        if r.restore is None
        else {"path": r.restore.path, "held": r.restore.held, "reason": r.restore.reason},
    }


def open_json(s: Session, r: Resume) -> dict[str, Any]:
    """`findsession.open/1`: the session `open` chose and how it is resumed."""
    return {"schema": OPEN_SCHEMA, "session": session_json(s), "resume": resume_json(r)}
