"""The index schema on PostgreSQL, step 2: owners, machines and row-level security.

A team shares one server: each person pushes their machines' local indexes into it
(findsession.core.pushing) and sees their own sessions plus the projects others shared.
Every row that holds session content carries its `owner`, the database role that wrote
it (`current_user`, never a value the client sends: a policy checks it on every write).
Row-level security decides what a role reads, so a bug in the Python above cannot show
one person another's private sessions:

- sessions: the owner's, or those under a project their owner shared (`shares`);
- units, chunks, embedded vectors, title writes, messages and session meta: those whose
  session (or unit) the reader may see, checked against the same owner, so a row cannot
  borrow another person's session by naming its id;
- the rest (files, problems, runs, redactions, replays, tombstones, the terminal's last
  list, the audit): the owner's alone;
- every write: only rows owned by the writer (`WITH CHECK (owner = current_user)`).

The schema's owner (the admin who ran `findsession server init`) is not subject to the
policies; people connect as roles of their own, members of `findsession_users`.

A pushed session keeps the id it has on its machine (`local_id`) and the machine's name;
its `id` on the server is that same id unless another session holds it, then
`<id>@<machine>` (then `<id>@<machine>.<owner>`): one id the CLI prints and takes back.
`session_id_taken` answers "is this id used?" across owners (a SECURITY DEFINER
function: the policies would hide the other owner's row, and the primary key would then
refuse the insert with no way to choose another id). `ensure_graph` makes the HNSW index
for a dimension as the schema's owner, since people may not create indexes.
"""

from __future__ import annotations

from typing import Any

import psycopg

#: Tables whose rows belong to one session: readable with the session.
BY_SESSION = ("units", "title_writes", "messages", "session_meta")
#: Tables whose rows belong to one unit: readable with the unit.
BY_UNIT = ("chunks", "embedded")
#: Tables that describe one person's machine or terminal: their owner's alone.
OWNER_ONLY = (
    "files",
    "problems",
    "runs",
    "redactions",
    "replays",
    "private_sessions",
    "last_results",
    "audit",
)


def v2_owners(db: psycopg.Connection[Any]) -> None:
    for table in ("sessions", *BY_SESSION, *BY_UNIT, *OWNER_ONLY):
        db.execute(f"ALTER TABLE {table} ADD COLUMN owner text NOT NULL DEFAULT current_user")
    path = db.execute("SELECT current_setting('search_path')").fetchone()[0]
    db.execute(
        f"""
        ALTER TABLE sessions ADD COLUMN machine text NOT NULL DEFAULT '',
            ADD COLUMN local_id text COLLATE "C",
            ADD CONSTRAINT sessions_pushed UNIQUE (owner, machine, local_id);
        CREATE INDEX sessions_owner_local ON sessions (owner, local_id);
        CREATE INDEX units_owner ON units (owner);
        -- A tombstone names a session for its owner only: two people's ids never meet.
        ALTER TABLE private_sessions DROP CONSTRAINT private_sessions_pkey,
            ADD PRIMARY KEY (owner, id);

        -- A project (a directory and everything below it) its owner shows the team.
        CREATE TABLE shares (
            owner     text NOT NULL DEFAULT current_user,
            project   text COLLATE "C" NOT NULL,
            shared_at text NOT NULL DEFAULT now_iso(),
            PRIMARY KEY (owner, project)
        );

        CREATE FUNCTION session_id_taken(candidate text) RETURNS boolean
        LANGUAGE sql STABLE SECURITY DEFINER SET search_path = {path}, pg_temp
        RETURN EXISTS (SELECT 1 FROM sessions WHERE id = candidate);

        CREATE FUNCTION ensure_graph(dims integer) RETURNS void
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = {path}, pg_temp AS $$
        BEGIN
            IF to_regclass('chunks_hnsw_' || dims) IS NULL THEN
                EXECUTE format('CREATE INDEX IF NOT EXISTS chunks_hnsw_%s ON chunks USING hnsw'
                    ' ((embedding::vector(%s)) vector_cosine_ops)'
                    ' WHERE vector_dims(embedding) = %s', dims, dims, dims);
            END IF;
        END $$;
        """
    )
    mine = "owner = current_user"
    _policies(
        db,
        "sessions",
        f"{mine} OR EXISTS (SELECT 1 FROM shares sh WHERE sh.owner = sessions.owner"
        " AND in_project(sessions.cwd, sh.project))",
    )
    for table in BY_SESSION:
        _policies(
            db,
            table,
            f"{mine} OR EXISTS (SELECT 1 FROM sessions s WHERE s.id = {table}.session_id"
            f" AND s.owner = {table}.owner)",
        )
    for table in BY_UNIT:
        _policies(
            db,
            table,
            f"{mine} OR EXISTS (SELECT 1 FROM units u WHERE u.id = {table}.unit_id"
            f" AND u.owner = {table}.owner)",
        )
    for table in OWNER_ONLY:
        _policies(db, table, mine)
    _policies(db, "shares", "true")


def _policies(db: psycopg.Connection[Any], table: str, visible: str) -> None:
    """Read what `visible` allows; write only one's own rows."""
    mine = "owner = current_user"
    db.execute(
        f"""
        ALTER TABLE {table} ENABLE ROW LEVEL SECURITY;
        CREATE POLICY {table}_read ON {table} FOR SELECT USING ({visible});
        CREATE POLICY {table}_insert ON {table} FOR INSERT WITH CHECK ({mine});
        CREATE POLICY {table}_update ON {table} FOR UPDATE USING ({mine}) WITH CHECK ({mine});
        CREATE POLICY {table}_delete ON {table} FOR DELETE USING ({mine});
        """
    )
