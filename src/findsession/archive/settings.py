"""The `[archive]` table of the config file: which sources' transcripts are kept.

By default the archive keeps the transcripts of the agents that delete their own
(`Entry.deletes_own_files` in the source registry: Claude Code after
`cleanupPeriodDays`, Gemini CLI after `sessionRetention`), and no others: a copy of
every transcript on the machine doubles what holds its secrets, so it is made where the
agent would otherwise lose them. `enabled = false` keeps none; `<kind> = true` or
`false` chooses for one source.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from findsession.errors import FindsessionError
from findsession.sources.registry import ENTRIES


class BadArchiveSettings(FindsessionError):
    """A key or value of `[archive]` that cannot be used (the config names the file)."""


#: The sources kept when nothing is configured: those whose agent deletes its own files.
DEFAULT_KINDS = frozenset(e.kind for e in ENTRIES if e.deletes_own_files)


@dataclass(frozen=True, slots=True)
class ArchiveSettings:
    """Whether the archive keeps anything, and each source's choice over its default."""

    enabled: bool = True
    chosen: Mapping[str, bool] = field(default_factory=dict)

    @property
    def kinds(self) -> frozenset[str]:
        """The sources whose transcripts are kept."""
        if not self.enabled:
            return frozenset()
        return frozenset(
            e.kind for e in ENTRIES if self.chosen.get(e.kind, e.kind in DEFAULT_KINDS)
        )

    @classmethod
    def from_table(cls, table: Any) -> ArchiveSettings:
        """Check each key; `BadArchiveSettings` names the first that is wrong."""
        if not isinstance(table, Mapping):
            raise BadArchiveSettings("[archive] must be a table")
        known = {e.kind for e in ENTRIES}
        enabled = True
        chosen: dict[str, bool] = {}
        for key, value in table.items():
            if key != "enabled" and key not in known:
                names = ", ".join(["enabled", *sorted(known)])
                raise BadArchiveSettings(f"unknown key {key!r} in [archive] (known: {names})")
            if not isinstance(value, bool):
                raise BadArchiveSettings(f"[archive] {key} must be true or false")
            if key == "enabled":
                enabled = value
            else:
                chosen[key] = value
        return cls(enabled, chosen)
