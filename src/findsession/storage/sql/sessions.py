"""Sessions: their rows, lookups, privacy marks and forgetting."""

from __future__ import annotations

from typing import Any

from findsession.domain import Session
from findsession.paths import expand
from findsession.storage.rows import SESSION_COLUMNS
from findsession.storage.sql.connection import SqlConnection, conditions

_MARK = "INSERT INTO private_sessions (id, marked_at) VALUES (?, now_iso()) ON CONFLICT DO NOTHING"
#: What is stored of a session besides its row, each table with its session column.
_SESSION_ROWS = (
    ("units", "session_id"),
    ("messages", "session_id"),
    ("session_meta", "session_id"),
)


class SessionsMixin(SqlConnection):
    """Sessions."""

    def private_sessions(self) -> set[str]:
        return {r[0] for r in self.query("SELECT id FROM private_sessions")}

    def mark_private(self, session_id: str) -> None:
        """Never index this session again, and drop what was stored of it."""
        self.execute(_MARK, (session_id,))
        self.drop_session_content(session_id)
        children = [
            r[0] for r in self.query("SELECT id FROM sessions WHERE parent_id = ?", (session_id,))
        ]
        for child in children:  # its subagents, indexed before the marker was typed
            self.execute(_MARK, (child,))
            self.delete_session(child)

    def drop_session_content(self, session_id: str) -> None:
        """Delete what was stored of a session's records; its next rebuild removes it."""
        self.execute("DELETE FROM messages WHERE session_id = ?", (session_id,))
        self.execute("DELETE FROM session_meta WHERE session_id = ?", (session_id,))
        self.execute("DELETE FROM redactions WHERE session_id = ?", (session_id,))

    def forget(self, session_ids: list[str]) -> None:
        """Delete sessions (and their subagents) for good: later runs skip them too.

        Skipped-line previews of their files go too: they quote the transcript; and a
        list of results shown before keeps no trace of them (the others in it keep
        their numbers).
        """
        for sid in session_ids:
            self.execute(
                "UPDATE problems SET detail = NULL WHERE file_path IN ("
                " SELECT file_path FROM sessions WHERE id = ? OR parent_id = ?"
                " UNION SELECT file_path FROM messages WHERE session_id = ?)",
                (sid, sid, sid),
            )
            self.execute(
                "UPDATE last_results SET session_id = '' WHERE session_id = ?"
                " OR session_id IN (SELECT id FROM sessions WHERE parent_id = ?)",
                (sid, sid),
            )
            self.mark_private(sid)
            self.delete_session(sid)

    def save_session(self, s: Session, agent_description: str | None = None) -> None:
        values = [getattr(s, name) for name in SESSION_COLUMNS]
        kept = (*SESSION_COLUMNS[1:], "agent_description")
        self.execute(
            f"INSERT INTO sessions ({', '.join(SESSION_COLUMNS)}, agent_description)"
            f" VALUES ({', '.join('?' * (len(values) + 1))})"
            f" ON CONFLICT {self.key('sessions')} DO UPDATE SET"
            f" {', '.join(f'{c} = excluded.{c}' for c in kept)}",
            [*values, agent_description],
        )

    def delete_session(self, session_id: str) -> None:
        self.units_leaving("session_id = ?", (session_id,))
        for table, column in _SESSION_ROWS:
            self.execute(f"DELETE FROM {table} WHERE {column} = ?", (session_id,))
        self.execute("DELETE FROM sessions WHERE id = ?", (session_id,))

    def recent_sessions(
        self, project: str | None, after: str | None, before: str | None, limit: int
    ) -> list[Session]:
        """Main sessions active in [after, before), most recent first; `project` keeps
        that directory and those below it (None or `/`: every project)."""
        if not (project or "").strip("/\\"):
            project = None  # the filesystem's root: every project
        where, params = conditions(
            ("in_project(cwd, ?)", project and str(expand(project))),
            ("last_ts >= ?", after),
            ("last_ts < ?", before),
        )
        order = "last_ts DESC NULLS LAST"
        return self._sessions_where(f"NOT is_subagent AND {where}", params, order, limit)

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
        cap = f" LIMIT {int(limit)}" if limit >= 0 else ""
        rows = self.query(
            f"SELECT {', '.join(SESSION_COLUMNS)}{self.SESSION_EXTRAS} FROM sessions"
            f" WHERE {where} ORDER BY {order}{cap}",
            params,
        )
        width = len(SESSION_COLUMNS)
        sessions = []
        for row in rows:
            session = Session(
                **dict(zip(SESSION_COLUMNS, row[:width], strict=True)),
                **self.session_extras(row[width:]),
            )
            session.is_subagent, session.missing = bool(session.is_subagent), bool(session.missing)
            sessions.append(session)
        return sessions

    def sessions_with_prefix(self, prefix: str, limit: int = -1) -> list[Session]:
        """Sessions whose id starts with `prefix`, taken literally (`%`, `_` too)."""
        where, params = self.starts_with("id", prefix)
        return self._sessions_where(where, params, "id", limit)

    def project_dirs(self, sources: tuple[str, ...]) -> list[str]:
        """The distinct project directories of sessions from `sources`."""
        where, params = self.among("source", sources)
        return [
            r[0]
            for r in self.query(
                f"SELECT DISTINCT cwd FROM sessions WHERE cwd IS NOT NULL AND {where} ORDER BY cwd",
                params,
            )
        ]

    def session_file(self, session_id: str) -> str | None:
        """The transcript file a session's row came from, or None if there is no row."""
        return self.scalar("SELECT file_path FROM sessions WHERE id = ?", (session_id,))

    def parent_of(self, session_id: str) -> str | None:
        return self.scalar("SELECT parent_id FROM sessions WHERE id = ?", (session_id,))

    def adopt(self, parent_id: str, children: list[str]) -> None:
        """Link subagents indexed with no parent to the session that names them."""
        for batch in self.batches(children):
            where, params = self.among("id", batch)
            self.execute(
                f"UPDATE sessions SET parent_id = ? WHERE {where}"
                " AND is_subagent AND parent_id IS NULL AND id <> ?",
                [parent_id, *params, parent_id],
            )

    def subagents_of(self, session_id: str) -> list[Session]:
        """The sessions `session_id` started (its subagents), in the order they began."""
        return self._sessions_where("parent_id = ?", (session_id,), "first_ts NULLS FIRST, id")
