"""Sourcegraph Cody's chats, through the real CLI: the VS Code extension's history in the
editor's global state, the JetBrains plugin's in its agent's files, an export named as a
root; read by chat where a chat changed, never written.

No Cody can run here (its extension comes from the editor's marketplace, and its models
from Sourcegraph's servers), so the fixtures are written by hand in the exact shape
Cody's own code writes (its `LocalStorageProvider`, `ChatBuilder`,
`serializeChatMessage`, `AgenticHandler`, the agent's `AgentGlobalState`), with made-up
words: `fixtures/cody/vscode-state.json` is the value of VS Code's `ItemTable` row
`sourcegraph.cody-ai` (two accounts; a titled chat with an `@`-mention, retrieved context
and a reply that thinks first; an agent-mode chat that creates a file, runs a command
that fails and runs it again; a Deep Cody chat with a tool step the person rejected; a
chat still waiting for its reply), `insiders-state-2023.json` a 2023 install's (the first
month's flat history left behind, and the unscoped history with a time per
interaction), `agent/Cody-nodejs/JetBrains-globalState/` the agent's files, and
`cody-chat-history-*.json` the history panel's download. The tests put each row into a
`state.vscdb` with VS Code's one table, in WAL mode as the editor runs it, and count
what the index holds against `cody_counts`, which reads the same files without
findsession.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
from cody_counts import count_file
from conftest import CLI, FIXTURES
from cursor_store import StateDb
from test_committed_stores import git, name_the_project, repository
from test_planted_secrets_sources import _plant, leaks
from test_redaction import LEAKED_KINDS

FIXTURE = FIXTURES / "cody"
ROW = "sourcegraph.cody-ai"
EXPORT = "cody-chat-history-2025-03-22T17-12-00.json"
DEV = "f234"  # the short hash of the account `https://sourcegraph.com/-dev`
#: The counter's name for each kind of message the index holds.
_COUNTED = {
    "prompt": "prompts",
    "reply": "replies",
    "thinking": "thinking",
    "tool_call": "tool_calls",
    "tool_output": "tool_results",
}


def state(name: str) -> dict[str, Any]:
    return json.loads((FIXTURE / name).read_text(encoding="utf-8"))


def put(db: Path, value: Any) -> StateDb:
    """The editor's connection, left open, after writing Cody's row as VS Code does
    (the whole object as compact JSON text)."""
    editor = StateDb(db, tables=("ItemTable",))
    editor.item("workbench.panel.markers.hidden", "true")
    editor.item(ROW, value if isinstance(value, str) else json.dumps(value, separators=(",", ":")))
    return editor


@pytest.fixture
def home(cli: CLI) -> Path:
    home = Path(cli.env["HOME"])
    for app, name in (
        ("Code", "vscode-state.json"),
        ("Code - Insiders", "insiders-state-2023.json"),
    ):
        put(db_of(home, app), state(name)).close()
    shutil.copytree(FIXTURE / "agent" / "Cody-nodejs", home / ".local" / "share" / "Cody-nodejs")
    return home


def db_of(home: Path, app: str = "Code") -> Path:
    return home / ".config" / app / "User" / "globalStorage" / "state.vscdb"


def index(cli: CLI, *args: str) -> dict[str, Any]:
    return cli.json("index", "--no-embed", *args)


def hits(cli: CLI, query: str) -> list[dict[str, Any]]:
    return cli.json("search", "--mode", "keyword", "--source", "cody", query)["results"]


def session(cli: CLI, query: str) -> dict[str, Any]:
    return hits(cli, query)[0]["session"]


def messages(cli: CLI, sid: str, *flags: str) -> list[dict[str, Any]]:
    turns = cli.json("read", sid, "--tools", *flags)["turns"]
    return [m for t in turns for m in t["messages"]]


def indexed_counts(cli: CLI, db: Path, path: Path) -> Counter[str]:
    """What the index holds from one file, counted by kind over each of its sessions
    (their ids from the index, their messages through `read`)."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        ids = [
            r[0] for r in con.execute("SELECT id FROM sessions WHERE file_path = ?", (str(path),))
        ]
    finally:
        con.close()
    counts: Counter[str] = Counter(chats=len(ids))
    for sid in ids:
        for m in messages(cli, sid):
            counts[_COUNTED[m["kind"]]] += 1
    return counts


def prompt_files(db: Path, sid: str) -> list[list[str] | None]:
    """The files the index keeps with each prompt of a session, in order."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = con.execute(
            "SELECT files FROM messages WHERE session_id = ? AND kind = 'prompt' ORDER BY line",
            (sid,),
        ).fetchall()
    finally:
        con.close()
    return [json.loads(r[0]) if r[0] else None for r in rows]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_every_chat_of_every_place_is_indexed_as_an_independent_count_gives(
    cli: CLI, home: Path, db_path: Path
) -> None:
    report = index(cli)
    places = [str(db_of(home).parent), str(db_of(home, "Code - Insiders").parent)]
    assert set(places + [str(home / ".local" / "share" / "Cody-nodejs")]) <= set(report["roots"])
    assert (report["files_read"], report["errors"], report["problems"]) == (3, [], [])
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["cody"]
    assert (listed["files"], listed["sessions"]) == (3, 8)
    files = [db_of(home), db_of(home, "Code - Insiders")]
    files.append(home / ".local/share/Cody-nodejs/JetBrains-globalState/cody-local-chatHistory-v2")
    expected = sum((count_file(f) for f in files), Counter())
    assert expected == Counter(
        chats=8, prompts=10, replies=11, thinking=1, tool_calls=5, tool_results=4
    )  # the fixtures as written: what the counter reads there
    for path in files:
        assert indexed_counts(cli, db_path, path) == count_file(path), path
    assert index(cli)["files_read"] == 0  # nothing changed: each file costs a stat


def test_a_chat_gives_its_title_time_folder_mentions_and_thinking(
    cli: CLI, home: Path, db_path: Path
) -> None:
    index(cli)
    valves = session(cli, "valve timings drift midnight")
    assert valves["id"].startswith("cody-") and valves["id"].endswith(f":20250303T091502Z-{DEV}")
    assert (valves["title"], valves["cwd"]) == ("Valve timings drift", "/home/dev/orchard")
    assert valves["started"] == "2025-03-03T09:15:02.000Z"  # the chat's id: when it began
    assert valves["path"] == str(db_of(home))
    said = messages(cli, valves["id"])
    assert [m["kind"] for m in said] == ["prompt", "reply", "prompt", "thinking", "reply"]
    assert said[0]["text"] == "@valves.py why do the valve timings drift after midnight?"
    assert said[3]["text"].startswith("The drift comes from naive datetimes")
    assert said[4]["text"].startswith("Use `datetime.now(timezone.utc)`")
    # The file the person mentioned is the prompt's; the one Cody retrieved is not, and
    # neither file's text is indexed as the conversation's.
    assert prompt_files(db_path, valves["id"]) == [["/home/dev/orchard/src/valves.py"], None]
    assert hits(cli, "VALVE_OPEN_MINUTES") == []


def test_agent_mode_calls_results_a_failed_command_and_blame(cli: CLI, home: Path) -> None:
    index(cli)
    greet = session(cli, "greeting script")
    said = messages(cli, greet["id"])
    assert [(m["kind"], m["tool"]) for m in said] == [
        ("prompt", None),
        ("reply", None),
        ("tool_call", "text_editor"),
        ("tool_output", "text_editor"),
        ("reply", None),
        ("tool_call", "run_terminal_command"),
        ("tool_output", "run_terminal_command"),
        ("tool_call", "run_terminal_command"),
        ("tool_output", "run_terminal_command"),
        ("reply", None),
    ]  # the messages that held only results are no prompts: one turn
    assert [m["is_error"] for m in said if m["kind"] == "tool_output"] == [False, True, False]
    assert "python: not found" in said[6]["text"]
    [write] = cli.json("blame", "/home/dev/orchard/greet.py")["writers"]
    assert (write["session"]["id"], write["tool"], write["op"]) == (
        greet["id"],
        "text_editor",
        "create",
    )
    assert write["added"] == ["print('hello from the orchard')"]


def test_deep_codys_steps_and_a_reply_not_yet_saved(cli: CLI, home: Path) -> None:
    index(cli)
    frost = session(cli, "frost alert threshold")
    said = messages(cli, frost["id"])
    assert [(m["kind"], m["tool"], m["is_error"]) for m in said] == [
        ("prompt", None, False),
        ("tool_call", "Code Search", False),
        ("tool_call", "Terminal", False),
        ("tool_output", "Terminal", True),
        ("reply", None, False),
    ]
    assert frost["title"] == "where is the frost alert threshold configured?"  # no chatTitle
    waiting = session(cli, "irrigation log")
    assert [m["kind"] for m in messages(cli, waiting["id"])] == ["prompt"]


def test_two_accounts_the_2023_layouts_and_the_jetbrains_agent(cli: CLI, home: Path) -> None:
    index(cli)
    work = session(cli, "greenhouse sensor feed")
    assert work["id"].endswith(":20250214T164510Z-a61c") and work["title"] == "Sensor feed owner"
    first = session(cli, "water seedlings flooding")  # the first month's flat list
    assert first["id"].endswith(":20230328T100000Z") and first["path"] == str(
        db_of(home, "Code - Insiders")
    )
    assert [m["kind"] for m in messages(cli, first["id"])] == ["prompt", "reply"]
    old = session(cli, "rows helper planter")
    said = messages(cli, old["id"])
    # 2023: what the person typed is `displayText` (its `text` was the prompt Cody
    # built), and each interaction keeps its own time.
    assert said[0]["text"] == "explain the rows helper in planter.py"
    assert (old["started"], old["ended"]) == (
        "2023-09-13T07:20:11.204Z",
        "2023-09-13T07:24:40.512Z",
    )
    assert hits(cli, "snippet") == []  # the context Cody sent is not the conversation
    jetbrains = session(cli, "gradle weather station JDK")
    assert jetbrains["path"].endswith("JetBrains-globalState/cody-local-chatHistory-v2")


def test_a_changed_chat_is_read_again_alone_and_nothing_is_written(cli: CLI, home: Path) -> None:
    index(cli)
    value = state("vscode-state.json")
    chats = value["cody-local-chatHistory-v2"]["https://sourcegraph.com/-dev"]["chat"]
    valves = chats["Mon, 03 Mar 2025 09:15:02 GMT"]
    valves["interactions"].append(
        {
            "humanMessage": {"speaker": "human", "text": "and for the pear saplings?"},
            "assistantMessage": {"speaker": "assistant", "text": "The same fix covers them."},
        }
    )
    value["cody-model-preferences"] = {}
    editor = put(db_of(home), value)  # the editor running: its commit waits in -wal
    wal = db_of(home).with_name("state.vscdb-wal")
    before = (digest(db_of(home)), digest(wal))
    report = index(cli)
    assert (report["files_read"], report["sessions_changed"], report["lines_read"]) == (1, 1, 1)
    assert (digest(db_of(home)), digest(wal)) == before  # nothing written
    assert session(cli, "pear saplings")["id"].endswith(f":20250303T091502Z-{DEV}")
    editor.close()
    # Another key of Cody's state moved, no chat did: the file is read, no chat is.
    value["cody-last-used-chat-modality"] = "editor"
    put(db_of(home), value).close()
    report = index(cli)
    assert (report["files_read"], report["sessions_changed"], report["lines_read"]) == (1, 0, 0)


def test_bad_values_are_one_problem_each_and_cost_nothing_else(cli: CLI, home: Path) -> None:
    value = state("vscode-state.json")
    accounts = value["cody-local-chatHistory-v2"]
    accounts["https://cody.example.com/-dev"]["chat"]["broken"] = {
        "id": "broken",
        "interactions": 7,
    }
    put(db_of(home), value).close()
    put(db_of(home, "Code - Insiders"), "{not json").close()
    report = index(cli)
    found = sorted(
        (Path(p["path"]).parts[-4], p["reason"].split(":")[0]) for p in report["problems"]
    )
    assert found == [
        ("Code", "a chat whose interactions are not a list"),
        ("Code - Insiders", "malformed Cody history JSON"),
    ]
    assert report["errors"] == [] and report["files_read"] == 3
    assert session(cli, "sensor feed owner")  # the broken chat's neighbour is read
    # Another extension's row changed, Cody's did not: its value is not parsed again,
    # and what it holds is not reported again.
    editor = StateDb(db_of(home), tables=("ItemTable",))
    editor.item("workbench.panel.markers.hidden", "false")
    editor.close()
    report = index(cli)
    assert (report["files_read"], report["problems"], report["lines_read"]) == (0, [], 0)


def test_an_export_named_as_a_root_and_no_command_resumes(cli: CLI, tmp_path: Path) -> None:
    place = tmp_path / "downloads"
    place.mkdir()
    shutil.copy(FIXTURE / EXPORT, place / EXPORT)
    report = index(cli, "--source", "cody", str(place))
    assert (report["files_read"], report["problems"]) == (1, [])
    hit = hits(cli, "beehive inspection")[0]
    assert hit["session"]["id"].endswith(":20250322T171000Z")
    assert hit["session"]["title"] == "Beehive inspection"
    assert count_file(place / EXPORT)["prompts"] == 1
    resume = hit["resume"]
    assert resume["available"] is False and "Cody: Chat History" in resume["reason"]


def test_read_raw_reads_the_database_back(cli: CLI, home: Path) -> None:
    index(cli)
    sid = session(cli, "greeting script")["id"]
    assert messages(cli, sid, "--raw") == messages(cli, sid)


def test_no_secret_planted_in_any_field_of_the_stores_leaves_a_trace(
    cli: CLI, tmp_path: Path
) -> None:
    """Every kind of secret appended to every text of the two editors' states, the
    agent's file and a JetBrains project's history (a folder named after a token under
    every path): none reaches the index."""
    home = Path(cli.env["HOME"])
    for app, name in (
        ("Code", "vscode-state.json"),
        ("Code - Insiders", "insiders-state-2023.json"),
    ):
        put(db_of(home, app), _plant(state(name))).close()
    agent = home / ".local" / "share" / "Cody-nodejs" / "JetBrains-globalState"
    agent.mkdir(parents=True)
    history = (
        FIXTURE / "agent" / "Cody-nodejs" / "JetBrains-globalState" / "cody-local-chatHistory-v2"
    )
    planted = _plant(json.loads(history.read_text(encoding="utf-8")))
    (agent / "cody-local-chatHistory-v2").write_text(json.dumps(planted), encoding="utf-8")
    report = index(cli)
    assert report["sessions_total"] == 8 and report["problems"] == []
    assert sum(report["redacted"].values()) >= len(LEAKED_KINDS), report["redacted"]
    station = project(tmp_path, "station")
    xml = ElementTree.parse(station / ".idea" / "cody_history.xml")
    for element in xml.iter():
        if " " in element.get("value", ""):
            element.set("value", _plant(element.get("value")))
    xml.write(station / ".idea" / "cody_history.xml", encoding="UTF-8", xml_declaration=True)
    report = index(cli, "--source", "cody", str(station))
    assert report["sessions_changed"] == 1 and report["problems"] == []
    assert sum(report["redacted"].values()) >= len(LEAKED_KINDS), report["redacted"]
    assert not leaks(Path(cli.env["FINDSESSION_DB"]))


def project(tmp_path: Path, name: str, fixture: str = "jetbrains-project") -> Path:
    folder = tmp_path / "home" / "code" / name
    shutil.copytree(FIXTURE / fixture, folder)
    return folder


def test_a_jetbrains_project_history_named_or_found_in_a_known_project(
    cli: CLI, tmp_path: Path, db_path: Path
) -> None:
    """The plugin's own history of 2024: a project named as a root, and one found
    because another agent's session ran in it (from the run after)."""
    cli.env["TZ"] = "UTC"  # `updatedAt` is the IDE's local time
    early = project(tmp_path, "anemometer", "jetbrains-project-early")
    report = index(cli, "--source", "cody", str(early))
    xml = early / ".idea" / "cody_history.xml"
    assert (report["files_read"], report["problems"]) == (1, [])
    knots = session(cli, "anemometer pulses knots")
    assert knots["id"].endswith(":0a9b8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d")
    assert (knots["cwd"], knots["started"]) == (str(early), "2024-02-20T11:00:02.250Z")
    assert (
        indexed_counts(cli, db_path, xml)
        == count_file(xml)
        == Counter(chats=1, prompts=1, replies=1)
    )  # the chat with no message is none
    station = project(tmp_path, "weather-station")
    name_the_project(cli, station, "3d5e7f90-0000-4000-8000-00000000c0d1")
    index(cli)
    index(cli)  # the run after the project's first session looks inside it
    xml = station / ".idea" / "cody_history.xml"
    barometer = session(cli, "barometer heater")
    assert barometer["path"] == str(xml) and barometer["cwd"] == str(station)
    assert barometer["title"] == "why does the barometer reading jump when the heater starts?"
    assert barometer["started"] == "2024-06-12T09:41:07.512Z"  # the account's copy
    said = messages(cli, barometer["id"])
    assert [m["kind"] for m in said] == ["prompt", "reply", "prompt", "reply"]
    # As the plugin stored it: the person's text with its HTML entities, Cody's without.
    assert said[2]["text"].endswith("if (heater_on &amp;&amp; t &lt; 5) skip();")
    assert "if (heater_on && t < 5)" in said[3]["text"]
    assert (
        indexed_counts(cli, db_path, xml)
        == count_file(xml)
        == Counter(chats=1, prompts=2, replies=2)
    )


def test_a_committed_jetbrains_history_is_left_out(cli: CLI, tmp_path: Path) -> None:
    """A cloned project whose repository ships `.idea/cody_history.xml` holds someone
    else's chats: left out and named, as every store kept in a project."""
    cloned = repository(tmp_path / "home" / "code" / "cloned")
    shutil.copytree(FIXTURE / "jetbrains-project" / ".idea", cloned / ".idea")
    git(cloned, "add", ".idea/cody_history.xml")
    name_the_project(cli, cloned, "3d5e7f90-0000-4000-8000-00000000c0d2")
    index(cli)
    report = index(cli)
    [reason] = [s["reason"] for s in report["skipped"] if s["path"].endswith("cody_history.xml")]
    assert f"committed to the git repository at {cloned}" in reason
    assert hits(cli, "barometer heater") == []
    notes = {s["kind"]: s["notes"] for s in cli.json("sources")["sources"]}["cody"]
    assert f"{cloned}/.idea/cody_history.xml: committed to its git repository (left out)" in notes


def test_a_malformed_project_history_is_one_problem(cli: CLI, tmp_path: Path) -> None:
    broken = tmp_path / "home" / "code" / "broken"
    (broken / ".idea").mkdir(parents=True)
    (broken / ".idea" / "cody_history.xml").write_text("<project><component name=")
    report = index(cli, "--source", "cody", str(broken))
    [problem] = report["problems"]
    assert problem["reason"].startswith("malformed cody_history.xml")


@pytest.mark.parametrize("encoding", ["TF-8", "UTF-16", "x" * 300])
def test_a_history_declaring_an_encoding_it_is_not_in_is_one_problem(
    cli: CLI, tmp_path: Path, encoding: str
) -> None:
    """A declaration cut or garbled (`TF-8`, found by fuzzing) named an encoding the
    parser looked up and raised on, ending the read of the store."""
    broken = tmp_path / "home" / "code" / "garbled"
    (broken / ".idea").mkdir(parents=True)
    xml = f'<?xml version="1.0" encoding="{encoding}"?>\n<project version="4"></project>\n'
    (broken / ".idea" / "cody_history.xml").write_text(xml)
    report = index(cli, "--source", "cody", str(broken))
    [problem] = report["problems"]
    assert problem["reason"].startswith("malformed cody_history.xml")
    assert report["failed"] is None
