"""Reading the index: search, a session read back, sessions listed, the sources, status.

Everything `Findsession` answers from what is indexed, without changing it.
"""

from __future__ import annotations

from dataclasses import replace

from findsession.core.archiving import ArchivingMixin
from findsession.core.options import ListOptions, ReadOptions
from findsession.domain import IndexStatus, SearchResponse, Session, SourceReport
from findsession.embeddings import configured_embedder, model_of_identity
from findsession.errors import FindsessionError
from findsession.projects import bounded
from findsession.reader import SessionView, read_session, resolve_session
from findsession.resume import with_resume
from findsession.roots import source_reports
from findsession.search.engine import search
from findsession.search.filters import MAX_TOP, SearchOptions, parse_range


def _without(response: SearchResponse, session_id: str, top: int) -> SearchResponse:
    """`response` without the session `session_id`, ranked again from 1 so a rank is a
    place in the list; the confidence judged the first session, so it goes when that
    was the one left out."""
    kept = [h for h in response.hits if h.session.id != session_id][:top]
    first_left = bool(response.hits) and response.hits[0].session.id == session_id
    return replace(
        response,
        hits=[replace(h, rank=rank) for rank, h in enumerate(kept, 1)],
        confidence=None if first_left else response.confidence,
    )


class ReadingMixin(ArchivingMixin):
    """`Findsession`'s reading: search, read, sessions, sources, status."""

    def search(self, query: str, options: SearchOptions | None = None) -> SearchResponse:
        """Hybrid search with the filters inside both retrievals; see `SearchOptions`."""
        if not query.strip():
            raise FindsessionError(
                "the query is empty: give the words, identifier or error message to look for"
            )
        options = options or SearchOptions()
        if options.hybrid_weight is None:
            options.hybrid_weight = self.settings.hybrid_weight
        options.validated()  # in place, as the caller's record of what ran (the audit)
        if options.leave_out:  # room for the one left out
            asked = replace(options, top=min(options.top, MAX_TOP - 1) + 1)
        else:
            asked = options
        # The model loads on a thread while this one searches the index: read what it
        # needs from the store here, since one connection serves one thread at a time
        # (the store read inside the thread once failed a search with "busy"). Under
        # `model = "auto"` the query takes the model the stored vectors were made by.
        made_by = model_of_identity(self.store.setting("embedding_model"))
        settings = self.settings.embedding
        response = search(self.store, query, asked, lambda: configured_embedder(settings, made_by))
        if options.leave_out:
            response = _without(response, options.leave_out, options.top)
        with_resume(self.store, response.hits, self.settings.machine)
        return response

    def read(self, session: str, options: ReadOptions | None = None) -> SessionView:
        """A session's turns (all, one, or a range, with `context` around them);
        `options.raw`: the text as its transcript holds it, from the archive's copy when
        the transcript is gone; under a boundary (`options.within`: see
        `projects.bounded`) only a session of that project."""
        options = options or ReadOptions()
        return read_session(
            self.store,
            session,
            **vars(options),
            archive=self.archive if options.raw else None,
        )

    def session(self, ref: str, *, within: str | None = None) -> Session:
        """The session with this id, or the one session whose id starts with it (under a
        boundary, of that project only)."""
        return resolve_session(self.store, ref, within)

    def sessions(self, options: ListOptions | None = None) -> list[Session]:
        """Main sessions, most recently active first; `project` takes that directory and
        those below it (see findsession.projects), inside the boundary `within`."""
        o = options or ListOptions()
        start, end = parse_range(o.after, o.before)
        return self.store.recent_sessions(bounded(o.project, o.within), start, end, o.limit)

    def subagents(self, session_id: str) -> list[Session]:
        """The subagents a session started, in the order they began."""
        return self.store.subagents_of(session_id)

    def first_prompt(self, session_id: str) -> str:
        return self.store.first_prompt(session_id)

    def sources(self) -> list[SourceReport]:
        """Every known source: on or off, the places it reads, and its files, sessions
        and skipped lines in the index."""
        return self.with_archive(source_reports(self.settings, self.store))

    def status(self) -> IndexStatus:
        status = self.store.status()
        status.archive = self.archive_status()
        return status
