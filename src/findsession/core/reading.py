"""Reading the index: search, a session read back, sessions listed, the sources, status.

Everything `Findsession` answers from what is indexed, without changing it.
"""

from __future__ import annotations

from findsession.core.archiving import ArchivingMixin
from findsession.domain import IndexStatus, SearchResponse, Session, SourceReport
from findsession.embeddings import configured_embedder, model_of_identity
from findsession.errors import FindsessionError
from findsession.projects import bounded
from findsession.reader import SessionView, read_session, resolve_session
from findsession.resume import with_resume
from findsession.roots import source_reports
from findsession.search.engine import search
from findsession.search.filters import SearchOptions, parse_range


class ReadingMixin(ArchivingMixin):
    """`Findsession`'s reading: search, read, sessions, sources, status."""

    def search(self, query: str, options: SearchOptions | None = None) -> SearchResponse:
        """Hybrid search with the filters inside both retrievals; see `SearchOptions`."""
        if not query.strip():
            raise FindsessionError(
                "the query is empty: give the words, identifier or error message to look for"
            )
        options = options or SearchOptions(hybrid_weight=self.settings.hybrid_weight)
        # The model loads on a thread while this one searches the index: read what it
        # needs from the store here, since one connection serves one thread at a time
        # (the store read inside the thread once failed a search with "busy"). Under
        # `model = "auto"` the query takes the model the stored vectors were made by.
        made_by = model_of_identity(self.store.setting("embedding_model"))
        settings = self.settings.embedding
        response = search(
            self.store, query, options, lambda: configured_embedder(settings, made_by)
        )
        with_resume(self.store, response.hits, self.settings.machine)
        return response

    def read(
        self,
        session: str,
        *,
        turn: int | None = None,
        first: int | None = None,
        last: int | None = None,
        context: int = 0,
        tools: bool = False,
        raw: bool = False,
        within: str | None = None,
    ) -> SessionView:
        """A session's turns (all, one, or a range, with `context` around them); `raw`:
        the text as its transcript holds it, from the archive's copy when the transcript
        is gone; under a boundary (`within`: see `projects.bounded`) only a session of
        that project."""
        return read_session(
            self.store,
            session,
            turn=turn,
            context=context,
            tools=tools,
            first=first,
            last=last,
            raw=raw,
            archive=self.archive if raw else None,
            within=within,
        )

    def session(self, ref: str, *, within: str | None = None) -> Session:
        """The session with this id, or the one session whose id starts with it (under a
        boundary, of that project only)."""
        return resolve_session(self.store, ref, within)

    def sessions(
        self,
        *,
        project: str | None = None,
        after: str | None = None,
        before: str | None = None,
        limit: int = 20,
        within: str | None = None,
    ) -> list[Session]:
        """Main sessions, most recently active first; `project` takes that directory and
        those below it (see findsession.projects), inside the boundary `within`."""
        start, end = parse_range(after, before)
        return self.store.recent_sessions(bounded(project, within), start, end, limit)

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
