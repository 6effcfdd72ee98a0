"""The parts of a statement SQLite and PostgreSQL write differently, one method each.

A statement written once (`storage/sql/`) asks its backend for these and nothing else;
each backend package answers them in its `dialect.py`. Keeping the list short is the
point: a difference that is not here is a statement one backend writes for itself.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from findsession.storage.sql.tables import TABLES, Table
from findsession.storage.types import UnitRow

#: The writer's own rows, for a backend where rows have no owner: every row.
EVERY_ROW = "true"


class Dialect:
    """One backend's answers (see each method)."""

    #: Values one statement may carry through `among` (SQLite's bound parameters are
    #: limited; a server takes a whole list as one array).
    BATCH: int = 500
    def among(self, column: str, values: Sequence[Any]) -> tuple[str, list[Any]]:
        """The condition "`column` is one of `values`" and its parameters (at most
        `BATCH` values: `batches` cuts a longer list)."""
        raise NotImplementedError

    def starts_with(self, column: str, prefix: str) -> tuple[str, list[Any]]:
        """The condition "`column` starts with `prefix`, taken literally"."""
        raise NotImplementedError

    def mine(self, alias: str = "") -> str:
        """The condition that keeps the connecting person's own rows of a table (the
        rows a shared server holds carry their owner; a file on one machine has only
        its person's)."""
        return EVERY_ROW

    #: Columns a backend reads with each session beyond `rows.SESSION_COLUMNS` (a
    #: shared server: who pushed it, from which machine), each after a comma.
    SESSION_EXTRAS = ""

    def session_extras(self, values: tuple[Any, ...]) -> dict[str, Any]:
        """The `Session` fields the values of `SESSION_EXTRAS` fill."""
        return {}

    #: Columns a backend writes with each unit beyond `units.UNIT_COLUMNS`, each with
    #: the expression of its value (PostgreSQL: the CJK bigrams as a `tsvector`).
    UNIT_EXTRAS: tuple[tuple[str, str], ...] = ()

    def unit_extra_values(self, unit: UnitRow) -> tuple[Any, ...]:
        """The values of `UNIT_EXTRAS` for one unit."""
        return ()

    def unit_written(self, unit_id: int, unit: UnitRow) -> None:
        """A unit was inserted or rewritten: a backend that indexes some of its text
        apart from the row (SQLite's CJK bigrams) writes it now."""

    def units_leaving(self, where: str, params: Any) -> None:
        """About to delete the units `where` picks (over `units`): a backend that
        indexes them apart from their rows (SQLite's CJK bigrams) lets them go first."""

    def batches(self, values: Iterable[Any]) -> Iterator[list[Any]]:
        """`values` in lists of at most `BATCH`, each once, in order."""
        items = list(dict.fromkeys(values))
        for at in range(0, len(items), self.BATCH):
            yield items[at : at + self.BATCH]

    def key(self, table: str) -> str:
        """`table`'s unique key (findsession.storage.sql.tables) as an upsert names it:
        `ON CONFLICT {key} DO ...`."""
        return self.conflict_target(TABLES[table])

    def conflict_target(self, table: Table) -> str:
        return f"({', '.join(table.key)})"
