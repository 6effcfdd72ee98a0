"""The storage seam: what the indexer, search and the core API may ask of an index.

Small protocols, one per job: the content store (files, records, sessions, units,
runs and settings), the keyword index, the vector index and the log of the titles
findsession wrote. A backend is one package that satisfies them all (`Storage`):
`storage/sqlite` (a file on this machine) and `storage/postgresql` (a server). Nothing above
this seam writes a query in a backend's language: filters travel as `Filters`, queries
as a parsed `Query`, results as the dataclasses of `storage/types.py` (re-exported
here, so callers import the whole seam from this one module; the index of files written
has its seam in `storage/writes.py`, re-exported too). `tests/test_layering.py`
checks that each backend's store answers every method here with the same parameters.
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from findsession.domain import (
    AuditRecord,
    IndexStatus,
    Message,
    MetaEvent,
    Problem,
    Session,
    SourceCounts,
)
from findsession.query import Query
from findsession.storage.types import (
    MARK_END,
    MARK_START,
    RRF_K,
    FileState,
    Filters,
    KeywordQueryError,
    ShownList,
    TitleWrite,
    UnitMatch,
    UnitRow,
    VectorMatch,
)
from findsession.storage.writes import WriteIndex, WriteMatch, WriteRow

if TYPE_CHECKING:  # numpy only where vectors are computed: `--help` must not load it
    import numpy as np


class ContentStore(Protocol):
    """Files, records, sessions, units, runs and settings, with their transactions."""

    path: Path
    read_only: bool

    def close(self) -> None: ...
    def transaction(self) -> AbstractContextManager[None]: ...
    def begin(self) -> None: ...
    def commit(self) -> None: ...
    def end_open_transaction(self, commit: bool) -> None: ...
    def require_writable(self) -> None: ...
    def setting(self, key: str) -> str | None: ...
    def set_setting(self, key: str, value: str) -> None: ...
    def reclaim_space(self) -> None: ...
    def size_bytes(self) -> int:
        """The space the index takes (a file: its bytes; a server: its tables')."""
        ...

    def scrub_wal(self) -> None: ...
    def keep_forgotten(self, ids: Iterable[str]) -> None: ...
    def status(self, problem_limit: int = 10) -> IndexStatus: ...
    def source_counts(self) -> dict[str, SourceCounts]: ...

    # files
    def file_states(self, paths: Iterable[str] | None = None) -> dict[str, FileState]:
        """Every indexed file's state, or only those of `paths` (a watcher's changes)."""
        ...

    def indexed_roots(self) -> list[tuple[str, str]]:
        """Each root files were indexed from, with its source: what a watcher keeps fresh."""
        ...

    def save_file(self, state: FileState) -> None: ...
    def set_file_status(self, path: str, status: str, error: str | None = None) -> None: ...
    def forget_file_content(self, path: str) -> list[str]: ...
    def add_redactions(self, path: str, counts: dict[str, int]) -> None: ...
    def remove_file(self, path: str) -> None: ...
    def add_replays(self, path: str, sources: Iterable[str]) -> None: ...
    def replaying_files(self, source_path: str) -> list[str]: ...
    def read_again(self, path: str) -> None: ...
    def add_problems(self, file_path: str, problems: Iterable[Problem]) -> None: ...
    def file_sources(self, paths: Iterable[str]) -> dict[str, str]: ...

    # records
    def uuid_owners(self, uuids: Iterable[str]) -> dict[str, tuple[str, int]]: ...
    def add_records(
        self, file_path: str, rows: Iterable[tuple[str, int, Message | MetaEvent]]
    ) -> None: ...
    def session_messages(self, session_id: str) -> list[Message]: ...
    def session_messages_page(
        self, session_id: str, after: tuple[int, int, int] | None, limit: int
    ) -> tuple[list[Message], tuple[int, int, int] | None]: ...
    def message_sources(self, session_id: str) -> list[tuple[str, int, int]]: ...
    def session_meta(self, session_id: str) -> list[MetaEvent]: ...

    # sessions
    def private_sessions(self) -> set[str]: ...
    def mark_private(self, session_id: str) -> None: ...
    def drop_session_content(self, session_id: str) -> None: ...
    def forget(self, session_ids: list[str]) -> None: ...
    def save_session(self, s: Session, agent_description: str | None = None) -> None: ...
    def delete_session(self, session_id: str) -> None: ...
    def recent_sessions(
        self, project: str | None, after: str | None, before: str | None, limit: int
    ) -> list[Session]: ...
    def sessions_with_prefix(self, prefix: str, limit: int = -1) -> list[Session]: ...
    def project_dirs(self, sources: tuple[str, ...]) -> list[str]: ...
    def first_prompt(self, session_id: str) -> str: ...
    def get_session(self, session_id: str) -> Session | None: ...
    def session_file(self, session_id: str) -> str | None: ...
    def parent_of(self, session_id: str) -> str | None: ...
    def subagents_of(self, session_id: str) -> list[Session]: ...

    # units
    def sync_units(self, session_id: str, units: list[UnitRow]) -> int: ...
    def pending_units(self) -> list[int]: ...
    def unit_texts(self, unit_ids: list[int]) -> list[tuple[Any, ...]]: ...
    def turn_texts(self, session_id: str, ordinals: list[int]) -> dict[int, tuple[str, str]]: ...
    def has_units(self) -> bool: ...
    def unit_fields(self, unit_id: int) -> tuple[Any, ...] | None: ...
    def recent_turn_texts(self, turns: int, chars: int) -> list[tuple[str, str]]: ...
    def units_kept(self, unit_ids: list[int], filters: Filters) -> set[int]:
        """Those of `unit_ids` that `filters` keep, all but `speaker` (what may match)."""
        ...

    # the last list of results each terminal was shown
    def remember_shown(
        self, terminal: str, session_ids: list[str], shown_at: str, forget_before: str
    ) -> None:
        """Replace `terminal`'s list with `session_ids` (numbered from 1 as shown), and
        drop every terminal's list shown before `forget_before`. Waits only briefly for
        the write lock (`IndexBusy`): a search must not hang on an index run."""
        ...

    def shown_list(self, terminal: str) -> ShownList | None:
        """The list `terminal` was last shown, or None."""
        ...

    # runs
    def start_run(self, roots: list[str]) -> int: ...
    def finish_run(
        self,
        run_id: int,
        *,
        files_seen: int,
        files_read: int,
        bytes_read: int,
        lines_read: int,
        sessions: int,
        problems: int,
        interrupted: bool,
    ) -> None: ...
    def totals(self) -> tuple[int, int]: ...

    # the audit of agents' searches
    def add_audit_record(self, record: AuditRecord) -> int:
        """Store one record, committed on return (nothing is shown before); its id."""
        ...

    def audit_records(self, since: str | None, limit: int, digest: str | None) -> list[AuditRecord]:
        """Records from `since` (UTC ISO), newest first; with `digest`, that query's only."""
        ...


class KeywordIndex(Protocol):
    """BM25 over the units' text, with the filters inside each query."""

    def keyword_search(self, query: Query, filters: Filters, limit: int) -> list[UnitMatch]:
        """Best `limit` units, best first; `KeywordQueryError` only for a raw query."""
        ...

    def keyword_snippet(self, query: Query, filters: Filters, match: UnitMatch) -> str:
        """The matched words of one unit in context, between `MARK_START`/`MARK_END`;
        '' when the index holds no text to cut one from."""
        ...

    def unit_holds(self, word: str, unit_id: int) -> bool:
        """Whether one unit matches `word` in any keyword index."""
        ...

    def units_with_all(self, tokens: list[str], filters: Filters, limit: int) -> set[int]:
        """Units holding every token verbatim (not only their words)."""
        ...

    def words_held(self, words: list[str], unit_ids: list[int]) -> set[str]:
        """The words that at least one of the units matches in any keyword index."""
        ...

    def word_rarity(self, words: list[str]) -> dict[str, float]:
        """Each word's inverse document frequency over all units, log((N+1)/(n+1)): how
        much matching it says; a word most units hold says almost nothing."""
        ...


#: One embedded piece of a unit: (field, start, end, scale, vec, code, text_hash).
Chunk = tuple[str, int, int, float, bytes, bytes, bytes | None]


class VectorIndex(Protocol):
    """Chunks' vectors, stored with their units and searched by cosine."""

    def has_vectors(self) -> bool: ...
    def clear_vectors(self) -> None: ...
    def save_vectors(
        self,
        unit_id: int,
        unit_hash: str,
        chunks: list[tuple[str, int, int, float, bytes, bytes, bytes | None]],
    ) -> bool:
        """Store a unit's (field, start, end, scale, vec, code, text_hash) chunks; False
        when the unit's text changed since `unit_hash` was read."""
        ...

    def save_vectors_many(self, units: list[tuple[int, str, list[Chunk]]]) -> int:
        """`save_vectors` for many (unit_id, unit_hash, chunks) at once, in as few
        statements as the backend can (a server pays a round trip per statement); the
        units whose text changed are left out. Returns how many units were stored."""
        ...

    def vectors_of_texts(self, text_hashes: list[bytes]) -> dict[bytes, tuple[float, bytes, bytes]]:
        """(scale, vec, code) already stored for these text digests: a text embedded once
        (a forked or resumed session repeats whole turns) is not embedded again."""
        ...

    def bump_vector_generation(self) -> None: ...

    def pack_vectors(self) -> bool:
        """Store what a cold searcher needs in a form it loads at once (a backend that
        keeps vectors in memory packs its arrays), when the vectors changed enough since
        the last time; True when it wrote. Inside a transaction."""
        ...

    def load_vectors(self) -> None:
        """Get ready to search (a backend that keeps vectors in memory loads them), so
        the work overlaps with loading the model; searching without it works too."""
        ...

    def vector_search(self, vector: np.ndarray, filters: Filters, limit: int) -> list[VectorMatch]:
        """The best `limit` units by cosine to `vector`, filters applied inside the scan."""
        ...


class TitleLog(Protocol):
    """The titles findsession wrote, and what a proposal is made from."""

    def record_title_write(self, write: TitleWrite) -> None: ...
    def title_writes(self, session_id: str | None = None) -> list[TitleWrite]: ...
    def drop_title_write(self, write: TitleWrite) -> None: ...
    def index_title(self, session_id: str) -> str | None: ...

    def title_material(self, session_id: str, turns: int) -> tuple[list[str], list[str]]:
        """The prompts of a session's first `turns` turns, in order (as indexed: redacted),
        and every file its turns touched."""
        ...


class Storage(ContentStore, KeywordIndex, VectorIndex, TitleLog, WriteIndex, Protocol):
    """A whole index: what one backend package provides."""


def protocol_methods() -> list[str]:
    """The names of every method the protocols ask a backend for."""
    return [
        name
        for protocol in (ContentStore, KeywordIndex, VectorIndex, TitleLog, WriteIndex)
        for name, member in vars(protocol).items()
        if callable(member) and not name.startswith("_")
    ]


__all__ = [
    "MARK_END",
    "MARK_START",
    "RRF_K",
    "ContentStore",
    "FileState",
    "Filters",
    "KeywordIndex",
    "KeywordQueryError",
    "ShownList",
    "Storage",
    "TitleLog",
    "TitleWrite",
    "UnitMatch",
    "UnitRow",
    "VectorIndex",
    "VectorMatch",
    "WriteIndex",
    "WriteMatch",
    "WriteRow",
    "protocol_methods",
]
