"""The values that cross the storage seam: filters in, rows and matches out, and the
one error a raw keyword query may raise.

Every backend and every caller of one shares these plain dataclasses and constants, and
none of them says how an index is kept, so they live apart from the protocols in
`storage/base.py` (which re-exports each of them: `from findsession.storage.base import
Filters` keeps working). A second backend reuses them unchanged.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from findsession.errors import FindsessionError

#: Marks around each matched word in a keyword snippet; search turns them into spans.
MARK_START, MARK_END = "\x02", "\x03"
#: The k of reciprocal-rank fusion, 1/(k + rank): the keyword index fuses its own lists
#: with it, and search fuses the keyword and vector lists with the same k.
RRF_K = 60


#: One embedded piece of a unit as every index stores it: (field, start, end, scale, int8
#: vector, sign bits, digest of the text embedded).
Chunk = tuple[str, int, int, float, bytes, bytes, bytes | None]


@dataclass(frozen=True, slots=True)
class Filters:
    """What a search keeps, applied inside each retrieval (never after a top-k:
    filtering a global top-k afterwards loses the hits of the chosen session)."""

    #: A project directory: sessions whose working directory is it or below it.
    project: str | None = None
    #: A session id or unique prefix: that session and its subagents.
    session: str | None = None
    #: `user` (what people typed) or `assistant` (the replies).
    speaker: str | None = None
    #: UTC ISO times (`YYYY-MM-DDTHH:MM:SSZ`): units at or after, and before.
    after: str | None = None
    before: str | None = None
    #: `turn`, `session` (fingerprint) or `doc`.
    kind: str | None = None
    #: Source kinds (`claude-code`, `codex`, `markdown`, ...): sessions from any of them.
    sources: tuple[str, ...] = ()

    @property
    def project_path(self) -> str | None:
        """The project without trailing separators; None for none or the filesystem root
        (which, like no project, means every project)."""
        project = (self.project or "").rstrip("/\\")
        return project or None


@dataclass(frozen=True, slots=True)
class UnitMatch:
    """One unit the keyword index matched, in rank order."""

    unit_id: int
    session_id: str
    kind: str
    ordinal: int
    bm25: float
    #: The index whose list found it first (its snippet is cut from that index).
    table: str
    score: float = 0.0
    #: That index's weight in the keyword list's fusion (tool text counts for less than
    #: what was said): how strongly its BM25 speaks for the unit.
    weight: float = 1.0


@dataclass(frozen=True, slots=True)
class VectorMatch:
    """One unit found by meaning, with the chunk that matched it best."""

    unit_id: int
    session_id: str
    kind: str
    ordinal: int
    cosine: float
    field: str
    start: int
    end: int


@dataclass(slots=True)
class FileState:
    """What the index remembers of one transcript file, to read only what changed."""

    path: str
    source: str
    root: str | None
    session_id: str | None
    size: int
    mtime_ns: int
    offset: int
    lines: int
    tail_hash: str | None
    status: str = "ok"
    error: str | None = None


@dataclass(frozen=True, slots=True)
class UnitRow:
    """A searchable unit as the store keeps it."""

    kind: str
    ordinal: int
    source: str
    ts: str | None
    title: str
    prompt: str
    reply: str
    tools: str
    tool_names: list[str]
    files: list[str]

    def digest(self) -> str:
        payload = json.dumps(
            [self.ts, self.title, self.prompt, self.reply, self.tools, self.tool_names, self.files],
            ensure_ascii=False,
        )
        return hashlib.blake2b(payload.encode("utf-8"), digest_size=16).hexdigest()


@dataclass(frozen=True, slots=True)
class ShownList:
    """The sessions one terminal was last shown by a search, in the order shown (the
    first is result 1), and when: what `open N` reads. A session forgotten since leaves
    an empty id in its place, so the others keep their numbers."""

    shown_at: str
    session_ids: list[str]


class KeywordQueryError(FindsessionError):
    """The keyword index rejected a raw query (free text is always accepted)."""


@dataclass(frozen=True, slots=True)
class TitleWrite:
    """A title findsession gave a session: the exact line it appended to the transcript
    (so `titles --undo` removes exactly those bytes), or, for a format with no place for
    one, a title kept in the index only (`offset` and `line` None)."""

    session_id: str
    file_path: str
    title: str
    offset: int | None = None
    line: bytes | None = None
    written_at: str = ""
