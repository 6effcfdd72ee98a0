"""An agent's epoch time, in seconds or in milliseconds, or an ISO 8601 time with any
offset, as the ISO 8601 UTC text the index keeps.

Stores disagree on the unit, and sometimes with themselves: Crush's schema comments say
milliseconds while its rows hold seconds. A number past 10^11 cannot be seconds (that is
the year 5138), so it is taken for milliseconds.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

_MILLIS = 1e11
_LATEST = 1e14


def epoch_iso(value: Any) -> str | None:
    """`value` as `2026-05-17T10:00:00.000Z`; None for no number or one out of range."""
    if not isinstance(value, int | float) or isinstance(value, bool) or not 0 < value < _LATEST:
        return None
    seconds = value / 1000 if value > _MILLIS else value
    moment = datetime.fromtimestamp(seconds, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def iso_time(value: Any) -> str | None:
    """An ISO 8601 time as the index keeps times (`...T10:00:00.000Z`, UTC), so times of
    every export compare as text; None for anything else."""
    if not isinstance(value, str) or not value:
        return None
    try:
        moment = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        moment = moment.astimezone(UTC)
    except (ValueError, OverflowError):
        return None
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
