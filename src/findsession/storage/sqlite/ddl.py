"""Schema steps made from a table's description (findsession.storage.sql.tables): a new
table, or a column added to one, as the file holds it.

A step is listed in `migrations.MIGRATIONS` like any other (`create(FILE_WRITES)`); the
PostgreSQL package makes the same table from the same description in the server's shape.
"""

from __future__ import annotations

from findsession.storage.sql.tables import (
    TYPES,
    UNIT,
    Column,
    Step,
    Table,
    added_column,
    schema_step,
)


def column_sql(column: Column) -> str:
    sql = f"{column.name} {TYPES[column.type][0]}"
    if column.required:
        sql += " NOT NULL"
    if column.default is not None:
        sql += f" DEFAULT {column.default}"
    return sql


def create_sql(table: Table) -> str:
    """The statements that create `table` with the columns it first had, its key, its
    lookups, and the triggers that take its rows away with their session or unit."""
    parts = ["id INTEGER PRIMARY KEY"] if table.numbered else []
    parts += [column_sql(c) for c in table.first_columns]
    if table.key:
        kind = "UNIQUE" if table.numbered else "PRIMARY KEY"
        parts.append(f"{kind} ({', '.join(table.key)})")
    statements = [f"CREATE TABLE {table.name} ({', '.join(parts)})"]
    statements += [
        f"CREATE INDEX {table.name}_{'_'.join(cols)} ON {table.name} ({', '.join(cols)})"
        for cols in table.lookups
    ]
    if table.goes_with_session:
        statements.append(
            f"CREATE TRIGGER {table.name}_session_ad AFTER DELETE ON sessions BEGIN"
            f" DELETE FROM {table.name} WHERE session_id = old.id; END"
        )
    if table.belongs == UNIT:
        statements.append(
            f"CREATE TRIGGER {table.name}_unit_ad AFTER DELETE ON units BEGIN"
            f" DELETE FROM {table.name} WHERE unit_id = old.id; END"
        )
    return ";\n".join(statements) + ";"


def create(table: Table) -> Step:
    """The schema step that creates `table`."""
    return schema_step(f"create_{table.name}", lambda db: [create_sql(table)])


def add_column(table: str, column: str) -> Step:
    """The schema step that adds one column (`later=True` in its table's description)."""
    sql = f"ALTER TABLE {table} ADD COLUMN {column_sql(added_column(table, column))}"
    return schema_step(f"add_{table}_{column}", lambda db: [sql])
