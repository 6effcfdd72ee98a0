"""Going back into a session: its resume command, `open N`'s list, the live session.

What `Findsession` tells an interface that takes the person (or an agent) back to
where a session happened, apart from reading the session itself.
"""

from __future__ import annotations

import os
import time
from dataclasses import replace

from findsession.core.archiving import ArchivingMixin
from findsession.domain import Resume, Session
from findsession.resume import remember_shown, resume_of, shown_session

#: A transcript written this recently in a project is the session of an agent working there.
LIVE_WINDOW_S = 600


class GoingBackMixin(ArchivingMixin):
    """`Findsession`'s going back: resume, the lists shown, the live session."""

    def resume(self, session: Session) -> Resume:
        """The command that resumes `session` in its agent (a subagent: its parent's), the
        directory to run it in and whether that still exists, and the machine it runs
        on when a shared server holds it from another; or why there is none. When the
        transcript it resumes is gone from this machine, `restore` says whether the
        archive can write it back (`Findsession.restore`) or why not."""
        plan = resume_of(self.store, session, self.settings.machine)
        if not plan.available or plan.machine or not session.yours:
            return plan
        target = self.store.get_session(plan.session_id or session.id) or session
        return replace(plan, restore=self.restore_plan(target))

    def remember_shown(self, terminal: str, session_ids: list[str]) -> None:
        """Remember the sessions a search showed `terminal`, in order, for `shown`."""
        remember_shown(self.store, self._terminal(terminal), session_ids)

    def shown(self, terminal: str, n: int) -> Session:
        """Result `n` (from 1) of the last search shown in `terminal`."""
        return shown_session(self.store, self._terminal(terminal), n)

    def _terminal(self, terminal: str) -> str:
        """The terminal as the index keeps it: named with this machine when it has a
        name, since a shared server hears `tty:/dev/pts/0` from every machine."""
        machine = self.settings.machine
        return f"{machine}/{terminal}" if machine else terminal

    def own_session(self, project: str | None, *, named: str | None, since: float) -> str | None:
        """The session an agent asking from `project` is in, to leave out of what it is
        shown (it has that context already, and it would outrank everything else for the
        words the agent just used): the one it `named`, else the project's session whose
        transcript was written after `since` (when the agent's connection began) and in
        the last `LIVE_WINDOW_S` seconds. Claude Code does not tell an MCP server its
        session id, hence the second."""
        if named:
            return named
        if not project:
            return None
        return self.live_session(project, since, LIVE_WINDOW_S)

    def live_session(self, project: str, since: float, window_s: float) -> str | None:
        """The project's session whose transcript was written after `since` and within
        the last `window_s` seconds: the one an agent working there is in."""
        now = time.time()
        for session in self.store.recent_sessions(project, None, None, 3):
            try:
                mtime = os.stat(session.file_path or "").st_mtime
            except OSError:
                continue
            if mtime >= since and now - mtime <= window_s:
                return session.id
        return None
