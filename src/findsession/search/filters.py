"""Search options: what to search and how, checked once for every interface.

Filters run inside each retrieval (see findsession.storage.base.Filters), never after a top-k:
filtering a global top-k afterwards loses the hits of the chosen session or project.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from findsession.errors import FindsessionError
from findsession.projects import bounded
from findsession.sources import SOURCES
from findsession.storage.base import Filters

KINDS = ("turn", "session", "doc")
SPEAKERS = ("user", "assistant")
MODES = ("hybrid", "keyword", "vector")
#: The most sessions one search returns: more is never read, and SQLite's LIMIT must fit
#: in 64 bits after the per-session fan-out.
MAX_TOP = 1000
_RELATIVE = re.compile(r"^\s*(\d+)\s*([hdwmy])\s*$", re.IGNORECASE)
_UNIT_SECONDS = {"h": 3600, "d": 86400, "w": 7 * 86400, "m": 30 * 86400, "y": 365 * 86400}


class BadOption(FindsessionError):
    """A search option has a value that cannot be used."""


@dataclass
class SearchOptions:
    """What to search and how; every interface builds one of these."""

    top: int = 10
    mode: str = "hybrid"
    project: str | None = None
    session: str | None = None
    speaker: str | None = None
    after: str | None = None
    before: str | None = None
    kind: str | None = None
    raw: bool = False
    #: Source kinds to keep (`codex`, `claude-code,gemini`, ...); None for all.
    source: str | None = None
    #: Weight of the vector list in fusion; the keyword list gets the rest.
    hybrid_weight: float = 0.5
    #: Also count the candidates each filter kept out (`SearchResponse.excluded`): a few
    #: more retrievals, made for the audit of agents' searches.
    count_excluded: bool = False
    #: The boundary of an interface started for one project (the MCP server's): `project`
    #: must lie inside it and defaults to it (`projects.bounded`); None: every project.
    within: str | None = None

    def validated(self) -> SearchOptions:
        """Check values and normalise dates; raise `BadOption` with a usable message.

        Messages name options by their bare names (`top`, `after`), which read right
        both on the command line and in an MCP tool's parameters.
        """
        if self.top < 1:
            raise BadOption(f"top must be at least 1, not {self.top}")
        if self.top > MAX_TOP:
            raise BadOption(f"top must be at most {MAX_TOP}, not {self.top}")
        if not 0.0 <= self.hybrid_weight <= 1.0:
            raise BadOption(f"the hybrid weight must be between 0 and 1, not {self.hybrid_weight}")
        if self.mode not in MODES:
            raise BadOption(f"mode must be one of {', '.join(MODES)}, not {self.mode!r}")
        if self.kind is not None and self.kind not in KINDS:
            raise BadOption(f"kind must be one of {', '.join(KINDS)}, not {self.kind!r}")
        if self.speaker is not None and self.speaker not in SPEAKERS:
            raise BadOption(f"speaker must be user or assistant, not {self.speaker!r}")
        self.after, self.before = parse_range(self.after, self.before)
        self.project = bounded(self.project, self.within)
        self.source = ",".join(source_kinds(self.source)) or None
        return self

    @property
    def filters(self) -> Filters:
        """What the storage applies inside each retrieval (checked by `validated`)."""
        return Filters(
            project=self.project,
            session=self.session,
            speaker=self.speaker,
            after=self.after,
            before=self.before,
            kind=self.kind,
            sources=source_kinds(self.source),
        )


def source_kinds(value: str | None) -> tuple[str, ...]:
    """The source kinds a comma-separated `source` names, each checked against the
    registry; `BadOption` names the known ones."""
    kinds = tuple(dict.fromkeys(k.strip().lower() for k in (value or "").split(",") if k.strip()))
    unknown = [k for k in kinds if k not in SOURCES]
    if unknown:
        known = ", ".join(SOURCES)
        raise BadOption(
            f"source must be one or more of {known} (comma-separated), not {unknown[0]!r}"
        )
    return kinds


def parse_range(after: str | None, before: str | None) -> tuple[str | None, str | None]:
    """Both ends of a time range as UTC ISO strings (None where not given); `BadOption`
    when either cannot be read or the range holds no time at all."""
    start = parse_when(after, name="after") if after else None
    end = parse_when(before, name="before") if before else None
    if start and end and start >= end:
        raise BadOption(
            f"after ({start}) is not earlier than before ({end}): no time is in that range;"
            " swap the two"
        )
    return start, end


def parse_when(value: str, now: datetime | None = None, name: str | None = None) -> str:
    """An ISO date or time, or a relative age like `7d`, `2w`, `12h`, as a UTC ISO string.

    Raises `BadOption` for text that is no date and for dates beyond the calendar's
    years 1 to 9999; `name`, the option the value came from, is named in its message.
    """
    shown = repr(value if len(value) <= 40 else value[:40] + "…")
    if name:
        shown += f" for {name}"
    match = _RELATIVE.match(value)
    try:
        if match:
            now = now or datetime.now(UTC)
            seconds = int(match.group(1)) * _UNIT_SECONDS[match.group(2).lower()]
            return _iso(now - timedelta(seconds=seconds))
        parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        if parsed.tzinfo is None:
            parsed = parsed.replace(tzinfo=UTC)
        return _iso(parsed.astimezone(UTC))
    except (OverflowError, ValueError) as exc:
        # OverflowError: an age reaching before year 1, or a time zone pushing a date past
        # either end of the calendar; ValueError: no date, or an age of 4,300+ digits.
        if match or isinstance(exc, OverflowError):
            raise BadOption(
                f"the date {shown} is beyond the calendar (years 1 to 9999):"
                " use a smaller age or a date in that range"
            ) from None
        raise BadOption(
            f"cannot read the date {shown}: use YYYY-MM-DD, an ISO time, or an age like 7d, 2w"
        ) from None


def _iso(moment: datetime) -> str:
    """UTC as `YYYY-MM-DDTHH:MM:SSZ`, the year always four digits (strftime's `%Y` gives
    `999` on glibc), so stored timestamps compare as text."""
    return moment.replace(tzinfo=None).isoformat(timespec="seconds") + "Z"
