"""Dates as people write them in notes: in file names, headings and front matter.

Journals are filtered by these dates (`--after`, `--before`), so each is turned into the
UTC text form search compares (`YYYY-MM-DDTHH:MM:SSZ`); a date without a time is
midnight UTC. A few exact patterns, not a fuzzy parser: a heading like `Sprint 12` must
not become a date.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from typing import Any

_ISO_DAY = re.compile(r"(?<!\d)(\d{4})[-/._](\d{1,2})[-/._](\d{1,2})(?!\d)")
_MONTHS = {
    name: n
    for n, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        1,
    )
    for name in names
}
_MONTH = "(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_DAY_MONTH_YEAR = re.compile(rf"(?<!\w){_DAY}\s+{_MONTH},?\s+(\d{{4}})(?!\d)", re.IGNORECASE)
_MONTH_DAY_YEAR = re.compile(rf"(?<!\w){_MONTH}\s+{_DAY},?\s+(\d{{4}})(?!\d)", re.IGNORECASE)


def find_date(text: str) -> str | None:
    """The first calendar date written in `text` (`2026-03-14`, `2026_03_14`, `14 March
    2026`, `March 14th, 2026`), as midnight UTC; None when there is none."""
    found = [(m.start(), int(m[1]), int(m[2]), int(m[3])) for m in _ISO_DAY.finditer(text)]
    found += [
        (m.start(), int(m[3]), _MONTHS[m[2].lower()], int(m[1]))
        for m in _DAY_MONTH_YEAR.finditer(text)
    ]
    found += [
        (m.start(), int(m[3]), _MONTHS[m[1].lower()], int(m[2]))
        for m in _MONTH_DAY_YEAR.finditer(text)
    ]
    for _, year, month, day in sorted(found):
        try:
            return iso(datetime(year, month, day, tzinfo=UTC))
        except ValueError:
            continue
    return None


def iso_date(value: Any) -> str | None:
    """A front matter date (YAML gives a date or datetime, TOML too, or a string) as UTC
    `YYYY-MM-DDTHH:MM:SSZ`, the form search filters compare; a time without a zone is UTC."""
    try:
        if isinstance(value, datetime):
            return iso(value if value.tzinfo else value.replace(tzinfo=UTC))
        if isinstance(value, date):
            return iso(datetime(value.year, value.month, value.day, tzinfo=UTC))
        if isinstance(value, str):
            return iso_date(datetime.fromisoformat(value.strip().replace("Z", "+00:00")))
    except ValueError:
        return find_date(value) if isinstance(value, str) else None
    except OverflowError:  # a zone that pushes the time past year 1 or 9999
        return None
    return None


def iso(moment: datetime) -> str:
    """UTC as `YYYY-MM-DDTHH:MM:SSZ`, the year always four digits."""
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="seconds") + "Z"
