"""The last list of results each terminal was shown, for `findsession open N`."""

from __future__ import annotations

from findsession.storage.sql.connection import SqlConnection
from findsession.storage.types import ShownList


class ShownMixin(SqlConnection):
    """`last_results`: one row per result a terminal was shown."""

    def remember_shown(
        self, terminal: str, session_ids: list[str], shown_at: str, forget_before: str
    ) -> None:
        with self.brief_transaction():
            self.execute("DELETE FROM last_results WHERE terminal = ?", (terminal,))
            # Lists nobody opened from in days (closed shells, old ttys) go, so the
            # table holds a few live lists, not one per shell ever started.
            self.execute("DELETE FROM last_results WHERE shown_at < ?", (forget_before,))
            self.many(
                "INSERT INTO last_results (terminal, rank, session_id, shown_at)"
                " VALUES (?, ?, ?, ?)",
                [(terminal, rank, sid, shown_at) for rank, sid in enumerate(session_ids, 1)],
            )

    def shown_list(self, terminal: str) -> ShownList | None:
        rows = self.query(
            "SELECT rank, session_id, shown_at FROM last_results WHERE terminal = ? ORDER BY rank",
            (terminal,),
        )
        if not rows:
            return None
        return ShownList(shown_at=rows[0][2], session_ids=[sid for _, sid, _ in rows])
