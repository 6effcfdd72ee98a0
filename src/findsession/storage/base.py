"""The storage seam: what the indexer, search and the core API may ask of an index.

Small protocols, grouped by who uses them: the index itself (`Index`: transactions,
settings), what an index run writes (`IndexWriter`) and an embedding run (`Embedding`),
what search reads (`SearchReader`, `KeywordIndex`, `VectorIndex`), what people read
through the core API (`SessionReader`), what looks after the index (`Upkeep`: status,
forgetting, space, the audit), the log of the titles findsession wrote (`TitleLog`) and
the index of files written (`WriteIndex`, for blame).
A backend is one package that satisfies them all (`Storage`):
`storage/sqlite` (a file on this machine) and `storage/postgresql` (a server). Nothing above
this seam writes a query in a backend's language: filters travel as `Filters`, queries
as a parsed `Query`, results as the dataclasses of `storage/types.py` (re-exported
here, so callers import the whole seam from this one module; the index of files written
has its seam in `storage/writes.py`, re-exported too). `tests/test_layering.py`
checks that each backend's store answers every method here with the same parameters.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
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
    Chunk,
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


class Index(Protocol):
    """The index itself, which every user of it holds: where it is, its transactions and
    settings."""

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


class IndexWriter(Protocol):
    """What an index run writes (`indexing/`): files and their cursors, records,
    sessions, units, runs; and what it reads back to know what changed."""

    # files
    def file_states(self, paths: Iterable[str] | None = None) -> dict[str, FileState]:
        """Every indexed file's state, or only those of `paths` (a watcher's changes)."""
        ...

    def save_file(self, state: FileState) -> None: ...
    def set_file_status(self, path: str, status: str, error: str | None = None) -> None: ...
    def forget_file_content(self, path: str) -> list[str]: ...
    def forget_file_lines(self, path: str, after: int) -> list[str]: ...
    def add_redactions(self, path: str, counts: Mapping[tuple[str, int, str], int]) -> None: ...
    def remove_file(self, path: str) -> None: ...
    def add_replays(self, path: str, sources: Iterable[str]) -> None: ...
    def replaying_files(self, source_path: str) -> list[str]: ...
    def read_again(self, path: str) -> None: ...
    def add_problems(self, file_path: str, problems: Iterable[Problem]) -> None: ...
    def file_sources(self, paths: Iterable[str]) -> dict[str, str]: ...

    # records
    def uuid_owners(
        self, uuids: Iterable[str], reading: str = ""
    ) -> dict[str, tuple[str, int]]: ...
    def add_records(
        self, file_path: str, rows: Iterable[tuple[str, int, Message | MetaEvent]]
    ) -> None: ...
    def session_messages_page(
        self, session_id: str, after: tuple[int, int, int] | None, limit: int
    ) -> tuple[list[Message], tuple[int, int, int] | None]:
        """A session's messages a page at a time (a rebuild of any length in bounded
        memory): up to `limit` after the key `after`, and the key the next page starts
        after (None after the last)."""
        ...

    def session_meta(self, session_id: str) -> list[MetaEvent]: ...

    # sessions
    def private_sessions(self) -> set[str]: ...
    def mark_private(self, session_id: str) -> None: ...
    def drop_session_content(self, session_id: str) -> None: ...
    def save_session(self, s: Session, agent_description: str | None = None) -> None: ...
    def delete_session(self, session_id: str) -> None: ...
    def session_file(self, session_id: str) -> str | None: ...
    def parent_of(self, session_id: str) -> str | None: ...
    def adopt(self, parent_id: str, children: list[str]) -> None: ...

    # units
    def sync_units(self, session_id: str, units: list[UnitRow]) -> int: ...

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
    def scrub_wal(self) -> None: ...


class SessionReader(Protocol):
    """What people read through the core API (`read`, the session list, `open N`, the
    roots a watcher keeps fresh); an index run's rebuild of a session reads its
    messages too."""

    def get_session(self, session_id: str) -> Session | None: ...
    def session_messages(self, session_id: str) -> list[Message]: ...
    def message_sources(self, session_id: str) -> list[tuple[str, int, int]]: ...
    def recent_sessions(
        self, project: str | None, after: str | None, before: str | None, limit: int
    ) -> list[Session]: ...
    def sessions_with_prefix(self, prefix: str, limit: int = -1) -> list[Session]: ...
    def subagents_of(self, session_id: str) -> list[Session]: ...
    def first_prompt(self, session_id: str) -> str: ...
    def project_dirs(self, sources: tuple[str, ...]) -> list[str]: ...
    def indexed_roots(self) -> list[tuple[str, str]]:
        """Each root files were indexed from, with its source: what a watcher keeps fresh."""
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


class Upkeep(Protocol):
    """What a person (on a server, its admin) runs to look after the index: its status,
    forgetting sessions for good, giving space back, the audit of agents' searches."""

    def status(self, problem_limit: int = 10) -> IndexStatus: ...
    def source_counts(self) -> dict[str, SourceCounts]: ...
    def forget(self, session_ids: list[str]) -> None: ...
    def keep_forgotten(self, ids: Iterable[str]) -> None: ...
    def reclaim_space(self) -> None: ...
    def size_bytes(self) -> int:
        """The space the index takes (a file: its bytes; a server: its tables')."""
        ...

    def add_audit_record(self, record: AuditRecord) -> int:
        """Store one record, committed on return (nothing is shown before); its id."""
        ...

    def audit_records(self, since: str | None, limit: int, digest: str | None) -> list[AuditRecord]:
        """Records from `since` (UTC ISO), newest first; with `digest`, that query's only."""
        ...


class SearchReader(Protocol):
    """What search reads besides its two retrievals (`search/`): whether there is
    anything to search, a unit's fields for its snippet, what the filters keep."""

    def has_units(self) -> bool: ...
    def unit_fields(self, unit_id: int) -> tuple[Any, ...] | None: ...
    def units_kept(self, unit_ids: list[int], filters: Filters) -> set[int]:
        """Those of `unit_ids` that `filters` keep, all but `speaker` (what may match)."""
        ...

    def sessions_kept(self, session_ids: list[str], filters: Filters) -> set[str]:
        """Those of `session_ids` that the filters of whole sessions keep (project,
        source): a session named by id is an answer only inside them."""
        ...

    def turn_counts(self, session_ids: list[str]) -> dict[str, int]:
        """Each session's number of turns: how many a session's second-best turn was
        picked from."""
        ...

    def restating(self, session_ids: list[str]) -> dict[str, str]:
        """Those of `session_ids` that only restate their parent (a compaction agent),
        each with its parent's id: search counts what they match for the parent."""
        ...


class KeywordIndex(Protocol):
    """BM25 over the units' text, with the filters inside each query (search reads)."""

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


class Embedding(Protocol):
    """What an embedding run reads and writes (`indexing/embed.py`): the units awaiting
    vectors and their text, the vectors, and what tells searchers they changed."""

    def pending_units(self) -> list[int]: ...
    def unit_texts(self, unit_ids: list[int]) -> list[tuple[Any, ...]]: ...
    def turn_texts(self, session_id: str, ordinals: list[int]) -> dict[int, tuple[str, str]]: ...
    def recent_turn_texts(self, turns: int, chars: int) -> list[tuple[str, str]]: ...
    def clear_vectors(self) -> None: ...
    def save_vectors(self, unit_id: int, unit_hash: str, chunks: list[Chunk]) -> bool:
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


class VectorIndex(Protocol):
    """Chunks' vectors searched by cosine (search reads)."""

    def has_vectors(self) -> bool: ...
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


#: The protocols, grouped by who uses them: every user; indexing; search; people
#: reading through the core API; looking after the index; titles; the files written.
PROTOCOLS: tuple[type, ...] = (
    Index,
    IndexWriter,
    Embedding,
    SearchReader,
    KeywordIndex,
    VectorIndex,
    SessionReader,
    Upkeep,
    TitleLog,
    WriteIndex,
)


class Storage(*PROTOCOLS, Protocol):  # type: ignore[misc]
    """A whole index: what one backend package provides."""


def methods_of(protocol: type) -> list[str]:
    """The names of the methods one protocol asks for."""
    return [n for n, m in vars(protocol).items() if callable(m) and not n.startswith("_")]


def protocol_methods() -> list[str]:
    """The names of every method the protocols ask a backend for."""
    return [name for protocol in PROTOCOLS for name in methods_of(protocol)]


__all__ = [
    "MARK_END",
    "MARK_START",
    "RRF_K",
    "Chunk",
    "PROTOCOLS",
    "Embedding",
    "Index",
    "IndexWriter",
    "FileState",
    "Filters",
    "KeywordIndex",
    "KeywordQueryError",
    "SearchReader",
    "SessionReader",
    "ShownList",
    "Storage",
    "TitleLog",
    "TitleWrite",
    "UnitMatch",
    "UnitRow",
    "Upkeep",
    "VectorIndex",
    "VectorMatch",
    "WriteIndex",
    "WriteMatch",
    "WriteRow",
    "methods_of",
    "protocol_methods",
]
