"""What a ChatGPT conversation becomes, through the real CLI: the branch last seen and
not the one edited away, the model, code kept as code, thinking and tool traffic apart
from the reply, the files uploaded, and what ChatGPT keeps out of view left out.

The fixture (`fixtures/chatgpt/export-2024-05`) is an export as ChatGPT lays it out,
written from the format's public readers with synthetic text: a conversation with
custom instructions, a reply with code and citation marks, a prompt with an image and
an uploaded file, thinking; one that runs Python and fails to open a page, with a
content type not known here; one whose first prompt was edited away.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from chat_exports import APPS, zipped
from conftest import CLI

SOURDOUGH = "chatgpt:6a1f0c2e-0000-4000-8000-0000000000a1"
BORROW = "chatgpt:6a1f0c2e-0000-4000-8000-0000000000b2"
FERRY = "chatgpt:6a1f0c2e-0000-4000-8000-0000000000c3"


@pytest.fixture
def indexed(cli: CLI, tmp_path: Path) -> dict[str, Any]:
    export = zipped(APPS["chatgpt"].older, tmp_path / "chatgpt-export.zip")
    return cli.json("index", "--no-embed", "--source", "chatgpt", str(export))


def found(cli: CLI, words: str) -> list[str]:
    hits = cli.json("search", "--mode", "keyword", "--source", "chatgpt", words)["results"]
    return [h["session"]["id"] for h in hits]


def messages(cli: CLI, session: str) -> list[tuple[str, str | None, str]]:
    turns = cli.json("read", session, "--tools")["turns"]
    return [(m["kind"], m["tool"], m["text"]) for t in turns for m in t["messages"]]


def test_a_conversation_is_its_title_times_turns_and_model(cli: CLI, indexed: dict) -> None:
    assert indexed["errors"] == []
    [problem] = indexed["problems"]  # the content type not known here, said once
    assert problem["reason"] == "unknown content type" and "future_widget" in problem["detail"]
    session = cli.json("read", SOURDOUGH)["session"]
    assert session["title"] == "Sourdough starter hydration"
    assert (session["started"], session["turns"]) == ("2024-05-01T10:00:10.000Z", 2)
    assert session["model"] == "o3"  # the model that wrote the last reply
    assert cli.json("read", FERRY)["session"]["model"] == "gpt-4o-mini"
    assert "  ·  o3" in cli.run("read", SOURDOUGH).stdout.splitlines()[1]


def test_code_stays_code_and_thinking_and_files_stay_apart(cli: CLI, indexed: dict) -> None:
    said = messages(cli, SOURDOUGH)
    assert [(k, t) for k, t, _ in said] == [
        ("prompt", None),
        ("reply", None),
        ("prompt", None),
        ("tool_call", "attachment"),
        ("thinking", None),
        ("thinking", None),
        ("reply", None),
    ]
    reply = said[1][2]
    assert "```python\ndef hydration(flour, water):\n    return water / flour\n```" in reply
    assert "\ue200" not in reply and "turn0search3" not in reply  # citation marks gone
    assert said[3][2] == "hydration-log.csv"
    assert found(cli, "hydration-log.csv") == [SOURDOUGH]
    # Custom instructions, kept out of view by ChatGPT, are not indexed.
    assert found(cli, "Quillon") == []


def test_a_tool_run_is_a_call_and_its_output(cli: CLI, indexed: dict) -> None:
    said = messages(cli, BORROW)
    assert [(k, t) for k, t, _ in said] == [
        ("prompt", None),
        ("tool_call", "python"),
        ("tool_output", "python"),
        ("tool_call", "browser"),
        ("tool_output", "browser"),
        ("reply", None),
    ]
    assert said[1][2].startswith("import matplotlib.pyplot as plt\nplt.plot(")
    errors = cli.json("read", BORROW, "--tools")["turns"][0]["messages"]
    assert [m["is_error"] for m in errors if m["kind"] == "tool_output"] == [False, True]


def test_the_branch_edited_away_is_not_the_conversation(cli: CLI, indexed: dict) -> None:
    assert found(cli, "fjord ferry bicycle") == [FERRY]
    assert found(cli, "zeppelin") == []
    assert [k for k, _, _ in messages(cli, FERRY)] == ["prompt", "reply"]


def test_there_is_no_command_to_go_back_but_the_link_is_given(cli: CLI, indexed: dict) -> None:
    plan = cli.json("open", SOURDOUGH, "--print")
    assert not plan["resume"]["available"] and plan["resume"]["command"] is None
    assert "https://chatgpt.com/c/6a1f0c2e-0000-4000-8000-0000000000a1" in plan["resume"]["reason"]
