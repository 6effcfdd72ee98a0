"""Sessions: their rows, lookups, privacy marks and forgetting."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from findsession.domain import Session
from findsession.storage.postgresql.files import FilesMixin
from findsession.storage.rows import SESSION_COLUMNS

#: The unique key of a session (schema step 8: `sealed`, which no index walk can use).
SESSION_KEY = "sealed(ARRAY[id])"
_MARK = "INSERT INTO private_sessions (id, marked_at) VALUES (%s, now_iso()) ON CONFLICT DO NOTHING"


class SessionsMixin(FilesMixin):
    """Sessions."""

    def private_sessions(self) -> set[str]:
        return {r[0] for r in self.query("SELECT id FROM private_sessions")}

    def mark_private(self, session_id: str) -> None:
        """Never index this session again, and drop what was stored of it."""
        self.db.execute(_MARK, (session_id,))
        self.drop_session_content(session_id)
        children = [
            r[0] for r in self.query("SELECT id FROM sessions WHERE parent_id = %s", (session_id,))
        ]
        for child in children:  # its subagents, indexed before the marker was typed
            self.db.execute(_MARK, (child,))
            self.delete_session(child)

    def drop_session_content(self, session_id: str) -> None:
        """Delete what was stored of a session's records; its next rebuild removes it."""
        self.db.execute("DELETE FROM messages WHERE session_id = %s", (session_id,))
        self.db.execute("DELETE FROM session_meta WHERE session_id = %s", (session_id,))

    def forget(self, session_ids: list[str]) -> None:
        """Delete sessions (and their subagents) for good: later runs skip them too.

        Skipped-line previews of their files go too: they quote the transcript.
        """
        for sid in session_ids:
            self.db.execute(
                "UPDATE problems SET detail = NULL WHERE file_path IN ("
                " SELECT file_path FROM sessions WHERE id = %s OR parent_id = %s"
                " UNION SELECT file_path FROM messages WHERE session_id = %s)",
                (sid, sid, sid),
            )
            self.db.execute(
                "UPDATE last_results SET session_id = '' WHERE session_id = %s"
                " OR session_id IN (SELECT id FROM sessions WHERE parent_id = %s)",
                (sid, sid),
            )
            self.mark_private(sid)
            self.delete_session(sid)

    def save_session(self, s: Session, agent_description: str | None = None) -> None:
        values = [getattr(s, name) for name in SESSION_COLUMNS]
        columns = ", ".join(SESSION_COLUMNS)
        marks = ", ".join(["%s"] * (len(values) + 1))
        kept = (*SESSION_COLUMNS[1:], "agent_description")
        updates = ", ".join(f"{c} = excluded.{c}" for c in kept)
        self.db.execute(
            f"INSERT INTO sessions ({columns}, agent_description) VALUES ({marks})"
            f" ON CONFLICT ({SESSION_KEY}) DO UPDATE SET {updates}",
            [*values, agent_description],
        )

    def recent_sessions(
        self, project: str | None, after: str | None, before: str | None, limit: int
    ) -> list[Session]:
        """Main sessions active in [after, before), most recent first; `project` keeps
        that directory and those below it (None or `/`: every project)."""
        clauses, params = ["NOT is_subagent"], []
        if project and project.strip("/\\"):
            clauses.append("in_project(cwd, %s)")
            params.append(str(Path(project).expanduser()))
        if after:
            clauses.append("last_ts >= %s")
            params.append(after)
        if before:
            clauses.append("last_ts < %s")
            params.append(before)
        # NULLS LAST: SQLite sorts a missing time last when descending.
        return self._sessions_where(" AND ".join(clauses), params, "last_ts DESC NULLS LAST", limit)

    def first_prompt(self, session_id: str) -> str:
        """What the person typed first in a session, or ''."""
        first = self.scalar(
            "SELECT prompt FROM units WHERE session_id = %s AND kind = 'turn'"
            " ORDER BY ordinal LIMIT 1",
            (session_id,),
        )
        return first or ""

    def get_session(self, session_id: str) -> Session | None:
        rows = self._sessions_where("id = %s", (session_id,))
        return rows[0] if rows else None

    def _sessions_where(
        self, where: str, params: Any = (), order: str = "id", limit: int = -1
    ) -> list[Session]:
        cap = f" LIMIT {int(limit)}" if limit >= 0 else ""
        rows = self.query(
            f"SELECT {', '.join(SESSION_COLUMNS)}, owner, machine, local_id,"
            f" owner = current_user FROM sessions WHERE {where} ORDER BY {order}{cap}",
            params,
        )
        return [
            Session(
                **dict(zip(SESSION_COLUMNS, row[:-4], strict=True)),
                owner=row[-4],
                machine=row[-3] or None,
                local_id=row[-2],
                yours=bool(row[-1]),
            )
            for row in rows
        ]

    def sessions_with_prefix(self, prefix: str, limit: int = -1) -> list[Session]:
        """Sessions whose id starts with `prefix`, taken literally (`%`, `_` too)."""
        return self._sessions_where("starts_with(id, %s)", (prefix,), "id", limit)

    def project_dirs(self, sources: tuple[str, ...]) -> list[str]:
        """The distinct project directories of sessions from `sources`."""
        return [
            r[0]
            for r in self.query(
                "SELECT DISTINCT cwd FROM sessions WHERE cwd IS NOT NULL AND source = ANY(%s)"
                " ORDER BY cwd",
                (list(sources),),
            )
        ]

    def session_file(self, session_id: str) -> str | None:
        """The transcript file a session's row came from, or None if there is no row."""
        return self.scalar("SELECT file_path FROM sessions WHERE id = %s", (session_id,))

    def parent_of(self, session_id: str) -> str | None:
        return self.scalar("SELECT parent_id FROM sessions WHERE id = %s", (session_id,))

    def subagents_of(self, session_id: str) -> list[Session]:
        """The sessions `session_id` started (its subagents), in the order they began."""
        return self._sessions_where("parent_id = %s", (session_id,), "first_ts NULLS FIRST, id")
