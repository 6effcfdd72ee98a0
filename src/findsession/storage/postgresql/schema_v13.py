"""Step 13: secrets redacted are counted per record's line and session (as SQLite's
step 14).

Counted per file, a count only grew: every read that gave a line again (a store's
changed session read whole) added that line's secrets once more, and `status` said four
where the index held one. Keyed by line, a line read again states its count anew, and
a session that is dropped or forgotten takes its counts with it. The table is made anew
from its description (`ddl.create`: the owner, its policies, the trigger that follows
its session); the counts made before are kept under no session and line -1, until
their file is next read from the top.
"""

from __future__ import annotations

from typing import Any

import psycopg

from findsession.storage.postgresql.ddl import create
from findsession.storage.sql.tables import REDACTIONS


def v13_redactions_by_line(db: psycopg.Connection[Any]) -> None:
    db.execute("ALTER TABLE redactions RENAME TO redactions_by_file")
    create(REDACTIONS)(db)
    db.execute(
        "INSERT INTO redactions (owner, file_path, session_id, line, kind, n)"
        " SELECT owner, file_path, '', -1, kind, n FROM redactions_by_file"
    )
    db.execute("DROP TABLE redactions_by_file")
