"""Qoder CLI's sessions (`~/.qoder/projects/<project>/<id>.jsonl`), through the real
CLI: each session's prompts counted by a reader of its own, Qoder's own lines
(`runtime-config`, `workspace-directories`, `active-leaf`) passed over, a subagent in its
session's `subagents/` under its parent, what else a session's folder holds left alone,
the title Qoder generated, blame, and `qodercli -r`.

The fixture (`fixtures/qoder/home/.qoder`) is laid out as Qoder's documentation gives it,
its lines in the shape other tools' readers found in real files, with synthetic text.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI

FIXTURE = Path(__file__).parent / "fixtures" / "qoder" / "home" / ".qoder"
BUOY = "5d1e2f3a-1111-4a2b-8c3d-000000000001"
TIDE = "5d1e2f3a-2222-4a2b-8c3d-000000000002"
AGENT = "agent-a7c3e91"


@pytest.fixture
def home(cli: CLI, tmp_path: Path) -> Path:
    place = tmp_path / "home" / ".qoder"
    shutil.copytree(FIXTURE, place)
    return place


def hits(cli: CLI, query: str) -> list[dict[str, Any]]:
    return cli.json("search", "--mode", "keyword", "--source", "qoder", query)["results"]


def found(cli: CLI, query: str) -> list[str]:
    return [h["session"]["id"] for h in hits(cli, query)]


def counted(path: Path) -> int:
    """A transcript's prompts, counted without findsession: user lines with text."""
    n = 0
    for line in path.read_text().splitlines():
        obj = json.loads(line)
        if obj.get("type") != "user":
            continue
        content = obj["message"]["content"]
        if isinstance(content, list):
            content = "".join(b.get("text", "") for b in content if b.get("type") == "text")
        n += bool(content.strip())
    return n


def test_every_session_and_subagent_is_read_and_counted(cli: CLI, home: Path) -> None:
    report = cli.json("index", "--no-embed")
    assert str(home / "projects") in report["roots"] and report["errors"] == []
    assert report["files_read"] == 3 and report["problems"] == []  # not the compaction's file
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["qoder"]
    assert (listed["sessions"], listed["subagents"]) == (2, 1)
    files = {
        BUOY: next(home.glob(f"projects/*/{BUOY}.jsonl")),
        TIDE: next(home.glob(f"projects/*/{TIDE}.jsonl")),
        AGENT: next(home.glob(f"projects/*/{BUOY}/subagents/{AGENT}.jsonl")),
    }
    for session, path in files.items():
        assert cli.json("read", session)["total_turns"] == counted(path), session
    assert found(cli, "albatross") == []
    assert cli.json("index", "--no-embed")["files_read"] == 0


def test_a_session_its_title_subagent_blame_and_resume(cli: CLI, home: Path) -> None:
    cli.json("index", "--no-embed")
    session = hits(cli, "weather buoy wind gusts")[0]["session"]
    assert session["id"] == BUOY and session["title"] == "Buoy gust counter overflow"
    assert session["cwd"] == "/home/dev/weather-buoy"
    messages = cli.json("read", BUOY, "--tools")["turns"][0]["messages"]
    assert [(m["kind"], m["tool"]) for m in messages] == [
        ("prompt", None),
        ("reply", None),
        ("tool_call", "Write"),
        ("tool_output", None),
        ("tool_call", "Task"),
        ("tool_output", None),
        ("reply", None),
    ]
    agent = [h for h in hits(cli, "mast cable shielded twisted") if h["session"]["subagent"]]
    assert [h["session"]["parent_id"] for h in agent] == [BUOY]
    writes = cli.json("blame", "/home/dev/weather-buoy/firmware/gust.c")["writers"]
    assert [(w["session"]["id"], w["op"]) for w in writes] == [(BUOY, "create")]
    resume = hits(cli, "tide clock backwards")[0]["resume"]
    assert resume["command"] == ["qodercli", "-r", TIDE]
    assert resume["cwd"] == "/home/dev/tide-clock"
    assert cli.json("read", TIDE, "--raw")["turns"] == cli.json("read", TIDE)["turns"]


@pytest.mark.parametrize(
    ("variables", "folder"),
    [
        ({"QODER_CLI_HOME": "elsewhere"}, "elsewhere/.qoder"),
        ({"GEMINI_CLI_HOME": "elsewhere"}, "elsewhere/.qoder"),
        ({"QODER_CONFIG_DIR_NAME": ".qoder-work"}, "home/.qoder-work"),
        (
            {"QODER_CLI_HOME": "elsewhere", "QODER_CONFIG_DIR_NAME": ".qoder-work"},
            "elsewhere/.qoder-work",
        ),
    ],
    ids=["its home moved", "Gemini CLI's home moved", "its folder renamed", "both"],
)
def test_the_folder_qoder_writes_to_when_its_variables_move_it(
    cli: CLI, tmp_path: Path, variables: dict[str, str], folder: str
) -> None:
    """Qoder CLI 1.1.52's bundled code puts its user folder at `$QODER_CONFIG_DIR`, else
    at `<home>/<name>`: `<home>` is `$QODER_CLI_HOME`, else `$GEMINI_CLI_HOME` (it is
    built on Gemini CLI), else the user's; `<name>` is `$QODER_CONFIG_DIR_NAME`, else
    `.qoder`. A session there is found with no folder named."""
    shutil.copytree(FIXTURE, tmp_path / folder)
    for name, value in variables.items():
        cli.env[name] = value if name.endswith("_NAME") else str(tmp_path / value)
    report = cli.json("index", "--no-embed")
    assert str(tmp_path / folder / "projects") in report["roots"]
    assert found(cli, "tide clock backwards") == [TIDE]


@pytest.mark.parametrize(
    ("variables", "folder"),
    [
        ({}, "home/.qoder-cn"),
        ({"QODERCN_CLI_HOME": "elsewhere"}, "elsewhere/.qoder-cn"),
        ({"QODERCN_CONFIG_DIR": "elsewhere/cn"}, "elsewhere/cn"),
    ],
    ids=["its own folder", "its home moved", "its folder named"],
)
def test_the_china_editions_folder_is_read_too(
    cli: CLI, tmp_path: Path, variables: dict[str, str], folder: str
) -> None:
    """Qoder's China edition (npm `@qoder-ai/qoderclicn`) is the same program: its code
    names, for the `cn` edition, the folder `.qoder-cn` and the prefix `QODERCN_` for its
    variables (`QODERCN_CONFIG_DIR`, `QODERCN_CLI_HOME`, still `GEMINI_CLI_HOME`), and
    writes the same transcripts there. A session there is found with no folder named, and
    resumed with the China edition's own command, `qoderclicn -r`."""
    shutil.copytree(FIXTURE, tmp_path / folder)
    for name, value in variables.items():
        cli.env[name] = str(tmp_path / value)
    report = cli.json("index", "--no-embed")
    assert str(tmp_path / folder / "projects") in report["roots"]
    assert found(cli, "tide clock backwards") == [TIDE]
    resume = hits(cli, "tide clock backwards")[0]["resume"]
    assert resume["command"] == ["qoderclicn", "-r", TIDE]
