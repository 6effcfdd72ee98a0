"""The archive of transcripts, as `Findsession` uses it: a gone session's file written
back before `open` resumes it, what the archive holds for `status` and `sources`.

The archive itself (`findsession.archive`) is imported only when one of these asks for
it: a search never pays for zstandard.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from findsession import config
from findsession.core.base import Core
from findsession.domain import ArchiveStatus, Restore, Restored, Session, SourceReport
from findsession.errors import DatabaseError, FindsessionError

if TYPE_CHECKING:
    from findsession.archive.keeper import Archive
    from findsession.storage.base import FileState


@dataclass
class RestoreReport:
    """What `restore` wrote back, and what it could not (a subagent's file), one line each."""

    restored: list[Restored] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


class ArchivingMixin(Core):
    """`Findsession`'s archive: restore, and its part of status and sources."""

    _archive: Archive | None = None

    @property
    def archive(self) -> Archive:
        """The archive beside this index, keeping the sources `[archive]` names."""
        if self._archive is None:
            from findsession.archive.keeper import Archive

            self._archive = Archive(self.store.path, self.settings.archive.kinds)
        return self._archive

    def restore_plan(self, session: Session) -> Restore | None:
        """None while `session`'s transcript is where it was; else whether the archive can
        write it back, or why not, in one line."""
        path = session.file_path
        if not path or os.path.lexists(path):
            return None
        if self.archive.held([path]):
            return Restore(path, held=True)
        source = self._source_of(path, session.source)
        if not self.archive.keeps(source):
            reason = (
                f"its transcript {path} is gone, and the archive keeps no copies of {source}"
                f" transcripts (`[archive] {source} = true` keeps them from now on)"
            )
        else:
            reason = f"its transcript {path} was deleted before the archive kept a copy of it"
        return Restore(path, held=False, reason=reason)

    def restore(self, session: Session) -> RestoreReport:
        """Write back from the archive the transcript of `session` (the one the resume
        command resumes) and its subagents' that are gone, each only inside its agent's
        folder, never over a file, never through a link below it, checked against the
        archive's checksums before it gets its name. A main transcript that cannot come
        back raises `FindsessionError` saying why; a subagent's is a note."""
        report = RestoreReport()
        plan = self.restore_plan(session)
        if plan is not None:
            if not plan.held:
                raise FindsessionError(plan.reason or f"{plan.path} is gone")
            report.restored.append(self._write_back(plan.path, session.source))
        for child in self.store.subagents_of(session.id):
            sub = self.restore_plan(child)
            if sub is None or not sub.held:
                continue
            try:
                report.restored.append(self._write_back(sub.path, child.source))
            except FindsessionError as exc:
                report.notes.append(f"subagent {child.id} not restored: {exc}")
        return report

    def _write_back(self, path: str, source: str) -> Restored:
        from findsession.archive.restoring import RestoreRefused, inside

        source = self._source_of(path, source)
        folders = [r.path for r in config.default_roots(self.settings) if r.source == source]
        folder = next((f for f in folders if inside(path, f) is not None), None)
        if folder is None:
            where = ", ".join(str(f) for f in folders) or "none on this machine"
            raise RestoreRefused(
                f"{path} is not inside {source}'s folders ({where}), where its agent looks:"
                " findsession writes a transcript back only there"
            )
        written = self.archive.restore(path, folder)
        try:
            with self.store.transaction():
                self.store.set_file_status(path, "ok")
        except DatabaseError:
            pass  # a read-only index: the next index run sees the file back
        return Restored(path, written)

    def _source_of(self, path: str, fallback: str) -> str:
        state = self.store.file_states([path]).get(path)
        return state.source if state is not None else fallback

    def archive_status(self) -> ArchiveStatus:
        """Where the archive is, its size, what it keeps and what it can bring back."""
        files, size = self.archive.size()
        gone = self._gone()
        held = self.archive.held(s.path for s in gone)
        return ArchiveStatus(
            path=str(self.archive.path),
            files=files,
            bytes=size,
            sources=sorted(self.archive.kinds),
            gone_sessions=len({s.session_id or s.path for s in gone}),
            gone_held=len({s.session_id or s.path for s in gone if s.path in held}),
        )

    def with_archive(self, reports: list[SourceReport]) -> list[SourceReport]:
        """Each source's report with whether the archive keeps it, its sessions whose
        file is gone and how many of those the archive holds."""
        gone = self._gone()
        held = self.archive.held(s.path for s in gone)
        sessions = Counter(s.source for s in gone)
        kept = Counter(s.source for s in gone if s.path in held)
        for r in reports:
            r.archived = self.archive.keeps(r.kind)
            r.gone, r.gone_held = sessions[r.kind], kept[r.kind]
        return reports

    def archived_paths(self, ids: list[str]) -> set[str]:
        """Every transcript that holds any of the sessions `ids` (their own files, their
        subagents', and the files that repeated their lines): what forgetting them takes
        out of the archive, and keeps out of it."""
        paths: set[str] = set()
        for sid in ids:
            session = self.store.get_session(sid)
            family = [session] if session else []
            family += self.store.subagents_of(sid)
            paths.update(s.file_path for s in family if s.file_path)
            paths.update(path for path, _, _ in self.store.message_sources(sid))
        for path in list(paths):
            paths.update(self.store.replaying_files(path))
        return paths

    def _gone(self) -> list[FileState]:
        return [s for s in self.store.file_states().values() if s.status == "missing"]
