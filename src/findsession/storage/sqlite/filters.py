"""The SQL that applies search filters inside each retrieval, keyword and vector alike."""

from __future__ import annotations

from typing import Any

from findsession.storage.base import Filters


def unit_filter_sql(filters: Filters) -> tuple[str, list[Any]]:
    """A WHERE fragment over `units u JOIN sessions s`, and its parameters."""
    where, params = session_filter_sql(filters)
    clauses = [where] if params else []
    if filters.kind:
        clauses.append("u.kind = ?")
        params.append(filters.kind)
    if filters.after:
        clauses.append("u.ts >= ?")
        params.append(filters.after)
    if filters.before:
        clauses.append("u.ts < ?")
        params.append(filters.before)
    return (" AND ".join(clauses) or "1"), params


def session_filter_sql(filters: Filters) -> tuple[str, list[Any]]:
    """A WHERE fragment over `sessions s` for the filters that pick whole sessions."""
    clauses: list[str] = []
    params: list[Any] = []
    if filters.project_path:
        clauses.append("in_project(s.cwd, ?)")  # see findsession.projects
        params.append(filters.project_path)
    if filters.session:
        clauses.append("(s.id = ? OR s.id LIKE ? ESCAPE '\\' OR s.parent_id = ?)")
        params += [filters.session, _like_prefix(filters.session) + "%", filters.session]
    if filters.sources:
        clauses.append(f"s.source IN ({', '.join('?' * len(filters.sources))})")
        params += list(filters.sources)
    return (" AND ".join(clauses) or "1"), params


def _like_prefix(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
