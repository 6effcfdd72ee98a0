"""The evidence budget: how many distinct turns one MCP connection may be shown.

An agent that searches in a loop could read a person's whole history out of the index,
one plausible question at a time. The budget caps what one connection (one server
process, which serves one client session over stdio) is shown: distinct (session, turn)
pairs returned by `search_conversation` and `read_conversation`. Showing a turn again
costs nothing; a hit at a session's summary rather than a turn counts once per session.

A call that would cross the ceiling is cut to fit, not refused: hits come best first and
turns in order, so the part that fits is the most useful part, and the agent learns how
much was held back. Only a call whose first result does not fit is refused, with
`search_budget_exhausted`; the audit records it too, as a call that returned nothing and
held everything back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from findsession.errors import FindsessionError

#: A piece of evidence: a session and its turn (None: the session's summary).
Evidence = tuple[str, int | None]


class SearchBudgetExhausted(FindsessionError):
    """This connection has been shown as many turns as its evidence budget allows."""


@dataclass
class EvidenceBudget:
    """The distinct turns shown on one connection, and how many it may be shown."""

    limit: int
    shown: set[Evidence] = field(default_factory=set)

    def fitting(self, items: Sequence[Evidence]) -> int:
        """How many of `items`, taken in order, fit in what is left (0 for some but none:
        the call is then refused with `exhausted`)."""
        new: set[Evidence] = set()
        for count, item in enumerate(items):
            if item not in self.shown and item not in new:
                if len(self.shown) + len(new) >= self.limit:
                    return count
                new.add(item)
        return len(items)

    def spend(self, items: Sequence[Evidence]) -> None:
        """Count `items` as shown (after they were recorded, just before answering)."""
        self.shown.update(items)

    def state(self, held_back: int = 0) -> dict[str, Any]:
        """What the answer says about the budget: `held_back` results did not fit."""
        return {"limit": self.limit, "used": len(self.shown), "held_back": held_back}

    def exhausted(self) -> SearchBudgetExhausted:
        return SearchBudgetExhausted(
            f"search_budget_exhausted: this session has been shown {len(self.shown)}"
            f" distinct turns of past conversations, as many as findsession allows one"
            f" session ({self.limit}); nothing new is returned. Answer from what was already"
            " found, ask about turns already shown, ask the person to raise the evidence"
            " budget ([mcp] evidence_budget in findsession's config), or continue in a new"
            " session"
        )
