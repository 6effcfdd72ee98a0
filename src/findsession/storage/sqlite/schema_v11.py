"""Schema step 11: which sessions changed, in order, for `findsession push`.

`migrations.MIGRATIONS` lists these steps in order. A step that has shipped is never
edited; a change to the schema is a new step at the end.
"""

from __future__ import annotations

import apsw

#: The next sequence number: above every one given, so "changed since N" stays true.
_NEXT = "(SELECT coalesce(max(seq), 0) + 1 FROM push_log)"


def _log(session: str) -> str:
    return (
        f"INSERT INTO push_log (session_id, seq) VALUES ({session}, {_NEXT})"
        " ON CONFLICT (session_id) DO UPDATE SET seq = excluded.seq;"
    )


def v11_push_log(db: apsw.Connection) -> None:
    """One row per session, holding the sequence number of its latest change.

    A push sends the sessions whose number is above the cursor it keeps for the server,
    whole (the server compares each unit's hash and writes only what differs), and
    moves the cursor once the server committed them. A row per session rather than per
    change: the table stays as small as the session list whether or not anyone ever
    pushes, and a session rewritten a thousand times between two pushes is sent once.
    Triggers keep it, so every writer (an index run, an embedding run, `forget`,
    `titles`, a prune) records its changes without knowing push exists. Existing
    sessions and forgotten ones are logged now, so the first push sends everything.
    """
    db.execute(
        f"""
        CREATE TABLE push_log (
            session_id TEXT PRIMARY KEY,
            seq        INTEGER NOT NULL
        );
        CREATE INDEX push_log_seq ON push_log(seq);
        CREATE TRIGGER sessions_push_ai AFTER INSERT ON sessions BEGIN
            {_log("new.id")}
        END;
        CREATE TRIGGER sessions_push_au AFTER UPDATE ON sessions BEGIN
            {_log("new.id")}
        END;
        CREATE TRIGGER sessions_push_ad AFTER DELETE ON sessions BEGIN
            {_log("old.id")}
        END;
        CREATE TRIGGER units_push_ai AFTER INSERT ON units BEGIN
            {_log("new.session_id")}
        END;
        CREATE TRIGGER units_push_au AFTER UPDATE ON units BEGIN
            {_log("new.session_id")}
        END;
        CREATE TRIGGER units_push_ad AFTER DELETE ON units BEGIN
            {_log("old.session_id")}
        END;
        -- A unit's vectors are complete: its session has something new to send.
        CREATE TRIGGER embedded_push_ai AFTER INSERT ON embedded BEGIN
            INSERT INTO push_log (session_id, seq)
                SELECT session_id, {_NEXT} FROM units WHERE id = new.unit_id
                ON CONFLICT (session_id) DO UPDATE SET seq = excluded.seq;
        END;
        CREATE TRIGGER title_writes_push_ai AFTER INSERT ON title_writes BEGIN
            {_log("new.session_id")}
        END;
        CREATE TRIGGER title_writes_push_ad AFTER DELETE ON title_writes BEGIN
            {_log("old.session_id")}
        END;
        CREATE TRIGGER private_push_ai AFTER INSERT ON private_sessions BEGIN
            {_log("new.id")}
        END;
        INSERT INTO push_log (session_id, seq)
            SELECT id, row_number() OVER (ORDER BY id) FROM (
                SELECT id FROM private_sessions UNION SELECT id FROM sessions);
        """
    )
