"""The search filters as the search functions of schema step 8 take them (the WHERE
fragments both backends filter with are findsession.storage.sql.filters)."""

from __future__ import annotations

from typing import Any

from findsession.storage.base import Filters


def filter_values(filters: Filters) -> list[Any]:
    """Project, session, sources, kind, after, before (None for each filter not set)."""
    return [
        filters.project_path,
        filters.session,
        list(filters.sources) if filters.sources else None,
        filters.kind,
        filters.after,
        filters.before,
    ]
