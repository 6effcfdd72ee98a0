"""A forked or spawned Codex rollout's replay of its parent's history, and where it ends.

Such a rollout may start with its parent's history written again (its `session_meta`,
turns and events): every line from a replayed `session_meta` on is dropped until a turn
begins whose UUIDv7 turn id was minted after the child was created.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from findsession.sources.jsonl import text_or_none


class ReplayGate:
    """Shut while a parent's history is replayed; the child's own first turn opens it."""

    def __init__(self, session_id: str) -> None:
        #: When the thread was created; a resumed read has only its id to tell.
        self.created_ms: int | None = uuid7_ms(session_id)
        self.shut = False

    def created(self, meta_id: str | None, stamp: str | None, line_stamp: str | None) -> None:
        """The rollout's own meta read: the instant in its id, else its time, else the
        line's."""
        self.created_ms = uuid7_ms(meta_id) or _ms(stamp) or _ms(line_stamp)

    def arm(self) -> None:
        """A parent's history follows: shut until the child's own turn."""
        # Without an instant to compare turn ids with, nothing is dropped.
        self.shut = self.created_ms is not None

    def opens(self, kind: Any, payload: dict[str, Any]) -> bool:
        """A turn of the child's own: its UUIDv7 id is no older than the child. A turn id
        that is not a UUIDv7 opens the gate too (dropping live data would be worse)."""
        starts = kind == "turn_context" or (
            kind == "event_msg" and payload.get("type") in ("task_started", "turn_started")
        )
        turn_id = text_or_none(payload.get("turn_id")) if starts else None
        if turn_id is None:
            return False
        ms = uuid7_ms(turn_id)
        if ms is not None and self.created_ms is not None and ms < self.created_ms:
            return False
        self.shut = False
        return True


def uuid7_ms(value: str | None) -> int | None:
    """The creation instant (ms) inside a UUIDv7; None for any other id."""
    hexed = (value or "").replace("-", "")
    if len(hexed) != 32 or hexed[12] != "7":
        return None
    try:
        return int(hexed[:12], 16)
    except ValueError:
        return None


def _ms(stamp: str | None) -> int | None:
    if not stamp:
        return None
    try:
        return int(datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp() * 1000)
    except ValueError:
        return None
