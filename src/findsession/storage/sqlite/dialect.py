"""SQLite's answers to the shared statements' questions (findsession.storage.sql.dialect)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from findsession.storage.sql.dialect import Dialect


class SqliteDialect(Dialect):
    """Values listed one mark each; keys as the tables were made."""

    #: Well under SQLite's limit on the values one statement binds.
    BATCH = 500
    KEYS = {
        "settings": "key",
        "files": "path",
        "problems": "file_path, line",
        "redactions": "file_path, kind",
        "replays": "file_path, source_path",
        "last_results": "terminal, rank",
        "sessions": "id",
        "messages": "file_path, line, part",
        "session_meta": "file_path, line",
        "embedded": "unit_id",
    }

    def among(self, column: str, values: Sequence[Any]) -> tuple[str, list[Any]]:
        if not values:
            return "false", []
        return f"{column} IN ({', '.join('?' * len(values))})", list(values)

    def starts_with(self, column: str, prefix: str) -> tuple[str, list[Any]]:
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        return f"{column} LIKE ? ESCAPE '\\'", [escaped + "%"]
