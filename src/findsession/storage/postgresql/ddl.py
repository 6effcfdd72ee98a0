"""Schema steps made from a table's description (findsession.storage.sql.tables), in the
shape schema steps 2 to 8 gave every table, so a new one is born as safe as the old:

- every row carries its `owner` (the writer, `current_user`), and the four policies of
  its kind: a person's own rows (`MINE`), or a session's content, read by whoever may
  read its session (`VISIBLE`: the row's `audience`, generated from `owner` and a
  `shared` flag that follows its session's, as step 7 keeps it);
- every index starts with `audience` (content) or `owner` (a person's own), and a key
  that must stay unique is an index over `sealed(...)` (content) or starts with the
  owner, so no index walk of a person's meets a row they may not read (step 8);
- a session's rows (and a unit's) go with it, by triggers;
- no column but whose rows they are keeps planner statistics, which are sampled over
  every row and read back through any person's estimates (step 12).

A step is listed in `migrations.MIGRATIONS` like any other (`create(FILE_WRITES)`); the
SQLite package makes the same table from the same description in the file's shape.
`tests/test_side_channels.py` tries every table and index the catalog lists as an
attacker would, these too.
"""

from __future__ import annotations

from typing import Any

import psycopg

from findsession.storage.postgresql.dialect import PostgresDialect
from findsession.storage.postgresql.schema_v8 import MINE, VISIBLE
from findsession.storage.sql.tables import (
    INDEX,
    OWNER,
    SESSION,
    TABLES,
    TYPES,
    UNIT,
    Step,
    Table,
    added_column,
    schema_step,
)

_AUDIENCE = (
    "shared boolean NOT NULL DEFAULT false,"
    " audience text NOT NULL GENERATED ALWAYS AS (CASE WHEN shared THEN '' ELSE owner END)"
    " STORED"
)


def _content(table: Table) -> bool:
    return table.belongs in (SESSION, UNIT)


def _column(name: str, type_: str, required: bool, default: str | None) -> str:
    sql = f"{name} {TYPES[type_][1]}"
    if required:
        sql += " NOT NULL"
    return sql + (f" DEFAULT {default}" if default is not None else "")


def _table(table: Table) -> list[str]:
    parts = ["id bigint GENERATED ALWAYS AS IDENTITY"] if table.numbered else []
    if table.belongs != INDEX:
        parts.append("owner text NOT NULL DEFAULT current_user")
    parts += [_column(c.name, c.type, c.required, c.default) for c in table.first_columns]
    if _content(table):
        parts.append(_AUDIENCE)
    statements = [f"CREATE TABLE {table.name} ({', '.join(parts)})"]
    if table.belongs != INDEX:
        statements += quiet(table.name, [c.name for c in table.first_columns if c.type in _WORDS])
    lead = "audience, " if _content(table) else "owner, " if table.belongs == OWNER else ""
    if table.key:
        columns, rows = PostgresDialect().key_index(table)
        where = f" WHERE {rows}" if rows else ""
        statements.append(
            f"CREATE UNIQUE INDEX {table.name}_key ON {table.name} ({columns}){where}"
        )
    if table.numbered:
        statements.append(f"CREATE INDEX {table.name}_id ON {table.name} ({lead}id)")
    statements += [
        f"CREATE INDEX {table.name}_{'_'.join(cols)} ON {table.name} ({lead}{', '.join(cols)})"
        for cols in table.lookups
    ]
    return statements


#: Types whose values are what people wrote or named (text, bytes): no statistics of
#: them are kept. Numbers and flags keep theirs, which the planner's row estimates need
#: (a join by id estimated without them read every unit a person may read).
_WORDS = ("text", "bytes")


def quiet(table: str, columns: list[str]) -> list[str]:
    """Statements that keep no planner statistics of `columns` (schema step 12)."""
    return [f"ALTER TABLE {table} ALTER COLUMN {c} SET STATISTICS 0" for c in columns]


def _policies(table: Table) -> list[str]:
    read = VISIBLE if _content(table) else MINE if table.belongs == OWNER else "true"
    write = MINE if table.belongs != INDEX else "true"
    name = table.name
    return [
        f"ALTER TABLE {name} ENABLE ROW LEVEL SECURITY",
        f"CREATE POLICY {name}_read ON {name} FOR SELECT USING ({read})",
        f"CREATE POLICY {name}_insert ON {name} FOR INSERT WITH CHECK ({write})",
        f"CREATE POLICY {name}_update ON {name} FOR UPDATE USING ({write}) WITH CHECK ({write})",
        f"CREATE POLICY {name}_delete ON {name} FOR DELETE USING ({write})",
    ]


def _function(name: str, path: str, body: str) -> str:
    return (
        f"CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql"
        f" SET search_path = {path}, pg_temp AS $$ BEGIN {body} RETURN NULL; END $$"
    )


def _row_key(table: Table) -> tuple[str, ...]:
    """The columns that find a statement's new rows again."""
    if table.numbered:
        return ("id",)
    if table.key:
        return ("owner", *table.key)
    raise ValueError(f"{table.name}: a session's content needs an id or a key")


def mark_shared(name: str, keys: tuple[str, ...], by_unit: bool) -> str:
    """The trigger statement that marks a statement's new rows (`fresh`) shared whose
    session, or unit, is; rows a push wrote with their flag set are left alone (schema
    step 10). The parents are asked by their index's whole key (`audience` '' is a
    shared row) and each row marked by its own, its audience being its owner until then,
    through `EXECUTE`, planned for the tables as they are on each run: a plan made at a
    push's first session, on empty tables, read the whole parent table per session after."""
    parent, column = ("units", "unit_id") if by_unit else ("sessions", "session_id")
    keys = tuple(k for k in keys if k != "owner")
    marked = (
        f"SELECT f.owner, {', '.join(f'f.{k}' for k in keys)} FROM fresh f"
        f" WHERE NOT f.shared AND EXISTS (SELECT 1 FROM {parent} p"
        f" WHERE p.audience = '''' AND p.id = f.{column} AND p.owner = f.owner)"
    )
    match = " AND ".join(f"t.{k} = n.{k}" for k in keys)
    return (
        f"EXECUTE 'UPDATE {name} t SET shared = true FROM ({marked}) n"
        f" WHERE t.audience = n.owner AND {match}';"
    )


def follow_shared(name: str, by_unit: bool) -> str:
    """The trigger statement that carries a session's flag (`NEW`) to its rows in `name`,
    or to its units' rows: the rows whose flag differs are those whose `audience` is
    the other one, which the index finds (schema step 10)."""
    if by_unit:
        sql = (
            f"UPDATE {name} x SET shared = $3 FROM units u WHERE u.audience = ANY(ARRAY[$2,"
            " '''']) AND u.session_id = $1 AND u.owner = $2 AND x.audience = $4"
            " AND x.unit_id = u.id AND x.owner = u.owner"
        )
    else:
        sql = (
            f"UPDATE {name} SET shared = $3 WHERE audience = $4 AND session_id = $1 AND owner = $2"
        )
    return (
        f"EXECUTE '{sql}' USING NEW.id, NEW.owner, NEW.shared,"
        " CASE WHEN NEW.shared THEN NEW.owner ELSE '' END;"
    )


def _triggers(table: Table, path: str) -> list[str]:
    """A content row takes its session's (or unit's) `shared` when written and follows
    it after; a session's (or unit's) rows go with it."""
    name, statements = table.name, []
    if _content(table):
        by_unit = table.belongs == UNIT
        statements += [
            _function(f"{name}_shared", path, mark_shared(name, _row_key(table), by_unit)),
            f"CREATE TRIGGER {name}_shared AFTER INSERT ON {name} REFERENCING NEW TABLE AS"
            f" fresh FOR EACH STATEMENT EXECUTE FUNCTION {name}_shared()",
            _function(f"{name}_follow", path, follow_shared(name, by_unit)),
            f"CREATE TRIGGER {name}_follow AFTER UPDATE ON sessions FOR EACH ROW"
            f" WHEN (OLD.shared IS DISTINCT FROM NEW.shared) EXECUTE FUNCTION {name}_follow()",
            f"CREATE TRIGGER {name}_follow_new AFTER INSERT ON sessions FOR EACH ROW"
            f" WHEN (NEW.shared) EXECUTE FUNCTION {name}_follow()",
        ]
    if table.goes_with_session:
        statements += [
            _function(
                f"{name}_session_gone",
                path,
                f"DELETE FROM {name} WHERE owner = OLD.owner AND session_id = OLD.id;",
            ),
            f"CREATE TRIGGER {name}_session_gone AFTER DELETE ON sessions FOR EACH ROW"
            f" EXECUTE FUNCTION {name}_session_gone()",
        ]
    if table.belongs == UNIT:
        statements += [
            _function(
                f"{name}_unit_gone",
                path,
                f"DELETE FROM {name} WHERE unit_id IN (SELECT id FROM removed);",
            ),
            f"CREATE TRIGGER {name}_unit_gone AFTER DELETE ON units REFERENCING OLD TABLE"
            f" AS removed FOR EACH STATEMENT EXECUTE FUNCTION {name}_unit_gone()",
        ]
    return statements


def create(table: Table) -> Step:
    """The schema step that creates `table` in the server's shape."""

    def statements(db: psycopg.Connection[Any]) -> list[str]:
        path = db.execute("SELECT current_setting('search_path')").fetchone()[0]
        return [*_table(table), *_policies(table), *_triggers(table, path)]

    return schema_step(f"create_{table.name}", statements)


def add_column(table: str, column: str) -> Step:
    """The schema step that adds one column (`later=True` in its table's description)."""
    c = added_column(table, column)
    sql = f"ALTER TABLE {table} ADD COLUMN {_column(c.name, c.type, c.required, c.default)}"
    kept = quiet(table, [column]) if TABLES[table].belongs != INDEX and c.type in _WORDS else []
    return schema_step(f"add_{table}_{column}", lambda db: [sql, *kept])
