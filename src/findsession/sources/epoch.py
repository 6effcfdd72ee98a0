"""An agent's epoch time, in seconds or in milliseconds, as the ISO 8601 UTC text the index
keeps.

Stores disagree on the unit, and sometimes with themselves: Crush's schema comments say
milliseconds while its rows hold seconds. A number past 10^11 cannot be seconds (that is
the year 5138), so it is taken for milliseconds.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

_MILLIS = 1e11
_LATEST = 1e14
#: Digits of a second's fraction past the microseconds Python reads (Rust's RFC 3339
#: writes nanoseconds).
_NANOS = re.compile(r"(\.\d{6})\d+")


def epoch_iso(value: Any) -> str | None:
    """`value` as `2026-05-17T10:00:00.000Z`; None for no number or one out of range."""
    if not isinstance(value, int | float) or isinstance(value, bool) or not 0 < value < _LATEST:
        return None
    seconds = value / 1000 if value > _MILLIS else value
    moment = datetime.fromtimestamp(seconds, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def millis_iso(value: Any) -> str | None:
    """`value` in milliseconds since the epoch, written as `epoch_iso` writes it; None for
    no number or one out of range. For the stores whose format says milliseconds (Amp's
    threads, OpenCode's messages): no small number there is taken for seconds."""
    if not isinstance(value, int | float) or isinstance(value, bool) or not 0 < value < _LATEST:
        return None
    moment = datetime.fromtimestamp(value / 1000, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def iso_utc(value: Any, *, naive_local: bool = False) -> str | None:
    """An ISO 8601 (RFC 3339) text with any offset, or an epoch number, as UTC
    `...000Z`; None when it does not parse. A text without an offset is UTC, or with
    `naive_local` this machine's local time (gptme writes `datetime.now()`)."""
    if not isinstance(value, str) or not value:
        return epoch_iso(value)
    try:
        moment = datetime.fromisoformat(_NANOS.sub(r"\1", value.strip().replace("Z", "+00:00")))
        if moment.tzinfo is None and not naive_local:
            moment = moment.replace(tzinfo=UTC)
        # Year 1 an hour east of UTC is before the year 1 in UTC: no datetime holds it.
        moment = moment.astimezone(UTC)
    except (ValueError, OverflowError, OSError):
        return None
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def iso_seconds(value: Any) -> float | None:
    """`iso_utc`'s moment as seconds since the epoch (to order sessions by when they
    began); None when it does not parse."""
    text = iso_utc(value)
    return None if text is None else datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
