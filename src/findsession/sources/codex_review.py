"""The session a Codex `/review` subagent reviewed for, told from the time it began.

A `/review` rollout (`source.subagent` `review`) names no parent anywhere, and its
parent's `entered_review_mode` event names no child. What ties them is time: the parent
records the event and the review's rollout begins at once (in real rollouts 0.008 and
1.4 seconds later), in the same folder. So the parent is the one session of the same
folder whose `entered_review_mode` lies at most `WINDOW` before the review began, and
only if no other review of that folder began near that event too. Anything that cannot
be told within the bounds here (too many sibling rollouts, a line too long to find a
time in) leaves the review standing alone: a guessed parent is worse than none. A
sibling's own `session_meta` is read as `codex` reads it (`codex_head`).

Only sibling rollouts are read, in the review's day folder and the day before (a
session started yesterday may review today), and of each only its first line and the
few lines around the review's start, found by bisecting the rollout on its lines' times
(a rollout is appended in time order).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import IO, Any

from findsession.sources.codex_head import head_metas
from findsession.sources.opening import open_regular

#: How long before the review's start its parent's `entered_review_mode` may lie: seven
#: times the longest gap measured in real rollouts.
WINDOW = timedelta(seconds=10)
#: Sibling rollouts whose first line is read, at most; past it, nothing is linked.
_SIBLINGS = 12
#: Bytes one sibling rollout may cost (its first line, the bisection, the lines read).
_BUDGET = 4 << 20
_CHUNK = 64 << 10
_LINE = 1 << 20
_STAMP = re.compile(rb'\{"timestamp": ?"([0-9T:.+\-Z]{19,35})"')
_NAMED = re.compile(r"^rollout-(\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d)-")
_ENTERED = b'"entered_review_mode"'


def review_parent(path: Path, meta: dict[str, Any]) -> str | None:
    """The id of the session `path` (a `/review` rollout, `meta` its `session_meta`)
    reviewed for, when exactly one fits; else None."""
    began, cwd, named = _when(meta.get("timestamp")), meta.get("cwd"), _named(path.name)
    if began is None or not isinstance(cwd, str) or not cwd or named is None:
        return None
    siblings = [p for p in _siblings(path) if p != path]
    near = [p for p in siblings if _near(p.name, named, WINDOW * 2)]
    # The parent began before the review and wrote its event after the review's start
    # less the window: a rollout last written before that cannot hold it.
    since = (began - WINDOW).timestamp()
    older = [p for p in siblings if _before(p.name, named) and _mtime(p) >= since]
    if len({*near, *older}) > _SIBLINGS:
        return None
    heads = {p: _own_meta(p) for p in {*near, *older}}
    parents: list[tuple[str, datetime]] = []
    for p in older:
        head = heads[p]
        if head.get("cwd") != cwd or _is_review(head) or not isinstance(head.get("id"), str):
            continue
        times = _entered(p, began - WINDOW, began + timedelta(seconds=1))
        if times is None:
            return None
        parents += [(head["id"], t) for t in times]
    if len(parents) != 1:
        return None
    parent, entered = parents[0]
    # Another review of this folder begun near the same event: which is whose is unsure.
    for p in near:
        head = heads[p]
        other = _when(head.get("timestamp")) if _is_review(head) else None
        if head.get("cwd") == cwd and other is not None and entered <= other <= entered + WINDOW:
            return None
    return parent


def _siblings(path: Path) -> Iterator[Path]:
    """The rollouts beside `path`, and in the day folder before its own
    (`sessions/YYYY/MM/DD`)."""
    folders = [path.parent]
    try:
        day = date(*(int(p.name) for p in (path.parents[2], path.parents[1], path.parent)))
    except (ValueError, IndexError):
        day = None
    if day is not None:
        before = day - timedelta(days=1)
        folders.append(path.parents[3] / f"{before:%Y}" / f"{before:%m}" / f"{before:%d}")
    for folder in folders:
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in sorted(names):
            if name.startswith("rollout-") and name.endswith(".jsonl"):
                yield folder / name


def _named(name: str) -> datetime | None:
    """The local time a rollout's name gives its start, to the second."""
    found = _NAMED.match(name)
    if not found:
        return None
    try:
        return datetime.strptime(found.group(1), "%Y-%m-%dT%H-%M-%S")
    except ValueError:
        return None


def _near(name: str, named: datetime, span: timedelta) -> bool:
    other = _named(name)
    return other is not None and abs(other - named) <= span


def _before(name: str, named: datetime) -> bool:
    other = _named(name)
    return other is not None and other <= named + timedelta(seconds=1)


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _when(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo is not None else None


def _is_review(meta: dict[str, Any]) -> bool:
    source = meta.get("source")
    return isinstance(source, dict) and source.get("subagent") == "review"


def _own_meta(path: Path) -> dict[str, Any]:
    """A rollout's own `session_meta` payload; {} when it has none or cannot be read
    (such a rollout tells no folder, so it is nobody's candidate parent)."""
    metas = head_metas(path)
    return metas[0] if metas else {}


def _entered(path: Path, since: datetime, until: datetime) -> list[datetime] | None:
    """The times of the `entered_review_mode` events a rollout holds between `since` and
    `until`; None if that cannot be told within `_BUDGET`."""
    try:
        with open_regular(str(path)) as fh:
            return _Bisect(fh, os.fstat(fh.fileno()).st_size).entered(since, until)
    except OSError:
        return None


class _Spent(Exception):
    """The rollout's budget is spent, or a line's time could not be found."""


class _Bisect:
    def __init__(self, fh: IO[bytes], size: int) -> None:
        self.fh, self.size, self.left = fh, size, _BUDGET

    def entered(self, since: datetime, until: datetime) -> list[datetime] | None:
        try:
            return self._scan(self._first_at_or_after(since), since, until)
        except _Spent:
            return None

    def _read(self, at: int, n: int) -> bytes:
        if self.left <= 0:
            raise _Spent
        self.fh.seek(at)
        data = self.fh.read(min(n, self.left))
        self.left -= len(data)
        return data

    def _line_from(self, at: int) -> int | None:
        """The offset of the first line starting at or after `at`; None at the end."""
        if at == 0:
            return 0
        pos, n = at - 1, 4096  # a line starts after a newline
        while pos < self.size:
            data = self._read(pos, n)
            cut = data.find(b"\n")
            if cut >= 0:
                start = pos + cut + 1
                return start if start < self.size else None
            pos, n = pos + len(data), min(n * 2, _CHUNK)
        return None

    def _time_at(self, start: int) -> datetime:
        found = _STAMP.match(self._read(start, 64))
        when = _when(found.group(1).decode()) if found else None
        if when is None:
            raise _Spent  # a line with no time first: this rollout cannot be bisected
        return when

    def _first_at_or_after(self, since: datetime) -> int:
        """An offset at or before the first line of time `since` or later."""
        lo, hi = 0, self.size
        while hi - lo > _CHUNK:
            mid = (lo + hi) // 2
            start = self._line_from(mid)
            if start is None or start >= hi:
                hi = mid
            elif self._time_at(start) < since:
                lo = start
            else:
                hi = mid
        return lo

    def _scan(self, at: int, since: datetime, until: datetime) -> list[datetime]:
        start = self._line_from(at)
        times: list[datetime] = []
        if start is None:
            return times
        self.fh.seek(start)
        while True:
            line = self.fh.readline(_LINE)
            self.left -= len(line)
            if not line:
                return times
            if self.left < 0:
                raise _Spent
            found = _STAMP.match(line)
            when = _when(found.group(1).decode()) if found else None
            if when is None:
                continue  # the rest of a line longer than `_LINE`
            if when > until:
                return times
            if when >= since and _ENTERED in line and _is_entered(line):
                times.append(when)


def _is_entered(line: bytes) -> bool:
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):
        return False
    payload = obj.get("payload") if isinstance(obj, dict) else None
    return (
        obj.get("type") == "event_msg"
        and isinstance(payload, dict)
        and payload.get("type") == "entered_review_mode"
    )
