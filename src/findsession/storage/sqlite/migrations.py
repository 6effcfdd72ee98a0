"""The index schema as an ordered list of migrations, each applied once.

`PRAGMA user_version` records how many have run. An older database is upgraded in place
inside one transaction; a newer one (written by a later findsession) is refused rather
than damaged. Add a migration by writing a step in `schema.py` (or, from step 9 on, a module
`schema_vN.py` of its own) and appending it to `MIGRATIONS`: never edit one that has shipped.
"""

from __future__ import annotations

from collections.abc import Callable

import apsw

from findsession.errors import DatabaseError
from findsession.storage.sqlite.schema import (
    v1_base,
    v2_vectors_and_cjk,
    v3_vocabularies,
    v4_redactions,
    v5_private_sessions,
    v6_secure_delete_and_replays,
    v7_message_headings,
    v8_resume_titles_audit,
)
from findsession.storage.sqlite.schema_v9 import v9_chunk_text_hash
from findsession.storage.sqlite.schema_v10 import v10_vector_pack
from findsession.storage.sqlite.schema_v11 import v11_push_log
from findsession.storage.sqlite.schema_v12 import v12_file_writes
from findsession.storage.sqlite.schema_v13 import v13_shared_column_names
from findsession.storage.sqlite.schema_v14 import v14_redactions_by_line

MIGRATIONS: list[Callable[[apsw.Connection], None]] = [
    v1_base,
    v2_vectors_and_cjk,
    v3_vocabularies,
    v4_redactions,
    v5_private_sessions,
    v6_secure_delete_and_replays,
    v7_message_headings,
    v8_resume_titles_audit,
    v9_chunk_text_hash,
    v10_vector_pack,
    v11_push_log,
    v12_file_writes,
    v13_shared_column_names,
    v14_redactions_by_line,
]
SCHEMA_VERSION = len(MIGRATIONS)


def _check_version(version: int) -> None:
    if version > SCHEMA_VERSION:
        raise DatabaseError(
            f"this index was written by a newer findsession (schema {version}, this one "
            f"knows up to {SCHEMA_VERSION}); upgrade findsession or use another index file",
            cli_hint="or pass --db",
        )


def migrate(db: apsw.Connection) -> int:
    """Bring `db` to `SCHEMA_VERSION`; return the version it had before.

    The version is read again under the write lock: two processes opening a brand-new
    index at once both saw version 0, and the second failed on `table files already
    exists`. The one that waited now finds the schema current and does nothing.
    """
    before = db.execute("PRAGMA user_version").fetchone()[0]
    _check_version(before)
    if before == SCHEMA_VERSION:
        return before
    db.execute("BEGIN IMMEDIATE")
    try:
        before = db.execute("PRAGMA user_version").fetchone()[0]
        _check_version(before)
        for version in range(before, SCHEMA_VERSION):
            MIGRATIONS[version](db)
            db.execute(f"PRAGMA user_version = {version + 1}")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")
    return before
