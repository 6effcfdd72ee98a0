"""iFlow CLI's sessions (`~/.iflow/projects/<project>/session-<id>.jsonl`), through the
real CLI: each session's prompts counted by a reader of its own, a call re-sent while
its reply streamed read once, a result's Gemini-style object read for its text and a
failed one kept out of blame, a compaction's summary and the CLI's own lines kept apart,
a session read on from where it stopped, and `iflow --resume`.

The fixture (`fixtures/iflow/home/.iflow`) is laid out as iFlow CLI's `SessionStorage`
writes it, each line as its `MessageManager` makes one, with synthetic text.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI

FIXTURE = Path(__file__).parent / "fixtures" / "iflow" / "home" / ".iflow"
ORCHARD = "session-3b1c0d9e-1111-4c2d-8e3f-0a1b2c3d4e01"
HIVE = "session-3b1c0d9e-2222-4c2d-8e3f-0a1b2c3d4e02"


@pytest.fixture
def home(cli: CLI, tmp_path: Path) -> Path:
    place = tmp_path / "home" / ".iflow"
    shutil.copytree(FIXTURE, place)
    return place


def hits(cli: CLI, query: str) -> list[dict[str, Any]]:
    return cli.json("search", "--mode", "keyword", "--source", "iflow", query)["results"]


def found(cli: CLI, query: str) -> list[str]:
    return [h["session"]["id"] for h in hits(cli, query)]


def index(cli: CLI) -> dict[str, Any]:
    return cli.json("index", "--no-embed")


def counted(home: Path) -> dict[str, int]:
    """Each session's prompts, counted without findsession: user lines that are neither
    a tool's result, the CLI's own nor a compaction's summary, and hold text."""
    out = {}
    for path in home.glob("projects/*/session-*.jsonl"):
        n = 0
        for line in path.read_text().splitlines():
            obj = json.loads(line)
            content = obj["message"]["content"]
            if obj["type"] != "user" or obj.get("isMeta") or obj.get("isCompactSummary"):
                continue
            if isinstance(content, list):
                if any(b.get("type") == "tool_result" for b in content):
                    continue
                content = "".join(b.get("text", "") for b in content)
            n += bool(content.strip())
        out[path.stem] = n
    return out


def test_every_session_is_read_and_counted(cli: CLI, home: Path) -> None:
    report = index(cli)
    assert str(home / "projects") in report["roots"] and report["errors"] == []
    assert report["files_read"] == 2 and report["problems"] == []
    expected = counted(home)
    assert expected == {ORCHARD: 2, HIVE: 1}
    for session, prompts in expected.items():
        assert cli.json("read", session)["total_turns"] == prompts, session
    assert index(cli)["files_read"] == 0


def test_each_call_once_with_its_result(cli: CLI, home: Path) -> None:
    index(cli)
    session = hits(cli, "orchard irrigation valves rain")[0]["session"]
    assert session["id"] == ORCHARD and session["cwd"] == "/home/dev/orchard"
    assert session["title"].startswith("Why do the orchard irrigation valves")
    assert found(cli, "RAIN_THRESHOLD_MM") == [ORCHARD]  # a result's text, from its object
    messages = cli.json("read", ORCHARD, "--tools")["turns"][0]["messages"]
    assert [(m["kind"], m["tool"]) for m in messages] == [
        ("prompt", None),
        ("reply", None),
        ("tool_call", "read_file"),  # once, though two lines carry it
        ("tool_call", "run_shell_command"),
        ("tool_output", "read_file"),
        ("tool_output", "run_shell_command"),
        ("tool_call", "write_file"),
        ("tool_output", "write_file"),
        ("tool_call", "replace"),
        ("tool_output", "replace"),
        ("reply", None),
    ]
    assert "0 occurrences" in messages[-2]["text"]
    assert found(cli, "todo list is empty") == []  # the CLI's own line
    assert cli.json("read", ORCHARD, "--raw")["turns"] == cli.json("read", ORCHARD)["turns"]


def test_blame_and_resume(cli: CLI, home: Path) -> None:
    index(cli)
    writes = cli.json("blame", "/home/dev/orchard/valves/guard.py")["writers"]
    assert [(w["session"]["id"], w["op"]) for w in writes] == [(ORCHARD, "create")]
    assert cli.json("blame", "/home/dev/orchard/valves/rain.py")["writers"] == []  # failed
    resume = hits(cli, "hive scale winter")[0]["resume"]
    assert resume["command"] == ["iflow", "--resume", HIVE]
    assert resume["cwd"] == "/home/dev/bee hive" and "2026" in resume["note"]


def test_a_session_read_on_keeps_a_re_sent_call_once(cli: CLI, home: Path) -> None:
    """The line that sends a call again may come in the next read: it is still one call."""
    index(cli)
    path = next(home.glob(f"projects/*/{HIVE}.jsonl"))
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    call = {"type": "tool_use", "id": "call_h1", "name": "read_file",
            "input": {"absolute_path": "/home/dev/bee hive/scale.py"}}  # fmt: skip
    first = {**lines[1], "uuid": "7e0a1b2c-0000-4000-8000-0000000000f1",
             "message": {**lines[1]["message"], "id": "response-2", "content": [call]}}  # fmt: skip
    with path.open("a") as fh:
        fh.write(json.dumps(first) + "\n")
    index(cli)
    again = {**first, "uuid": "7e0a1b2c-0000-4000-8000-0000000000f2",
             "message": {**first["message"], "id": "response-3"}}  # fmt: skip
    with path.open("a") as fh:
        fh.write(json.dumps(again) + "\n")
    report = index(cli)
    assert report["files_read"] == 1 and report["lines_read"] == 1
    messages = cli.json("read", HIVE, "--tools")["turns"][0]["messages"]
    assert [m["tool"] for m in messages if m["kind"] == "tool_call"] == ["read_file"]


def test_a_reply_that_thinks_in_the_open_keeps_its_thinking_apart(cli: CLI, home: Path) -> None:
    """The models iFlow served write their thinking into the reply, `<think>…</think>`
    first: that is thinking, and what follows it the reply (a line of thinking alone, with
    its call, gives no reply)."""
    path = next(home.glob(f"projects/*/{HIVE}.jsonl"))
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    think = "<think>\nThe frames weigh less in the cold; check the scale log first.\n</think>\n\n"
    call = {"type": "tool_use", "id": "call_t1", "name": "read_file",
            "input": {"absolute_path": "/home/dev/bee hive/scale.log"}}  # fmt: skip
    alone = {**lines[1], "uuid": "7e0a1b2c-0000-4000-8000-0000000000e1",
             "message": {**lines[1]["message"], "id": "response-t1",
                         "content": [{"type": "text", "text": think + "\n"}, call]}}  # fmt: skip
    answer = (
        "<think>\nA drift of 40 g a night is the cluster eating.\n</think>\n\nThe drift is honey."
    )
    said = {**lines[1], "uuid": "7e0a1b2c-0000-4000-8000-0000000000e2",
            "message": {**lines[1]["message"], "id": "response-t2",
                        "content": [{"type": "text", "text": answer}]}}  # fmt: skip
    with path.open("a") as fh:
        fh.write(json.dumps(alone) + "\n" + json.dumps(said) + "\n")
    index(cli)
    messages = cli.json("read", HIVE, "--tools")["turns"][0]["messages"][-4:]
    assert [(m["kind"], m["text"]) for m in messages] == [
        ("thinking", "The frames weigh less in the cold; check the scale log first."),
        ("tool_call", "absolute_path: /home/dev/bee hive/scale.log"),
        ("thinking", "A drift of 40 g a night is the cluster eating."),
        ("reply", "The drift is honey."),
    ]


def test_the_clis_own_answer_to_a_slash_command_is_no_reply(cli: CLI, home: Path) -> None:
    """`/docs` typed, and the CLI (not the model) answering it with an assistant line of
    model `slash-command`: the command is a prompt, the answer harness text."""
    path = next(home.glob(f"projects/*/{HIVE}.jsonl"))
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    typed = {**lines[0], "uuid": "7e0a1b2c-0000-4000-8000-0000000000d1",
             "message": {"role": "user", "content": "/docs"}}  # fmt: skip
    shown = json.dumps({"slashCommandOutput": {"type": "info", "text": "Opening hivewiki"}})
    answer = {**lines[1], "uuid": "7e0a1b2c-0000-4000-8000-0000000000d2",
              "message": {"id": "slash-response-1", "type": "message", "role": "assistant",
                          "model": "slash-command",
                          "content": [{"type": "text", "text": shown}]}}  # fmt: skip
    with path.open("a") as fh:
        fh.write(json.dumps(typed) + "\n" + json.dumps(answer) + "\n")
    index(cli)
    last = cli.json("read", HIVE, "--tools")["turns"][-1]["messages"]
    assert [(m["kind"], m["text"]) for m in last] == [("prompt", "/docs")]
    assert found(cli, "hivewiki") == []
