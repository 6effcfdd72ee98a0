"""How rows of `sessions` map onto `Session`; the row dataclasses are the seam's
(findsession.storage.base)."""

from __future__ import annotations

from findsession.storage.base import FileState, UnitRow

#: Columns of `sessions` that are fields of `Session`, under the same names.
_SESSION_COLUMNS = (
    "id",
    "source",
    "file_path",
    "cwd",
    "title",
    "first_ts",
    "last_ts",
    "git_branch",
    "version",
    "parent_id",
    "is_subagent",
    "agent_type",
    "n_turns",
    "n_messages",
    "missing",
)

__all__ = ["FileState", "UnitRow", "_SESSION_COLUMNS"]
