"""Step 9: the index of files written, for `findsession blame` (as SQLite's step 12).

Each person's rows are their own alone: the rows are derived from stored messages, which
only a session indexed straight into the server has (a pushed session arrives without
them), so there is nothing of a colleague's to show. As step 8 has it for every table
that is its owner's alone, each index starts with `owner` and the policy is one
condition an index can hold, so no walk of an index meets another person's row. A
session's rows go with it, and the sessions already here are listed in the backlog for
the indexer to derive once.
"""

from __future__ import annotations

from typing import Any

import psycopg

from findsession.storage.postgresql.schema_v8 import MINE

_TABLES = ("file_writes", "file_writes_backlog")


def v9_file_writes(db: psycopg.Connection[Any]) -> None:
    path = db.execute("SELECT current_setting('search_path')").fetchone()[0]
    db.execute(
        f"""
        CREATE TABLE file_writes (
            id         bigserial NOT NULL,
            owner      text NOT NULL DEFAULT current_user,
            session_id text COLLATE "C" NOT NULL,
            turn       integer NOT NULL,
            seq        integer NOT NULL,
            ts         text,
            tool       text NOT NULL,
            op         text NOT NULL,
            path       text NOT NULL,
            abs_path   text,
            name       text COLLATE "C" NOT NULL,
            cwd        text,
            text       text NOT NULL,
            removed    text NOT NULL,
            truncated  boolean NOT NULL
        );
        CREATE INDEX file_writes_id ON file_writes (owner, id);
        CREATE INDEX file_writes_name ON file_writes (owner, name);
        CREATE INDEX file_writes_session ON file_writes (owner, session_id);
        CREATE TABLE file_writes_backlog (
            owner      text NOT NULL DEFAULT current_user,
            session_id text COLLATE "C" NOT NULL
        );
        CREATE INDEX file_writes_backlog_session ON file_writes_backlog (owner, session_id);
        INSERT INTO file_writes_backlog (owner, session_id) SELECT owner, id FROM sessions;

        CREATE FUNCTION sessions_file_writes_gone() RETURNS trigger LANGUAGE plpgsql
        SET search_path = {path}, pg_temp AS $$
        BEGIN
            DELETE FROM file_writes WHERE owner = OLD.owner AND session_id = OLD.id;
            DELETE FROM file_writes_backlog WHERE owner = OLD.owner AND session_id = OLD.id;
            RETURN NULL;
        END $$;
        CREATE TRIGGER sessions_file_writes_gone AFTER DELETE ON sessions
            FOR EACH ROW EXECUTE FUNCTION sessions_file_writes_gone();
        """
    )
    for table in _TABLES:
        db.execute(
            f"""
            ALTER TABLE {table} ENABLE ROW LEVEL SECURITY;
            CREATE POLICY {table}_read ON {table} FOR SELECT USING ({MINE});
            CREATE POLICY {table}_insert ON {table} FOR INSERT WITH CHECK ({MINE});
            CREATE POLICY {table}_update ON {table} FOR UPDATE USING ({MINE})
                WITH CHECK ({MINE});
            CREATE POLICY {table}_delete ON {table} FOR DELETE USING ({MINE});
            """
        )
