"""Step 10: the statements a push runs after each insert stay index lookups as the tables grow.

Step 7's triggers give a statement's new rows their session's (or unit's) `shared`, and
asked the parents through a join of the new rows to `sessions` or `units` on `id`
alone. Step 8 then put `audience` first in every index, so a lookup by `id` alone is an
index scan only when the planner thinks so; and PL/pgSQL plans a statement without
variables once per connection, at its first run. A push's first batch found the tables
empty, planned a scan of the whole parent table, and kept it: every later session of
the push read every unit on the server twice (`chunks_shared` and `embedded_shared`,
50 of 146 s for 23k units pushed into an empty server, and quadratic past that).

Now each trigger asks for the parents it needs by the index's whole key (`audience`
'' is a shared row, `shared` is `audience = ''`), and runs its statements through
`EXECUTE`, planned each time against the tables as they are. The same for the trigger
that carries a session's flag to its rows (on each new session in a shared project, 76
of 148 s of a person's push of 23k units): its rows whose flag differs are the ones
whose `audience` is the other one, which the index finds. `session_id_taken`, asked
once for each new session, asked `id = candidate` (a scan of every session, cached the
same way since PostgreSQL 18 keeps SQL functions' plans) and now asks the unique key.
"""

from __future__ import annotations

from typing import Any

import psycopg

from findsession.storage.postgresql.schema_v2 import BY_SESSION, BY_UNIT

#: Each table's row key, to find a statement's new rows again (as in step 7).
_KEYS = {
    "units": ("id",),
    "title_writes": ("id",),
    "messages": ("id",),
    "session_meta": ("file_path", "line"),
    "chunks": ("id",),
    "embedded": ("unit_id",),
}


def v10_planned_triggers(db: psycopg.Connection[Any]) -> None:
    _follow(db)
    path = db.execute("SELECT current_setting('search_path')").fetchone()[0]
    db.execute(
        "CREATE OR REPLACE FUNCTION session_id_taken(candidate text) RETURNS boolean"
        f" LANGUAGE sql STABLE SECURITY DEFINER SET search_path = {path}, pg_temp"
        " RETURN EXISTS (SELECT 1 FROM sessions"
        " WHERE sealed(ARRAY[id]) = sealed(ARRAY[candidate]))"
    )
    for table in (*BY_SESSION, *BY_UNIT):
        parent, column = ("sessions", "session_id") if table in BY_SESSION else ("units", "unit_id")
        keys = _KEYS[table]
        # The new rows not yet marked whose parent is shared, found by the parent's
        # (audience, id) index; then each of them by its own (audience, key) index, its
        # audience being its owner until it is shared.
        marked = (
            f"SELECT f.owner, {', '.join(f'f.{k}' for k in keys)} FROM fresh f"
            f" WHERE NOT f.shared AND EXISTS (SELECT 1 FROM {parent} p"
            f" WHERE p.audience = '''' AND p.id = f.{column} AND p.owner = f.owner)"
        )
        match = " AND ".join(f"t.{k} = n.{k}" for k in keys)
        db.execute(
            f"""
            CREATE OR REPLACE FUNCTION {table}_shared() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                EXECUTE 'UPDATE {table} t SET shared = true FROM ({marked}) n'
                    ' WHERE t.audience = n.owner AND {match}';
                RETURN NULL;
            END $$;
            """
        )


def _follow(db: psycopg.Connection[Any]) -> None:
    """A session's flag carried to its rows, units first (the vectors' statement finds
    them through their units): $1 the session, $2 its owner, $3 its flag, $4 the
    audience of its rows that do not carry it yet."""
    by_session = [
        f"UPDATE {t} SET shared = $3 WHERE audience = $4 AND session_id = $1 AND owner = $2"
        for t in BY_SESSION
    ]
    by_unit = [
        f"UPDATE {t} x SET shared = $3 FROM units u WHERE u.audience = ANY(ARRAY[$2, ''''])"
        " AND u.session_id = $1 AND u.owner = $2 AND x.audience = $4 AND x.unit_id = u.id"
        " AND x.owner = u.owner"
        for t in BY_UNIT
    ]
    statements = "\n".join(
        f"EXECUTE '{sql}' USING NEW.id, NEW.owner, NEW.shared,"
        " CASE WHEN NEW.shared THEN NEW.owner ELSE '' END;"
        for sql in (*by_session, *by_unit)
    )
    db.execute(
        f"""
        CREATE OR REPLACE FUNCTION sessions_shared_follow() RETURNS trigger
        LANGUAGE plpgsql AS $$
        BEGIN
            {statements}
            RETURN NULL;
        END $$;
        """
    )
