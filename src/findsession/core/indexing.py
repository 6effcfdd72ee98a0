"""Bringing the index up to date: which folders to read, indexing them, embedding.

Apart from reading: these build what the searches read. The indexer's modules (every
source's parser, the redaction rules, the embedding pass) are imported by the methods
that run them, so opening the API for a query never pays for them.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from findsession import config
from findsession.core.archiving import ArchivingMixin
from findsession.domain import Root
from findsession.roots import RootChoice, choose_roots
from findsession.sources import ENVIRONMENT, NAMED_ENVIRONMENT

if TYPE_CHECKING:
    from findsession.indexing import IndexReport, Progress
    from findsession.indexing.embed import EmbedReport

#: Called with a sentence for the person (a note, a warning), as things happen.
Say = Callable[[str], None]


class IndexingMixin(ArchivingMixin):
    """`Findsession`'s indexing: roots, index, embed."""

    def roots(self, paths: Iterable[str | Path] = (), source: str | None = None) -> RootChoice:
        """The folders to index: `paths` if given (read as `source`, else as the source
        whose standard place or configured root holds them, else the default source),
        else every source's standard place, the config's roots and each indexed
        project's own folder; with no transcripts anywhere and nothing indexed yet, the
        shipped sample corpus."""
        return choose_roots(self.settings, self.store, paths, source)

    def source_variables(self) -> tuple[str, ...]:
        """The environment variables that move where the sources read (`CODEX_HOME`,
        `XDG_DATA_HOME`, ...): a process started away from this shell, as the login unit
        that keeps the index fresh, must be given those set here to read the same
        places as `roots`."""
        return ENVIRONMENT

    def source_name_variables(self) -> frozenset[str]:
        """Those of `source_variables` that hold a name, not a folder (`NVIM_APPNAME`):
        a process started elsewhere is given them as they are."""
        return NAMED_ENVIRONMENT

    def watched_roots(self) -> list[Root]:
        """What the service keeps fresh: the roots `index` reads without arguments and
        every root the index holds files from (a folder once indexed by name)."""
        roots = {(str(r.path), r.source): r for r in self.roots().roots}
        for path, source in self.store.indexed_roots():
            roots.setdefault((path, source), Root(Path(path), source))
        return list(roots.values())

    def standard_roots(self) -> list[Root]:
        """Every source's standard place and the config's roots, existing or not yet."""
        return config.default_roots(self.settings)

    def index(
        self,
        roots: RootChoice | list[Root],
        *,
        prune: bool = False,
        progress: Progress | None = None,
        only: Collection[str] | None = None,
    ) -> IndexReport:
        """Bring the keyword index up to date with the transcripts under `roots`; `only`:
        just these changed files, when the index already knows every one of them. The
        archive copies what is read of the sources it keeps."""
        from findsession.indexing import index_roots
        from findsession.indexing.writes import derive_backlog

        chosen = roots.roots if isinstance(roots, RootChoice) else roots
        report = index_roots(
            self.store,
            chosen,
            prune=prune,
            progress=progress,
            exclude=self.settings.exclude,
            only=only,
            committed_stores=self.settings.committed_stores,
            archive=self.archive,
        )
        if not report.interrupted:  # sessions indexed before the index of files written
            derive_backlog(self.store)
        return report

    def embed(
        self, *, progress: Progress | None = None, say: Say | None = None
    ) -> EmbedReport | None:
        """Vectors for every unit without them, newest first; None (having said why
        through `say`) when no model can run. Resumable: Ctrl-C keeps finished batches."""
        from findsession.embeddings import EmbeddingUnavailable
        from findsession.indexing.embed import embed_pending
        from findsession.indexing.model_choice import index_embedder

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
