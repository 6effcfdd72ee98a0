"""Step 6: every key of a person's own rows names the person.

Row-level security hides one person's rows from another, but a unique key is checked
against every row, seen or not. Keys without the owner made two people collide on
things that are each their own: the list of results a terminal was shown (a terminal
is `tty:/dev/pts/0` or `shell:<pid>` on everyone's machine, so the second person's
search could not remember its list and their `open N` failed), and, for people who
index straight into the server, a file both have at the same path (a memory note under
`/root`, a dev container's home), which failed the second person's index run. Each such
key now starts with the owner; what is a session's (its id) stays one key for all.
"""

from __future__ import annotations

from typing import Any

import psycopg

#: (table, constraint, columns of the new key after the owner, primary or unique)
_KEYS = (
    ("files", "files_pkey", "path", "PRIMARY KEY"),
    ("problems", "problems_pkey", "file_path, line", "PRIMARY KEY"),
    ("redactions", "redactions_pkey", "file_path, kind", "PRIMARY KEY"),
    ("replays", "replays_pkey", "file_path, source_path", "PRIMARY KEY"),
    ("last_results", "last_results_pkey", "terminal, rank", "PRIMARY KEY"),
    ("session_meta", "session_meta_pkey", "file_path, line", "PRIMARY KEY"),
    ("messages", "messages_file_path_line_part_key", "file_path, line, part", "UNIQUE"),
    ("title_writes", "title_writes_file_path_line_offset_key", "file_path, line_offset", "UNIQUE"),
)


def v6_owner_keys(db: psycopg.Connection[Any]) -> None:
    for table, constraint, columns, kind in _KEYS:
        db.execute(
            f"ALTER TABLE {table} DROP CONSTRAINT {constraint},"
            f" ADD CONSTRAINT {constraint} {kind} (owner, {columns})"
        )
