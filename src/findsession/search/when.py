"""Time words in a query ("last week", "in January", "三天前") as a soft date preference.

People remember roughly when: "the Docker fix from last week", "that chat in March". The
words name no topic, so they are taken out of what the retrievals match, and the sessions
active in that window are nudged up by as much as a first place in one list, the way a
named agent is (`named.py`): a preference, not a filter, because people misremember
dates. `--after` / `--before` remain the hard filters.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from findsession.search.fusion import FusedUnit, in_order
from findsession.storage.base import RRF_K, SessionReader

#: Added to the fused score of a unit whose session was active in the window.
WINDOW_BONUS = 0.5 / (RRF_K + 1)
#: A session active this close to the window still counts: "last week" is often eight
#: days ago.
SLACK = 0.25

_MONTHS = {name.lower(): n for n, name in enumerate(calendar.month_name) if name}
_MONTHS |= {name.lower(): n for n, name in enumerate(calendar.month_abbr) if name}
_UNITS = {"day": 1, "week": 7, "month": 30, "year": 365}
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_ZH_NUMBERS = {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8}
_ZH_UNITS = {"天": 1, "周": 7, "星期": 7, "个月": 30, "年": 365}


@dataclass(frozen=True, slots=True)
class Window:
    """A span of time the query names, and the words that named it."""

    start: datetime
    end: datetime
    words: str

    def describe(self) -> str:
        last = self.end - timedelta(seconds=1)
        return f"{self.start:%Y-%m-%d} – {last:%Y-%m-%d}"


def _spans(now: datetime) -> dict[str, tuple[datetime, datetime]]:
    """The calendar spans people name, as [start, end) in UTC."""
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
    tomorrow = today + timedelta(days=1)
    monday = today - timedelta(days=today.weekday())
    first = today.replace(day=1)
    january = today.replace(month=1, day=1)
    return {
        "today": (today, tomorrow),
        "yesterday": (today - timedelta(days=1), today),
        "day before": (today - timedelta(days=2), today - timedelta(days=1)),
        "this week": (monday, tomorrow),
        "last week": (monday - timedelta(days=7), monday),
        "this month": (first, tomorrow),
        "last month": (_month_start(today, -1), first),
        "this year": (january, tomorrow),
        "last year": (january.replace(year=today.year - 1), january),
    }


#: The words for each span, English (whole words) and Chinese.
_NAMED = {
    "today": ("today", "this morning", "今天"),
    "yesterday": ("yesterday", "昨天"),
    "day before": ("前天",),
    "this week": ("this week", "这周", "本周"),
    "last week": ("last week", "上周", "上星期"),
    "this month": ("this month", "这个月", "本月"),
    "last month": ("last month", "上个月"),
    "this year": ("this year", "今年"),
    "last year": ("last year", "去年"),
}
_AGO = re.compile(
    r"\b(\d+|an?|one|two|three|four|five|six)\s+(day|week|month|year)s?\s+ago\b"
    r"|(\d+|[一两二三四五六七八])\s*(天|周|星期|个月|年)[之以]?前"
)
_MONTH = re.compile(r"\b(?:in|during|back in|early|late)\s+([a-z]+)(?:\s+(\d{4}))?\b")


def time_window(text: str, now: datetime | None = None) -> Window | None:
    """The span of time the query's words name, if any, in the local calendar: a
    person's "yesterday" starts at their midnight."""
    now = now or datetime.now().astimezone()
    lower = text.lower()
    spans = _spans(now)
    for key, names in _NAMED.items():
        for words in names:
            found = words in text if not words.isascii() else re.search(rf"\b{words}\b", lower)
            if found:
                return Window(*spans[key], words)
    if ago := _AGO.search(lower):
        number, unit = (ago[1], ago[2]) if ago[1] else (ago[3], ago[4])
        count = int(number) if number.isdigit() else _NUMBERS.get(number) or _ZH_NUMBERS[number]
        span = _UNITS.get(unit) or _ZH_UNITS[unit]
        centre = spans["today"][0] - timedelta(days=count * span)
        return Window(centre - timedelta(days=span), centre + timedelta(days=span), ago[0])
    month = _MONTH.search(lower)
    if month and month[1] in _MONTHS:
        number = _MONTHS[month[1]]
        year = int(month[2]) if month[2] else now.year - (number > now.month)
        start = datetime(year, number, 1, tzinfo=now.tzinfo)
        return Window(start, _month_start(start, 1), month[0])
    return None


def _month_start(day: datetime, months: int) -> datetime:
    index = day.year * 12 + day.month - 1 + months
    return day.replace(year=index // 12, month=index % 12 + 1, day=1)


def without_time_words(text: str, window: Window | None) -> str:
    """The query with the time words taken out, unless nothing else would be left."""
    if window is None:
        return text
    pattern = re.escape(window.words)
    rest = re.sub(pattern, " ", text, count=1, flags=re.IGNORECASE)
    rest = re.sub(r"\b(from|in|during|back)\s*$", "", rest.strip(), flags=re.IGNORECASE)
    return " ".join(rest.split()) if rest.strip() else text


class Activity:
    """Each session's first and last time, looked up once per search."""

    def __init__(self, store: SessionReader) -> None:
        self.store = store
        self.known: dict[str, tuple[str | None, str | None]] = {}

    def overlaps(self, session_id: str, window: Window) -> bool:
        if session_id not in self.known:
            s = self.store.get_session(session_id)
            self.known[session_id] = (s.first_ts, s.last_ts) if s else (None, None)
        first, last = self.known[session_id]
        if not first:
            return False
        slack = (window.end - window.start) * SLACK
        # Stored times are UTC ISO strings: compare in UTC, to the second.
        start = (window.start - slack).astimezone(UTC).isoformat()[:19]
        end = (window.end + slack).astimezone(UTC).isoformat()[:19]
        return first[:19] < end and (last or first)[:19] >= start


def prefer_window(units: list[FusedUnit], window: Window, activity: Activity) -> list[FusedUnit]:
    """Fused units with the sessions active in the window nudged up, pins still first."""
    for unit in units:
        if activity.overlaps(unit.session_id, window):
            unit.score += WINDOW_BONUS
    return in_order(units)
