"""Queries that name an agent: "the Codex chat where...", "in Gemini I asked...".

People name the tool when they remember which one it was. Measured on the visible
which-session set, a Claude Code session that mentioned Codex in passing took first
place from the Codex session the query described; so an agent the query names nudges
its sessions up, and another agent's keyword match gets no first place.
"""

from __future__ import annotations

from findsession.query import Query
from findsession.search.fusion import FusedUnit, in_order
from findsession.sources import SPOKEN_NAMES
from findsession.storage.base import RRF_K, SessionReader

#: Added to the fused score of a unit whose session comes from an agent the query names.
#: A nudge, not a filter: a person who says "the Codex chat" may misremember which tool
#: it was. It was sized as a first place in one list (0.5) when sessions were ranked by
#: their units' ranks alone; since a session's score also adds how strong its keyword
#: and meaning matches are (search/sessions.py), a first place is worth more than that,
#: and 0.5 no longer lifted the named agent's session over another agent's on the same
#: bug. On the visible set (11 questions name Codex, Gemini or Aider): 0.5 -> 1.0 gave
#: hit@5 .98 -> 1.00, MRR .925 -> .932 (Codex's 8 questions .730 -> .781); 1.5 read
#: .929 (docs/benchmarks.md, "Every text embedded alone").
NAMED_SOURCE_BONUS = 1.0 / (RRF_K + 1)


def named_sources(query: Query) -> set[str]:
    """The agents the query names ("in Codex I asked...", "the Gemini chat where")."""
    words = {w.strip(".,;:!?'\"()[]").lower() for w in query.words}
    return {kind for kind, names in SPOKEN_NAMES.items() if words & set(names)}


class SourceOf:
    """Each session's source, looked up once per search."""

    def __init__(self, store: SessionReader) -> None:
        self.store = store
        self.known: dict[str, str | None] = {}

    def __call__(self, session_id: str) -> str | None:
        if session_id not in self.known:
            session = self.store.get_session(session_id)
            self.known[session_id] = session.source if session else None
        return self.known[session_id]


def favour(units: list[FusedUnit], named: set[str], source_of: SourceOf) -> list[FusedUnit]:
    """Fused units with the named agents' sessions nudged up, pins still first."""
    for unit in units:
        if source_of(unit.session_id) in named:
            unit.score += NAMED_SOURCE_BONUS
    return in_order(units)
