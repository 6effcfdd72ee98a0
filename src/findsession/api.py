"""findsession's public face: index, embed, search, read, resume, list, title, forget,
status.

Every interface (the CLI, the MCP server, and the service and web page to come) calls
only this: arguments in, rendering out. What each of them used to do on its own (choose
the roots, index then embed, scope a project, look a session up, list recent sessions,
forget) happens here once, so the interfaces cannot drift apart.

    with Findsession.open() as fs:
        fs.index(fs.roots())
        fs.embed()
        response = fs.search("the deploy that lied about being live")
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from findsession import config
from findsession.audit import Auditor, digest, key_path, load_key
from findsession.config import Config
from findsession.domain import (
    AuditRecord,
    IndexStatus,
    Resume,
    Root,
    SearchResponse,
    Session,
    SourceReport,
)
from findsession.embeddings import (
    Embedder,
    EmbeddingUnavailable,
    configured_embedder,
    model_of_identity,
)
from findsession.errors import FindsessionError
from findsession.indexing import IndexReport, Progress, index_roots
from findsession.indexing.embed import EmbedReport, embed_pending
from findsession.indexing.model_choice import index_embedder
from findsession.reader import SessionView, read_session, resolve_session
from findsession.resume import remember_shown, resume_of, shown_session, with_resume
from findsession.roots import RootChoice, choose_roots, source_reports
from findsession.search.engine import search
from findsession.search.filters import (
    KINDS,
    MAX_TOP,
    MODES,
    SPEAKERS,
    BadOption,
    SearchOptions,
    parse_range,
    parse_when,
)
from findsession.storage import Storage, open_storage
from findsession.titles.plan import title_sessions
from findsession.titles.report import TitlesReport, UndoReport
from findsession.titles.undo import undo_titles

#: Called with a sentence for the person (a note, a warning), as things happen.
Say = Callable[[str], None]


@dataclass
class ForgetReport:
    """What `forget` removed and what it did to the file's size."""

    forgotten: list[str]
    bytes_before: int
    bytes_after: int


class Findsession:
    """One index, opened once; close it (or use `with`) when done."""

    def __init__(self, store: Storage, settings: Config) -> None:
        self.store = store
        self.settings = settings
        #: Things the person should know about how the index was opened.
        self.notes: list[str] = []

    @classmethod
    def open(cls, db: str | Path | None = None, *, rebuild: bool = False) -> Findsession:
        """Open the index at `db` (else `FINDSESSION_DB`, else the user data folder).

        `rebuild` sets the existing file aside first (under a name of its own) and
        starts a new one that keeps the old one's list of forgotten sessions.
        """
        path = config.db_path(str(db) if db is not None else None)
        settings = config.load_config()  # read once; everything below is passed it
        store, notes = open_storage(path, backend=settings.backend, rebuild=rebuild)
        fs = cls(store, settings)
        fs.notes = notes
        return fs

    @property
    def path(self) -> Path:
        return self.store.path

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Findsession:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- indexing ------------------------------------------------------------------------

    def roots(self, paths: Iterable[str | Path] = (), source: str | None = None) -> RootChoice:
        """The folders to index: `paths` if given (read as `source`, else as the source
        whose standard place or configured root holds them, else the default source),
        else every source's standard place, the config's roots and each indexed
        project's own folder; with no transcripts anywhere, the shipped sample corpus."""
        return choose_roots(self.settings, self.store, paths, source)

    def standard_roots(self) -> list[Root]:
        """Every source's standard place and the config's roots, existing or not yet."""
        return config.default_roots(self.settings)

    def index(
        self,
        roots: RootChoice | list[Root],
        *,
        prune: bool = False,
        progress: Progress | None = None,
    ) -> IndexReport:
        """Bring the keyword index up to date with the transcripts under `roots`."""
        chosen = roots.roots if isinstance(roots, RootChoice) else roots
        return index_roots(
            self.store, chosen, prune=prune, progress=progress, exclude=self.settings.exclude
        )

    def embed(
        self, *, progress: Progress | None = None, say: Say | None = None
    ) -> EmbedReport | None:
        """Vectors for every unit without them, newest first; None (having said why
        through `say`) when no model can run. Resumable: Ctrl-C keeps finished batches."""
        say = say or (lambda _line: None)
        try:
            embedder, choice = index_embedder(self.store, self.settings.embedding)
        except EmbeddingUnavailable as exc:
            say(f"note: no vectors built ({exc}); keyword search works")
            return None
        if choice.advice:
            say(f"note: {choice.advice}")
        stored = self.store.setting("embedding_model")
        if stored is not None and stored != embedder.identity:
            say(
                f"the embedding model changed ({stored} -> {embedder.identity}):"
                " dropping the old vectors and embedding everything again"
            )
        try:
            report = embed_pending(self.store, embedder, progress=progress)
        except EmbeddingUnavailable as exc:
            say(f"note: vectors not built ({exc}); keyword search works")
            return None
        if choice.scripts is not None:
            report.non_latin_share = round(choice.scripts.share, 3)
        report.advice = choice.advice
        return report

    # -- reading -------------------------------------------------------------------------

    def search(self, query: str, options: SearchOptions | None = None) -> SearchResponse:
        """Hybrid search with the filters inside both retrievals; see `SearchOptions`."""
        if not query.strip():
            raise FindsessionError(
                "the query is empty: give the words, identifier or error message to look for"
            )
        options = options or SearchOptions(hybrid_weight=self.settings.hybrid_weight)
        response = search(self.store, query, options, self._query_embedder)
        with_resume(self.store, response.hits)
        return response

    def _query_embedder(self) -> Embedder:
        """The configured model; under `model = "auto"`, the one the stored vectors were
        made by, so a query and the index it searches share a model."""
        made_by = model_of_identity(self.store.setting("embedding_model"))
        return configured_embedder(self.settings.embedding, made_by)

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
    ) -> SessionView:
        """A session's turns (all, one, or a range, with `context` around them)."""
        return read_session(
            self.store,
            session,
            turn=turn,
            context=context,
            tools=tools,
            first=first,
            last=last,
            raw=raw,
        )

    def session(self, ref: str) -> Session:
        """The session with this id, or the one session whose id starts with it."""
        return resolve_session(self.store, ref)

    def sessions(
        self,
        *,
        project: str | None = None,
        after: str | None = None,
        before: str | None = None,
        limit: int = 20,
    ) -> list[Session]:
        """Main sessions, most recently active first; `project` takes that directory and
        those below it (see findsession.projects)."""
        start, end = parse_range(after, before)
        return self.store.recent_sessions(project, start, end, limit)

    # -- going back ----------------------------------------------------------------------

    def resume(self, session: Session) -> Resume:
        """The command that resumes `session` in its agent (a subagent: its parent's), the
        directory to run it in and whether that still exists; or why there is none."""
        return resume_of(self.store, session)

    def remember_shown(self, terminal: str, session_ids: list[str]) -> None:
        """Remember the sessions a search showed `terminal`, in order, for `shown`."""
        remember_shown(self.store, terminal, session_ids)

    def shown(self, terminal: str, n: int) -> Session:
        """Result `n` (from 1) of the last search shown in `terminal`."""
        return shown_session(self.store, terminal, n)

    def first_prompt(self, session_id: str) -> str:
        return self.store.first_prompt(session_id)

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

    def sources(self) -> list[SourceReport]:
        """Every known source: on or off, the places it reads, and its files, sessions
        and skipped lines in the index."""
        return source_reports(self.settings, self.store)

    def status(self) -> IndexStatus:
        return self.store.status()

    # -- the audit of agents' searches ---------------------------------------------------

    def auditor(self, connection: str) -> Auditor:
        """What records one MCP connection's answers, under the key beside the index."""
        return Auditor(self.store, key_path(self.path), connection)

    def audit_log(
        self, *, since: str | None = None, limit: int = 50, query: str | None = None
    ) -> list[AuditRecord]:
        """Audit records, newest first; `query` keeps the searches for exactly that text
        (its digest under the index's key: whoever holds the key can check)."""
        start = parse_when(since, name="since") if since else None
        wanted = digest(load_key(key_path(self.path), create=False), query) if query else None
        return self.store.audit_records(start, limit, wanted)

    # -- titles --------------------------------------------------------------------------

    def titles(self, session: str | None = None, *, write: bool = False) -> TitlesReport:
        """Propose a title for every session without one of its own (or for `session`);
        with `write`, give it where every safety check passes (see findsession.titles)."""
        chosen = resolve_session(self.store, session) if session is not None else None
        return title_sessions(self.store, self.settings, chosen, write)

    def undo_titles(self, session: str | None = None) -> UndoReport:
        """Take out exactly the titles `titles` gave (all, or one session's)."""
        chosen = resolve_session(self.store, session).id if session is not None else None
        return undo_titles(self.store, self.settings, chosen)

    # -- forgetting ----------------------------------------------------------------------

    def forget(self, sessions: Iterable[str] = (), project: str | None = None) -> ForgetReport:
        """Delete sessions (ids or unique prefixes) and their subagents for good, or every
        session of `project`; later runs skip them, and the file is compacted."""
        refs = list(sessions)
        if not refs and project is None:
            raise FindsessionError("name the sessions to forget, or a project")
        if any(not ref.strip() for ref in refs) or (project is not None and not project.strip()):
            raise FindsessionError("a blank session id or project matches nothing: name one")
        ids = [resolve_session(self.store, ref).id for ref in refs]
        if project is not None:
            root = str(Path(project).expanduser().resolve())
            matched = [s.id for s in self.store.recent_sessions(root, None, None, -1)]
            if not matched:
                raise FindsessionError(
                    f"no indexed session has its project at or below {root}; nothing forgotten"
                )
            ids += matched
        ids = list(dict.fromkeys(ids))
        before = self.store.path.stat().st_size
        with self.store.transaction():
            self.store.forget(ids)
        self.store.reclaim_space()
        return ForgetReport(ids, before, self.store.path.stat().st_size)


__all__ = [
    "KINDS",
    "AuditRecord",
    "Auditor",
    "MAX_TOP",
    "MODES",
    "SPEAKERS",
    "BadOption",
    "Findsession",
    "ForgetReport",
    "Root",
    "RootChoice",
    "SearchOptions",
    "SourceReport",
    "TitlesReport",
    "UndoReport",
    "parse_when",
]
