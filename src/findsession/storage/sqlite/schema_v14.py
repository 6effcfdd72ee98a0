"""Schema step 14: secrets redacted are counted per record's line and session.

`migrations.MIGRATIONS` lists these steps in order. A step that has shipped is never
edited; a change to the schema is a new step at the end.
"""

from __future__ import annotations

import apsw

from findsession.storage.sql.tables import REDACTIONS
from findsession.storage.sqlite.ddl import create_sql


def v14_redactions_by_line(db: apsw.Connection) -> None:
    """`redactions` keyed by (file, session, line, kind), not (file, kind).

    Counted per file, a count only grew: every read that gave a line again (a store's
    changed session read whole, a document that carries on after the lines it keeps)
    added that line's secrets once more, and `status` said four where the index held
    one. Keyed by line, a line read again states its count anew, and a session that is
    dropped or forgotten takes its counts with it. The counts made before are kept
    under no session and line -1, until their file is next read from the top.
    """
    db.execute("ALTER TABLE redactions RENAME TO redactions_by_file")
    db.execute(create_sql(REDACTIONS))
    db.execute(
        "INSERT INTO redactions (file_path, session_id, line, kind, n)"
        " SELECT file_path, '', -1, kind, n FROM redactions_by_file"
    )
    db.execute("DROP TABLE redactions_by_file")
