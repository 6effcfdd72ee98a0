"""Amp's threads and OpenCode's messages keep their times in milliseconds by their
format (`epoch.millis_iso`): a small number is still milliseconds (not the seconds
`epoch_iso` would guess), a flag or a number out of range is no time, and the time
before it stands."""

from __future__ import annotations

import json
from typing import Any

from findsession.domain import Message, Problem
from findsession.sources.amp import thread_records
from findsession.sources.opencode_records import SessionInfo, session_records

DAY = 86_400_000  # one day in milliseconds: 1970-01-02, not 1972 read as seconds


def _times(records: list[Any]) -> list[str | None]:
    return [r.timestamp for r in records if isinstance(r, Message)]


def _amp_message(text: str, sent: Any) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "meta": {"sentAt": sent}}


def test_amp_reads_milliseconds() -> None:
    doc = {
        "id": "T-1",
        "created": DAY,
        "messages": [
            _amp_message("first", None),
            _amp_message("second", 2 * DAY + 1),
            _amp_message("third", True),
            _amp_message("fourth", 10**14),
            _amp_message("fifth", "2026-05-17T10:00:00.000Z"),
        ],
    }
    problems: list[Problem] = []
    assert _times(thread_records(doc, problems)) == [
        "1970-01-02T00:00:00.000Z",
        "1970-01-03T00:00:00.001Z",
        "1970-01-03T00:00:00.001Z",
        "1970-01-03T00:00:00.001Z",
        "2026-05-17T10:00:00.000Z",
    ]


def test_opencode_reads_milliseconds() -> None:
    def message(mid: str, created: Any) -> tuple[str, None, str]:
        return (mid, None, json.dumps({"id": mid, "role": "user", "time": {"created": created}}))

    messages = [message("m1", None), message("m2", 2 * DAY + 1), message("m3", True)]
    messages += [message("m4", 10**14)]
    parts = [
        (f"p{n}", f"m{n}", json.dumps({"type": "text", "text": f"words {n}"})) for n in range(1, 5)
    ]
    problems: list[Problem] = []
    records = session_records(SessionInfo("s", 0, created_ms=DAY), messages, parts, problems, None)
    assert _times(records) == [
        "1970-01-02T00:00:00.000Z",
        "1970-01-03T00:00:00.001Z",
        "1970-01-03T00:00:00.001Z",
        "1970-01-03T00:00:00.001Z",
    ]
