"""What a Claude.ai conversation becomes, through the real CLI: its blocks (thinking,
tool calls and results, artifacts kept as code in the reply), the text of a file given
with a prompt, and the flat text only where a message has no blocks, its placeholders
left out.

The fixture (`fixtures/claude-ai/data-2024-05-05-10-00-00`) is an export as Claude.ai
lays it out, written from the format's public readers with synthetic text.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from chat_exports import APPS, zipped
from conftest import CLI

LIGHTHOUSE = "claude-ai:5e7a9b1c-0000-4000-8000-0000000011a1"
GLACIER = "claude-ai:5e7a9b1c-0000-4000-8000-0000000022b2"
TEA = "claude-ai:5e7a9b1c-0000-4000-8000-0000000033c3"


@pytest.fixture
def indexed(cli: CLI, tmp_path: Path) -> dict[str, Any]:
    export = zipped(APPS["claude-ai"].older, tmp_path / "claude-export.zip")
    return cli.json("index", "--no-embed", "--source", "claude-ai", str(export))


def found(cli: CLI, words: str) -> list[str]:
    hits = cli.json("search", "--mode", "keyword", "--source", "claude-ai", words)["results"]
    return [h["session"]["id"] for h in hits]


def messages(cli: CLI, session: str) -> list[tuple[str, str | None, str]]:
    turns = cli.json("read", session, "--tools")["turns"]
    return [(m["kind"], m["tool"], m["text"]) for t in turns for m in t["messages"]]


def test_blocks_become_prompt_thinking_reply_and_the_artifact_stays_code(
    cli: CLI, indexed: dict
) -> None:
    said = messages(cli, LIGHTHOUSE)
    assert [(k, t) for k, t, _ in said] == [
        ("prompt", None),
        ("tool_call", "attachment"),
        ("tool_output", "attachment"),
        ("thinking", None),
        ("reply", None),
        ("reply", None),
        ("tool_output", "artifacts"),
        ("reply", None),
    ]
    artifact = said[5][2]
    assert artifact.startswith("lamp_period.py\n\n```python\nimport time\n\ndef period(pulses):\n")
    assert found(cli, "pin 7 pulses revolution") == [LIGHTHOUSE]  # the attachment's text
    assert found(cli, "lamp-sensor-notes.txt") == [LIGHTHOUSE]
    session = cli.json("read", LIGHTHOUSE)["session"]
    assert session["title"] == "Lighthouse lamp rotation logger"
    assert session["started"] == "2024-05-02T09:00:00.000Z"


def test_a_tool_call_and_its_result(cli: CLI, indexed: dict) -> None:
    said = messages(cli, GLACIER)
    assert [(k, t) for k, t, _ in said] == [
        ("prompt", None),
        ("tool_call", "web_search"),
        ("tool_output", "web_search"),
        ("reply", None),
    ]
    assert said[1][2] == "query: Aletsch glacier retreat per year"
    [problem] = indexed["problems"]  # the block of a kind not known here
    assert problem["reason"] == "unknown content block" and "hologram" in problem["detail"]


def test_a_message_with_no_blocks_is_its_flat_text_without_placeholders(
    cli: CLI, indexed: dict
) -> None:
    said = messages(cli, TEA)
    assert [(k, t) for k, t, _ in said] == [
        ("prompt", None),
        ("tool_call", "attachment"),
        ("reply", None),
    ]
    assert said[2][2] == "How about Pinewood Kettle, after the pine smoke of lapsang?"
    assert found(cli, "supported current device") == []
    # No name: the first prompt stands for it.
    assert cli.json("read", TEA)["session"]["title"].startswith("Suggest a name for a tea shop")
