"""Letta Code's local conversations (`~/.letta/lc-local-backend/conversations/<key>/
messages.jsonl`), through the real CLI: prompts, calls and results counted by a reader of
its own, what Letta Code put before a prompt kept out of it, a failed Bash call marked
failed, the title from `conversation.json`, blame through `Write` and `Edit`, the resume
command, a malformed line, a transcript read on from where the last run stopped, and
the older format of one message a line.

The storage folder was written by the real Letta Code 0.32.18 (`letta --backend local
-p ...`) against a scripted OpenAI-compatible model on localhost: a new agent's
conversation (`local-conv-1`) of four prompts given one run each with `--conv`: a
`Write`, a `Read` and an `Edit`, two `Bash` commands that failed, then, resumed without
the experimental variable, a reply with reasoning; and a second conversation
(`letta --new`, `local-conv-2`), carried on in Letta Code's terminal app (`letta
--backend local`, typed through a pseudo-terminal: it resumes the folder's last
conversation) with a `Read` of a missing file. The agent's default conversation, never
spoken in, has no transcript. Only the conversations' `messages.jsonl`, `conversation.json` and
`manifest.json` are kept (not the compiled system prompt, the agent, its memory or the
provider's key), and the folders were renamed to `/home/dev/...`.
"""

from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI
from read_counts import read_in_two_parts

FIXTURE = Path(__file__).parent / "fixtures" / "letta" / "home" / ".letta" / "lc-local-backend"
NOTES = "Y29udmVyc2F0aW9uOmxvY2FsLWNvbnYtMQ"  # conversation:local-conv-1
TODO = "Y29udmVyc2F0aW9uOmxvY2FsLWNvbnYtMg"  # conversation:local-conv-2
REMINDER = "<system-reminder>"


@pytest.fixture
def storage(cli: CLI, tmp_path: Path) -> Path:
    place = tmp_path / "home" / ".letta" / "lc-local-backend"
    shutil.copytree(FIXTURE, place)
    return place


def transcript(storage: Path, folder: str) -> Path:
    return storage / "conversations" / folder / "messages.jsonl"


def hits(cli: CLI, query: str) -> list[dict[str, Any]]:
    return cli.json("search", "--mode", "keyword", "--source", "letta", query)["results"]


def sid_of(cli: CLI, query: str) -> str:
    return hits(cli, query)[0]["session"]["id"]


def messages(cli: CLI, sid: str) -> list[dict[str, Any]]:
    turns = cli.json("read", sid, "--tools")["turns"]
    return [m for t in turns for m in t["messages"]]


def counted(path: Path) -> dict[str, Any]:
    """Prompts, calls and results read without findsession: a user message's text
    blocks that are not Letta Code's `<system-reminder>`s; `toolCall` blocks; and
    `toolResult` messages, with the Bash results that start with a non-zero exit code."""
    prompts, calls, results, failed = [], 0, 0, 0
    for line in path.read_text().splitlines():
        entry = json.loads(line)
        msg = entry.get("message") or {}
        blocks = msg.get("content") if isinstance(msg.get("content"), list) else []
        if msg.get("role") == "user":
            said = [b["text"] for b in blocks if not b["text"].startswith(REMINDER)]
            prompts.append("\n".join(said).strip())
        calls += sum(1 for b in blocks if b.get("type") == "toolCall")
        if msg.get("role") == "toolResult":
            results += 1
            text = blocks[0]["text"]
            failed += (
                msg["toolName"] == "Bash"
                and text.startswith("Exit code: ")
                and not (text.startswith("Exit code: 0\n"))
            )
    return {"prompts": prompts, "calls": calls, "results": results, "failed": failed}


def test_each_conversation_is_one_session_counted_as_letta_wrote_it(
    cli: CLI, storage: Path
) -> None:
    report = cli.json("index", "--no-embed")
    assert str(storage) in report["roots"] and report["errors"] == []
    assert (report["files_read"], report["problems"]) == (2, [])
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["letta"]
    assert (listed["sessions"], listed["subagents"]) == (2, 0)  # the default: no transcript
    for folder, query in ((NOTES, "rename add_note"), (TODO, "syncthing conflict")):
        sid = sid_of(cli, query)
        found = messages(cli, sid)
        want = counted(transcript(storage, folder))
        assert [m["text"] for m in found if m["kind"] == "prompt"] == want["prompts"]
        kinds = [m["kind"] for m in found]
        assert (kinds.count("tool_call"), kinds.count("tool_output")) == (
            want["calls"],
            want["results"],
        )
        failed = [m for m in found if m["kind"] == "tool_output" and m["is_error"]]
        assert len(failed) == want["failed"]
    assert counted(transcript(storage, NOTES))["prompts"] == [
        "Create notes.py with a function add_note(notes, text) that appends text",
        "Rename add_note to append_note",
        "Run the tests",
        "What did we change so far?",
    ]
    assert counted(transcript(storage, TODO))["prompts"] == [
        "Summarise the syncthing conflict in todo.txt",
        "Show me missing.txt please",  # typed in the terminal app
    ]
    assert cli.json("index", "--no-embed")["files_read"] == 0


def test_what_letta_put_before_a_prompt_is_not_searched(cli: CLI, storage: Path) -> None:
    cli.json("index", "--no-embed")
    for words in ("Permission mode active", "Device Information", "MCP servers with"):
        assert hits(cli, words) == [], words
    assert sid_of(cli, "rename add_note").endswith(":local-conv-1")


def test_calls_results_and_failed_commands(cli: CLI, storage: Path) -> None:
    cli.json("index", "--no-embed")
    found = messages(cli, sid_of(cli, "rename add_note"))
    tools = [(m["kind"], m["tool"], m["is_error"]) for m in found if m["kind"].startswith("tool")]
    assert tools == [
        ("tool_call", "Write", False),
        ("tool_output", "Write", False),
        ("tool_call", "Read", False),
        ("tool_output", "Read", False),
        ("tool_call", "Edit", False),
        ("tool_output", "Edit", False),
        ("tool_call", "Bash", False),
        ("tool_output", "Bash", True),
        ("tool_call", "Bash", False),
        ("tool_output", "Bash", True),
    ]
    thinking = [m["text"] for m in found if m["kind"] == "thinking"]
    assert thinking == ["The person wants a recap of the earlier turns in this conversation."]


def test_blame_title_and_resume(cli: CLI, storage: Path) -> None:
    cli.json("index", "--no-embed")
    writes = cli.json("blame", "/home/dev/notes-app/notes.py")["writers"]
    assert [(w["op"], w["tool"]) for w in writes] == [("edit", "Edit"), ("create", "Write")]
    assert "def append_note" in writes[0]["added"][0]
    top = hits(cli, "rename add_note")[0]
    assert top["session"]["cwd"] == "/home/dev/notes-app"
    assert top["resume"]["command"] == ["letta", "--backend", "local", "--conv", "local-conv-1"]
    assert top["resume"]["note"] is None
    # `/new <name>` (or a title Letta Code made) lands in conversation.json alone.
    side = storage / "conversations" / TODO / "conversation.json"
    doc = json.loads(side.read_text())
    side.write_text(json.dumps({**doc, "summary": "Todo conflict check"}, indent=2) + "\n")
    assert cli.json("index", "--no-embed")["files_read"] == 1
    assert hits(cli, "syncthing conflict")[0]["session"]["title"] == "Todo conflict check"


def test_default_conversation_and_a_moved_storage_folder(
    cli: CLI, storage: Path, tmp_path: Path
) -> None:
    agent = json.loads((storage / "conversations" / NOTES / "conversation.json").read_text())
    key = base64.urlsafe_b64encode(f"default:{agent['agent_id']}".encode()).decode()
    assert (storage / "conversations" / key.rstrip("=")).is_dir()
    shutil.copy(transcript(storage, TODO), storage / "conversations" / key.rstrip("=") / "")
    moved = tmp_path / "elsewhere"
    shutil.move(storage, moved)
    cli.env["LETTA_LOCAL_BACKEND_DIR"] = str(moved)
    cli.json("index", "--no-embed")
    found = {h["session"]["id"].split(":", 1)[1]: h for h in hits(cli, "syncthing conflict")}
    default = found[f"default:{agent['agent_id']}"]["resume"]
    assert default["command"] == [
        "letta", "--backend", "local", "--agent", agent["agent_id"], "--conv", "default",
    ]  # fmt: skip
    assert default["note"] is None  # LETTA_LOCAL_BACKEND_DIR names it
    del cli.env["LETTA_LOCAL_BACKEND_DIR"]  # the command is built when it is asked for
    note = hits(cli, "rename add_note")[0]["resume"]["note"]
    assert note == f"Run it with LETTA_LOCAL_BACKEND_DIR={moved}: the conversation is there."


def test_a_malformed_line_is_reported_and_the_rest_read(cli: CLI, storage: Path) -> None:
    path = transcript(storage, NOTES)
    lines = path.read_text().splitlines(keepends=True)
    cut = '{"type": "message", "message": {"role": "us\n'
    path.write_text("".join([*lines[:5], cut, *lines[5:]]))
    report = cli.json("index", "--no-embed")
    assert [(p["line"], p["reason"]) for p in report["problems"]] == [(6, "malformed JSON")]
    assert hits(cli, "What did we change so far")[0]["session"]["id"].endswith(":local-conv-1")


def test_read_on_from_where_it_stopped(cli: CLI, storage: Path) -> None:
    read_in_two_parts(cli, transcript(storage, NOTES), lambda x: '"name":"Edit"' in x)
    found = messages(cli, sid_of(cli, "rename add_note"))
    assert [m["tool"] for m in found if m["kind"] == "tool_output"][2:4] == ["Edit", "Bash"]
    assert hits(cli, "rename add_note")[0]["session"]["cwd"] == "/home/dev/notes-app"


def test_the_older_format_of_one_message_a_line(cli: CLI, storage: Path) -> None:
    """`pi-ai-message-jsonl`, which 0.32 still reads: the same messages, each alone on
    its line, no header (made here from the real transcript, as Letta's migration
    would have read it)."""
    path = transcript(storage, NOTES)
    entries = [json.loads(x) for x in path.read_text().splitlines()]
    path.write_text("".join(json.dumps(e["message"]) + "\n" for e in entries if "message" in e))
    cli.json("index", "--no-embed")
    found = messages(cli, sid_of(cli, "rename add_note"))
    assert [m["text"] for m in found if m["kind"] == "prompt"] == counted(
        transcript(FIXTURE, NOTES)
    )["prompts"]
    assert sum(m["is_error"] for m in found if m["kind"] == "tool_output") == 2
