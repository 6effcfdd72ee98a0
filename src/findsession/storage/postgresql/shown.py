"""The last list of results each terminal was shown, for `findsession open N`."""

from __future__ import annotations

from findsession.storage.base import ShownList
from findsession.storage.postgresql.connection import Connection

#: How long a search waits for the writers' lock to remember its list: it must not wait
#: out an index run's whole commit group, let alone a `forget`.
SHOWN_WAIT_MS = 2_000


class ShownMixin(Connection):
    """`last_results`: one row per result a terminal was shown."""

    def remember_shown(
        self, terminal: str, session_ids: list[str], shown_at: str, forget_before: str
    ) -> None:
        self.begin_waiting(SHOWN_WAIT_MS)
        try:
            self.db.execute("DELETE FROM last_results WHERE terminal = %s", (terminal,))
            self.db.execute("DELETE FROM last_results WHERE shown_at < %s", (forget_before,))
            self.many(
                "INSERT INTO last_results (terminal, rank, session_id, shown_at)"
                " VALUES (%s, %s, %s, %s)",
                [(terminal, rank, sid, shown_at) for rank, sid in enumerate(session_ids, 1)],
            )
        except BaseException:
            self.end_open_transaction(commit=False)
            raise
        self.commit()

    def shown_list(self, terminal: str) -> ShownList | None:
        rows = self.query(
            "SELECT rank, session_id, shown_at FROM last_results WHERE terminal = %s ORDER BY rank",
            (terminal,),
        )
        if not rows:
            return None
        return ShownList(shown_at=rows[0][2], session_ids=[sid for _, sid, _ in rows])
