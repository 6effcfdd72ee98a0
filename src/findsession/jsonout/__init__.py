"""The JSON shapes of findsession's results: a stable, documented schema (docs/json.md).

The CLI's `--json` and the MCP server's tools both build their answers here, one function
per shape, so a script and an agent see the same objects with the same field names and a
change to one reaches the other. Fields are only ever added within a schema version;
renaming or removing one bumps it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import asdict
from typing import Any

from findsession.domain import (
    AuditRecord,
    Confidence,
    Hit,
    IndexStatus,
    Level,
    Message,
    Resume,
    SearchResponse,
    Session,
    SourceReport,
)
from findsession.indexing import IndexReport
from findsession.indexing.embed import EmbedReport
from findsession.reader import SessionView
from findsession.titles.report import Reason, TitlesReport, UndoReport

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
UNDO_SCHEMA = "findsession.titles-undo/1"
#: A listed session's first prompt is cut here: enough to recognise it by.
FIRST_PROMPT_CHARS = 300

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
        "missing": s.missing,
    }


def hit_json(h: Hit) -> dict[str, Any]:
    """One search result: the session and the unit in it that ranked it, with why."""
    return {
        "rank": h.rank,
        "score": round(h.score, 6),
        "session": session_json(h.session),
        "match": {
            "kind": h.unit_kind,
            "turn": h.turn,
            "timestamp": h.timestamp,
            "field": h.matched_field,
            "snippet": h.snippet,
            "highlights": [list(span) for span in h.highlights],
            "tools": h.tool_names,
            "files": h.files,
        },
        "explain": {
            "keyword_rank": h.keyword_rank,
            "vector_rank": h.vector_rank,
            "bm25": None if h.bm25 is None else round(h.bm25, 4),
            "cosine": None if h.cosine is None else round(h.cosine, 4),
            "matched_terms": h.matched_terms,
            "pinned": h.pinned,
        },
        "resume": resume_json(h.resume),
    }


def resume_json(r: Resume | None) -> dict[str, Any] | None:
    """How to go back into a session: the agent's command as an argv list (never a shell
    line), the directory to run it in and whether it still exists, the session it
    resumes (a subagent's parent), a note; or, when `available` is false, the reason."""
    if r is None:
        return None
    return {
        "available": r.available,
        "command": list(r.command) if r.available else None,
        "cwd": r.cwd,
        "cwd_exists": r.cwd_exists,
        "session_id": r.session_id,
        "note": r.note,
        "reason": r.reason,
    }


def open_json(s: Session, r: Resume) -> dict[str, Any]:
    """`findsession.open/1`: the session `open` chose and how it is resumed."""
    return {"schema": OPEN_SCHEMA, "session": session_json(s), "resume": resume_json(r)}


#: What each confidence level means, in words a person or an agent can act on.
CONFIDENCE_SAYS = {
    Level.STRONG: "strong: the first result is very likely the session meant",
    Level.WEAK: (
        "weak: the first result may be it, but it shares few of the query's rarer words or"
        " stands out little by meaning; read it before relying on it"
    ),
    Level.NOTHING: (
        "nothing close: no indexed session matches this well; the results are only the"
        " nearest and most likely not it. Say it was not found, or search again with other"
        " words"
    ),
}


def confidence_json(c: Confidence | None) -> dict[str, Any] | None:
    """The level, its meaning in words, the score (0-1) and the signals behind it."""
    if c is None:
        return None
    return {
        "level": c.level.value,
        "says": CONFIDENCE_SAYS[c.level],
        "score": c.score,
        "coverage": _rounded(c.coverage),
        "lift": _rounded(c.lift),
        "agreement": c.agreement,
    }


def _rounded(x: float | None) -> float | None:
    return None if x is None else round(x, 3)


def search_json(r: SearchResponse) -> dict[str, Any]:
    """`findsession.search/1`: what ran, how sure it is, and the hits, best first."""
    return {
        "schema": SEARCH_SCHEMA,
        "query": r.query,
        "strategy": r.strategy,
        "confidence": confidence_json(r.confidence),
        "index_empty": r.index_empty,
        "notes": r.notes,
        "results": [hit_json(h) for h in r.hits],
    }


def read_json(view: SessionView, max_chars: int | None = None) -> dict[str, Any]:
    """`findsession.read/1`: a session's turns as they were said.

    With `max_chars`, the messages' text together holds at most that many characters:
    the message that reaches the limit is cut there and the ones after it are left out,
    so a reader with a budget (an agent's context) gets the start of the conversation
    whole. `left_out_chars` says how much text did not fit (always 0 without a limit).
    """
    budget = _Budget(max_chars)
    turns = []
    for t in view.turns:
        if budget.cut:
            budget.skip(m.text for m in t.messages)
            continue
        messages = []
        for m in t.messages:
            text = budget.take(m.text)
            if text is not None:
                messages.append(message_json(m, text))
        if messages or not t.messages:  # a turn whose every message was cut is left out
            turns.append({"turn": t.ordinal, "timestamp": t.timestamp, "messages": messages})
    return {
        "schema": READ_SCHEMA,
        "session": session_json(view.session),
        "total_turns": view.total_turns,
        "turns": turns,
        "left_out_chars": budget.left_out,
    }


def message_json(m: Message, text: str | None = None) -> dict[str, Any]:
    """One message of a turn; `text` stands in for the message's own when it was cut."""
    return {
        "kind": m.kind.value,
        "text": m.text if text is None else text,
        "timestamp": m.timestamp,
        "tool": m.tool_name,
        "is_error": m.is_error,
        "heading": m.heading,
    }


class _Budget:
    """Characters of message text still to give; None gives all of it."""

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self.left_out = 0

    @property
    def cut(self) -> bool:
        """True once some text was cut: everything after the cut is left out too."""
        return self.left_out > 0

    def take(self, text: str) -> str | None:
        """As much of `text` as fits; None when none of it does."""
        if self.limit is None:
            return text
        if self.cut or (self.limit == 0 and text):
            self.left_out += len(text)
            return None
        kept = text[: self.limit]
        self.limit -= len(kept)
        self.left_out += len(text) - len(kept)
        return kept

    def skip(self, texts: Iterable[str]) -> None:
        self.left_out += sum(len(text) for text in texts)


def sessions_json(listed: Iterable[tuple[Session, str | None]]) -> dict[str, Any]:
    """`findsession.sessions/1`: sessions, each with its first prompt (cut to
    FIRST_PROMPT_CHARS), in the order given: "what was I doing last week"."""
    return {
        "schema": SESSIONS_SCHEMA,
        "sessions": [
            {**session_json(s), "first_prompt": (first or "")[:FIRST_PROMPT_CHARS]}
            for s, first in listed
        ],
    }


def forget_json(ids: list[str], before: int, after: int) -> dict[str, Any]:
    """`findsession.forget/1`: the sessions deleted and the file's size around it."""
    return {"schema": FORGET_SCHEMA, "forgotten": ids, "bytes_before": before, "bytes_after": after}


def sources_json(reports: list[SourceReport]) -> dict[str, Any]:
    """`findsession.sources/1`: each source, whether it is on, where it looks (and whether
    that place exists), and its files, sessions, subagents and skipped lines."""
    return {
        "schema": SOURCES_SCHEMA,
        "sources": [
            {
                "kind": r.kind,
                "enabled": r.enabled,
                "roots": [{"path": path, "exists": exists} for path, exists in r.roots],
                **asdict(r.counts),
            }
            for r in reports
        ],
    }


def audit_json(records: list[AuditRecord]) -> dict[str, Any]:
    """`findsession.audit/1`: answered MCP calls, newest first; a query only as its digest."""
    return {"schema": AUDIT_SCHEMA, "records": [{"id": r.id, **asdict(r)} for r in records]}


def status_json(st: IndexStatus) -> dict[str, Any]:
    """`findsession.status/1`: what the index holds."""
    return {"schema": STATUS_SCHEMA, **asdict(st)}


def index_json(r: IndexReport, embedded: EmbedReport | None = None) -> dict[str, Any]:
    """`findsession.index/1`: an index run's summary, and its embedding stage's if it ran."""
    data = asdict(r)
    data["problems"] = [
        {"path": path, "line": p.line, "reason": p.reason, "detail": p.detail}
        for path, p in r.problems
    ]
    data["errors"] = [{"path": path, "error": err} for path, err in r.errors]
    data["skipped"] = [{"path": path, "reason": why} for path, why in r.skipped]
    data["skipped_by_reason"] = r.skipped_by_reason()
    data["embedding"] = None
    if embedded is not None:
        data["embedding"] = {
            **asdict(embedded),
            "texts_per_second": round(embedded.texts_per_second, 1),
        }
    return {"schema": INDEX_SCHEMA, **data}


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
