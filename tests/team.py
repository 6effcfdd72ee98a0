"""A team's shared server for the push tests: the admin's database, its people's roles,
and machines (a home, a local index and a config each) that index and push through the
real CLI."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import psycopg
from conftest import CLI
from postgres_server import Server
from transcripts import Transcript, project_dir


def make_team(server: Server, url: str, tmp_path: Path) -> dict[str, str]:
    """The admin prepares the fresh database at `url` and makes alice and bob, through
    the real CLI; each one's URL (and the admin's)."""
    database = url.split(":@/", 1)[1].split("?")[0]
    admin = CLI(tmp_path / "admin", tmp_path / "admin" / "local.db")
    (tmp_path / "admin").mkdir()
    admin.run("server", "init", "--url", url)
    for person in ("alice", "bob"):
        admin.run("server", "add-person", person, "--url", url)
    return {p: url_as(server, p, database) for p in ("alice", "bob")} | {"admin": url}


def url_as(server: Server, role: str, database: str) -> str:
    """The database's URL for another role (the test server trusts local connections)."""
    return server.url(database).replace("postgresql://postgres:@", f"postgresql://{role}:@", 1)


def machine(tmp_path: Path, name: str, url: str) -> CLI:
    """A machine of its own: its home, transcripts, local index, and a config that
    indexes here and pushes to `url`."""
    home = tmp_path / name
    home.mkdir()
    cli = CLI(home, home / "local.db")
    cli.env.pop("FINDSESSION_STORAGE_URL", None)
    cli.env.pop("FINDSESSION_MACHINE", None)
    cli.env["FINDSESSION_NO_SERVICE"] = "1"
    (home / "config.toml").write_text(
        f'[storage]\nbackend = "sqlite"\nurl = "{url}"\n\n[machine]\nname = "{name}"\n', "utf-8"
    )
    return cli


def session(cli: CLI, cwd: str, *turns: tuple[str, str], session_id: str | None = None) -> str:
    """A Claude Code transcript in the machine's home; its session id."""
    t = Transcript(session_id=session_id, cwd=cwd)
    for prompt, reply in turns:
        t.prompt(prompt).reply(reply)
    t.write(project_dir(Path(cli.env["CLAUDE_CONFIG_DIR"]) / "projects", cwd))
    return t.session_id


def rows(url: str, sql: str, params: Any = ()) -> list[tuple[Any, ...]]:
    with psycopg.connect(url, autocommit=True) as db:
        return db.execute(sql, params).fetchall()


def every_row(url: str) -> dict[str, list[str]]:
    """Every row of every table of the index schema, as text, as `url`'s role sees it."""
    tables = [
        r[0]
        for r in rows(
            url, "SELECT tablename FROM pg_tables WHERE schemaname = 'findsession' ORDER BY 1"
        )
    ]
    seen = {}
    for t in tables:
        columns = [  # people may not read every column (chunks' vectors)
            r[0]
            for r in rows(
                url,
                "SELECT quote_ident(attname) FROM pg_attribute WHERE attrelid = %s::regclass"
                " AND attnum > 0 AND NOT attisdropped"
                " AND has_column_privilege(attrelid, attnum, 'SELECT') ORDER BY attnum",
                (f"findsession.{t}",),
            )
        ]
        seen[t] = [
            r[0] for r in rows(url, f"SELECT ({', '.join(columns)})::text FROM findsession.{t}")
        ]
    return seen


def server_state(url: str) -> set[tuple[Any, ...]]:
    """What a push leaves on the server, without row ids: sessions, units and vectors."""
    return {
        *rows(url, "SELECT 's', id, machine, local_id, title, n_turns FROM findsession.sessions"),
        *rows(
            url,
            "SELECT 'u', u.session_id, u.kind, u.ordinal, u.hash, count(c.id), e.chunks"
            " FROM findsession.units u LEFT JOIN findsession.chunks c ON c.unit_id = u.id"
            " LEFT JOIN findsession.embedded e ON e.unit_id = u.id"
            " GROUP BY u.session_id, u.kind, u.ordinal, u.hash, e.chunks",
        ),
        *rows(
            url,
            "SELECT 'c', md5(string_agg(vec::text || scale, ',' ORDER BY vec::text))"
            " FROM findsession.chunks",
        ),
    }


def versions(url: str) -> set[tuple[Any, ...]]:
    """Each row's version (xmin) in the content tables: unchanged when nothing was written."""
    out: set[tuple[Any, ...]] = set()
    for table in ("sessions", "units", "chunks", "embedded", "title_writes", "private_sessions"):
        out |= {
            (table, *r)
            for r in rows(url, f"SELECT ctid::text, xmin::text FROM findsession.{table}")
        }
    return out
