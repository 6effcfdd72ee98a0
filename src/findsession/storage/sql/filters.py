"""The SQL that applies search filters inside each retrieval, keyword and vector alike."""

from __future__ import annotations

from typing import Any

from findsession.storage.sql.dialect import Dialect
from findsession.storage.types import Filters


def unit_filter_sql(dialect: Dialect, filters: Filters) -> tuple[str, list[Any]]:
    """A WHERE fragment over `units u JOIN sessions s`, and its parameters."""
    where, params = session_filter_sql(dialect, filters)
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
    return (" AND ".join(clauses) or "true"), params


def session_filter_sql(dialect: Dialect, filters: Filters) -> tuple[str, list[Any]]:
    """A WHERE fragment over `sessions s` for the filters that pick whole sessions."""
    clauses: list[str] = []
    params: list[Any] = []
    if filters.project_path:
        clauses.append("in_project(s.cwd, ?)")  # see findsession.projects
        params.append(filters.project_path)
    if filters.session:
        prefix, value = dialect.starts_with("s.id", filters.session)
        clauses.append(f"(s.id = ? OR {prefix} OR s.parent_id = ?)")
        params += [filters.session, *value, filters.session]
    if filters.sources:
        where, values = dialect.among("s.source", filters.sources)
        clauses.append(where)
        params += values
    return (" AND ".join(clauses) or "true"), params
