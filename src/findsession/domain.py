"""The domain, as plain dataclasses shared by every layer.

Parsers turn an agent's on-disk format into `Message` and `MetaEvent` records; nothing
after the parser knows which agent wrote them. The indexer groups messages into `Turn`s,
the store keeps them as searchable units, and search answers with `Hit`s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any


class MessageKind(StrEnum):
    """What a message is, which decides where its text goes in the index."""

    PROMPT = "prompt"  # typed by the person (or, in a subagent, by the parent agent)
    REPLY = "reply"  # assistant text shown to the person
    THINKING = "thinking"
    TOOL_CALL = "tool_call"
    TOOL_OUTPUT = "tool_output"
    COMPACT_SUMMARY = "compact_summary"  # "This session is being continued ..."
    HARNESS = "harness"  # isMeta lines, slash-command wrappers, interruptions
    SECTION = "section"  # one section of a note (a doc, a journal entry, a memory file)


class MetaKind(StrEnum):
    """Session-level facts that are not part of the conversation."""

    CUSTOM_TITLE = "custom_title"
    AI_TITLE = "ai_title"
    LAST_PROMPT = "last_prompt"
    SUMMARY = "summary"  # trusted only if its leaf_uuid is a message of the session


class SourceKind(StrEnum):
    """Which agent (or document kind) a session came from."""

    CLAUDE_CODE = "claude-code"
    AIDER = "aider"
    CODEX = "codex"
    GEMINI = "gemini"
    MARKDOWN = "markdown"
    JOURNAL = "journal"
    MEMORY = "memory"


@dataclass(frozen=True, slots=True)
class Message:
    """One normalised conversation record, in file order.

    `session_key` is None for the file's own session; a parser sets it when a file holds
    another session's lines too (Claude Code 1.0 wrote subagent lines inline). `heading`
    is set only on a `SECTION`: where the section sits in its document
    (`guide.md › Syncthing › Restart`), shown as the title of its search unit.
    """

    kind: MessageKind
    text: str
    line: int
    uuid: str | None = None
    parent_uuid: str | None = None
    message_id: str | None = None
    timestamp: str | None = None
    tool_name: str | None = None
    tool_id: str | None = None
    files: tuple[str, ...] = ()
    is_error: bool = False
    cwd: str | None = None
    git_branch: str | None = None
    version: str | None = None
    record_session_id: str | None = None
    session_key: str | None = None
    heading: str | None = None


@dataclass(frozen=True, slots=True)
class MetaEvent:
    """A title, last prompt or summary record; the last one of each kind wins."""

    kind: MetaKind
    value: str
    line: int
    leaf_uuid: str | None = None
    session_key: str | None = None


@dataclass(frozen=True, slots=True)
class Root:
    """A folder (or file) to index, and the source format found there."""

    path: Path
    source: str


@dataclass(frozen=True, slots=True)
class Problem:
    """A line that could not be used, kept so `status` and `index -v` can show it."""

    line: int
    reason: str
    detail: str = ""


@dataclass(slots=True)
class Turn:
    """A typed prompt and everything the agent did to answer it, or one section of a note.

    `tools_text` holds thinking, tool inputs and tool outputs, already capped, so that it
    can be searched without drowning the conversation. `heading` is set only for a note's
    section (its text is the prompt: the person's own words), which is indexed as a unit
    of kind `doc` titled by the heading.
    """

    ordinal: int
    prompt: str
    reply: str
    tools_text: str
    timestamp: str | None
    end_timestamp: str | None
    tool_names: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    first_line: int = 0
    last_line: int = 0
    heading: str | None = None


@dataclass(slots=True)
class Session:
    """What the index knows about one session."""

    id: str
    source: str
    file_path: str | None
    cwd: str | None
    title: str | None
    first_ts: str | None
    last_ts: str | None
    git_branch: str | None = None
    version: str | None = None
    parent_id: str | None = None
    is_subagent: bool = False
    agent_type: str | None = None
    n_turns: int = 0
    n_messages: int = 0
    missing: bool = False


@dataclass(frozen=True, slots=True)
class Resume:
    """How to go back into a session with its own agent, or why there is no way.

    `command` is an argv list, never a shell line: an id or a path with spaces, quotes or
    a leading `-` stays one argument. It is run in `cwd`, the session's working directory:
    the agents look a session up by the directory it was started in.
    """

    #: The agent's command; empty when the session cannot be resumed (see `reason`).
    command: tuple[str, ...] = ()
    #: Where to run it; None when the index has no working directory for the session.
    cwd: str | None = None
    #: Whether `cwd` existed when this was worked out: a moved or deleted project is
    #: reported, never replaced by a guess.
    cwd_exists: bool = False
    #: The session the command resumes: the session itself, or a subagent's parent.
    session_id: str | None = None
    #: What to know before running it (a subagent resumes its parent, Aider restores a
    #: whole history file); None when there is nothing to add.
    note: str | None = None
    #: Why there is no command; set only when `command` is empty.
    reason: str | None = None

    @property
    def available(self) -> bool:
        return bool(self.command)


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
    #: Secrets replaced by `[REDACTED:kind]` in everything indexed, by kind.
    redacted: dict[str, int] = field(default_factory=dict)
    embedding_model: str | None = None
    embedded_units: int = 0
    vector_chunks: int = 0
