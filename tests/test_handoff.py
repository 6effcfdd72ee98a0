"""`findsession handoff`: a brief to carry a session on, through the real CLI over real
transcripts (the sample corpus, the Codex, Gemini and Aider fixtures, and Claude Code
sessions written here), the real MCP server, and a stand-in model on a real socket."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from chat_server import ChatServer
from conftest import AIDER_SESSION, CLI, FIXTURES, SAMPLE
from test_mcp import call, connect
from transcripts import Transcript, project_dir

DEPLOY = "7c1e4a52-9b3d-4f0e-8a61-2d5f9c3b7e14"
WORK = "44444444-aaaa-4bbb-8ccc-000000000004"
KEY = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-abcdEFGH"


def work_session(root: Path, project: Path) -> None:
    """A session that edits, fails an edit, runs tests red then green then red, asks."""
    t = Transcript(session_id=WORK, cwd=str(project))
    t.prompt(f"the invoice totals round wrong; fix rounding in billing.py (token {KEY})")
    t.reply("The root cause is float arithmetic: totals are summed as floats, then rounded.")
    t.tool("Edit", {"file_path": str(project / "billing.py"), "old_string": "total = 0.0",
                    "new_string": "total = Decimal(0)"}, "The file has been updated.")  # fmt: skip
    t.tool("Edit", {"file_path": str(project / "missing.py"), "old_string": "a",
                    "new_string": "b"}, "File does not exist.", is_error=True)  # fmt: skip
    t.tool("Bash", {"command": "pytest tests/test_billing.py -q"},
           "..F\n=== 1 failed, 2 passed in 0.31s ===", is_error=True)  # fmt: skip
    test = "def test_half_up():\n    assert r(2.5) == 3\n"
    t.tool("Write", {"file_path": str(project / "tests" / "test_rounding.py"), "content": test},
           "Created.")  # fmt: skip
    t.tool("Bash", {"command": "pytest tests/test_billing.py -q"}, "=== 3 passed in 0.30s ===")
    t.reply("Switched to Decimal with ROUND_HALF_UP; billing tests pass now.")
    t.prompt("ok")
    t.reply("Nothing more to do there.")
    t.prompt("now the tax report")
    t.tool("Bash", {"command": "pytest tests/test_tax.py"}, "=== 2 failed, 5 passed in 1.2s ===",
           is_error=True)  # fmt: skip
    t.reply("Two tax tests still fail: the report rounds per line. Should tax be rounded per"
            " invoice or per line?")  # fmt: skip
    t.write(project_dir(root, str(project)))


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[CLI, Path]]:
    tmp = tmp_path_factory.mktemp("handoff")
    cli = CLI(tmp, tmp / "index" / "findsession.db")
    cli.env["FINDSESSION_NO_SERVICE"] = "1"
    project = tmp / "work" / "billing"
    project.mkdir(parents=True)
    root = Path(cli.env["CLAUDE_CONFIG_DIR"]) / "projects"
    work_session(root, project)
    cli.run("index", "--no-embed", str(SAMPLE), str(root))
    cli.run("index", "--no-embed", "--source", "codex", str(FIXTURES / "codex" / "home"))
    cli.run("index", "--no-embed", "--source", "gemini", str(FIXTURES / "gemini" / "home"))
    cli.run("index", "--no-embed", "--source", "aider", str(FIXTURES / "aider"))
    yield cli, project


def test_a_brief_of_what_was_asked_done_changed_run_and_left_open(
    indexed: tuple[CLI, Path],
) -> None:
    cli, project = indexed
    brief = cli.json("handoff", WORK)
    assert brief["schema"] == "findsession.handoff/1"
    assert brief["asked"][0]["turn"] == 1
    assert "round wrong" in brief["asked"][0]["text"]
    assert KEY not in json.dumps(brief) and "[REDACTED:" in brief["asked"][0]["text"]
    # "ok" only said go on: not something asked.
    assert [a["turn"] for a in brief["asked"]] == [1, 3]
    assert any("root cause is float" in d["text"] for d in brief["decided"])
    # The failed edit never reached the disk: only what was written is listed.
    files = {f["path"]: f for f in brief["files"]}
    assert set(files) == {"billing.py", "tests/test_rounding.py"}
    assert files["billing.py"]["ops"] == ["edit"] and files["billing.py"]["turns"] == [1]
    commands = {c["command"]: c for c in brief["commands"]}
    billing = commands["pytest tests/test_billing.py -q"]
    assert (billing["runs"], billing["outcome"], billing["detail"]) == (2, "passed", "3 passed")
    tax = commands["pytest tests/test_tax.py"]
    assert (tax["outcome"], tax["detail"], tax["turn"]) == ("failed", "5 passed, 2 failed", 3)
    left = brief["left_open"]
    failing = "Tests failing on their last run: `pytest tests/test_tax.py` (5 passed, 2 failed)"
    assert failing in left
    assert any(item.startswith("The agent asked: Should tax be rounded") for item in left)
    assert brief["last_prompt"] == {"turn": 3, "text": "now the tax report"}
    assert brief["resume"]["command"] == ["claude", "--resume", WORK]
    assert brief["resume"]["cwd"] == str(project)
    md = cli.run("handoff", WORK).stdout
    assert md == brief["markdown"]
    for heading in (
        "## What was asked",
        "## What was decided",
        "## Files changed",
        "## Commands run (last outcome)",
        "## Left open",
        "## Resume the session",
    ):
        assert heading in md  # fmt: skip
    assert f"cd {project} && claude --resume {WORK}" in md


def test_the_sample_sessions_brief_counts_its_edits_and_its_subagents_command(
    indexed: tuple[CLI, Path],
) -> None:
    cli, _ = indexed
    brief = cli.json("handoff", DEPLOY)
    transcript = next(SAMPLE.rglob(f"{DEPLOY}.jsonl"))
    edits = [
        block["input"]["file_path"]
        for line in transcript.read_text().splitlines()
        for block in (json.loads(line).get("message") or {}).get("content") or []
        if isinstance(block, dict) and block.get("type") == "tool_use" and block["name"] == "Edit"
    ]
    assert len(edits) == 2 and set(edits) == {"/home/dev/code/webshop/scripts/deploy.sh"}
    assert brief["files"] == [
        {"path": "scripts/deploy.sh", "ops": ["edit"], "writes": 2, "turns": [3]}
    ]
    by = {c["command"].split()[0]: c for c in brief["commands"]}
    assert by["grep"]["turn"] == 0  # the Explore subagent's, run for this session
    assert by["./scripts/deploy.sh"]["turn"] == 4


@pytest.mark.parametrize(
    ("session", "file", "command"),
    [
        ("019df26e-2d00-7f29-8645-deec08007ae4", "tests/tuesday_window.rs", None),
        ("bbbb2222-0000-4000-8000-000000000002", None, "grep -n relay wiring/lamp.txt"),
        (AIDER_SESSION, "station/sensors.py", None),
    ],
    ids=["codex", "gemini", "aider"],
)
def test_codex_gemini_and_aider_sessions_hand_off(
    indexed: tuple[CLI, Path], session: str, file: str | None, command: str | None
) -> None:
    cli, _ = indexed
    brief = cli.json("handoff", session)
    read = cli.json("read", session)
    first = read["turns"][0]["messages"][0]["text"]
    assert brief["asked"][0]["text"] == first[:2000].strip() or first.startswith(
        brief["asked"][0]["text"].rstrip("…")
    )
    if file:
        assert file in [f["path"] for f in brief["files"]]
    if command:
        assert command in [c["command"] for c in brief["commands"]]
    assert brief["resume"]["available"] or brief["resume"]["reason"]


def _fake_agent(bin_dir: Path, name: str) -> Path:
    """An executable that records its argv and working directory, then exits."""
    bin_dir.mkdir(exist_ok=True)
    script = bin_dir / name
    record = bin_dir / f"{name}.json"
    script.write_text(
        "#!/usr/bin/env python3\nimport json, os, sys\n"
        f"open({str(record)!r}, 'w').write(json.dumps([sys.argv[1:], os.getcwd()]))\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return record


def _run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "findsession", *args], env=env, capture_output=True, text=True
    )


def test_to_an_agent_prints_the_start_and_runs_it_only_with_run_after_opens_checks(
    indexed: tuple[CLI, Path], tmp_path: Path
) -> None:
    cli, project = indexed
    printed = cli.run("handoff", WORK, "--to", "gemini").stdout
    assert printed.startswith(
        f"cd {project} && gemini --prompt-interactive \"$(cat <<'FINDSESSION_BRIEF'\n# Handoff:"
    )
    brief = cli.run("handoff", WORK).stdout
    # The printed line, pasted into a shell, hands the agent exactly the brief.
    record = _fake_agent(tmp_path / "bin", "gemini")
    env = {**cli.env, "PATH": f"{tmp_path / 'bin'}:{os.environ['PATH']}"}
    subprocess.run(["bash", "-c", printed], env=env, check=True)
    argv, cwd = json.loads(record.read_text())
    assert argv == ["--prompt-interactive", brief.rstrip("\n")] and cwd == str(project)
    record.unlink()
    # --run starts it in place of findsession, in the session's directory.
    record = _fake_agent(tmp_path / "bin", "claude")
    ran = _run(env, "handoff", WORK, "--to", "claude", "--run")
    argv, cwd = json.loads(record.read_text())
    assert argv == [brief] and cwd == str(project) and ran.returncode == 0
    # Nothing runs when the agent is missing, or the directory is gone.
    bare = {**cli.env, "PATH": "/usr/bin:/bin"}
    missing = _run(bare, "handoff", WORK, "--to", "codex", "--run")
    assert missing.returncode == 1 and "'codex' is not on PATH" in missing.stderr
    gone = _run(env, "handoff", DEPLOY, "--to", "claude", "--run")
    assert gone.returncode == 1 and "no longer exists" in gone.stderr
    assert "nothing was run" in gone.stderr
    unknown = cli.run("handoff", WORK, "--to", "nano", check=False)
    assert unknown.returncode == 1 and "knows no way to start 'nano'" in unknown.stderr
    lone = cli.run("handoff", WORK, "--run", check=False)
    assert lone.returncode == 1 and "--to AGENT" in lone.stderr


def test_a_model_writes_the_summary_on_top_from_redacted_text_only(
    indexed: tuple[CLI, Path],
) -> None:
    cli, _ = indexed
    server = ChatServer()
    config = Path(cli.env["FINDSESSION_CONFIG"])
    try:
        server.reply = lambda messages: "<think>hm</think>Rounding moved to Decimal; tax is open."
        config.write_text(
            f'[titles]\nprovider = "ollama"\nurl = "{server.url}"\nmodel = "{server.model}"\n'
        )
        brief = cli.json("handoff", WORK)
        assert brief["summary"] == "Rounding moved to Decimal; tax is open."
        assert brief["summary_by"] == "ollama:qwen2.5:3b"
        assert brief["markdown"].index("## Summary") < brief["markdown"].index("## What was asked")
        (body,) = server.sent("/api/chat")
        asked = body["messages"][1]["content"]
        assert "round wrong" in asked and "pytest tests/test_tax.py" in asked
        assert KEY not in asked
        assert cli.json("handoff", WORK, "--no-model")["summary"] is None
        assert len(server.sent("/api/chat")) == 1
        server.reply = lambda messages: f"Use the key {KEY} to deploy."
        assert cli.json("handoff", WORK)["summary"] is None  # a secret is never shown
    finally:
        server.close()
    down = cli.run("handoff", WORK)  # the server is gone: the extracted brief, and a note
    assert down.returncode == 0 and "## What was asked" in down.stdout
    assert "the summary model failed" in down.stderr
    config.unlink()


def test_the_mcp_tool_answers_the_same_brief_and_records_it(
    indexed: tuple[CLI, Path],
) -> None:
    cli, project = indexed

    async def go() -> None:
        async with connect(cli, project) as client:
            error, answer = await call(client, "handoff", sessionId=WORK[:8], to="codex")
            assert not error, answer
            assert answer["markdown"] == cli.run("handoff", WORK).stdout
            assert answer["start"]["command"][0] == "codex"
            assert answer["start"]["shell"].startswith(f"cd {project} && codex ")
            assert answer["evidence_budget"]["used"] == 3  # what turns 1-3 asked or concluded

    asyncio.run(go())
    (record,) = [r for r in cli.json("audit")["records"] if r["tool"] == "handoff"]
    assert record["filters"] == {"session": WORK, "to": "codex"}
    assert [r["turn"] for r in record["results"]] == [1, 2, 3]
