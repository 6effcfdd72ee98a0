"""Step 10: the statements a push runs after each insert stay index lookups as the tables grow.

Step 7's triggers give a statement's new rows their session's (or unit's) `shared`, and
asked the parents through a join of the new rows to `sessions` or `units` on `id`
alone. Step 8 then put `audience` first in every index, so a lookup by `id` alone is an
index scan only when the planner thinks so; and PL/pgSQL plans a statement without
variables once per connection, at its first run. A push's first batch found the tables
empty, planned a scan of the whole parent table, and kept it: every later session of
the push read every unit on the server twice (`chunks_shared` and `embedded_shared`,
50 of 146 s for 23k units pushed into an empty server, and quadratic past that). The
trigger that carries a session's flag to its rows did the same on each new session in
a shared project (76 of 148 s of a person's push of 23k units).

Now every one of them asks by an index's whole key, through `EXECUTE`, planned each
time against the tables as they are: the statements `ddl` writes for a described
table, here for the tables of steps 2 to 7. `session_id_taken`, asked once for each new
session, asked `id = candidate` (a scan of every session, its plan kept the same way
since PostgreSQL 18 keeps SQL functions' plans) and now asks the unique key.
"""

from __future__ import annotations

from typing import Any

import psycopg

from findsession.storage.postgresql.ddl import follow_shared, mark_shared
from findsession.storage.postgresql.schema_v2 import BY_SESSION, BY_UNIT
from findsession.storage.postgresql.schema_v7 import ROW_KEYS


def v10_planned_triggers(db: psycopg.Connection[Any]) -> None:
    path = db.execute("SELECT current_setting('search_path')").fetchone()[0]
    db.execute(
        "CREATE OR REPLACE FUNCTION session_id_taken(candidate text) RETURNS boolean"
        f" LANGUAGE sql STABLE SECURITY DEFINER SET search_path = {path}, pg_temp"
        " RETURN EXISTS (SELECT 1 FROM sessions"
        " WHERE sealed(ARRAY[id]) = sealed(ARRAY[candidate]))"
    )
    for table in (*BY_SESSION, *BY_UNIT):
        statement = mark_shared(table, ROW_KEYS[table], by_unit=table in BY_UNIT)
        db.execute(
            f"CREATE OR REPLACE FUNCTION {table}_shared() RETURNS trigger LANGUAGE plpgsql"
            f" AS $$ BEGIN {statement} RETURN NULL; END $$"
        )
    # Units first: the vectors' statement finds them through their units.
    follow = " ".join(follow_shared(t, by_unit=t in BY_UNIT) for t in (*BY_SESSION, *BY_UNIT))
    db.execute(
        "CREATE OR REPLACE FUNCTION sessions_shared_follow() RETURNS trigger LANGUAGE plpgsql"
        f" AS $$ BEGIN {follow} RETURN NULL; END $$"
    )
