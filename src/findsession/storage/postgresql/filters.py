"""The SQL that applies search filters inside each retrieval, keyword and vector alike."""

from __future__ import annotations

from typing import Any

from findsession.storage.base import Filters


def unit_filter_sql(filters: Filters) -> tuple[str, list[Any]]:
    """A WHERE fragment over `units u JOIN sessions s`, and its parameters."""
    where, params = session_filter_sql(filters)
    clauses = [where] if params else []
    if filters.kind:
        clauses.append("u.kind = %s")
        params.append(filters.kind)
    if filters.after:
        clauses.append("u.ts >= %s")
        params.append(filters.after)
    if filters.before:
        clauses.append("u.ts < %s")
        params.append(filters.before)
    return (" AND ".join(clauses) or "true"), params


def session_filter_sql(filters: Filters) -> tuple[str, list[Any]]:
    """A WHERE fragment over `sessions s` for the filters that pick whole sessions."""
    clauses: list[str] = []
    params: list[Any] = []
    if filters.project_path:
        clauses.append("in_project(s.cwd, %s)")  # see findsession.projects
        params.append(filters.project_path)
    if filters.session:
        clauses.append("(s.id = %s OR starts_with(s.id, %s) OR s.parent_id = %s)")
        params += [filters.session, filters.session, filters.session]
    if filters.sources:
        clauses.append("s.source = ANY(%s)")
        params.append(list(filters.sources))
    return (" AND ".join(clauses) or "true"), params


def filter_values(filters: Filters) -> list[Any]:
    """The filters as the search functions of schema step 8 take them: project, session,
    sources, kind, after, before (None for each filter not set)."""
    return [
        filters.project_path,
        filters.session,
        list(filters.sources) if filters.sources else None,
        filters.kind,
        filters.after,
        filters.before,
    ]
