"""What a SpecStory export's blocks mean, read by the parser itself: harness that no
person typed, subagents' traffic, tool calls in each era's markup, labels a reply quotes,
fences a reply never closes, and the three clocks SpecStory's headers were written in.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from specstory_exports import cli, current, tool_use, write

from findsession.domain import Message, MessageKind, MetaEvent
from findsession.sources.specstory import SpecStorySource
from findsession.sources.specstory_parse import parse
from findsession.sources.specstory_records import session_records
from findsession.sources.specstory_times import header_time, label_time

SESSION = "5c1b3a9d-3333-4e2f-8d7c-000000000003"


def messages(text: str, name: str = "2026-01-16_16-26-02Z-x.md") -> list[Message]:
    head, blocks = parse(text, name)
    return [r for r in session_records(head, blocks, "/p") if isinstance(r, Message)]


def said(text: str) -> list[tuple[MessageKind, str | None, str]]:
    return [(m.kind, m.tool_name, m.text) for m in messages(text)]


def test_claude_code_harness_subagents_and_tools() -> None:
    when = "2026-01-16 16:26:02Z"
    text = cli("Claude Code", SESSION, when, [
        ("<command-message>review</command-message>\n<command-name>/review</command-name>", []),
        ("## Context\n\nReview the diff of the gasket module.", [
            tool_use("shell", "Bash", "Run the tests", "`pytest -q`\n\n```text\n3 passed\n```"),
        ]),
        ("[Request interrupted by user]", []),
        ("This session is being continued from a previous conversation. Summary: gaskets.", []),
        ("why is the gasket test slow", [
            "Tool use: **Read** `./tests/test_gasket.py`\n\nResult:\n\n```\nsleep(5)\n```",
            "It sleeps five seconds.",
        ]),
    ])  # fmt: skip
    text = text.replace(
        "It sleeps five seconds.",
        "It sleeps five seconds.\n\n_**Agent - sidechain (2026-01-16 16:27:00Z)**_\n\n"
        "Find every sleep in tests/",
    )
    got = said(text)
    assert [k for k, _, t in got if k is MessageKind.PROMPT] == [MessageKind.PROMPT]
    assert [t for k, _, t in got if k is MessageKind.PROMPT] == ["why is the gasket test slow"]
    kinds = [k for k, _, _ in got]
    assert kinds.count(MessageKind.HARNESS) == 3  # the command, its text, the interruption
    assert MessageKind.COMPACT_SUMMARY in kinds
    bash = [(k, t) for k, tool, t in got if tool == "Bash"]
    assert bash == [(MessageKind.TOOL_CALL, "Run the tests\n\n`pytest -q`"),
                    (MessageKind.TOOL_OUTPUT, "3 passed")]  # fmt: skip
    read = [m for m in messages(text) if m.tool_name == "Read"]
    assert read[0].files == ("./tests/test_gasket.py",) and "sleep(5)" in read[1].text
    replies = [t for k, _, t in got if k is MessageKind.REPLY]
    assert replies == ["It sleeps five seconds."]  # the subagent's words are a tool's work
    assert (MessageKind.TOOL_OUTPUT, None, "Find every sleep in tests/") in got


def test_a_quoted_label_is_text_and_an_unclosed_fence_loses_no_turn() -> None:
    text = current(SESSION, "Fences", "2025-12-02 12:49Z", [
        ("2025-12-02 12:49Z", "show me an export", [
            "It looks like this:\n\n```markdown\n_**User**_\n\nhello\n```\n\nThat is all.",
        ]),
        ("2025-12-02 12:50Z", "and the thinking?", [
            "I```thinking\nweighing it\n```\n\nHere it is:\n\n```python\nprint('never closed')",
        ]),
        ("2025-12-02 12:51Z", "thanks", ["You're welcome."]),
    ])  # fmt: skip
    got = said(text)
    prompts = [t for k, _, t in got if k is MessageKind.PROMPT]
    assert prompts == ["show me an export", "and the thinking?", "thanks"]
    assert (MessageKind.THINKING, None, "weighing it") in got
    assert got[-1] == (MessageKind.REPLY, None, "You're welcome.")


def test_a_title_that_is_only_a_time_is_no_title() -> None:
    text = cli("Claude Code", SESSION, "2026-01-16 16:26:02Z", [("hello", ["hi"])])
    head, blocks = parse(text, "2026-01-16_16-26-02Z.md")
    assert head.title is None and head.agent == "Claude Code" and head.agent_id == SESSION
    records = session_records(head, blocks, None)
    assert not any(isinstance(r, MetaEvent) for r in records)
    assert records[0].timestamp == "2026-01-16T16:26:02Z"


@pytest.fixture
def sao_paulo() -> Iterator[None]:
    """This machine in UTC-3, as the writer of a first export was."""
    old = os.environ.get("TZ")
    os.environ["TZ"] = "BRT3"
    time.tzset()
    yield
    if old is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = old
    time.tzset()


def test_the_three_clocks_of_specstory_headers(sao_paulo: None) -> None:
    # Written with their zone.
    assert header_time("2025-07-19 23:13Z", "2025-07-19_23-13Z-x.md", False) == (
        "2025-07-19T23:13:00Z"
    )
    assert header_time("2025-07-20_10-28-48Z", "x.md", False) == "2025-07-20T10:28:48Z"
    assert header_time("2025-11-13 21:12:14-0700", "x.md", False) == "2025-11-14T04:12:14Z"
    # Spring 2025: the header local (UTC+8 here), the name UTC; the seconds are kept.
    assert header_time("2025-04-10 01:19:32", "2025-04-09_17-19-x.md", False) == (
        "2025-04-09T17:19:32Z"
    )
    # The first exports: both local, in the writer's locale; read as this machine's.
    assert header_time("2/19/2025, 9:30:45 AM", "2025-02-19_09-30-x.md", True) == (
        "2025-02-19T12:30:45Z"
    )
    assert header_time("2025/4/9 15:20:04", "2025-04-09_15-20-x.md", True) == (
        "2025-04-09T18:20:04Z"
    )
    assert header_time("19/2/2025, 21:30:45", "notes.md", True) == "2025-02-20T00:30:45Z"
    assert header_time("", "notes.md", False) is None
    assert label_time("claude-4-sonnet 2025-08-18 14:14:40Z") == "2025-08-18T14:14:40Z"
    assert label_time("model gpt-5, mode Agent") is None
    assert label_time("2025-08-18 14:14:40") is None  # no zone: the session's time stands


def test_a_binary_file_and_a_file_with_no_chat_say_so(tmp_path: Path) -> None:
    source = SpecStorySource()
    binary = write(tmp_path, "2025-01-01_00-00-image.md", "")
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    empty = write(tmp_path, "2025-01-02_00-00-notes.md", "# Just notes\n\nNo chat here.\n")
    with binary.open("rb") as fh:
        got = source.read(source.describe(binary), fh, None)
    assert got.records == [] and got.binary
    with empty.open("rb") as fh:
        got = source.read(source.describe(empty), fh, None)
    assert [p.reason for p in got.problems] == ["no chat in it"]


#: Pieces of exports, in any order: labels, separators, fences, SpecStory's tags.
_SNIPPETS = st.sampled_from([
    "_**User**_", "_**User (2025-07-24 21:35Z)**_", "_**Assistant**_", "_**Agent (x)**_",
    "_**Agent - sidechain**_", "---", "```", "```diff", "```thinking", "I```thinking", "~~~",
    "<think><details>", "</details></think>", '<tool-use data-tool-name="Bash">',
    "</tool-use>", "<details>", "<summary>Listed directory</summary>", "</details>",
    "Tool use: **Read** `x`", "Result:", "Error:", "Read file: a.py", "Cancelled", "_****_",
    "<command-message>x</command-message>", "## SpecStory", "# Title (2/19/2025, 9:30 AM)",
    "<!-- cursor Session abc (2025-07-19 23:13Z) -->", "", "words", "\r",
])  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(_SNIPPETS, st.text(max_size=20)), max_size=60))
@example(["_**Assistant**_", "```thinking"])  # found: an empty thought, kept as a message
@example(["_**Assistant**_", "<think>", "</think>"])
def test_any_arrangement_of_export_markup_gives_records(lines: list[str]) -> None:
    for m in messages("\n".join(lines)):
        assert m.text.strip() or m.kind is MessageKind.TOOL_CALL
        assert m.line >= 1
