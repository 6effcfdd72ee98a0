"""The `--json` output: a stable, documented schema (see docs/json.md).

Fields are only ever added within a schema version; renaming or removing one bumps it.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict
from typing import Any

from findsession.domain import Hit, IndexStatus, SearchResponse, Session
from findsession.indexing import IndexReport
from findsession.indexing.embed import EmbedReport
from findsession.reader import SessionView

SEARCH_SCHEMA = "findsession.search/1"
READ_SCHEMA = "findsession.read/1"
STATUS_SCHEMA = "findsession.status/1"
INDEX_SCHEMA = "findsession.index/1"
FORGET_SCHEMA = "findsession.forget/1"

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
    }


def search_json(r: SearchResponse) -> dict[str, Any]:
    return {
        "schema": SEARCH_SCHEMA,
        "query": r.query,
        "strategy": r.strategy,
        "index_empty": r.index_empty,
        "notes": r.notes,
        "results": [hit_json(h) for h in r.hits],
    }


def read_json(view: SessionView) -> dict[str, Any]:
    return {
        "schema": READ_SCHEMA,
        "session": session_json(view.session),
        "total_turns": view.total_turns,
        "turns": [
            {
                "turn": t.ordinal,
                "timestamp": t.timestamp,
                "messages": [
                    {
                        "kind": m.kind.value,
                        "text": m.text,
                        "timestamp": m.timestamp,
                        "tool": m.tool_name,
                        "is_error": m.is_error,
                    }
                    for m in t.messages
                ],
            }
            for t in view.turns
        ],
    }


def forget_json(ids: list[str], before: int, after: int) -> dict[str, Any]:
    return {"schema": FORGET_SCHEMA, "forgotten": ids, "bytes_before": before, "bytes_after": after}


def status_json(st: IndexStatus) -> dict[str, Any]:
    return {"schema": STATUS_SCHEMA, **asdict(st)}


def index_json(r: IndexReport, embedded: EmbedReport | None = None) -> dict[str, Any]:
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
