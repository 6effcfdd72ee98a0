"""The SQL that applies search filters inside each retrieval, keyword and vector alike."""

from __future__ import annotations

from typing import Any

from findsession.search.filters import SearchOptions


def unit_filter_sql(opts: SearchOptions) -> tuple[str, list[Any]]:
    """A WHERE fragment over `units u JOIN sessions s`, and its parameters."""
    where, params = session_filter_sql(opts)
    clauses = [where] if params else []
    if opts.kind:
        clauses.append("u.kind = ?")
        params.append(opts.kind)
    if opts.after:
        clauses.append("u.ts >= ?")
        params.append(opts.after)
    if opts.before:
        clauses.append("u.ts < ?")
        params.append(opts.before)
    return (" AND ".join(clauses) or "1"), params


def session_filter_sql(opts: SearchOptions) -> tuple[str, list[Any]]:
    """A WHERE fragment over `sessions s` for the filters that pick whole sessions."""
    clauses: list[str] = []
    params: list[Any] = []
    project = (opts.project or "").rstrip("/\\")
    if project:  # the filesystem root, like no project, means every project
        clauses.append("in_project(s.cwd, ?)")  # see findsession.projects
        params.append(project)
    if opts.session:
        clauses.append("(s.id = ? OR s.id LIKE ? ESCAPE '\\' OR s.parent_id = ?)")
        params += [opts.session, _like_prefix(opts.session) + "%", opts.session]
    return (" AND ".join(clauses) or "1"), params


def _like_prefix(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
