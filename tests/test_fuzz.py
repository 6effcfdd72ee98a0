"""Random and mutated input never makes a parser or the redactor raise."""

from __future__ import annotations

import io
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from transcripts import Transcript

from findsession.redact import redact
from findsession.sources.claude_code_records import parse_record
from findsession.sources.jsonl import ReadStats, iter_objects

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=20,
)
# Objects shaped like transcript lines, with the keys the parser looks at.
keys = st.sampled_from(
    [
        "type",
        "message",
        "content",
        "role",
        "text",
        "uuid",
        "parentUuid",
        "isSidechain",
        "timestamp",
        "sessionId",
        "cwd",
        "isMeta",
        "toolUseResult",
        "summary",
        "leafUuid",
        "customTitle",
        "aiTitle",
        "agentId",
        "name",
        "input",
        "tool_use_id",
        "id",
        "is_error",
    ]
)
record_like = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.text(max_size=30)
    | st.sampled_from(
        [
            "user",
            "assistant",
            "summary",
            "tool_use",
            "tool_result",
            "text",
            "thinking",
            "custom-title",
            "ai-title",
            "system",
        ]
    ),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=6),
    max_leaves=30,
)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(keys, record_like, max_size=8), st.booleans())
def test_parse_record_accepts_any_object(obj: dict, in_subagent: bool) -> None:
    parse_record(obj, 1, in_subagent)


def _real_lines() -> list[bytes]:
    t = Transcript(session_id="fuzz")
    t.prompt("fix the parser").reply("Done.", "Also added a test.")
    t.tool("Bash", {"command": "pytest"}, "3 passed")
    t.title("fuzz")
    return t.render().splitlines(keepends=True)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_transcript_bytes_are_read_without_raising(data: st.DataObject) -> None:
    lines = _real_lines()
    blob = bytearray(b"".join(lines))
    for _ in range(data.draw(st.integers(0, 8))):
        at = data.draw(st.integers(0, max(0, len(blob) - 1)))
        action = data.draw(st.sampled_from(["flip", "cut", "insert", "nul"]))
        if action == "flip" and blob:
            blob[at] = data.draw(st.integers(0, 255))
        elif action == "cut":
            del blob[at : at + data.draw(st.integers(1, 40))]
        elif action == "insert":
            blob[at:at] = data.draw(st.binary(max_size=20))
        else:
            blob[at:at] = b"\x00"
    stats = ReadStats(end_offset=0, end_line=0)
    for line, obj in iter_objects(io.BytesIO(bytes(blob)), 0, 0, stats):
        parse_record(obj, line, False)


@settings(max_examples=200)
@given(json_values)
def test_any_json_line_is_read_without_raising(value: object) -> None:
    raw = (json.dumps(value) + "\n").encode()
    for line, obj in iter_objects(io.BytesIO(raw), 0, 0, ReadStats(end_offset=0, end_line=0)):
        parse_record(obj, line, False)


@settings(max_examples=300)
@given(st.text(max_size=400))
def test_redact_never_raises_and_keeps_plain_text(text: str) -> None:
    out, found = redact(text)
    if not found:
        assert out == text
