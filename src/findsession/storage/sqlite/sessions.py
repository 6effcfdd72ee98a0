"""Sessions: their rows, lookups, privacy marks and forgetting."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from findsession.domain import Session
from findsession.storage.rows import SESSION_COLUMNS as _SESSION_COLUMNS
from findsession.storage.sqlite.connection import Connection


class SessionsMixin(Connection):
    """Sessions."""

    def private_sessions(self) -> set[str]:
        return {r[0] for r in self.db.execute("SELECT id FROM private_sessions")}

    def mark_private(self, session_id: str) -> None:
        """Never index this session again, and drop what was stored of it."""
        self.db.execute(
            "INSERT OR IGNORE INTO private_sessions (id, marked_at)"
            " VALUES (?, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))",
            (session_id,),
        )
        self.drop_session_content(session_id)
        children = [
            r[0]
            for r in self.db.execute("SELECT id FROM sessions WHERE parent_id = ?", (session_id,))
        ]
        for child in children:  # its subagents, indexed before the marker was typed
            self.db.execute(
                "INSERT OR IGNORE INTO private_sessions (id, marked_at)"
                " VALUES (?, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))",
                (child,),
            )
            self.delete_session(child)

    def drop_session_content(self, session_id: str) -> None:
        """Delete what was stored of a session's records; its next rebuild removes it."""
        self.db.execute("DELETE FROM messages WHERE session_id = ?", (session_id,))
        self.db.execute("DELETE FROM session_meta WHERE session_id = ?", (session_id,))

    def forget(self, session_ids: list[str]) -> None:
        """Delete sessions (and their subagents) for good: later runs skip them too.

        Skipped-line previews of their files go too: they quote the transcript.
        """
        for sid in session_ids:
            files = [
                r[0]
                for r in self.db.execute(
                    "SELECT file_path FROM sessions WHERE id = ? OR parent_id = ?"
                    " UNION SELECT file_path FROM messages WHERE session_id = ?",
                    (sid, sid, sid),
                )
            ]
            self.db.executemany(
                "UPDATE problems SET detail = NULL WHERE file_path = ?", [(f,) for f in files]
            )
            # A list of results shown before keeps no trace of them either; the others in
            # it keep their numbers.
            self.db.execute(
                "UPDATE last_results SET session_id = '' WHERE session_id = ?"
                " OR session_id IN (SELECT id FROM sessions WHERE parent_id = ?)",
                (sid, sid),
            )
            self.mark_private(sid)
            self.delete_session(sid)

    def save_session(self, s: Session, agent_description: str | None = None) -> None:
        values = [getattr(s, name) for name in _SESSION_COLUMNS]
        columns = ", ".join(_SESSION_COLUMNS)
        marks = ",".join("?" * (len(values) + 1))
        self.db.execute(
            f"INSERT OR REPLACE INTO sessions ({columns}, agent_description) VALUES ({marks})",
            [*values, agent_description],
        )

    def delete_session(self, session_id: str) -> None:
        self.db.execute(
            "DELETE FROM cjk_fts WHERE rowid IN (SELECT id FROM units WHERE session_id = ?)",
            (session_id,),
        )
        self.db.execute("DELETE FROM units WHERE session_id = ?", (session_id,))
        self.db.execute("DELETE FROM messages WHERE session_id = ?", (session_id,))
        self.db.execute("DELETE FROM session_meta WHERE session_id = ?", (session_id,))
        self.db.execute("DELETE FROM sessions WHERE id = ?", (session_id,))

    def recent_sessions(
        self, project: str | None, after: str | None, before: str | None, limit: int
    ) -> list[Session]:
        """Main sessions active in [after, before), most recent first; `project` keeps
        that directory and those below it (None or `/`: every project)."""
        clauses, params = ["NOT is_subagent"], []
        if project and project.strip("/\\"):
            clauses.append("in_project(cwd, ?)")
            params.append(str(Path(project).expanduser()))
        if after:
            clauses.append("last_ts >= ?")
            params.append(after)
        if before:
            clauses.append("last_ts < ?")
            params.append(before)
        return self._sessions_where(" AND ".join(clauses), params, "last_ts DESC", limit)

    def first_prompt(self, session_id: str) -> str:
        """What the person typed first in a session, or ''."""
        first = self.scalar(
            "SELECT prompt FROM units WHERE session_id = ? AND kind = 'turn'"
            " ORDER BY ordinal LIMIT 1",
            (session_id,),
        )
        return first or ""

    def get_session(self, session_id: str) -> Session | None:
        rows = self._sessions_where("id = ?", (session_id,))
        return rows[0] if rows else None

    def _sessions_where(
        self, where: str, params: Any = (), order: str = "id", limit: int = -1
    ) -> list[Session]:
        rows = self.db.execute(
            f"SELECT {', '.join(_SESSION_COLUMNS)} FROM sessions WHERE {where}"
            f" ORDER BY {order} LIMIT {int(limit)}",
            params,
        )
        sessions = []
        for row in rows:
            session = Session(**dict(zip(_SESSION_COLUMNS, row, strict=True)))
            session.is_subagent, session.missing = bool(session.is_subagent), bool(session.missing)
            sessions.append(session)
        return sessions

    def sessions_with_prefix(self, prefix: str, limit: int = -1) -> list[Session]:
        """Sessions whose id starts with `prefix`, taken literally (`%`, `_` too)."""
        escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        return self._sessions_where("id LIKE ? ESCAPE '\\'", (escaped + "%",), "id", limit)

    def project_dirs(self, sources: tuple[str, ...]) -> list[str]:
        """The distinct project directories of sessions from `sources`."""
        marks = ", ".join("?" * len(sources))
        return [
            r[0]
            for r in self.db.execute(
                f"SELECT DISTINCT cwd FROM sessions WHERE cwd IS NOT NULL AND source IN ({marks})"
                " ORDER BY cwd",
                sources,
            )
        ]

    def session_file(self, session_id: str) -> str | None:
        """The transcript file a session's row came from, or None if there is no row."""
        return self.scalar("SELECT file_path FROM sessions WHERE id = ?", (session_id,))

    def parent_of(self, session_id: str) -> str | None:
        return self.scalar("SELECT parent_id FROM sessions WHERE id = ?", (session_id,))

    def subagents_of(self, session_id: str) -> list[Session]:
        """The sessions `session_id` started (its subagents), in the order they began."""
        return self._sessions_where("parent_id = ?", (session_id,), "first_ts, id")
