"""The `llm` CLI's `logs.db`, through the real CLI: each conversation one session, its
prompts exactly the typed ones (counted here from the log's own columns), the system
prompt, fragments and tool results kept out of them, calls and a failed one, a
conversation begun in the older tables and carried on in the newer, only the
conversations that changed read again, `llm chat --cid`, a locked or broken log, and
the oldest schema.

The logs were written by the real `llm` against a scripted model on localhost (then
each fragment's source path renamed to `/home/dev/harbour/…`):

- `home/.config/io.datasette.llm/logs.db`: `llm` 0.31 (the `responses` tables) ran a
  lone prompt, a prompt and `-c`, one with `-s`, one with `-f notes.txt`, `-T
  llm_version`, a `--functions` tool and one that raised, and a two-prompt `llm chat`;
  then `llm` 0.36 (the message store) carried the kelp conversation on with `--cid`,
  and ran `-s`, `-f`, a tool then `-c`, and a two-prompt `llm chat`.
- `0.36/logs.db`: the same session of prompts as 0.31's, by 0.36 alone.
- `0.13/logs.db`: `llm` 0.13.1, from before fragments and tools.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI
from test_resume import stand_in

from findsession.sources.llm_logs import file_id

FIXTURES = Path(__file__).parent / "fixtures" / "llm"
KELP = "01m96grckj9mwjn9yrh76y244y"  # begun by 0.31, carried on by 0.36
BAKER = "01m96grgq2hje086gq76t4xhsc"  # -s
NOTES = "01m96grjn6j30a1cfjwrnmf9wp"  # -f
BOILER = "01m96grs27dy2mkrxvjcetfmpk"  # a tool that raised
PILOTS = "01m96gsydpc6n8gc7aw9at16kc"  # 0.36: a tool, then -c
ROTA = "01m96gstr66nbfmmdmdwa4bsv3"  # 0.36: -s


@pytest.fixture
def place(cli: CLI, tmp_path: Path) -> Path:
    """`llm`'s standard user folder under the CLI's home, holding the mixed log."""
    folder = tmp_path / "home" / ".config" / "io.datasette.llm"
    shutil.copytree(FIXTURES / "home" / ".config" / "io.datasette.llm", folder)
    return folder


def sid(db: Path, key: str) -> str:
    return f"{file_id(db)}:{key}"


def index(cli: CLI) -> dict[str, Any]:
    return cli.json("index", "--no-embed")


def hits(cli: CLI, query: str, *more: str) -> list[dict[str, Any]]:
    return cli.json("search", "--mode", "keyword", "--source", "llm", *more, query)["results"]


def prompts(cli: CLI, session: str) -> list[str]:
    turns = cli.json("read", session)["turns"]
    return [m["text"] for t in turns for m in t["messages"] if m["kind"] == "prompt"]


def typed(db: Path) -> dict[str, list[str]]:
    """Each conversation's typed prompts, read without findsession: the older rows'
    `prompt` column, then what `llm` itself keeps searchable of each newer turn's
    prompt (`turn_search.prompt`, fragments left out), in the order they were made."""
    conn = sqlite3.connect(db)
    out: dict[str, list[str]] = {}
    rows = conn.execute(
        "SELECT conversation_id, prompt, datetime_utc FROM responses WHERE prompt != ''"
    ).fetchall()
    if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'turn_search'").fetchone():
        rows += conn.execute(
            "SELECT t.thread_id, s.prompt, t.datetime_utc FROM turns t"
            " JOIN turn_search s ON s.turn_id = t.id WHERE s.prompt != ''"
        ).fetchall()
    conn.close()
    for key, prompt, _ in sorted(rows, key=lambda r: r[2]):
        out.setdefault(key, []).append(prompt.strip())
    return out


def on_disk(folder: Path) -> bytes:
    return hashlib.sha256(
        b"".join(p.read_bytes() for p in sorted(folder.iterdir()) if p.name != "logs.db-shm")
    ).digest()


def test_each_conversation_is_one_session_with_exactly_its_typed_prompts(
    cli: CLI, place: Path
) -> None:
    before = on_disk(place)
    report = index(cli)
    assert str(place) in report["roots"] and report["errors"] == report["problems"] == []
    assert on_disk(place) == before  # llm's log, byte for byte
    db = place / "logs.db"
    expected = typed(db)
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["llm"]
    assert (listed["files"], listed["sessions"]) == (1, len(expected)) == (1, 12)
    for key, said in expected.items():
        assert prompts(cli, sid(db, key)) == said, key
    assert index(cli)["files_read"] == 0


def test_a_conversation_carried_on_is_one_session_across_both_shapes(cli: CLI, place: Path) -> None:
    index(cli)
    db = place / "logs.db"
    assert prompts(cli, sid(db, KELP)) == [
        "Tell me about kelp forests",
        "And what eats the kelp?",
        "Do sea otters eat the kelp?",  # by 0.36, sent the older rows again
    ]
    assert prompts(cli, sid(db, PILOTS)) == [
        "Please multiply the six pilots by seven days",
        "And who takes the night shift?",  # llm -c
    ]
    hit = hits(cli, "sea otters")[0]
    assert hit["session"]["id"] == sid(db, KELP)
    assert hit["session"]["title"] == "Tell me about kelp forests"  # llm's first name


def test_the_system_prompt_fragments_and_tool_output_are_not_prompts(cli: CLI, place: Path) -> None:
    index(cli)
    db = place / "logs.db"
    assert prompts(cli, sid(db, BAKER)) == ["How often should I feed a sourdough starter?"]
    assert prompts(cli, sid(db, NOTES)) == ["Summarise these notes for the ferry crew"]
    assert prompts(cli, sid(db, ROTA)) == ["Plan a rota for the harbour pilots"]
    for words in ("terse", "leaves", "tables", "mornings"):  # only in what llm added
        assert hits(cli, words, "--speaker", "user") == [], words
    # Named by llm after the fragment it was given: no title of the person's.
    notes = hits(cli, "ferry crew")[0]
    assert notes["session"]["title"] == "Summarise these notes for the ferry crew"


def test_calls_results_and_a_failed_call(cli: CLI, place: Path) -> None:
    index(cli)
    db = place / "logs.db"
    messages = cli.json("read", sid(db, BOILER), "--tools")["turns"][0]["messages"]
    assert [(m["kind"], m["tool"], m["is_error"]) for m in messages] == [
        ("prompt", None, False),
        ("tool_call", "explode", False),
        ("tool_output", "explode", True),
        ("reply", None, False),
    ]
    assert messages[1]["text"] == "reason: pressure"
    assert messages[2]["text"] == "Error: boiler pressure"
    newer = cli.json("read", sid(db, PILOTS), "--tools")["turns"][0]["messages"]
    assert [(m["kind"], m["tool"]) for m in newer] == [
        ("prompt", None),
        ("tool_call", "multiply"),
        ("tool_output", "multiply"),
        ("reply", None),
    ]
    assert newer[2]["text"] == "42"


def test_resume_is_llm_chat_with_the_conversation_id(cli: CLI, place: Path, tmp_path: Path) -> None:
    index(cli)
    hit = hits(cli, "sourdough starter")[0]
    assert hit["resume"]["command"] == ["llm", "chat", "--cid", BAKER]
    assert hit["resume"]["cwd"] is None  # llm records no folder
    elsewhere = tmp_path / "copy" / "logs.db"
    elsewhere.parent.mkdir()
    shutil.copy(FIXTURES / "0.36" / "logs.db", elsewhere)
    cli.run("index", "--no-embed", "--source", "llm", str(elsewhere))
    found = [h for h in hits(cli, "sourdough starter") if h["session"]["id"].startswith(
        file_id(elsewhere))]  # fmt: skip
    assert found[0]["resume"]["command"][:3] == ["llm", "chat", "--cid"]
    assert found[0]["resume"]["command"][4:] == ["--database", str(elsewhere)]


def test_open_runs_llm_from_any_folder(cli: CLI, place: Path, tmp_path: Path) -> None:
    """llm finds a conversation by its id wherever it runs, and records no folder: `open`
    runs it where the person is, and neither it nor `--print` warns of a missing folder."""
    index(cli)
    found = hits(cli, "sourdough starter")[0]["session"]["id"]
    assert cli.json("open", found)["resume"]["anywhere"] is True
    printed = cli.run("open", found, "--print")
    assert printed.stdout.split() == ["llm", "chat", "--cid", BAKER]
    assert "warning" not in printed.stderr
    record = stand_in(cli, tmp_path, "llm")
    ran = cli.run("open", found, check=False)
    assert ran.returncode == 7, ran.stderr  # llm took the process over
    assert json.loads(record.read_text())["argv"] == ["chat", "--cid", BAKER]


def test_only_the_conversation_llm_changed_is_read_again(cli: CLI, place: Path) -> None:
    index(cli)
    db = place / "logs.db"
    conn = sqlite3.connect(db)
    conn.execute(
        "INSERT INTO responses (id, model, prompt, response, conversation_id, datetime_utc)"
        " VALUES ('01m96h0000000000000000000a', 'scripted', 'Which keepers log the fog?',"
        " 'The keepers on the north light log it hourly.', '01m96grakt2gdg7vbw1pcf7gsv',"
        " '2026-12-06T21:00:00.000000+00:00')"
    )
    conn.commit()
    conn.close()
    report = index(cli)
    assert (report["files_read"], report["lines_read"], report["sessions_changed"]) == (1, 1, 1)
    hit = hits(cli, "keepers fog")[0]
    assert hit["session"]["id"] == sid(db, "01m96grakt2gdg7vbw1pcf7gsv")


def test_a_locked_or_broken_log_is_one_line_and_the_run_goes_on(
    cli: CLI, place: Path, tmp_path: Path
) -> None:
    db = place / "logs.db"
    llm = sqlite3.connect(db, isolation_level=None)
    llm.execute("BEGIN EXCLUSIVE")
    report = index(cli)
    [error] = report["errors"]
    assert error["path"] == str(db) and "locked" in error["error"] and "\n" not in error["error"]
    llm.execute("ROLLBACK")
    llm.close()
    assert index(cli)["files_read"] == 1
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "logs.db").write_bytes(b"SQLite format 3\x00" + b"\x07" * 4000)
    cli.env["LLM_USER_PATH"] = str(broken)
    report = index(cli)
    [error] = report["errors"]
    assert error["path"] == str(broken / "logs.db") and "\n" not in error["error"]
    assert len(hits(cli, "kelp")) == 1  # what was read before stays


def read_alone(cli: CLI, tmp_path: Path, version: str, conversations: int) -> None:
    """The log `llm` `version` wrote, as `LLM_USER_PATH`: every conversation a session
    with exactly its typed prompts."""
    folder = tmp_path / f"llm-{version}"
    shutil.copytree(FIXTURES / version, folder)
    cli.env["LLM_USER_PATH"] = str(folder)
    report = index(cli)
    assert report["errors"] == report["problems"] == []
    expected = typed(folder / "logs.db")
    assert len(expected) == conversations
    for key, said in expected.items():
        assert prompts(cli, sid(folder / "logs.db", key)) == said


def test_the_oldest_schema_is_read(cli: CLI, tmp_path: Path) -> None:
    read_alone(cli, tmp_path, "0.13", 4)
    hit = hits(cli, "sourdough")[0]
    assert prompts(cli, hit["session"]["id"]) == ["How often should I feed a sourdough starter?"]
    # 0.13 wrote its times without an offset: they are UTC.
    assert hit["session"]["started"].startswith("2026-12-06T20:29:59")


def test_the_newer_store_alone_is_read(cli: CLI, tmp_path: Path) -> None:
    read_alone(cli, tmp_path, "0.36", 8)
    hit = hits(cli, "tool are you running")[0]
    messages = cli.json("read", hit["session"]["id"], "--tools")["turns"][0]["messages"]
    assert [(m["kind"], m["tool"]) for m in messages][1:3] == [
        ("tool_call", "llm_version"),
        ("tool_output", "llm_version"),
    ]
