"""Step 7: whether a row is shared is a column on the row, kept by triggers.

Step 2's read policies asked, for every row a colleague's search touched, whether its
session (and for a vector, its unit's session) sat in a project its owner shared: a
subquery per row, nested once per table, with the `in_project` function inside. At 23k
units a colleague's keyword search took 9.4 s against 87 ms for the admin, who is exempt
(`bench/rls_bench.py`). Now each content row carries `shared`, and the policy is
`owner = current_user OR shared`: a comparison per row and nothing else.

The flag follows the owner's `shares`: a session's is set when it is written (or its
directory changes), from its owner's shares; a unit, a vector, a title or a message takes
its session's or unit's when written (once per statement); a share given or taken back
sets the owner's
sessions again, and a session whose flag moved carries it to its rows in a few
set-based statements. Every trigger runs as the person writing, on their own rows; a
person could set `shared` on their own rows by hand, which only shows their own rows,
as a share would.
"""

from __future__ import annotations

from typing import Any

import psycopg

from findsession.storage.postgresql.schema_v2 import BY_SESSION, BY_UNIT

#: Each table's row key, to find a statement's new rows again.
ROW_KEYS = {
    "units": ("id",),
    "title_writes": ("id",),
    "messages": ("id",),
    "session_meta": ("owner", "file_path", "line"),
    "chunks": ("id",),
    "embedded": ("unit_id",),
}


def v7_shared_flags(db: psycopg.Connection[Any]) -> None:
    for table in ("sessions", *BY_SESSION, *BY_UNIT):
        db.execute(f"ALTER TABLE {table} ADD COLUMN shared boolean NOT NULL DEFAULT false")
    follow_session = "\n".join(
        f"UPDATE {t} SET shared = NEW.shared WHERE session_id = NEW.id"
        " AND owner = NEW.owner AND shared IS DISTINCT FROM NEW.shared;"
        for t in BY_SESSION
    )
    follow_unit = "\n".join(
        f"UPDATE {t} x SET shared = NEW.shared FROM units u WHERE u.session_id = NEW.id"
        " AND u.owner = NEW.owner AND x.unit_id = u.id AND x.owner = u.owner"
        " AND x.shared IS DISTINCT FROM NEW.shared;"
        for t in BY_UNIT
    )
    db.execute(
        f"""
        CREATE FUNCTION session_shared(who text, dir text) RETURNS boolean
        LANGUAGE sql STABLE
        RETURN EXISTS (SELECT 1 FROM shares sh WHERE sh.owner = who
                       AND in_project(dir, sh.project));

        CREATE FUNCTION sessions_shared_set() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            NEW.shared := session_shared(NEW.owner, NEW.cwd);
            RETURN NEW;
        END $$;
        CREATE TRIGGER sessions_shared_set BEFORE INSERT OR UPDATE OF cwd, owner
            ON sessions FOR EACH ROW EXECUTE FUNCTION sessions_shared_set();

        -- Units first: the vectors' statement finds them through their units.
        CREATE FUNCTION sessions_shared_follow() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            {follow_session}
            {follow_unit}
            RETURN NULL;
        END $$;
        CREATE TRIGGER sessions_shared_follow AFTER UPDATE ON sessions FOR EACH ROW
            WHEN (OLD.shared IS DISTINCT FROM NEW.shared)
            EXECUTE FUNCTION sessions_shared_follow();
        -- Rows written before their session's row (an index run's meta lines) follow it.
        CREATE TRIGGER sessions_shared_follow_new AFTER INSERT ON sessions FOR EACH ROW
            WHEN (NEW.shared) EXECUTE FUNCTION sessions_shared_follow();

        -- A share given or taken back: the owner's sessions again (each moved one
        -- carries its flag to its rows through sessions_shared_follow).
        CREATE FUNCTION shares_changed() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            who text := coalesce(NEW.owner, OLD.owner);
        BEGIN
            UPDATE sessions SET shared = session_shared(owner, cwd)
            WHERE owner = who AND shared IS DISTINCT FROM session_shared(owner, cwd);
            RETURN NULL;
        END $$;
        CREATE TRIGGER shares_changed AFTER INSERT OR DELETE OR UPDATE ON shares
            FOR EACH ROW EXECUTE FUNCTION shares_changed();
        """
    )
    # New rows take their session's (or unit's) flag, once per statement over all the
    # rows it wrote (a trigger per row doubled the time of a push); in a project not
    # shared, which is most, the statement finds nothing to change.
    for table in (*BY_SESSION, *BY_UNIT):
        parent = (
            "sessions p ON p.id = f.session_id"
            if table in BY_SESSION
            else "units p ON p.id = f.unit_id"
        )
        keys = ", ".join(ROW_KEYS[table])
        db.execute(
            f"""
            CREATE FUNCTION {table}_shared() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                -- Asked first through the parents' primary keys: an UPDATE joined to
                -- the statement's rows could scan the whole table for none.
                IF EXISTS (SELECT 1 FROM fresh f JOIN {parent} AND p.owner = f.owner
                           WHERE p.shared) THEN
                    UPDATE {table} SET shared = true WHERE ({keys}) IN (
                        SELECT {", ".join(f"f.{c}" for c in ROW_KEYS[table])} FROM fresh f
                        JOIN {parent} AND p.owner = f.owner WHERE p.shared);
                END IF;
                RETURN NULL;
            END $$;
            CREATE TRIGGER {table}_shared AFTER INSERT ON {table}
                REFERENCING NEW TABLE AS fresh FOR EACH STATEMENT
                EXECUTE FUNCTION {table}_shared();
            """
        )
    # What is shared already (this runs as the schema's owner, whom the policies exempt).
    db.execute("UPDATE sessions SET shared = session_shared(owner, cwd)")
    for table in BY_SESSION:
        db.execute(
            f"UPDATE {table} x SET shared = s.shared FROM sessions s"
            " WHERE s.id = x.session_id AND s.owner = x.owner AND x.shared <> s.shared"
        )
    for table in BY_UNIT:
        db.execute(
            f"UPDATE {table} x SET shared = u.shared FROM units u"
            " WHERE u.id = x.unit_id AND u.owner = x.owner AND x.shared <> u.shared"
        )
    for table in ("sessions", *BY_SESSION, *BY_UNIT):
        db.execute(f"ALTER POLICY {table}_read ON {table} USING (owner = current_user OR shared)")
