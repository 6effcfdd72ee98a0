"""`findsession.titles/1` and `titles-undo/1`: what `findsession titles` proposed and
did, and what `--undo` took back, each with its reason as a code and in words.

Separate because it is the titles command's own shapes.
"""

from __future__ import annotations

from typing import Any

from findsession.jsonout.common import TITLES_SCHEMA, UNDO_SCHEMA, session_json
from findsession.titles.report import Reason, TitlesReport, UndoReport


def _reason(r: Reason | None) -> dict[str, str] | None:
    return {"code": r.code, "says": r.says} if r else None


def titles_json(report: TitlesReport) -> dict[str, Any]:
    """`findsession.titles/1`: each session's proposal and what became of it."""
    return {
        "schema": TITLES_SCHEMA,
        "write": report.write,
        "by": report.by,
        "titled": report.titled,
        "notes": report.notes,
        "sessions": [
            {
                "session": session_json(r.session),
                "title_kind": r.title_kind,
                "title": r.title,
                "summary": r.summary,
                "by": r.by,
                "terms": r.terms,
                "place": r.place,
                "status": r.status,
                "reason": _reason(r.reason),
            }
            for r in report.results
        ],
    }


def undo_json(report: UndoReport) -> dict[str, Any]:
    """`findsession.titles-undo/1`: each title taken back, or why it stays."""
    return {
        "schema": UNDO_SCHEMA,
        "notes": report.notes,
        "undone": [
            {
                "session_id": r.session_id,
                "path": r.path,
                "title": r.title,
                "offset": r.offset,
                "status": r.status,
                "reason": _reason(r.reason),
                "note": r.note,
            }
            for r in report.results
        ],
    }
