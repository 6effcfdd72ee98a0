"""Schema step 12: the index of files written, for `findsession blame`.

`migrations.MIGRATIONS` lists these steps in order. A step that has shipped is never
edited; a change to the schema is a new step at the end.
"""

from __future__ import annotations

import apsw


def v12_file_writes(db: apsw.Connection) -> None:
    """One row per file a session's tool call wrote, looked up by the file's name.

    Derived from the stored messages when a session is rebuilt, so nothing is read from
    a transcript for it. The sessions indexed before this step are listed in the
    backlog; the indexer derives their rows once and takes each off the list. A
    session's rows go with it (a trigger: `forget`, a prune, a rebuild that finds it
    empty), so a forgotten session's text leaves this table too. The index by name
    covers every column a lookup reads: the written text stays in the row, read only for
    the few writes that match.
    """
    db.execute(
        """
        CREATE TABLE file_writes (
            id         INTEGER PRIMARY KEY,
            session_id TEXT NOT NULL,
            turn       INTEGER NOT NULL,
            seq        INTEGER NOT NULL,
            ts         TEXT,
            tool       TEXT NOT NULL,
            op         TEXT NOT NULL,
            path       TEXT NOT NULL,
            abs_path   TEXT,
            name       TEXT NOT NULL,
            cwd        TEXT,
            text       TEXT NOT NULL,
            removed    TEXT NOT NULL,
            truncated  INTEGER NOT NULL
        );
        -- Covering: a lookup by name reads the index alone, never the wide rows (a
        -- common name such as README.md has thousands across projects).
        CREATE INDEX file_writes_name ON file_writes(
            name, abs_path, path, session_id, ts, seq, turn, tool, op, cwd, truncated);
        CREATE INDEX file_writes_session ON file_writes(session_id);
        CREATE TABLE file_writes_backlog (session_id TEXT PRIMARY KEY);
        INSERT INTO file_writes_backlog SELECT id FROM sessions;
        CREATE TRIGGER sessions_file_writes_ad AFTER DELETE ON sessions BEGIN
            DELETE FROM file_writes WHERE session_id = old.id;
            DELETE FROM file_writes_backlog WHERE session_id = old.id;
        END;
        """
    )
