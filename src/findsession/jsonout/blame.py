"""`findsession.blame/1`: the sessions that wrote a file (`blame --json`, the MCP tool
`sessions_for_file`)."""

from __future__ import annotations

from typing import Any

from findsession.domain import Blame
from findsession.jsonout.common import BLAME_SCHEMA, session_json


def blame_json(result: Blame) -> dict[str, Any]:
    return {
        "schema": BLAME_SCHEMA,
        "path": result.path,
        "first": result.first,
        "last": result.lines[-1].number if result.lines else result.last,
        "total": result.total,
        "writers": [
            {
                "rank": rank,
                "session": session_json(w.session),
                "turn": w.turn,
                "timestamp": w.ts,
                "tool": w.tool,
                "op": w.op,
                "path": w.path,
                "match": w.match,
                "prompt": w.prompt,
                "added": w.added,
                "removed": w.removed,
                "added_lines": w.added_lines,
                "truncated": w.truncated,
                "holds": w.holds,
                "last": w.last,
            }
            for rank, w in enumerate(result.writers, 1)
        ],
        "lines": [
            {
                "line": b.number,
                "text": b.text,
                "writer": None if b.writer is None else b.writer + 1,
                "neutral": b.neutral,
            }
            for b in result.lines
        ],
        "notes": result.notes,
    }
