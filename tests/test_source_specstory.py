"""SpecStory's Markdown exports of editor and agent chats, read as sessions through the
real CLI: one session per file, a turn per `_**User**_` block, the title and time from
the header, the project the folder holding `.specstory`.

The exports are written by `specstory_exports` from SpecStory's layouts (the first
exports with `## SpecStory`, the extension's spring 2025 and current ones, the CLI's);
the Cursor store by `cursor_store`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI
from cursor_store import StateDb, agent, user
from specstory_exports import cli as cli_export
from specstory_exports import current, listing, oldest, spring, thinking, tool_use, write

BAROMETER = "7d2e4c1a-1111-4f5e-9a8b-000000000001"
ANEMOMETER = "7d2e4c1a-2222-4f5e-9a8b-000000000002"
PUMP = "5c1b3a9d-3333-4e2f-8d7c-000000000003"


@pytest.fixture
def home(cli: CLI, tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def project(home: Path) -> Path:
    return home / "code" / "kettle"


def index(cli: CLI, *args: str) -> dict[str, Any]:
    return cli.json("index", "--no-embed", *args)


def hits(cli: CLI, query: str) -> list[dict[str, Any]]:
    return cli.json("search", "--mode", "keyword", query)["results"]


def read(cli: CLI, sid: str) -> dict[str, Any]:
    return cli.json("read", sid, "--tools")


def kinds(turn: dict[str, Any]) -> list[tuple[str, str | None]]:
    return [(m["kind"], m["tool"]) for m in turn["messages"]]


def test_the_first_and_the_current_exports_are_sessions(
    cli: CLI, home: Path, project: Path
) -> None:
    kettle = [
        (
            "How often should the kettle descaling cycle run?",
            [
                "Let me look at the firmware.",
                listing("Listed directory firmware • **2** results", ["descale.c", "boil.c"]),
                "Read file: firmware/descale.c",
                "## What the counter says\n\nEvery forty boils, says the scale counter.",
            ],
        ),
        (
            "Make it thirty boils",
            [
                "```diff\n- #define DESCALE_AFTER 40\n+ #define DESCALE_AFTER 30\n```",
                "Changed: the kettle now descales after thirty boils.",
            ],
        ),
    ]
    name = "2025-02-19_09-30-kettle-descaling.md"
    write(project, name, oldest("[KETTLE] Descaling", "2/19/2025, 9:30:45 AM", kettle), crlf=True)
    barometer = [
        (
            "2025-12-02 12:49Z",
            "calibrate the barometer against station pressure",
            [
                thinking("The offset drifts with altitude."),
                tool_use("read", "read_file", "Read file: src/baro.py"),
                "Calibrate against the sea-level station pressure.",
            ],
        ),
        ("2025-12-02 13:05Z", "now log the drift", ["Logged to drift.csv."]),
    ]
    write(
        project,
        "2025-12-02_12-49Z-barometer.md",
        current(BAROMETER, "Barometer calibration", "2025-12-02 12:49Z", barometer),
    )
    cli.env["TZ"] = "BRT3"  # the first exports wrote the writer's local time: UTC-3 here

    report = index(cli, "--source", "specstory", str(home / "code"))
    assert report["files_read"] == 2 and report["errors"] == [] and report["problems"] == []

    first = hits(cli, "kettle descaling cycle")[0]["session"]
    assert first["source"] == "specstory" and first["id"].startswith("specstory-")
    assert first["title"] == "[KETTLE] Descaling" and first["cwd"] == str(project)
    assert first["started"].startswith("2025-02-19T12:30:45")
    turns = read(cli, first["id"])["turns"]
    assert kinds(turns[0]) == [
        ("prompt", None),
        ("reply", None),
        ("tool_call", "list_dir"),
        ("tool_output", "list_dir"),
        ("tool_call", "read_file"),
        ("reply", None),
    ]
    assert kinds(turns[1]) == [("prompt", None), ("tool_call", "edit_file"), ("reply", None)]
    assert turns[1]["messages"][0]["text"] == "Make it thirty boils"
    assert cli.json("read", first["id"], "--raw")["turns"] == cli.json("read", first["id"])["turns"]

    [hit] = hits(cli, "barometer station pressure")
    assert hit["match"]["files"] == ["src/baro.py"]  # the file its summary names
    second = hit["session"]
    assert second["id"] == f"specstory-{BAROMETER}" and second["title"] == "Barometer calibration"
    turns = read(cli, second["id"])["turns"]
    assert [t["timestamp"][:16] for t in turns] == ["2025-12-02T12:49", "2025-12-02T13:05"]
    assert kinds(turns[0]) == [
        ("prompt", None),
        ("thinking", None),
        ("tool_call", "read_file"),
        ("reply", None),
    ]
    assert turns[0]["messages"][1]["text"] == "The offset drifts with altitude."
    assert index(cli, "--source", "specstory", str(home / "code"))["files_read"] == 0


def test_long_replies_with_headings_keep_every_prompt_past_100k(
    cli: CLI, project: Path
) -> None:
    """The Markdown notes source cut this at the reply's own headings and capped the
    section at 100,000 characters: 31 prompts became a handful of units, the last lost."""
    filler = "The flow meter reads in litres per minute and rounds down. " * 70
    turns = []
    for n in range(1, 32):
        reply = f"## Step {n}\n\n{filler}\n\n### Why\n\nBecause gauge{n:02d} said so."
        reply += "\n\n---\n\nDone."  # a rule of the reply's own
        if n == 5:  # a quoted label in a fence, with no separator before it, is text
            reply += "\n\nIn the export it looks like:\n\n```\n_**User**_\n\nhello\n```"
        turns.append((f"prompt {n}: tune valve{n:02d} on the flow meter", [reply]))
    text = spring("Flow meter tuning", "2025-04-16 03:33:12", turns)
    assert len(text) > 100_000
    write(project, "2025-04-15_19-33-flow-meter.md", text)

    assert index(cli, "--source", "specstory", str(project))["files_read"] == 1
    [hit] = hits(cli, "valve31")
    assert hit["session"]["turns"] == 31 and hit["match"]["turn"] == 31
    # The header's local time, moved to UTC by the file name's: UTC+8 here.
    assert hit["session"]["started"].startswith("2025-04-15T19:33:12")
    got = read(cli, hit["session"]["id"])
    assert got["total_turns"] == 31
    prompts = [t["messages"][0]["text"] for t in got["turns"]]
    assert prompts == [f"prompt {n}: tune valve{n:02d} on the flow meter" for n in range(1, 32)]
    fifth = got["turns"][4]["messages"]
    assert [m["kind"] for m in fifth] == ["prompt", "reply"]
    assert "_**User**_" in fifth[1]["text"] and "## Step 5" in fifth[1]["text"]


def _cursor_store(home: Path, project: Path) -> StateDb:
    folder = home / ".config" / "Cursor" / "User" / "globalStorage"
    store = StateDb(folder / "state.vscdb")
    store.composer(
        BAROMETER,
        [
            user("b1", "calibrate the barometer against station pressure"),
            agent("b2", "Calibrate against the sea-level station pressure."),
        ],
        name="Barometer calibration",
        workspaceIdentifier={"id": "ws-1", "uri": {"fsPath": str(project), "scheme": "file"}},
    )
    return store


def test_a_cursor_chat_and_its_export_are_one_session(
    cli: CLI, home: Path, project: Path
) -> None:
    """Cursor's own store wins: it is what the export was made from and holds more."""
    store = _cursor_store(home, project)
    parts = ["Calibrate against the sea-level station pressure."]
    write(
        project,
        "2025-12-02_12-49Z-barometer.md",
        current(BAROMETER, "Barometer calibration", "2025-12-02 12:49Z",
                [("2025-12-02 12:49Z", "calibrate the barometer against station pressure",
                  parts)]),
    )  # fmt: skip
    write(
        project,
        "2025-12-03_08-00Z-anemometer.md",
        current(ANEMOMETER, "Anemometer", "2025-12-03 08:00Z",
                [("2025-12-03 08:00Z", "why does the anemometer cup spin backwards", ["Wind."])]),
    )  # fmt: skip
    index(cli)  # Cursor's chat names the project
    report = index(cli)  # and its `.specstory/history` is read
    assert str(project / ".specstory" / "history") in report["roots"]
    [problem] = report["problems"]
    assert problem["path"].endswith("barometer.md")
    assert problem["reason"] == "a copy of a chat indexed from elsewhere"
    assert "Cursor's store" in problem["detail"]
    [one] = hits(cli, "barometer station pressure")
    assert one["session"]["source"] == "cursor"
    [other] = hits(cli, "anemometer cup spin")
    assert other["session"]["id"] == f"specstory-{ANEMOMETER}"
    assert other["session"]["cwd"] == str(project)
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["specstory"]
    assert (listed["files"], listed["sessions"]) == (2, 1)
    store.close()


@pytest.mark.parametrize("named", ["cursoride", "Cursor IDE"])
def test_the_clis_export_of_a_cursor_chat_is_the_same_chat(
    cli: CLI, home: Path, project: Path, named: str
) -> None:
    """SpecStory's CLI names a Cursor IDE chat `cursoride` (or `Cursor IDE`) in its
    session comment: still Cursor's chat, so Cursor's own store wins, and the export
    says Cursor has no command to go back into it."""
    store = _cursor_store(home, project)
    when = "2026-04-19 09:33:07Z"
    turn = [("calibrate the barometer against station pressure", ["Use the sea-level one."])]
    write(project, "2026-04-19_09-33-07Z-barometer.md", cli_export(named, BAROMETER, when, turn))
    other = [("why does the anemometer cup spin backwards", ["Wind."])]
    write(project, "2026-04-19_10-00-00Z-cups.md", cli_export(named, ANEMOMETER, when, other))
    index(cli)
    report = index(cli)
    [problem] = report["problems"]
    assert problem["reason"] == "a copy of a chat indexed from elsewhere"
    assert "Cursor's store" in problem["detail"]
    [one] = hits(cli, "barometer station pressure")
    assert one["session"]["source"] == "cursor"
    resume = cli.json("open", f"specstory-{ANEMOMETER}")["resume"]
    assert not resume["available"] and "Cursor has no command" in resume["reason"]
    store.close()


def test_copies_of_one_session_are_one_session_following_the_fullest(
    cli: CLI, project: Path
) -> None:
    """SpecStory's CLI wrote a session again under a new name and left the old file."""
    when = "2026-01-16 16:26:02Z"
    one = [("the sump pump hums but does not start", ["Check the float switch."])]
    two = [*one, ("the float switch is fine", ["Then the capacitor is gone."])]
    old = write(project, "2026-01-16_16-26-02Z.md", cli_export("Claude Code", PUMP, when, one))
    new = write(
        project, "2026-01-16_16-26-02Z-the-sump-pump.md", cli_export("Claude Code", PUMP, when, two)
    )
    report = index(cli, "--source", "specstory", str(project))
    assert report["files_read"] == 2
    [hit] = hits(cli, "sump pump hums")
    assert hit["session"]["path"] == str(new) and hit["session"]["turns"] == 2

    three = [*two, ("replaced it, it runs", ["Good: log the amp draw in pump.csv."])]
    old.write_text(cli_export("Claude Code", PUMP, when, three))
    index(cli, "--source", "specstory", str(project))
    [hit] = hits(cli, "sump pump hums")
    assert hit["session"]["path"] == str(old) and hit["session"]["turns"] == 3
    assert [h["session"]["path"] for h in hits(cli, "amp draw")] == [str(old)]


def test_going_back_through_the_agent_that_had_the_chat(
    cli: CLI, home: Path, project: Path
) -> None:
    when = "2026-01-16 16:26:02Z"
    pump = [("the sump pump hums but does not start", ["Check the float switch."])]
    write(project, "2026-01-16_16-26-02Z-pump.md", cli_export("Claude Code", PUMP, when, pump))
    write(
        project,
        "2025-12-03_08-00Z-anemometer.md",
        current(ANEMOMETER, "Anemometer", "2025-12-03 08:00Z",
                [("2025-12-03 08:00Z", "why does the anemometer cup spin backwards", ["Wind."])]),
    )  # fmt: skip
    index(cli, "--source", "specstory", str(project))

    gone = cli.json("open", f"specstory-{PUMP}")["resume"]
    assert not gone["available"] and "transcript is not on this machine" in gone["reason"]
    transcript = home / ".claude" / "projects" / "-home-code-kettle" / f"{PUMP}.jsonl"
    transcript.parent.mkdir(parents=True)
    line = {"type": "user", "sessionId": PUMP, "cwd": str(project), "uuid": "u1",
            "message": {"role": "user", "content": "the sump pump hums"}}  # fmt: skip
    transcript.write_text(json.dumps(line) + "\n")
    back = cli.json("open", f"specstory-{PUMP}")["resume"]
    assert back["command"] == ["claude", "--resume", PUMP] and back["cwd"] == str(project)
    assert back["session_id"] == f"specstory-{PUMP}" and "SpecStory" in back["note"]

    cursor = cli.json("open", f"specstory-{ANEMOMETER}")["resume"]
    assert not cursor["available"] and "Cursor has no command" in cursor["reason"]


def test_markdown_notes_leave_specstory_exports_to_their_source(
    cli: CLI, project: Path
) -> None:
    pump = spring("Pump", "2025-04-16 03:33:12", [("prime the pump", ["Primed."])])
    write(project, "2025-04-15_19-33-pump.md", pump)
    (project / "README.md").write_text("# Kettle\n\n## Wiring\n\nThe relay drives the element.\n")
    history = project / ".specstory" / "history"
    report = index(cli, "--source", "markdown", str(history))
    assert report["files_read"] == 0
    assert report["skipped"] == [
        {
            "path": str(history),
            "reason": "SpecStory chat exports: read by the specstory source, not as notes",
        }
    ]
    index(cli, "--source", "markdown", str(project))
    assert hits(cli, "prime the pump") == []
    assert [h["session"]["source"] for h in hits(cli, "relay drives element")] == ["markdown"]
    index(cli, "--source", "specstory", str(project))
    assert [h["session"]["source"] for h in hits(cli, "prime the pump")] == ["specstory"]


def test_no_secret_planted_in_any_part_of_an_export_leaves_a_trace(
    cli: CLI, project: Path
) -> None:
    """Every field an export gives (title, prompt, reply, thinking, each era's tool call
    and output, a tool's file) goes through redaction like any other source's."""
    from test_planted_secrets import _stored
    from test_redaction import LEAKED_KINDS, pieces

    planted = "\n".join(text for _, text, _ in LEAKED_KINDS)
    first = [
        (
            f"deploy with these\n{planted}",
            [
                f"Reading them.\n{planted}",
                listing(f"Listed directory {planted.splitlines()[0]} • **1** results", ["a"]),
                f"Read file: {planted.splitlines()[0]}",
                f"```diff\n+ {planted}\n```",
            ],
        )
    ]
    write(project, "2025-02-19_09-30-first.md", oldest(f"Deploy {planted}", "2/19/2025", first))
    now = [
        (
            "2025-12-02 12:49Z",
            f"and again\n{planted}",
            [
                thinking(f"weighing\n{planted}"),
                tool_use("shell", "Bash", f"Run {planted}", f"**Result:**\n\n```\n{planted}\n```"),
                f"Tool use: **Read** `{planted.splitlines()[0]}`\n\nResult:\n\n{planted}",
            ],
        )
    ]
    write(project, "2025-12-02_12-49Z-now.md", current(ANEMOMETER, f"Now {planted}",
                                                        "2025-12-02 12:49Z", now))  # fmt: skip
    report = index(cli, "--source", "specstory", str(project))
    assert report["sessions_total"] == 2
    assert sum(report["redacted"].values()) >= len(LEAKED_KINDS)
    raw, values = _stored(Path(cli.env["FINDSESSION_DB"]))
    raw, text = raw.lower(), "\n".join(values).lower()
    leaks = [
        f"{name}: {piece!r}"
        for name, _, secrets in LEAKED_KINDS
        for secret in secrets
        for piece in pieces(secret)
        if piece.lower().encode() in raw or piece.lower() in text
    ]
    assert not leaks, f"{len(leaks)} leaks: " + "; ".join(leaks[:5])


def test_one_nul_byte_costs_an_export_nothing_but_that_character(
    cli: CLI, home: Path, project: Path
) -> None:
    turns = [("2025-12-02 12:49Z", "why does the kettle\x00 click twice?", ["The relay bounces."])]
    export = current(PUMP, "Kettle click", "2025-12-02 12:49Z", turns)
    path = write(project, "2025-12-02_12-49Z-kettle-click.md", export)
    assert path.read_bytes().count(b"\x00") == 1  # in its first 4 KB
    report = index(cli, "--source", "specstory", str(project))
    assert report["files_read"] == 1 and report["sessions_changed"] == 1, report
    assert not [s for s in report["skipped"] if "binary" in s["reason"]], report["skipped"]
    (hit,) = hits(cli, "relay bounces")
    assert hit["session"]["id"] == f"specstory-{PUMP}"
    assert read(cli, hit["session"]["id"])["turns"][0]["messages"][0]["text"].startswith(
        "why does the kettle"
    )
