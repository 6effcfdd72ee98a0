"""Session titles, as the core API offers them: proposed and written, or taken back.

The only part of `Findsession` that writes into transcripts (see findsession.titles).
"""

from __future__ import annotations

from findsession.core.base import Core
from findsession.reader import resolve_session
from findsession.titles.report import TitlesReport, UndoReport


class TitlingMixin(Core):
    """`Findsession`'s titles: propose and write, undo."""

    def titles(self, session: str | None = None, *, write: bool = False) -> TitlesReport:
        """Propose a title for every session without one of its own (or for `session`);
        with `write`, give it where every safety check passes (see findsession.titles)."""
        # Imported here: the title models' HTTP client and the planner are this
        # command's alone, and every other command opens the API without them.
        from findsession.titles.plan import title_sessions

        chosen = resolve_session(self.store, session) if session is not None else None
        return title_sessions(self.store, self.settings, chosen, write)

    def titles_given(self) -> dict[str, str]:
        """Each session findsession gave a title (`titles --write`), with where it went:
        `file` (a line appended to the transcript) or `index` (kept in the index only)."""
        return {
            w.session_id: "index" if w.offset is None else "file" for w in self.store.title_writes()
        }

    def undo_titles(self, session: str | None = None) -> UndoReport:
        """Take out exactly the titles `titles` gave (all, or one session's)."""
        from findsession.titles.undo import undo_titles

        chosen = resolve_session(self.store, session).id if session is not None else None
        return undo_titles(self.store, self.settings, chosen)
