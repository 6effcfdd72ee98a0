"""From a file back to the sessions that wrote it (`findsession blame`, the MCP tool
`sessions_for_file`)."""

from __future__ import annotations

from findsession.blame import DEFAULT_LIMIT, blame
from findsession.core.base import Core
from findsession.domain import Blame
from findsession.projects import bounded


class BlamingMixin(Core):
    """`Findsession`'s blame."""

    def blame(
        self,
        path: str,
        *,
        first: int | None = None,
        last: int | None = None,
        project: str | None = None,
        limit: int = DEFAULT_LIMIT,
        within: str | None = None,
    ) -> Blame:
        """The sessions whose tool calls wrote the file at `path` (absolute), newest
        first; with `first`..`last`, those whose written text holds those lines as the
        file reads now come first, and each line names the one that wrote it last.

        Only sessions of `project` (inside the boundary `within`: see
        `projects.bounded`) count, and the file is read only to locate the lines, only
        when one of them wrote it: a line's text is what its session wrote, as indexed.
        Sessions indexed before the index of files written existed are derived first,
        once (an index run does it too)."""
        project = bounded(project, within)
        notes = []
        if self.store.file_writes_backlog(1):
            if self.store.read_only:
                notes.append(
                    "some sessions were indexed before findsession kept the files they"
                    " wrote: run `findsession index` to add them"
                )
            else:
                from findsession.indexing.writes import derive_backlog

                derive_backlog(self.store)
        result = blame(self.store, path, first, last, project, limit)
        result.notes[:0] = notes
        return result
