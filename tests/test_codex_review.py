"""A Codex `/review` subagent linked to the session it reviewed for, by time alone.

The review's rollout names no parent, nor does the parent's `entered_review_mode` name
the review: the parent is the one session of the same folder whose event lies just
before the review began. The rollouts here are in the real shape (a `session_meta`
with the whole system prompt first, then timed lines), their words made up.
"""

from __future__ import annotations

import json
from pathlib import Path

from findsession.domain import Root
from findsession.indexing import index_roots
from findsession.storage.sqlite import Store

CWD = "/home/dev/ledger"
PARENT = "019c7455-0000-7000-8000-0000000000a1"
OTHER = "019c7458-0000-7000-8000-0000000000a2"
REVIEW = "019c7549-0000-7000-8000-0000000000b1"


def line(ts: str, kind: str, payload: dict) -> str:
    """One rollout line as Codex writes it (compact JSON, its time first)."""
    return (
        json.dumps({"timestamp": ts, "type": kind, "payload": payload}, separators=(",", ":"))
        + "\n"
    )


def at(minute_second: str) -> str:
    """A time of 2026-02-19, 09:MM:SS.fff UTC."""
    return f"2026-02-19T09:{minute_second}Z"


def meta(sid: str, ts: str, cwd: str = CWD, review: bool = False) -> str:
    payload = {
        "id": sid,
        "timestamp": ts,
        "cwd": cwd,
        "originator": "codex_cli_rs",
        "cli_version": "0.104.0",
        "source": {"subagent": "review"} if review else "cli",
        "model_provider": "openai",
        "base_instructions": {"text": "You are a coding agent. " * 400},
    }
    return line(ts, "session_meta", payload)


def session(day: Path, sid: str, named: str, entered: str | None, cwd: str = CWD) -> Path:
    """A session named for its start (local time), that worked a while (long tool
    outputs, so the event is deep in the file), entered review mode at `entered`, then
    went on."""
    body = meta(sid, at("05:00.000"), cwd)
    body += line(at("05:00.000"), "event_msg", {"type": "user_message", "message": "add export"})
    for minute in range(10, 50):
        output = {"type": "function_call_output", "call_id": f"c{minute}", "output": "x" * 9000}
        body += line(at(f"{minute}:00.000"), "response_item", output)
    hint = {"target": {"type": "uncommittedChanges"}, "user_facing_hint": "current changes"}
    if entered:
        body += line(at(entered), "event_msg", {"type": "entered_review_mode", **hint})
    for second in range(0, 60, 5):
        body += line(at(f"58:{second:02}.000"), "event_msg", {"type": "token_count"})
    if entered:
        output = {"type": "exited_review_mode", "review_output": {"findings": []}}
        body += line(at("59:00.000"), "event_msg", output)
    path = day / f"rollout-{day.parts[-3]}-{day.parts[-2]}-{day.name}T{named}-{sid}.jsonl"
    path.write_text(body)
    return path


def review(day: Path, sid: str, named: str, began: str, cwd: str = CWD) -> Path:
    reply = {"type": "output_text", "text": "Looks right."}
    body = meta(sid, at(began), cwd, review=True)
    body += line(at(began), "event_msg", {"type": "user_message", "message": "Review changes"})
    body += line(
        at(began), "response_item", {"type": "message", "role": "assistant", "content": [reply]}
    )
    path = day / f"rollout-2026-02-19T{named}-{sid}.jsonl"
    path.write_text(body)
    return path  # fmt: skip


def day_folder(tmp_path: Path, d: str = "19") -> Path:
    day = tmp_path / "codex" / "sessions" / "2026" / "02" / d
    day.mkdir(parents=True)
    return day


def parent_of(store: Store, tmp_path: Path, sid: str = REVIEW) -> str | None:
    index_roots(store, [Root(tmp_path / "codex", "codex")])
    found = store.get_session(sid)
    assert found is not None and found.is_subagent and found.agent_type == "review"
    return found.parent_id


def test_a_review_is_linked_to_the_session_that_entered_review_mode_as_it_began(
    store: Store, tmp_path: Path
) -> None:
    """The parent's event came 1.4 s before the review's start (as in a real pair); a
    session of another folder entering review at the same moment is no candidate."""
    day = day_folder(tmp_path)
    session(day, PARENT, "18-05-00", entered="55:43.559")
    session(day, OTHER, "18-07-00", entered="55:43.600", cwd="/home/dev/other")
    review(day, REVIEW, "18-55-44", began="55:44.914")
    assert parent_of(store, tmp_path) == PARENT


def test_a_parent_started_the_day_before_is_found(store: Store, tmp_path: Path) -> None:
    session(day_folder(tmp_path, "18"), PARENT, "23-50-00", entered="55:44.000")
    review(day_folder(tmp_path), REVIEW, "18-55-44", began="55:44.010")
    assert parent_of(store, tmp_path) == PARENT


def test_two_sessions_entering_review_mode_together_leave_the_review_alone(
    store: Store, tmp_path: Path
) -> None:
    day = day_folder(tmp_path)
    session(day, PARENT, "18-05-00", entered="55:43.559")
    session(day, OTHER, "18-07-00", entered="55:40.000")
    review(day, REVIEW, "18-55-44", began="55:44.914")
    assert parent_of(store, tmp_path) is None


def test_a_second_review_begun_by_the_same_event_leaves_both_alone(
    store: Store, tmp_path: Path
) -> None:
    """Two reviews begun within the window of one event: which is the parent's is unsure
    (the other's parent may lie where it is not looked for)."""
    day = day_folder(tmp_path)
    session(day, PARENT, "18-05-00", entered="55:43.559")
    review(day, REVIEW, "18-55-44", began="55:44.914")
    review(day, OTHER, "18-55-46", began="55:46.100")
    assert parent_of(store, tmp_path) is None
    assert parent_of(store, tmp_path, OTHER) is None


def test_an_event_long_before_the_review_links_nothing(store: Store, tmp_path: Path) -> None:
    day = day_folder(tmp_path)
    session(day, PARENT, "18-05-00", entered="55:13.000")
    review(day, REVIEW, "18-55-44", began="55:44.914")
    assert parent_of(store, tmp_path) is None
