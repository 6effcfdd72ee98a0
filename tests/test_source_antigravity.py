"""Google Antigravity's conversations (`~/.gemini/<app>/brain/<id>/.system_generated/logs/
transcript*.jsonl`), through the real CLI: each conversation's prompts counted by a
reader of its own, the editor's, a later build's and the CLI's folders, the full
transcript read where there is one (and the compact one it replaces left alone), what was
typed apart from what Antigravity added, other conversations' summaries left out, tool
calls answered in order (a denied one kept out of blame), a transcript read on from
where it stopped with a call's output in the next read, and `agy --conversation`.

The fixture (`fixtures/antigravity/home/.gemini`) is laid out as Antigravity writes it,
with synthetic text in the step format real transcripts people published show.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI

from findsession.domain import Message, MessageKind
from findsession.sources import SOURCES

FIXTURE = Path(__file__).parent / "fixtures" / "antigravity" / "home" / ".gemini"
TIDE = "3f0a9c1e-5b2d-4e7f-8a1b-2c3d4e5f6a01"  # the editor's, a compact transcript only
DYNAMO = "3f0a9c1e-5b2d-4e7f-8a1b-2c3d4e5f6a02"  # a later build's: both transcripts
STARTER = "3f0a9c1e-5b2d-4e7f-8a1b-2c3d4e5f6a03"  # the CLI's


@pytest.fixture
def gemini(cli: CLI, tmp_path: Path) -> Path:
    place = tmp_path / "home" / ".gemini"
    shutil.copytree(FIXTURE, place)
    return place


def hits(cli: CLI, query: str) -> list[dict[str, Any]]:
    return cli.json("search", "--mode", "keyword", "--source", "antigravity", query)["results"]


def found(cli: CLI, query: str) -> list[str]:
    return [h["session"]["id"] for h in hits(cli, query)]


def index(cli: CLI) -> dict[str, Any]:
    return cli.json("index", "--no-embed")


def logs(gemini: Path, session: str) -> Path:
    return next(gemini.glob(f"*/brain/{session}")) / ".system_generated" / "logs"


def counted(gemini: Path) -> dict[str, int]:
    """Each conversation's prompts, counted without findsession: the `USER_INPUT` steps
    of the transcript it would read (the full one where there is one)."""
    out = {}
    for folder in gemini.glob("*/brain/*/.system_generated/logs"):
        path = folder / "transcript_full.jsonl"
        path = path if path.exists() else folder / "transcript.jsonl"
        steps = []
        for line in path.read_text().splitlines():
            try:
                steps.append(json.loads(line))
            except ValueError:
                continue
        out[folder.parent.parent.name] = sum(s.get("type") == "USER_INPUT" for s in steps)
    return out


def test_every_conversation_is_read_and_counted(cli: CLI, gemini: Path) -> None:
    report = index(cli)
    for app in ("antigravity", "antigravity-ide", "antigravity-cli"):
        assert str(gemini / app / "brain") in report["roots"]
    assert report["errors"] == [] and report["files_read"] == 3  # one transcript each
    [problem] = report["problems"]  # the line a crash cut short
    assert (problem["line"], problem["reason"]) == (7, "malformed JSON")
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["antigravity"]
    assert (listed["files"], listed["sessions"]) == (3, 3)
    expected = counted(gemini)
    assert set(expected) == {TIDE, DYNAMO, STARTER}
    for session, prompts in expected.items():
        assert cli.json("read", session)["total_turns"] == prompts, session
    assert index(cli)["files_read"] == 0


def test_a_conversation_gives_prompts_replies_thinking_and_tools_in_order(
    cli: CLI, gemini: Path
) -> None:
    index(cli)
    session = hits(cli, "tide gauge logger midnight")[0]["session"]
    assert session["id"] == TIDE and session["title"].startswith("The tide gauge logger")
    assert session["cwd"] == "/home/dev/tide-gauge/logger"  # the folder its command ran in
    assert session["started"] == "2026-06-02T08:00:00.000Z"
    assert found(cli, "SAMPLE_WINDOW") == [TIDE]  # a command's output
    assert found(cli, "marmalade") == []  # another conversation's summary, given as context
    assert found(cli, "Quokka") == []  # the task list artifact: its write is in the log
    first = cli.json("read", TIDE, "--tools")["turns"][0]["messages"]
    assert [(m["kind"], m["tool"]) for m in first] == [
        ("prompt", None),
        ("thinking", None),
        ("reply", None),
        ("tool_call", "list_dir"),
        ("tool_output", "list_dir"),
        ("tool_call", "run_command"),
        ("tool_output", "run_command"),
        ("reply", None),
        ("tool_call", "write_to_file"),
        ("tool_call", "replace_file_content"),
        ("tool_output", "write_to_file"),
        ("tool_output", "replace_file_content"),
        ("reply", None),
    ]
    assert first[0]["text"] == "The tide gauge logger drops readings after midnight, find out why"
    assert cli.json("read", TIDE, "--raw")["turns"] == cli.json("read", TIDE)["turns"]


def test_other_conversations_summaries_are_not_kept_even_as_context(gemini: Path) -> None:
    source = SOURCES["antigravity"]
    path = logs(gemini, TIDE) / "transcript.jsonl"
    with path.open("rb") as fh:
        reading = source.read(source.describe(path), fh, None)
    texts = [getattr(r, "text", "") for r in reading.records]
    assert texts and not any("armalade" in t for t in texts)
    assert any("USER_SETTINGS_CHANGE" in t for t in texts)  # what Antigravity added: kept


def test_the_full_transcript_is_read_and_the_compact_one_left_alone(cli: CLI, gemini: Path) -> None:
    index(cli)
    assert found(cli, "pwm_set") == [DYNAMO]  # in the full transcript's file view only
    assert found(cli, "truncated") == []
    read = cli.json("read", DYNAMO)
    assert read["session"]["path"].endswith("transcript_full.jsonl")
    assert found(cli, "bleed resistor") == [DYNAMO]  # after the line cut short


def test_blame_finds_what_the_editing_tools_and_a_heredoc_wrote(cli: CLI, gemini: Path) -> None:
    index(cli)
    created = cli.json("blame", "/home/dev/tide-gauge/logger/test_rollover.c")["writers"]
    assert [(w["session"]["id"], w["op"]) for w in created] == [(TIDE, "create")]
    edited = cli.json("blame", "/home/dev/tide-gauge/logger/rollover.c")["writers"]
    assert [(w["session"]["id"], w["op"], w["added"]) for w in edited] == [
        (TIDE, "edit", ["count = wrap_guard(count);"])
    ]
    chunks = cli.json("blame", "/home/dev/dynamo-lamp/src/lamp.c")["writers"]
    assert [(w["session"]["id"], w["op"]) for w in chunks] == [(DYNAMO, "edit")]
    assert "void standlight(void) { supercap_hold(180); }" in chunks[0]["added"]
    heredoc = cli.json("blame", "/home/dev/starter-log/rise.py")["writers"]
    assert [(w["session"]["id"], w["op"]) for w in heredoc] == [(STARTER, "shell")]
    denied = cli.json("blame", "/home/dev/tide-gauge/logger/columns.c")["writers"]
    assert denied == []  # the call was denied: it wrote nothing


def test_the_cli_resumes_by_id_and_the_editor_says_how_to_go_back(cli: CLI, gemini: Path) -> None:
    index(cli)
    resume = hits(cli, "sourdough starter rise")[0]["resume"]
    assert resume["command"] == ["agy", "--conversation", STARTER]
    assert resume["cwd"] == "/home/dev/starter-log"
    editor = hits(cli, "tide gauge")[0]["resume"]
    assert editor["command"] is None and "Agent Manager" in editor["reason"]


def test_a_transcript_read_on_from_where_it_stopped(cli: CLI, gemini: Path) -> None:
    """Antigravity appends a call's output a moment after the call: read in between, the
    output comes in the next read and is still answered to its call."""
    index(cli)
    path = logs(gemini, STARTER) / "transcript_full.jsonl"
    call = {"step_index": 4, "source": "MODEL", "type": "PLANNER_RESPONSE", "status": "DONE",
            "created_at": "2026-09-01T07:10:00Z", "tool_calls": [{"name": "view_file", "args": {
                "AbsolutePath": json.dumps("/home/dev/starter-log/rise.py")}}]}  # fmt: skip
    with path.open("a") as fh:
        fh.write(json.dumps(call) + "\n")
    assert index(cli)["files_read"] == 1
    output = {
        "step_index": 5,
        "source": "MODEL",
        "type": "VIEW_FILE",
        "status": "DONE",
        "created_at": "2026-09-01T07:10:01Z",
        "content": "1: import hygrometer_bus",
    }
    with path.open("a") as fh:
        fh.write(json.dumps(output) + "\n")
    report = index(cli)
    assert report["files_read"] == 1 and report["lines_read"] == 1
    assert found(cli, "hygrometer_bus") == [STARTER]
    last = cli.json("read", STARTER, "--tools")["turns"][-1]["messages"][-2:]
    assert [(m["kind"], m["tool"]) for m in last] == [
        ("tool_call", "view_file"),
        ("tool_output", "view_file"),
    ]


def test_a_full_transcript_that_appears_later_replaces_the_compact_one(
    cli: CLI, gemini: Path
) -> None:
    index(cli)
    folder = logs(gemini, TIDE)
    full = [json.loads(line) for line in (folder / "transcript.jsonl").read_text().splitlines()]
    full[4]["content"] += "\nTIDE_OFFSET_MM 412"
    (folder / "transcript_full.jsonl").write_text("".join(json.dumps(s) + "\n" for s in full))
    index(cli)
    assert found(cli, "TIDE_OFFSET_MM") == [TIDE]
    assert cli.json("read", TIDE)["total_turns"] == 2  # one session, not two copies
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["antigravity"]
    assert (listed["files"], listed["sessions"]) == (3, 3)


def _step(index: int, kind: str, source: str, **fields: Any) -> str:
    return json.dumps({"step_index": index, "source": source, "type": kind, "status": "DONE",
                       "created_at": f"2026-04-29T18:0{index}:00Z", **fields}) + "\n"  # fmt: skip


def test_a_conversation_of_a_build_that_kept_only_its_overview(cli: CLI, gemini: Path) -> None:
    """Builds of spring 2026 wrote the steps to `overview.txt`, not to a transcript: it is
    read, a long prompt cut short (its closing tag gone) is what was typed, and a
    transcript that appears later in the same folder replaces it."""
    index(cli)
    cid = "3f0a9c1e-5b2d-4e7f-8a1b-2c3d4e5f6a04"
    folder = gemini / "antigravity" / "brain" / cid / ".system_generated" / "logs"
    folder.mkdir(parents=True)
    call = {"name": "view_file", "args": {"AbsolutePath": json.dumps("/home/dev/kiln/fire.py")}}
    steps = [
        _step(0, "USER_INPUT", "USER_EXPLICIT",
              content="<USER_REQUEST>\nBuild the kiln schedule page with ramp and soak rows\n"
                      "<truncated 812 bytes>"),
        _step(1, "PLANNER_RESPONSE", "MODEL", content="Looking at the firing code.",
              tool_calls=[call]),
        _step(2, "VIEW_FILE", "USER_EXPLICIT",
              content="The USER performed the following action:\nShow the contents of file "
                      "/home/dev/kiln/cone.py"),
        _step(3, "USER_INPUT", "USER_EXPLICIT",
              content="<USER_REQUEST>\nContinue\n</USER_REQUEST>\n<ADDITIONAL_METADATA>\n"
                      "The current local time is: 2026-04-29T21:00:00+03:00.\n"
                      "</ADDITIONAL_METADATA>"),
    ]  # fmt: skip
    (folder / "overview.txt").write_text("".join(steps))
    assert index(cli)["files_read"] == 1
    read = cli.json("read", cid, "--tools")
    said = [(m["kind"], m["text"]) for t in read["turns"] for m in t["messages"]]
    assert said[0] == (
        "prompt",
        "Build the kiln schedule page with ramp and soak rows\n<truncated 812 bytes>",
    )
    assert ("prompt", "Continue") in said and read["session"]["title"].startswith("Build the kiln")
    assert [k for k, _ in said] == ["prompt", "reply", "tool_call", "prompt"]
    acts = kept_texts(folder / "overview.txt")[MessageKind.HARNESS]
    assert any(t.endswith("file /home/dev/kiln/cone.py") for t in acts)  # what they opened
    later = _step(4, "PLANNER_RESPONSE", "MODEL", content="Ramp rows hold kilnwarden timings.")
    (folder / "transcript.jsonl").write_text("".join(steps) + later)
    index(cli)
    assert found(cli, "kilnwarden") == [cid]
    again = cli.json("read", cid)
    assert again["session"]["path"].endswith("transcript.jsonl") and again["total_turns"] == 2
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["antigravity"]
    assert (listed["files"], listed["sessions"]) == (4, 4)


def test_an_error_that_answers_no_call_keeps_its_text(gemini: Path) -> None:
    """The model unreachable: an `ERROR_MESSAGE` with its text in `error` alone, between
    a reply and the next prompt, is kept (as harness text), not dropped for want of
    `content`."""
    path = logs(gemini, STARTER) / "transcript_full.jsonl"
    with path.open("a") as fh:
        error = "agent executor error: model unreachable: lookup quokkahost"
        fh.write(_step(9, "ERROR_MESSAGE", "SYSTEM", error=error))
    harness = kept_texts(path)[MessageKind.HARNESS]
    assert harness[-1] == error


def kept_texts(path: Path) -> dict[MessageKind, list[str]]:
    """What the source keeps of a transcript, by kind, read in-process."""
    source = SOURCES["antigravity"]
    with path.open("rb") as fh:
        reading = source.read(source.describe(path), fh, None)
    out: dict[MessageKind, list[str]] = {}
    for record in reading.records:
        if isinstance(record, Message):
            out.setdefault(record.kind, []).append(record.text)
    return out


def test_a_background_commands_result_is_its_calls_output(cli: CLI, gemini: Path) -> None:
    """A command Antigravity runs in the background answers its call at once ("running
    as a background task"); its result comes later, in a system message, even in a
    later read: it is that call's output, failed when the command failed, and found."""
    index(cli)
    path = logs(gemini, STARTER) / "transcript_full.jsonl"
    task = f"{STARTER}/task-21"
    call = {"name": "run_command", "args": {"CommandLine": json.dumps("make proofcheck")}}
    with path.open("a") as fh:
        fh.write(_step(20, "PLANNER_RESPONSE", "MODEL", content="Running it.", tool_calls=[call]))
        running = f"Tool is running as a background task with task id: {task}"
        fh.write(_step(21, "RUN_COMMAND", "MODEL", status="RUNNING", content=running))
    index(cli)
    result = (
        "The following is a <SYSTEM_MESSAGE> not actually sent by the user.\n\n"
        f"<SYSTEM_MESSAGE>\n[Message] timestamp=2026-09-01T07:20:00Z sender={task} "
        f'content=Task id "{task}" finished with result:\n\n\tThe command failed with exit '
        "code: 2\n\tOutput:\n\tproofcheck: starter culture too young\n</SYSTEM_MESSAGE>"
    )
    with path.open("a") as fh:
        fh.write(_step(22, "SYSTEM_MESSAGE", "SYSTEM", content=result))
    index(cli)
    assert found(cli, "culture too young") == [STARTER]
    said = cli.json("read", STARTER, "--tools")["turns"][-1]["messages"][-3:]
    assert [(m["kind"], m["tool"], m["is_error"]) for m in said] == [
        ("tool_call", "run_command", False),
        ("tool_output", "run_command", False),  # "running in the background"
        ("tool_output", "run_command", True),
    ]
