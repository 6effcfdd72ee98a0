"""SQLite's answers to the shared statements' questions (findsession.storage.sql.dialect)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from findsession.storage.sql.dialect import Dialect


class SqliteDialect(Dialect):
    """Values listed one mark each; keys as the tables describe them."""

    #: Well under SQLite's limit on the values one statement binds.
    BATCH = 500

    def among(self, column: str, values: Sequence[Any]) -> tuple[str, list[Any]]:
        if not values:
            return "false", []
        return f"{column} IN ({', '.join('?' * len(values))})", list(values)

    def starts_with(self, column: str, prefix: str) -> tuple[str, list[Any]]:
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        return f"{column} LIKE ? ESCAPE '\\'", [escaped + "%"]
