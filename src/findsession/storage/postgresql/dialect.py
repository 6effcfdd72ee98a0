"""PostgreSQL's answers to the shared statements' questions (findsession.storage.sql.
dialect), and the `?` marks of a shared statement turned into psycopg's.

The keys are those of schema steps 6 and 8: a person's own rows are keyed from their
owner, and a content row's key is `sealed(...)`, an index no person's condition can walk.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Any

from findsession.storage.sql.dialect import Dialect
from findsession.storage.sql.tables import INDEX, OWNER, Table

#: A quoted literal or identifier (left as it is, its `%` doubled), a mark, or a `%`.
_TOKENS = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|%[s(]|\?|%")


@functools.lru_cache(maxsize=4096)
def native(sql: str) -> str:
    """A statement with `?` marks as psycopg takes it: `%s` for each mark, every literal
    `%` doubled. A `%s` already there is refused: this layer speaks in `?` alone."""

    def token(m: re.Match[str]) -> str:
        text = m.group(0)
        if text == "?":
            return "%s"
        if text in ("%s", "%("):
            raise ValueError(f"write ? for a value, not {text}: {sql}")
        return text.replace("%", "%%")

    return _TOKENS.sub(token, sql)


class PostgresDialect(Dialect):
    """A list of values is one array; every key of a person's rows starts with them."""

    #: A list travels as one array: as many values as a statement is given.
    BATCH = 100_000

    def conflict_target(self, table: Table) -> str:
        columns, rows = self.key_index(table)
        return f"({columns})" + (f" WHERE {rows}" if rows else "")

    def key_index(self, table: Table) -> tuple[str, str]:
        """The unique index of a table's key: its columns, and which rows it holds ('':
        all). A person's own rows are keyed from their owner; a content row's key is
        `sealed(...)`, an index no person's condition can walk (a session's id across
        all owners), over the rows whose key is whole (`sealed` of a missing value would
        be a value, and two rows without one would collide)."""
        if table.belongs == INDEX:
            return ", ".join(table.key), ""
        if table.belongs == OWNER:
            return ", ".join(("owner", *table.key)), ""
        parts = [c if table.column(c).type == "text" else f"{c}::text" for c in table.key]
        owner = ["owner"] if table.key_per_owner else []
        optional = [c for c in table.key if not table.column(c).required]
        return (
            f"sealed(ARRAY[{', '.join(owner + parts)}])",
            " AND ".join(f"{c} IS NOT NULL" for c in optional),
        )

    #: Who pushed a session, from which machine and its id there, and whether it is the
    #: reader's own (`Session.owner`, `machine`, `local_id`, `yours`).
    SESSION_EXTRAS = ", owner, machine, local_id, owner = current_user"

    def session_extras(self, values: tuple[Any, ...]) -> dict[str, Any]:
        owner, machine, local_id, yours = values
        return {
            "owner": owner,
            "machine": machine or None,
            "local_id": local_id,
            "yours": bool(yours),
        }

    def among(self, column: str, values: Sequence[Any]) -> tuple[str, list[Any]]:
        return f"{column} = ANY(?)", [list(values)]

    def starts_with(self, column: str, prefix: str) -> tuple[str, list[Any]]:
        return f"starts_with({column}, ?)", [prefix]

    def mine(self, alias: str = "") -> str:
        return f"{alias}.owner = current_user" if alias else "owner = current_user"
