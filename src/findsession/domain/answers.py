"""What the index answers with: search hits and their confidence, the audit's records,
and the index's status per source.

Separate from `records` because these are the answers every interface renders, not what
a transcript is made of.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from findsession.domain.records import Resume, Session


@dataclass(frozen=True, slots=True)
class ScoreParts:
    """A session's score in its four parts, each about 0 to 1 (findsession.search.sessions
    says why these four): its place in the fused ranking of units, its best keyword
    match against the keyword list's best, and its best and second-best turns by meaning,
    each measured from the query's background cosine up to the vector list's best."""

    ranks: float
    keyword: float
    meaning: float
    further: float

    @property
    def total(self) -> float:
        return self.ranks + self.keyword + self.meaning + self.further


@dataclass(slots=True)
class Hit:
    """One search result: a session and the unit inside it that matched best."""

    rank: int
    score: float
    session: Session
    unit_kind: str
    turn: int | None
    timestamp: str | None
    snippet: str
    highlights: list[tuple[int, int]]
    matched_field: str
    keyword_rank: int | None = None
    vector_rank: int | None = None
    bm25: float | None = None
    cosine: float | None = None
    #: Query words the keyword index matched in this unit.
    matched_terms: list[str] = field(default_factory=list)
    #: Why it was ranked ahead of fusion order: "identifier" (holds an identifier-like
    #: query token verbatim) or "keyword-winner" (the best keyword match, holding most of
    #: the query's words); None when fusion alone placed it.
    pinned: str | None = None
    tool_names: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    #: How to resume the session with its agent; filled in by the core API.
    resume: Resume | None = None
    #: What `score` is made of (None for a hit not ranked among others).
    parts: ScoreParts | None = None


class Level(StrEnum):
    """How sure a search is that its first session is the one meant."""

    STRONG = "strong"
    WEAK = "weak"
    NOTHING = "nothing"  # shown as "nothing close"


@dataclass(frozen=True, slots=True)
class Confidence:
    """The level, the probability-like score behind it, and the signals it came from
    (see findsession.search.confidence)."""

    level: Level
    score: float
    coverage: float | None = None
    lift: float | None = None
    agreement: float | None = None
    #: How far the first session's score stands above the second's.
    margin: float | None = None
    #: How far it stands above the typical runner-up (the median of ranks 2-10).
    standout: float | None = None


@dataclass(frozen=True, slots=True)
class IdMatch:
    """A query that named sessions by id (findsession.search.ids): `exact` (a whole id),
    `prefix` (the start of one session's id) or `ambiguous` (the start of several: all
    of them listed, none ranked first)."""

    kind: str
    sessions: list[Session]

    @property
    def unique(self) -> bool:
        return self.kind != "ambiguous"


@dataclass(slots=True)
class SearchResponse:
    """Hits plus how they were found: `strategy` always says which retrieval ran."""

    query: str
    strategy: str
    hits: list[Hit]
    notes: list[str] = field(default_factory=list)
    index_empty: bool = False
    #: How sure the search is of its first hit; None inside one session (`--session`),
    #: where the question is where, not whether.
    confidence: Confidence | None = None
    #: Candidates each filter kept out, counted only when asked (the audited MCP path).
    excluded: Exclusions | None = None
    #: The sessions the query named by id, when it was one (the first hit, when unique).
    id_match: IdMatch | None = None


@dataclass(slots=True)
class Exclusions:
    """What each filter kept out of a search (see findsession.search.exclusions)."""

    #: How deep each unfiltered list was read.
    depth: int
    #: List (`keyword`, `vector`) -> units it held with no filter, at most `depth`.
    candidates: dict[str, int] = field(default_factory=dict)
    #: Filter -> list -> of those candidates, how many the list with that filter alone lacks.
    by_filter: dict[str, dict[str, int]] = field(default_factory=dict)


@dataclass(slots=True)
class AuditRecord:
    """One answered MCP tool call as the audit keeps it: what was returned and why, with
    the query only as a keyed digest, never as text."""

    at: str
    connection: str
    tool: str
    query_digest: str | None
    filters: dict[str, Any]
    #: Each returned session (and turn), with the ranking components of a search hit.
    results: list[dict[str, Any]]
    excluded: Exclusions | None = None
    strategy: str | None = None
    confidence: str | None = None
    #: Results (hits, turns) the evidence budget kept out of the answer.
    held_back: int = 0
    id: int | None = None


@dataclass(slots=True)
class SourceCounts:
    """What the index holds from one source."""

    files: int = 0
    #: Files that could not be used (binary, unreadable, gone).
    unusable_files: int = 0
    sessions: int = 0
    subagents: int = 0
    #: Lines skipped as malformed.
    problems: int = 0


@dataclass(slots=True)
class SourceReport:
    """One source: whether it is on, where it looks, and what the index holds from it."""

    kind: str
    enabled: bool
    #: The folders it reads (standard places and configured roots), and whether each exists.
    roots: list[tuple[str, bool]]
    counts: SourceCounts
    #: What the source cannot read on this machine and why, one line each (Windsurf's
    #: encrypted Cascade history); empty where there is nothing to say.
    notes: list[str] = field(default_factory=list)
    #: A chat app's export: it reads only the exports named to it (`roots` lists those
    #: the index holds), never a standard place.
    export: bool = False
    #: Whether the archive keeps its transcripts; its sessions whose file is gone, and
    #: how many of those the archive holds.
    archived: bool = False
    gone: int = 0
    gone_held: int = 0


@dataclass(slots=True)
class ArchiveStatus:
    """The archive of transcripts beside the index: where, how big, which sources it
    keeps, and how many sessions whose file is gone it can bring back."""

    path: str
    files: int
    bytes: int
    #: The sources whose transcripts it keeps (`[archive]`).
    sources: list[str]
    #: Sessions whose transcript file is gone, and those of them whose file it holds.
    gone_sessions: int = 0
    gone_held: int = 0


@dataclass
class IndexStatus:
    """What is in the index, counted straight from the database."""

    db_path: str
    db_bytes: int
    schema_version: int
    files: dict[str, int]
    sessions: int
    subagent_sessions: int
    missing_sessions: int
    turns: int
    units: int
    roots: list[str]
    last_run: dict[str, Any] | None
    skipped_lines: int
    skipped_by_reason: dict[str, int]
    recent_problems: list[dict[str, Any]] = field(default_factory=list)
    #: Files whose last read did not end well, each `{"path", "status", "error"}`: one
    #: whose reader failed (`error`, read again from its old cursor on the next run), or
    #: one cut short at the work a file may cost (`ok`, the note says where).
    file_errors: list[dict[str, Any]] = field(default_factory=list)
    #: Secrets replaced by `[REDACTED:kind]` in everything indexed, by kind.
    redacted: dict[str, int] = field(default_factory=dict)
    embedding_model: str | None = None
    embedded_units: int = 0
    vector_chunks: int = 0
    #: The archive of transcripts (None when asked of a server that keeps none).
    archive: ArchiveStatus | None = None
    #: On a team's shared server: where the sessions the asker sees came from, one entry
    #: per owner and machine ({"owner", "machine", "sessions", "yours"}), the asker's
    #: first; empty in a local index. A pushed server has no index runs of its own.
    pushed: list[dict[str, Any]] = field(default_factory=list)
