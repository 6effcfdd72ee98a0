"""An OpenCode store built the way OpenCode 1.2 lays it out, for tests.

Written from the documented format (`project`, `session`, `message`, `part`, each message
and part a JSON `data` column), with stdlib sqlite3 and in WAL mode like the agent. The
connection stays open, as the agent's does, so a test can commit a change that waits in
the `-wal` file.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT NOT NULL, vcs TEXT, name TEXT,
  time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL);
CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL REFERENCES project(id)
  ON DELETE CASCADE, parent_id TEXT, slug TEXT NOT NULL, directory TEXT NOT NULL,
  title TEXT NOT NULL, version TEXT NOT NULL, share_url TEXT, time_created INTEGER NOT NULL,
  time_updated INTEGER NOT NULL, time_compacting INTEGER, time_archived INTEGER);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL REFERENCES session(id)
  ON DELETE CASCADE, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL,
  data TEXT NOT NULL);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL REFERENCES message(id)
  ON DELETE CASCADE, session_id TEXT NOT NULL, time_created INTEGER NOT NULL,
  time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX message_session_idx ON message (session_id);
CREATE INDEX part_message_idx ON part (message_id);
CREATE INDEX part_session_idx ON part (session_id);
"""

#: 2026-03-02T09:00:00Z in milliseconds: the fixtures' clock starts here.
START_MS = 1_772_442_000_000


class OpenCodeStore:
    """`opencode.db` (or `kilo.db`) with an open writer connection, like the agent's."""

    def __init__(self, path: Path, journal: str = "wal") -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.conn = sqlite3.connect(path, isolation_level=None)
        self.conn.execute(f"PRAGMA journal_mode = {journal}")
        self.conn.execute("PRAGMA wal_autocheckpoint = 0")  # commits stay in the -wal
        if not self.conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'session'").fetchone():
            self.conn.executescript(SCHEMA)
        self.clock = START_MS
        self.count = 0

    def _tick(self) -> int:
        self.clock += 1000
        return self.clock

    def _id(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}_{self.clock:013d}{self.count:04d}"

    def project(self, worktree: str, project_id: str = "prj_global") -> str:
        now = self._tick()
        self.conn.execute(
            "INSERT OR IGNORE INTO project VALUES (?, ?, 'git', NULL, ?, ?)",
            (project_id, worktree, now, now),
        )
        return project_id

    def session(
        self,
        session_id: str,
        directory: str,
        title: str,
        parent: str | None = None,
        project: str = "prj_global",
    ) -> str:
        now = self._tick()
        self.conn.execute(
            "INSERT INTO session (id, project_id, parent_id, slug, directory, title, version,"
            " time_created, time_updated) VALUES (?, ?, ?, ?, ?, ?, '1.2.6', ?, ?)",
            (session_id, project, parent, session_id[-6:], directory, title, now, now),
        )
        return session_id

    def message(self, session_id: str, role: str, **extra: Any) -> str:
        now = self._tick()
        message_id = self._id("msg")
        data = {"role": role, "time": {"created": now}, **extra}
        self.conn.execute(
            "INSERT INTO message VALUES (?, ?, ?, ?, ?)",
            (message_id, session_id, now, now, json.dumps(data)),
        )
        self.touch(session_id)
        return message_id

    def part(self, session_id: str, message_id: str, data: dict[str, Any] | str) -> str:
        now = self._tick()
        part_id = self._id("prt")
        raw = data if isinstance(data, str) else json.dumps(data)
        self.conn.execute(
            "INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)",
            (part_id, message_id, session_id, now, now, raw),
        )
        return part_id

    def update_part(self, part_id: str, data: dict[str, Any]) -> None:
        """A part rewritten in place (OpenCode streams a reply into its text part)."""
        self.conn.execute(
            "UPDATE part SET data = ?, time_updated = ? WHERE id = ?",
            (json.dumps(data), self._tick(), part_id),
        )

    def touch(self, session_id: str) -> None:
        self.conn.execute(
            "UPDATE session SET time_updated = ? WHERE id = ?", (self._tick(), session_id)
        )

    def turn(self, session_id: str, prompt: str, *replies: dict[str, Any] | str) -> None:
        """A typed prompt and an assistant message whose parts are `replies` (a string
        is a text part)."""
        user = self.message(session_id, "user")
        self.part(session_id, user, {"type": "text", "text": prompt})
        reply = self.message(session_id, "assistant", modelID="claude-sonnet-4", agent="build")
        for item in replies:
            data = {"type": "text", "text": item} if isinstance(item, str) else item
            self.part(session_id, reply, data)

    def close(self) -> None:
        self.conn.close()
