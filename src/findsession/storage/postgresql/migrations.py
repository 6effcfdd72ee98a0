"""The schema, created or upgraded when the index opens, each step applied once.

Every table lives in one schema of its own (`findsession`), so the index can share a
database with anything else, and a rebuild sets the whole schema aside under another
name. The step reached is the `schema_version` setting. Steps run in one transaction
under an advisory lock: two processes opening a new database at once take turns, and
the second finds the schema current. A step that has shipped is never edited; a change
is a new step at the end of `MIGRATIONS`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import psycopg
from psycopg import errors

from findsession.errors import DatabaseError
from findsession.storage.postgresql.schema import v1_base
from findsession.storage.postgresql.schema_v2 import v2_owners
from findsession.storage.postgresql.schema_v3 import v3_unit_count
from findsession.storage.postgresql.schema_v4 import v4_settings
from findsession.storage.postgresql.schema_v5 import v5_half_graph
from findsession.storage.postgresql.schema_v6 import v6_owner_keys
from findsession.storage.postgresql.schema_v7 import v7_shared_flags
from findsession.storage.postgresql.schema_v8 import v8_audience
from findsession.storage.postgresql.schema_v9 import v9_file_writes
from findsession.storage.postgresql.schema_v10 import v10_planned_triggers
from findsession.storage.postgresql.schema_v11 import v11_postings
from findsession.storage.postgresql.schema_v12 import v12_bounded_reads
from findsession.storage.postgresql.schema_v13 import v13_redactions_by_line

SCHEMA = "findsession"
MIGRATIONS: list[Callable[[psycopg.Connection[Any]], None]] = [
    v1_base,
    v2_owners,
    v3_unit_count,
    v4_settings,
    v5_half_graph,
    v6_owner_keys,
    v7_shared_flags,
    v8_audience,
    v9_file_writes,
    v10_planned_triggers,
    v11_postings,
    v12_bounded_reads,
    v13_redactions_by_line,
]
SCHEMA_VERSION = len(MIGRATIONS)
#: The advisory lock held while the schema is created or upgraded.
MIGRATE_LOCK = 0x66736D67


def migrate(db: psycopg.Connection[Any]) -> int:
    """Bring the schema to `SCHEMA_VERSION` and use it; return the version it had."""
    before = _version(db)
    _check(before)
    if before < SCHEMA_VERSION:
        db.execute("BEGIN")
        try:
            db.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATE_LOCK,))
            before = _version(db)
            _check(before)
            _extension(db)
            db.execute(f"CREATE SCHEMA IF NOT EXISTS {SCHEMA}")
            _use_schema(db, local=True)
            for version in range(before, SCHEMA_VERSION):
                MIGRATIONS[version](db)
                db.execute(
                    "INSERT INTO settings (key, value) VALUES ('schema_version', %s)"
                    " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    (str(version + 1),),
                )
        except errors.InsufficientPrivilege as exc:
            db.execute("ROLLBACK")
            raise DatabaseError(
                f"the index schema is at step {before} and this findsession needs"
                f" {SCHEMA_VERSION}, which this role may not create",
                cli_hint="ask the server's admin to run `findsession server init`",
            ) from exc
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
    _use_schema(db, local=False)
    return before


def _version(db: psycopg.Connection[Any]) -> int:
    if db.execute("SELECT to_regclass(%s)", (f"{SCHEMA}.settings",)).fetchone()[0] is None:
        return 0
    row = db.execute(f"SELECT value FROM {SCHEMA}.settings WHERE key = 'schema_version'").fetchone()
    return int(row[0]) if row else 0


def _check(version: int) -> None:
    if version > SCHEMA_VERSION:
        raise DatabaseError(
            f"this index was written by a newer findsession (schema {version}, this one"
            f" knows up to {SCHEMA_VERSION}); upgrade findsession"
        )


def _extension(db: psycopg.Connection[Any]) -> None:
    """pgvector, created when this role may; otherwise a message for the database owner."""
    if db.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone():
        return
    db.execute("SAVEPOINT extension")
    try:
        db.execute("CREATE EXTENSION IF NOT EXISTS vector")
    except (errors.InsufficientPrivilege, errors.FeatureNotSupported, errors.UndefinedFile) as exc:
        db.execute("ROLLBACK TO SAVEPOINT extension")
        raise DatabaseError(
            "the database has no pgvector extension and this role cannot add it"
            f" ({str(exc).strip().splitlines()[0]}): install pgvector on the server and"
            " run `CREATE EXTENSION vector` as the database's owner"
        ) from exc
    db.execute("RELEASE SAVEPOINT extension")


def _use_schema(db: psycopg.Connection[Any], local: bool) -> None:
    """Our schema first, then wherever pgvector's types live."""
    where = db.execute(
        "SELECT extnamespace::regnamespace::text FROM pg_extension WHERE extname = 'vector'"
    ).fetchone()
    path = ", ".join(dict.fromkeys([SCHEMA, *(where or ()), "public"]))
    db.execute("SELECT set_config('search_path', %s, %s)", (path, local))
