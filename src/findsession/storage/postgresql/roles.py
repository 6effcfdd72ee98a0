"""The admin's side of a shared server: the schema, the group role, one role per person.

`findsession server init` runs once as the database's admin (who then owns the schema,
and so is not subject to its row-level security); `server add-person NAME` makes a login
role in the group `findsession_users`, which holds the table privileges and nothing
more: people cannot change the schema, and every row they write is theirs (the policies
of `schema_v2`). Objects a later upgrade creates get the same grants (default
privileges), so the admin runs `init` again only to upgrade the schema.
"""

from __future__ import annotations

from pathlib import Path

from psycopg import sql

from findsession.errors import FindsessionError
from findsession.paths import db_path
from findsession.storage.postgresql.connection import Connection
from findsession.storage.postgresql.migrations import SCHEMA

#: The role every person's role is a member of.
GROUP = "findsession_users"


def init_server(url: str, local: Path | None = None) -> str:
    """Create or upgrade the schema as the URL's role, and the group's privileges on
    it; the admin role's name."""
    with Connection.open(url, local or db_path()) as admin:
        db = admin.db
        if not db.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (GROUP,)).fetchone():
            db.execute(sql.SQL("CREATE ROLE {} NOLOGIN").format(sql.Identifier(GROUP)))
        group, schema = sql.Identifier(GROUP), sql.Identifier(SCHEMA)
        for statement in (
            "GRANT USAGE ON SCHEMA {s} TO {g}",
            "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA {s} TO {g}",
            "GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {s} TO {g}",
            "GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA {s} TO {g}",
            "ALTER DEFAULT PRIVILEGES IN SCHEMA {s}"
            " GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO {g}",
            "ALTER DEFAULT PRIVILEGES IN SCHEMA {s} GRANT USAGE, SELECT ON SEQUENCES TO {g}",
            "ALTER DEFAULT PRIVILEGES IN SCHEMA {s} GRANT EXECUTE ON FUNCTIONS TO {g}",
        ):
            db.execute(sql.SQL(statement).format(s=schema, g=group))
        return str(db.execute("SELECT current_user").fetchone()[0])


def add_person(url: str, name: str, local: Path | None = None) -> bool:
    """A login role `name` in the group (False: it existed and is now in the group)."""
    if not name or not name.replace("_", "").replace("-", "").isalnum():
        raise FindsessionError(
            f"{name!r} is not a role name findsession makes: use letters, digits, _ and -"
        )
    with Connection.open(url, local or db_path()) as admin:
        db = admin.db
        role, group = sql.Identifier(name), sql.Identifier(GROUP)
        if not db.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (GROUP,)).fetchone():
            raise FindsessionError(
                "the server has no findsession_users role yet: run `findsession server init` first"
            )
        made = not db.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (name,)).fetchone()
        if made:
            db.execute(sql.SQL("CREATE ROLE {} LOGIN").format(role))
        db.execute(sql.SQL("GRANT {} TO {}").format(group, role))
        return made
