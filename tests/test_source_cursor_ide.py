"""The Cursor IDE's chats (and Windsurf's older chat panel): one SQLite database holding
many chats, read only where a chat changed, never written, through the real CLI.

The databases are built by `cursor_store` from the documented format: the editor's
`globalStorage/state.vscdb` with current composers (a titled one with thinking, a tool
call and its output; a subagent naming its parent; one placed only by its workspace
id; one holding a planted token; an untouched draft; one whose value does not parse),
and a workspace's own `state.vscdb` with the older layouts (a composer with its bubbles
inline, a chat panel tab).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI
from cursor_store import T0, StateDb, agent, tool, user, workspace

ORCHARD = "0b7c5e2a-1111-4c3d-9e8f-000000000001"
SCOUT = "0b7c5e2a-2222-4c3d-9e8f-000000000002"
GREENHOUSE = "0b7c5e2a-3333-4c3d-9e8f-000000000003"
VAULT = "0b7c5e2a-4444-4c3d-9e8f-000000000004"
DRAFT = "0b7c5e2a-5555-4c3d-9e8f-000000000005"
BROKEN = "0b7c5e2a-6666-4c3d-9e8f-000000000006"
HIVE = "3f1d9a7c-7777-4b2e-8c1d-000000000007"
STARTER = "tab-8888-sourdough"
STARTER_SENT = 1731818231743  # 2024-11-17T04:37:11.743Z
KITE = "tab-9999-kites"
TOKEN = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"


@dataclass
class Places:
    user: Path
    editor_db: Path
    workspace_db: Path


def build(home: Path) -> Places:
    """The fixture databases in the CLI's `~/.config/Cursor/User`."""
    folder = home / ".config" / "Cursor" / "User"
    editor = StateDb(folder / "globalStorage" / "state.vscdb")
    orchard = {"id": "ws-orchard", "uri": {"fsPath": "/home/dev/orchard", "scheme": "file"}}
    editor.composer(
        ORCHARD,
        [
            user("o1", "how should the drip irrigation schedule for the apple orchard work"),
            agent("o2", "Weighing evapotranspiration against soil type", isThought=True),
            tool("o3", "read_file", {"target_file": "src/irrigation.py"}, "VALVE_TIMINGS = {}"),
            agent("o4", "Each valve opens at dawn for twenty minutes per row."),
        ],
        name="Orchard drip irrigation",
        workspaceIdentifier=orchard,
    )
    editor.composer(
        SCOUT,
        [user("s1", "survey the soil moisture probes"), agent("s2", "Three probes read dry.")],
        name="Soil survey",
        subagentInfo={"parentComposerId": ORCHARD},
        workspaceIdentifier=orchard,
    )
    editor.composer(
        GREENHOUSE,
        [
            user("g1", "greenhouse tomatoes need ventilation on hot afternoons"),
            {"bubbleId": "g2", "type": 30, "text": "a kind of bubble not known here"},
            agent("g2b", "Open the roof vents above thirty degrees."),
        ],
        workspaceIdentifier={"id": "ws-orchard"},
    )
    editor.composer(
        VAULT,
        [user("v1", f"the deploy token is {TOKEN} keep it"), agent("v2", "Noted the vault.")],
    )
    editor.composer(DRAFT, [], name="New Chat")
    editor.put(f"composerData:{BROKEN}", '{"composerId": "' + BROKEN + '", "name": "bro')
    editor.item("workbench.view.extensions.state", {"unrelated": True})
    editor.close()

    storage = workspace(folder / "workspaceStorage" / "ws-orchard", "/home/dev/orchard")
    older = StateDb(storage / "state.vscdb")
    older.item(
        "composer.composerData",
        {
            "allComposers": [
                {
                    "composerId": HIVE,
                    "name": "Beehive inspection",
                    "createdAt": T0 - 86_400_000,
                    "conversation": [
                        user("h1", "when should I inspect the beehive frames"),
                        agent("h2", "Inspect the hive frames every seven days in spring."),
                    ],
                },
                {"composerId": ORCHARD, "name": "Orchard drip irrigation"},  # names only
            ]
        },
    )
    older.item(
        "workbench.panel.aichat.view.aichat.chatdata",
        {
            "tabs": [
                {
                    "tabId": STARTER,
                    "chatTitle": "Sourdough starter",
                    "lastSendTime": STARTER_SENT,
                    "bubbles": [
                        {"type": "user", "text": "my sourdough starter smells of acetone"},
                        {"type": "ai", "rawText": "Feed the sourdough starter twice a day."},
                    ],
                }
            ]
        },
    )
    # Cursor's history of what was typed here: one prompt of the tab above, two whose
    # chats are elsewhere (the editor's database) or gone.
    older.item(
        "aiService.prompts",
        [
            {"text": "my sourdough starter smells of acetone", "commandType": 4},
            {"text": "prune the espalier pear", "commandType": 2},
            {"text": "graft the quince", "commandType": 2},
        ],
    )
    older.close()
    return Places(folder, folder / "globalStorage" / "state.vscdb", storage / "state.vscdb")


@pytest.fixture
def places(cli: CLI) -> Places:
    home = Path(cli.env["HOME"])
    cli.env["XDG_CONFIG_HOME"] = str(home / ".config")
    return build(home)


def index(cli: CLI, *args: str) -> dict[str, Any]:
    return cli.json("index", "--no-embed", *args)


def hits(cli: CLI, query: str) -> list[dict[str, Any]]:
    return cli.json("search", "--mode", "keyword", "--source", "cursor", query)["results"]


def found(cli: CLI, query: str) -> list[str]:
    return [h["session"]["id"].split(":", 1)[1] for h in hits(cli, query)]


def session_id(cli: CLI, query: str) -> str:
    return hits(cli, query)[0]["session"]["id"]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_the_editors_databases_are_indexed_and_an_unchanged_one_costs_a_stat(
    cli: CLI, places: Places
) -> None:
    report = index(cli)
    assert str(places.user / "globalStorage") in report["roots"]
    assert str(places.user / "workspaceStorage") in report["roots"]
    assert report["files_read"] == 2 and report["errors"] == []
    reasons = sorted(p["reason"] for p in report["problems"])
    assert reasons[0] == "aiService.prompts not indexed"  # the test below says more
    assert reasons[1].startswith("malformed composer JSON") and reasons[2:] == [
        "unknown message type"
    ]
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["cursor"]
    assert (listed["files"], listed["sessions"], listed["subagents"]) == (2, 5, 1)
    assert listed["notes"] == []
    assert index(cli)["files_read"] == 0
    assert found(cli, "New Chat") == []  # the untouched draft is no session


def test_a_composer_gives_its_title_folder_prompts_replies_thinking_and_tools(
    cli: CLI, places: Places
) -> None:
    index(cli)
    session = hits(cli, "drip irrigation apple orchard")[0]["session"]
    assert session["id"].startswith("cursor-") and session["id"].endswith(f":{ORCHARD}")
    assert session["title"] == "Orchard drip irrigation"
    assert session["cwd"] == "/home/dev/orchard"
    assert session["started"] == "2025-12-29T09:20:00.000Z"  # the composer's createdAt
    assert session["path"] == str(places.editor_db)
    assert found(cli, "VALVE_TIMINGS") == [ORCHARD]  # the tool's output
    messages = cli.json("read", session["id"], "--tools")["turns"][0]["messages"]
    assert [(m["kind"], m["tool"]) for m in messages] == [
        ("prompt", None),
        ("thinking", None),
        ("tool_call", "read_file"),
        ("tool_output", "read_file"),
        ("reply", None),
    ]
    assert "target_file: src/irrigation.py" in messages[2]["text"]
    raw = cli.json("read", session["id"], "--raw", "--tools")
    assert raw["turns"] == cli.json("read", session["id"], "--tools")["turns"]


def test_a_subagent_composer_is_linked_to_its_parent_and_nothing_resumes(
    cli: CLI, places: Places
) -> None:
    index(cli)
    parent = session_id(cli, "drip irrigation")
    child = hits(cli, "soil moisture probes")[0]["session"]
    assert child["subagent"] is True and child["parent_id"] == parent
    resume = hits(cli, "drip irrigation")[0]["resume"]
    assert resume["available"] is False and "chat history" in resume["reason"]


def test_older_layouts_and_a_folder_named_by_workspace_id(cli: CLI, places: Places) -> None:
    index(cli)
    hive = hits(cli, "beehive frames")[0]["session"]
    assert hive["id"].endswith(f":{HIVE}") and hive["path"] == str(places.workspace_db)
    assert (hive["title"], hive["cwd"]) == ("Beehive inspection", "/home/dev/orchard")
    starter = hits(cli, "sourdough acetone")[0]["session"]
    assert (starter["title"], starter["cwd"]) == ("Sourdough starter", "/home/dev/orchard")
    assert cli.json("read", starter["id"])["turns"][0]["messages"][1]["text"] == (
        "Feed the sourdough starter twice a day."
    )
    greenhouse = hits(cli, "greenhouse ventilation")[0]["session"]
    assert greenhouse["cwd"] == "/home/dev/orchard"  # workspace.json of its workspace id
    assert greenhouse["title"].startswith("greenhouse tomatoes")  # no name: the prompt


def test_a_chat_panel_tab_has_its_last_send_time_and_the_prompt_history_is_named(
    cli: CLI, places: Places
) -> None:
    """A chat panel tab keeps no time but `lastSendTime`: its messages get it, so
    `--after`/`--before` find the tab. `aiService.prompts` is not indexed twice: the
    prompts no chat of the database holds are counted in one problem."""
    report = index(cli)
    starter = hits(cli, "sourdough acetone")[0]["session"]
    assert starter["started"] == "2024-11-17T04:37:11.743Z"
    assert [t["timestamp"] for t in cli.json("read", starter["id"])["turns"]] == [
        "2024-11-17T04:37:11.743Z"
    ]
    after = cli.json("search", "--mode", "keyword", "--after", "2024-11-01", "sourdough acetone")
    assert starter["id"] in [h["session"]["id"] for h in after["results"]]
    before = cli.json("search", "--mode", "keyword", "--before", "2024-11-01", "sourdough")
    assert starter["id"] not in [h["session"]["id"] for h in before["results"]]
    [history] = [p for p in report["problems"] if p["reason"] == "aiService.prompts not indexed"]
    assert history["path"] == str(places.workspace_db)
    assert history["detail"].startswith("2 of 3 prompts typed in this workspace")
    assert not [p for p in index(cli)["problems"] if "aiService" in p["reason"]]


def test_a_message_added_while_cursor_holds_the_database_reads_only_that_chat(
    cli: CLI, places: Places
) -> None:
    index(cli)
    editor = StateDb(places.editor_db)  # Cursor running: its commits wait in -wal
    editor.add_bubble(ORCHARD, user("o5", "also water the pear saplings on Sundays"))
    wal = places.editor_db.with_name("state.vscdb-wal")
    assert wal.stat().st_size > 0
    before = (digest(places.editor_db), digest(wal))
    report = index(cli)
    assert (report["files_read"], report["sessions_changed"]) == (1, 1)
    assert report["lines_read"] == 6  # the one composer and its five bubbles
    assert (digest(places.editor_db), digest(wal)) == before  # nothing written
    assert found(cli, "pear saplings") == [ORCHARD]
    assert found(cli, "moisture probes") == [SCOUT]  # the others stay as they were
    assert cli.json("read", session_id(cli, "pear saplings"))["total_turns"] == 2
    assert index(cli)["files_read"] == 0
    editor.close()


def test_a_locked_database_is_reported_and_read_on_the_next_run(cli: CLI, tmp_path: Path) -> None:
    place = tmp_path / "copy"
    editor = StateDb(place / "state.vscdb", journal="delete")
    editor.composer("c-lock", [user("l1", "lighthouse lens polishing"), agent("l2", "Use felt.")])
    editor.conn.execute("BEGIN EXCLUSIVE")
    editor.put("composerData:other", {"composerId": "other"})
    report = index(cli, "--source", "cursor", str(place))
    [(path, error)] = [(e["path"], e["error"]) for e in report["errors"]]
    assert path == str(place / "state.vscdb") and "locked" in error
    editor.conn.execute("ROLLBACK")
    editor.close()
    assert index(cli, "--source", "cursor", str(place))["files_read"] == 1
    assert found(cli, "lighthouse lens") == ["c-lock"]


def test_a_forgotten_chat_stays_forgotten_while_others_change(cli: CLI, places: Places) -> None:
    index(cli)
    cli.run("forget", session_id(cli, "drip irrigation"))
    editor = StateDb(places.editor_db)
    editor.add_bubble(ORCHARD, user("o5", "also water the pear saplings on Sundays"))
    editor.add_bubble(GREENHOUSE, user("g3", "and shade cloth for the cucumbers"))
    editor.close()
    assert index(cli)["files_read"] == 1
    assert found(cli, "drip irrigation") == [] and found(cli, "pear saplings") == []
    assert found(cli, "shade cloth cucumbers") == [GREENHOUSE]


def test_a_planted_token_is_redacted(cli: CLI, places: Places, db_path: Path) -> None:
    report = index(cli)
    assert sum(report["redacted"].values()) == 1
    assert found(cli, "deploy token vault") == [VAULT]
    assert found(cli, TOKEN) == []
    assert TOKEN.encode() not in db_path.read_bytes()
    vault = session_id(cli, "deploy token vault")
    plain = cli.json("read", vault)["turns"][0]["messages"][0]["text"]
    raw = cli.json("read", vault, "--raw")["turns"][0]["messages"][0]["text"]
    assert TOKEN not in plain and TOKEN in raw  # `--raw` reads the database back


def test_a_database_of_another_kind_is_one_problem(cli: CLI, tmp_path: Path) -> None:
    other = tmp_path / "other" / "state.vscdb"
    other.parent.mkdir()
    conn = sqlite3.connect(other)
    conn.execute("CREATE TABLE notes (body TEXT)")
    conn.commit()
    conn.close()
    report = index(cli, "--source", "cursor", str(other.parent))
    assert report["errors"] == [] and report["sessions_changed"] == 0
    [problem] = report["problems"]
    assert problem["reason"].startswith("not a chat database")


def test_sources_stays_quiet_where_there_is_no_cursor(cli: CLI, tmp_path: Path) -> None:
    cli.env["XDG_CONFIG_HOME"] = str(tmp_path / "home" / ".config")
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}
    for kind in ("cursor", "windsurf"):
        assert [r["exists"] for r in listed[kind]["roots"]] == [False, False]
        assert listed[kind]["files"] == 0 and listed[kind]["notes"] == []
    assert "encrypted" not in cli.run("sources").stdout
    roots = cli.json("index", "--no-embed")["roots"]
    assert not any("Cursor" in root or "Windsurf" in root for root in roots)


def test_windsurfs_older_panel_is_read_and_its_cascade_named_unreadable(
    cli: CLI, tmp_path: Path
) -> None:
    home = Path(cli.env["HOME"])
    cli.env["XDG_CONFIG_HOME"] = str(home / ".config")
    storage = workspace(home / ".config" / "Windsurf" / "User" / "workspaceStorage" / "w1", "/k")
    windsurf = StateDb(storage / "state.vscdb")
    panel = {
        "tabs": [
            {
                "tabId": KITE,
                "chatTitle": "Kite forecast",
                "bubbles": [
                    {"type": "user", "text": "which wind speed suits a nine metre kite"},
                    {"type": "ai", "text": "Fifteen to twenty knots suits a nine metre kite."},
                ],
            }
        ]
    }
    windsurf.item("aiChat.chatdata", json.dumps(panel))
    windsurf.close()
    (home / ".codeium" / "windsurf" / "cascade").mkdir(parents=True)
    (home / ".codeium" / "windsurf" / "cascade" / "f00d.pb").write_bytes(b"\x8a\x01sealed")
    index(cli)
    [hit] = cli.json("search", "--source", "windsurf", "nine metre kite")["results"]
    assert hit["session"]["title"] == "Kite forecast" and hit["session"]["cwd"] == "/k"
    assert hit["resume"]["available"] is False
    [note] = {s["kind"]: s for s in cli.json("sources")["sources"]}["windsurf"]["notes"]
    assert "encrypted" in note
    shown = cli.run("sources").stdout
    assert shown.count("Cascade history") == 1 and "encrypted" in shown


def test_a_user_folder_named_as_cursors_is_read_through_its_two_places(
    cli: CLI, places: Places, tmp_path: Path
) -> None:
    copy = tmp_path / "backup" / "User"
    shutil.copytree(places.user, copy)
    (copy / "globalStorage" / "state.vscdb.backup").write_bytes(places.editor_db.read_bytes())
    report = index(cli, "--source", "cursor", str(copy))
    assert report["files_read"] == 2  # not the backup beside the editor's database
    assert found(cli, "beehive frames") == [HIVE]
    assert hits(cli, "beehive frames")[0]["session"]["path"].startswith(str(copy))


def test_a_database_unchanged_since_it_was_read_is_not_opened_again(
    cli: CLI, places: Places
) -> None:
    """Reading a WAL database leaves an empty `-wal` beside it where there was none (SQLite
    makes one for every reader); that is no change of the database. The proof: the file's
    bytes replaced behind an unchanged size and time go unnoticed, not opened."""
    index(cli)
    db = places.editor_db
    st = db.stat()
    db.write_bytes(b"\x00" * st.st_size)
    os.utime(db, ns=(st.st_atime_ns, st.st_mtime_ns))
    report = index(cli)
    assert (report["files_read"], report["errors"], report["problems"]) == (0, [], [])


def test_a_bubble_kept_only_as_the_editors_state_reads_as_its_text(
    cli: CLI, tmp_path: Path
) -> None:
    """Older chat panels keep a message as the editor's state (`initText`, the Lexical
    editor's JSON: paragraphs of text nodes) with an empty `rawText`: the prompt is the
    text it holds, not the JSON."""
    home = Path(cli.env["HOME"])
    cli.env["XDG_CONFIG_HOME"] = str(home / ".config")
    storage = workspace(home / ".config" / "Cursor" / "User" / "workspaceStorage" / "w2", "/m")

    def paragraph(text: str) -> dict[str, Any]:
        node = {
            "detail": 0,
            "format": 0,
            "mode": "normal",
            "style": "",
            "text": text,
            "type": "text",
            "version": 1,
        }
        return {
            "children": [node],
            "direction": "ltr",
            "format": "",
            "indent": 0,
            "type": "paragraph",
            "version": 1,
        }

    state = {
        "root": {
            "children": [paragraph("why does the mash tun"), paragraph("leak?")],
            "direction": "ltr",
            "format": "",
            "indent": 0,
            "type": "root",
            "version": 1,
        }
    }
    panel = {
        "tabs": [
            {
                "tabId": "tab-7777-mash",
                "chatTitle": "Mash tun",
                "lastSendTime": 1701637651438,
                "bubbles": [
                    {"type": "user", "rawText": "", "initText": json.dumps(state)},
                    {"type": "ai", "text": "The mash tun leaks at its ball valve gasket."},
                ],
            }
        ]
    }
    db = StateDb(storage / "state.vscdb")
    db.item("workbench.panel.aichat.view.aichat.chatdata", json.dumps(panel))
    db.close()
    index(cli)
    [hit] = cli.json("search", "--source", "cursor", "mash tun ball valve")["results"]
    turns = cli.json("read", hit["session"]["id"])["turns"]
    assert turns[0]["messages"][0]["text"] == "why does the mash tun\nleak?"
