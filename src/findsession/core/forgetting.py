"""Forgetting sessions for good, and what that did to the index file's size.

The one destructive call of `Findsession`, with the report it returns.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from findsession.core.archiving import ArchivingMixin
from findsession.errors import FindsessionError
from findsession.paths import expand
from findsession.reader import resolve_session


@dataclass
class ForgetReport:
    """What `forget` removed and what it did to the file's size."""

    forgotten: list[str]
    bytes_before: int
    bytes_after: int
    #: Copies of their transcripts taken out of the archive (and kept out of it).
    archived_removed: int = 0


class ForgettingMixin(ArchivingMixin):
    """`Findsession`'s forget."""

    def forget(self, sessions: Iterable[str] = (), project: str | None = None) -> ForgetReport:
        """Delete sessions (ids or unique prefixes) and their subagents for good, or every
        session of `project`; later runs skip them, and the file is compacted. The
        archive's copies of every transcript that held them go too, and those files are
        never archived again."""
        refs = list(sessions)
        if not refs and project is None:
            raise FindsessionError("name the sessions to forget, or a project")
        if any(not ref.strip() for ref in refs) or (project is not None and not project.strip()):
            raise FindsessionError("a blank session id or project matches nothing: name one")
        ids = [resolve_session(self.store, ref).id for ref in refs]
        if project is not None:
            root = str(expand(project).resolve())
            matched = [s.id for s in self.store.recent_sessions(root, None, None, -1)]
            if not matched:
                raise FindsessionError(
                    f"no indexed session has its project at or below {root}; nothing forgotten"
                )
            ids += matched
        ids = list(dict.fromkeys(ids))
        paths = self.archived_paths(ids)
        before = self.store.size_bytes()
        with self.store.transaction():
            self.store.forget(ids)
        self.store.reclaim_space()
        removed = 0
        if self.archive.kinds or self.archive.folder.exists():
            removed = self.archive.forget(paths)
        return ForgetReport(ids, before, self.store.size_bytes(), removed)
