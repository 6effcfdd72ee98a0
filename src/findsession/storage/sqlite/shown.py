"""The last list of results each terminal was shown, for `findsession open N`."""

from __future__ import annotations

import apsw

from findsession.errors import IndexBusy
from findsession.storage.base import ShownList
from findsession.storage.sqlite.connection import Connection
from findsession.storage.sqlite.opening import BUSY_TIMEOUT_MS

#: How long a search waits for the write lock to remember its list. An index run
#: commits about every half second, so this is ample; a `forget` compacting the file
#: can hold the lock for longer, and a search must not wait that out.
SHOWN_BUSY_MS = 2_000


class ShownMixin(Connection):
    """`last_results`: one row per result a terminal was shown."""

    def remember_shown(
        self, terminal: str, session_ids: list[str], shown_at: str, forget_before: str
    ) -> None:
        self.db.set_busy_timeout(SHOWN_BUSY_MS)
        try:
            with self.transaction():
                self.db.execute("DELETE FROM last_results WHERE terminal = ?", (terminal,))
                # Lists nobody opened from in days (closed shells, old ttys) go, so the
                # table holds a few live lists, not one per shell ever started.
                self.db.execute("DELETE FROM last_results WHERE shown_at < ?", (forget_before,))
                self.db.executemany(
                    "INSERT INTO last_results (terminal, rank, session_id, shown_at)"
                    " VALUES (?, ?, ?, ?)",
                    [(terminal, rank, sid, shown_at) for rank, sid in enumerate(session_ids, 1)],
                )
        except (IndexBusy, apsw.BusyError) as exc:
            raise IndexBusy("another findsession process is writing the index") from exc
        finally:
            self.db.set_busy_timeout(BUSY_TIMEOUT_MS)

    def shown_list(self, terminal: str) -> ShownList | None:
        rows = self.query(
            "SELECT rank, session_id, shown_at FROM last_results WHERE terminal = ? ORDER BY rank",
            (terminal,),
        )
        if not rows:
            return None
        return ShownList(shown_at=rows[0][2], session_ids=[sid for _, sid, _ in rows])
