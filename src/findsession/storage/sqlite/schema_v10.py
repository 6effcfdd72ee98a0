"""Schema step 10 (`schema.py` holds steps 1 to 8, `schema_v9.py` step 9).

`migrations.MIGRATIONS` lists these steps in order. A step that has shipped is never
edited; a change to the schema is a new step at the end.
"""

from __future__ import annotations

import apsw


def v10_vector_pack(db: apsw.Connection) -> None:
    """The vector scan's arrays packed in one row, and a log of the units whose chunks
    changed since, so a searcher loads the pack with one read and then only the changes.

    Building the arrays from the `chunks` and `units` rows took seconds at a quarter of a
    million units, and a long-lived searcher paid that again after every index run. The
    log is kept by triggers, so every writer (an index run, `forget`, a rebuild of a
    session) records its changes without knowing the pack exists: a chunk inserted or
    deleted logs its unit, and so does a unit whose time changes while its text (and so
    its chunks) stays.
    """
    db.execute(
        """
        -- One row: the arrays (findsession.storage.sqlite.vector_arrays) as they were
        -- when the log stood at `log_seq`, for vectors of `dims` dimensions.
        CREATE TABLE vector_pack (
            id      INTEGER PRIMARY KEY CHECK (id = 1),
            log_seq INTEGER NOT NULL,
            dims    INTEGER NOT NULL,
            chunks  INTEGER NOT NULL,
            data    BLOB NOT NULL
        );
        -- Units whose chunks changed, in order. AUTOINCREMENT: a sequence number is never
        -- reused after old rows are pruned, so "changed since N" stays true.
        CREATE TABLE vector_log (
            seq     INTEGER PRIMARY KEY AUTOINCREMENT,
            unit_id INTEGER NOT NULL
        );
        CREATE TRIGGER chunks_log_ai AFTER INSERT ON chunks BEGIN
            INSERT INTO vector_log (unit_id) VALUES (new.unit_id);
        END;
        CREATE TRIGGER chunks_log_ad AFTER DELETE ON chunks BEGIN
            INSERT INTO vector_log (unit_id) VALUES (old.unit_id);
        END;
        -- A unit's time is one of the scan's filter columns.
        CREATE TRIGGER units_log_ts AFTER UPDATE OF ts ON units
        WHEN old.ts IS NOT new.ts BEGIN
            INSERT INTO vector_log (unit_id) VALUES (new.id);
        END;
        -- Names this life of the vectors; see findsession.storage.sqlite.vector_pack.
        INSERT OR REPLACE INTO settings (key, value)
            VALUES ('vector_epoch', lower(hex(randomblob(8))));
        """
    )
