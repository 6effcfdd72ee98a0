"""Schema step 13: three columns take the names the server's tables give them.

`migrations.MIGRATIONS` lists these steps in order. A step that has shipped is never
edited; a change to the schema is a new step at the end.
"""

from __future__ import annotations

import apsw

#: (table, the name until now, the server's name: `offset` and `end` are words of its SQL)
RENAMED = (
    ("files", "offset", "read_offset"),
    ("title_writes", "offset", "line_offset"),
    ("chunks", "start", "span_start"),
    ("chunks", "end", "span_end"),
)


def v13_shared_column_names(db: apsw.Connection) -> None:
    """`files.read_offset`, `title_writes.line_offset`, `chunks.span_start` and
    `span_end`, as on PostgreSQL, so one statement serves both backends
    (findsession.storage.sql). A rename rewrites no row."""
    for table, old, new in RENAMED:
        db.execute(f'ALTER TABLE {table} RENAME COLUMN "{old}" TO {new}')
