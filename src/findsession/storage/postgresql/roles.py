"""The admin's side of a shared server: the schema, the group role, one role per person.

`findsession server init` runs once as the database's admin (who then owns the schema,
and so is not subject to its row-level security); `server add-person NAME` makes a login
role in the group `findsession_users`, which holds the table privileges and nothing
more: people cannot change the schema, and every row they write is theirs (the policies
of `schema_v2`). Objects a later upgrade creates get the same grants (default
privileges), so the admin runs `init` again only to upgrade the schema.

`server status` shows the admin what the server holds: the model and its graph, each
person with their sessions, units, machines and latest activity, and the shared
projects; as the schema's owner it sees every row, which is why it is the admin's alone.

`server remove-person NAME` takes the role out of the group, which ends its access to
every table at once. What the person pushed stays unless the admin asks for it to go
(`--delete-sessions`): a departing colleague's shared projects are often what the team
still searches, and a deletion cannot be undone. The role itself is left alone: it may
be a login the server's own authentication made, used for more than this index.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from psycopg import sql

from findsession.errors import FindsessionError
from findsession.paths import db_path
from findsession.storage.postgresql.connection import Connection
from findsession.storage.postgresql.migrations import SCHEMA
from findsession.storage.postgresql.schema_v2 import BY_SESSION, BY_UNIT, OWNER_ONLY
from findsession.storage.postgresql.schema_v12 import INTERNAL
from findsession.storage.team import Person, ServerStatus

#: The role every person's role is a member of.
GROUP = "findsession_users"


def init_server(url: str, local: Path | None = None) -> tuple[str, bool]:
    """Create or upgrade the schema as the URL's role, and the group's privileges on
    it, then build the vector graph if vectors are stored and it is missing (an upgrade
    to schema step 5 drops the old one): the admin, at a time of their choosing, rather
    than the next person's push, waiting minutes for it. (The admin role's name, whether
    a graph was built now.)"""
    admin_name = _grant(url, local)
    from findsession.storage.postgresql import Store  # the package imports this module

    with Store.open(url, local or db_path()) as store:
        before = _graphs(store)
        with store.transaction():
            store.pack_vectors()  # makes a missing graph over the stored vectors
        return admin_name, _graphs(store) > before


def _graphs(store: Any) -> int:
    return int(
        store.scalar(
            "SELECT count(*) FROM pg_indexes WHERE schemaname = current_schema()"
            " AND indexname LIKE 'chunks\\_hnsw\\_%'"
        )
    )


def _grant(url: str, local: Path | None) -> str:
    """The group role and its privileges on the schema (created or upgraded on open)."""
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
        for function in INTERNAL:  # what only the schema's own functions call
            db.execute(
                sql.SQL("REVOKE EXECUTE ON FUNCTION {}.{} FROM {}").format(
                    schema, sql.SQL(function), group
                )
            )
        # Every column of `chunks` but the vectors: a person's ORDER BY over the graph
        # would say which hidden vectors lie near one of their choosing (schema step 8).
        # Their search reads the vectors through `vector_ranked`, their writes need none.
        readable = [
            r[0]
            for r in db.execute(
                "SELECT attname FROM pg_attribute WHERE attrelid = %s::regclass"
                " AND attnum > 0 AND NOT attisdropped AND attname <> 'embedding'",
                (f"{SCHEMA}.chunks",),
            )
        ]
        chunks = sql.Identifier(SCHEMA, "chunks")
        db.execute(sql.SQL("REVOKE SELECT ON {} FROM {}").format(chunks, group))
        db.execute(
            sql.SQL("GRANT SELECT ({}) ON {} TO {}").format(
                sql.SQL(", ").join(map(sql.Identifier, readable)), chunks, group
            )
        )
        return str(db.execute("SELECT current_user").fetchone()[0])


@dataclass
class RemovedPerson:
    """What `remove_person` did."""

    #: The role was a member of the group (and is no longer).
    was_member: bool
    #: Their sessions on the server: deleted, or kept.
    sessions: int
    #: Of those, sessions under a project they shared (still visible when kept).
    shared: int
    deleted: bool


def server_status(url: str, local: Path | None = None) -> ServerStatus:
    """The server as its admin sees it (every row: the owner is not bound by the
    policies). Refused to a person, whose view the policies would cut to their own."""
    with Connection.open(url, local or db_path()) as admin:
        db = admin.db
        if db.execute("SELECT row_security_active('sessions')").fetchone()[0]:
            raise FindsessionError(
                "server status is the admin's: this role sees only its own rows",
                cli_hint="connect as the role that ran `findsession server init`: --url",
            )
        settings = dict(db.execute("SELECT key, value FROM settings").fetchall())
        graph = db.execute(
            "SELECT sum(pg_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace n"
            " ON n.oid = c.relnamespace WHERE n.nspname = current_schema()"
            " AND c.relname LIKE 'chunks\\_hnsw\\_%%'"
        ).fetchone()[0]
        members = {
            r[0]
            for r in db.execute(
                "SELECT m.rolname FROM pg_auth_members a JOIN pg_roles g ON g.oid = a.roleid"
                " JOIN pg_roles m ON m.oid = a.member WHERE g.rolname = %s",
                (GROUP,),
            )
        }
        units = dict(db.execute("SELECT owner, count(*) FROM units GROUP BY owner").fetchall())
        owners = {
            r[0]: r[1:]
            for r in db.execute(
                "SELECT owner, count(*), array_agg(DISTINCT machine ORDER BY machine),"
                " max(last_ts) FROM sessions GROUP BY owner"
            )
        }
        people = [
            Person(
                name,
                name in members,
                int(owners.get(name, (0,))[0]),
                int(units.get(name, 0)),
                [m for m in (owners[name][1] if name in owners else []) if m],
                owners[name][2] if name in owners else None,
            )
            for name in sorted(members | set(owners) | set(units))
        ]
        shares = [
            (r[0], r[1]) for r in db.execute("SELECT owner, project FROM shares ORDER BY 1, 2")
        ]
        dims = settings.get("embedding_dims")
        return ServerStatus(
            str(db.execute("SELECT current_user").fetchone()[0]),
            int(settings.get("schema_version", 0)),
            settings.get("embedding_model"),
            int(dims) if dims else None,
            int(graph) if graph is not None else None,
            people,
            shares,
        )


def add_person(url: str, name: str, local: Path | None = None) -> bool:
    """A login role `name` in the group (False: it existed and is now in the group)."""
    _check_name(name)
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


def remove_person(
    url: str, name: str, delete_sessions: bool = False, local: Path | None = None
) -> RemovedPerson:
    """Take `name` out of the group, and with `delete_sessions` delete every row it owns,
    in one transaction: a person is either fully removed or not at all."""
    _check_name(name)
    with Connection.open(url, local or db_path()) as admin, admin.transaction():
        db = admin.db
        if not db.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (name,)).fetchone():
            raise FindsessionError(f"the server has no role {name!r}")
        was_member = bool(
            db.execute(
                "SELECT pg_has_role(%s, %s, 'MEMBER') AND %s <> current_user",
                (name, GROUP, name),
            ).fetchone()[0]
        )
        if was_member:
            db.execute(
                sql.SQL("REVOKE {} FROM {}").format(sql.Identifier(GROUP), sql.Identifier(name))
            )
        sessions, shared = db.execute(
            "SELECT count(*), count(*) FILTER (WHERE EXISTS (SELECT 1 FROM shares sh"
            " WHERE sh.owner = s.owner AND in_project(s.cwd, sh.project)))"
            " FROM sessions s WHERE s.owner = %s",
            (name,),
        ).fetchone()
        if delete_sessions:
            # Children before parents, so no row is left pointing at a deleted one.
            for table in (*BY_UNIT, *BY_SESSION, "sessions", *OWNER_ONLY, "shares"):
                db.execute(
                    sql.SQL("DELETE FROM {} WHERE owner = %s").format(sql.Identifier(table)),
                    (name,),
                )
            if sessions:
                db.execute(
                    "INSERT INTO settings (key, value)"
                    " VALUES ('vector_generation', md5(random()::text))"
                    " ON CONFLICT (key) DO UPDATE SET value = excluded.value"
                )
        return RemovedPerson(was_member, int(sessions), int(shared), delete_sessions)


def _check_name(name: str) -> None:
    if not name or not name.replace("_", "").replace("-", "").isalnum():
        raise FindsessionError(
            f"{name!r} is not a role name findsession makes: use letters, digits, _ and -"
        )
