"""What Gemini Apps' activity in a Takeout export becomes, through the real CLI: the
prompts of one conversation together (by the link their records name, else by time),
Gemini's HTML answers as text with code kept as code, the files given, and the
records of other activity left out.

The fixture (`fixtures/gemini-apps/takeout-2024-05`) is a Takeout folder as Google lays
it out, written from the format's public readers with synthetic text.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from chat_exports import APPS, zipped
from conftest import CLI

BEEHIVE = "gemini-apps:b7e3c1a9d5f20468"
TIDES = "gemini-apps:t-20240507T050000000Z"
RYE = "gemini-apps:t-20240507T090000000Z"


@pytest.fixture
def indexed(cli: CLI, tmp_path: Path) -> dict[str, Any]:
    export = zipped(APPS["gemini-apps"].older, tmp_path / "takeout-20240508T000000Z-001.zip")
    return cli.json("index", "--no-embed", "--source", "gemini-apps", str(export))


def found(cli: CLI, words: str) -> list[str]:
    hits = cli.json("search", "--mode", "keyword", "--source", "gemini-apps", words)["results"]
    return [h["session"]["id"] for h in hits]


def test_a_conversations_prompts_are_its_turns_in_time_order(cli: CLI, indexed: dict) -> None:
    assert indexed["errors"] == [] and indexed["problems"] == []
    turns = cli.json("read", BEEHIVE, "--tools")["turns"]
    assert [t["messages"][0]["text"] for t in turns] == [
        "How do I wire a moisture sensor to my beehive scale?",
        "Now log the weight every hour to a CSV file",
    ]
    first = [(m["kind"], m["tool"], m["text"]) for m in turns[0]["messages"]]
    assert first[1] == ("tool_call", "attachment", "hive-wiring.jpg")
    assert first[2] == (
        "reply",
        None,
        "Use a capacitive sensor on the analog pin.\n- VCC to 3.3 V\n- AOUT to A0",
    )
    code = turns[1]["messages"][1]["text"]
    assert (
        '```python\nimport csv, time\n\nwhile True:\n    with open("hive.csv", "a") as f:' in code
    )
    assert code.endswith("```\n\nKeep the scale out of direct sun.")
    assert turns[0]["timestamp"] == "2024-05-06T08:00:00.123Z"


def test_records_with_no_link_are_conversations_by_time(cli: CLI, indexed: dict) -> None:
    # Twelve minutes apart: one conversation; the next, four hours later, its own.
    assert [len(cli.json("read", s)["turns"]) for s in (TIDES, RYE)] == [2, 1]
    assert found(cli, "flood tide mudflats") == [TIDES]
    assert found(cli, "Roggenbrot") == [RYE]  # a title in another language, answered
    assert found(cli, "Canvas") == [] and found(cli, "feedback") == []


def test_takeouts_html_form_is_named_not_read(cli: CLI, tmp_path: Path) -> None:
    folder = tmp_path / "Takeout" / "My Activity" / "Gemini Apps"
    folder.mkdir(parents=True)
    (folder / "MyActivity.html").write_text("<html><body>Prompted hello</body></html>")
    proc = cli.run("index", "--no-embed", "--source", "gemini-apps", str(tmp_path / "Takeout"))
    [named] = [line for line in proc.stderr.splitlines() if "MyActivity.html" in line]
    assert named.startswith("skipped") and "export My Activity as JSON" in named
