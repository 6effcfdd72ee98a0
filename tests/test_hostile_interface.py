"""Hostile input at the interfaces: out-of-range options, empty queries, turn 0, raw
column filters, and terminal escape sequences inside transcripts.

Every refusal is one line that says what to do, with a non-zero exit (CLI) or a tool
error carrying that line (MCP), never a traceback or a bare "Error executing tool".
"""

from __future__ import annotations

import asyncio
import json
import os
import queue
import re
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from conftest import CLI
from test_mcp import call, connect
from transcripts import Transcript, project_dir

SID = "5ac30ab5-1111-4222-8333-944445555666"
HOSTILE = "6b7c8d9e-2222-4333-8444-955556666777"
#: A CLI flag named in a message (`--raw`, `--turn`), which an agent cannot pass.
FLAG = re.compile(r"(?<![\w-])--[a-z]")


@pytest.fixture
def corpus(cli: CLI, tmp_path: Path) -> Path:
    root = Path(cli.env["CLAUDE_CONFIG_DIR"]) / "projects"
    project = tmp_path / "work" / "app"
    project.mkdir(parents=True)
    t = Transcript(session_id=SID, cwd=str(project))
    t.prompt("i have another syncthing conflict, can you look at it and fix.")
    t.reply("The conflict file is notes.sync-conflict-20260611.md; I merged both versions.")
    t.tool("Bash", {"command": "git log -1"}, "commit 3f9c2ab77e0d1c2b3a4f5e6d7c8b9a0f1e2d3c4b")
    t.prompt("thanks, now delete the conflict copy").reply("Deleted.")
    t.title("syncthing-conflict-fix")
    t.write(project_dir(root, str(project)))
    return project


def one_line_refusal(proc, *expected: str) -> str:  # noqa: ANN001 - CompletedProcess
    """The refusal's only line: non-zero exit, no traceback, nothing on stdout."""
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode != 0, proc.stderr
    assert "Traceback" not in proc.stderr and len(lines) == 1, proc.stderr
    assert proc.stdout == ""
    for text in expected:
        assert text in lines[0], lines[0]
    return lines[0]


# -- values beyond what a date or an integer can hold -------------------------------------


@pytest.mark.parametrize(
    "args, expected",
    [
        (["--after", "99999999d"], "--after"),
        (["--before", "99999999999999999999y"], "--before"),
        (["--after", "9" * 5000 + "d"], "--after"),
        (["--after", "0001-01-01T00:00:00+05:00"], "--after"),
        (["--before", "9999-12-31T23:00:00-05:00"], "--before"),
        (["--after", "2026-06-02", "--before", "2026-06-01"], "swap"),
    ],
)
def test_dates_out_of_range_are_refused_in_one_line(
    cli: CLI, corpus: Path, args: list[str], expected: str
) -> None:
    cli.run("index", "--no-embed")
    proc = cli.run("search", "syncthing", *args, check=False)
    line = one_line_refusal(proc, expected)
    assert "use" in line or "swap" in line  # says what to do


@pytest.mark.parametrize("top", ["10000000000000000000", "0", "-3", "1001"])
def test_top_out_of_range_is_refused_in_one_line(cli: CLI, corpus: Path, top: str) -> None:
    cli.run("index", "--no-embed")
    one_line_refusal(cli.run("search", "syncthing", "--top", top, check=False), "--top", "1000")
    assert cli.json("search", "syncthing", "--top", "1000")["results"]


def test_our_errors_reach_the_terminal_as_one_line(cli: CLI, corpus: Path, tmp_path: Path) -> None:
    cli.run("index", "--no-embed")
    # Rich markup in what the user typed is text, not a tag to parse.
    one_line_refusal(cli.run("read", "[/x]", check=False), "no indexed session", "[/x]")
    # A database path with a newline and an escape sequence in it, holding no database.
    odd = tmp_path / "two\nlines\x1b[2J"
    odd.mkdir()
    (odd / "findsession.db").write_bytes(b"this is not sqlite at all" * 100)
    proc = cli.run("status", "--db", str(odd / "findsession.db"), check=False)
    line = one_line_refusal(proc)
    assert "\x1b" not in proc.stderr and "lines" in line


# -- an empty query, turn 0, raw column filters -------------------------------------------


@pytest.mark.parametrize("query", ["", "   ", "\t\n"])
def test_an_empty_query_is_refused(cli: CLI, corpus: Path, query: str) -> None:
    cli.run("index", "--no-embed")
    one_line_refusal(cli.run("search", "--", query, check=False), "query")
    one_line_refusal(cli.run(query, check=False), "query")
    one_line_refusal(cli.run("search", "--json", "--", query, check=False), "query")


@pytest.mark.parametrize("turn", ["0", "-1"])
def test_turns_are_numbered_from_one(cli: CLI, corpus: Path, turn: str) -> None:
    cli.run("index", "--no-embed")
    one_line_refusal(cli.run("read", SID[:8], "--turn", turn, check=False), "--turn", "from 1")


def test_raw_queries_with_a_column_filter_search_the_index_that_has_it(
    cli: CLI, corpus: Path
) -> None:
    cli.run("index", "--no-embed")
    data = cli.json("search", "--raw", "title: syncthing")
    assert [r["session"]["id"] for r in data["results"]] == [SID]
    assert data["strategy"] == "keyword" and not any("rejected" in n for n in data["notes"])
    assert data["results"][0]["match"]["field"] == "title"
    tools = cli.json("search", "--raw", "tools: 3f9c2ab*")
    assert [r["session"]["id"] for r in tools["results"]] == [SID]
    assert tools["results"][0]["match"]["field"] == "tools"
    # A query FTS5 cannot read still falls back with a note, on either index.
    bad = cli.run("search", "--raw", "nosuchcolumn: x", check=False)
    assert "FTS5 rejected the query" in bad.stderr and "Traceback" not in bad.stderr


# -- the same over MCP: tool errors that carry the line, in the tool's own terms ----------


def test_mcp_refusals_carry_the_line_and_name_no_cli_flag(cli: CLI, corpus: Path) -> None:
    cli.run("index", "--no-embed")

    async def go() -> None:
        async with connect(cli, corpus) as client:
            cases = [
                ("search_conversation", {"query": "x", "after": "99999999d"}, "after"),
                ("search_conversation", {"query": "x", "before": "9" * 5000 + "d"}, "before"),
                (
                    "search_conversation",
                    {"query": "x", "after": "2026-06-02", "before": "2026-06-01"},
                    "swap",
                ),
                ("search_conversation", {"query": "x", "top": 10**19}, "between 1 and 20"),
                ("search_conversation", {"query": " \t\n"}, "query is empty"),
                ("list_sessions", {"after": "99999999d"}, "after"),
                ("list_sessions", {"after": "2026-06-02", "before": "2026-06-01"}, "swap"),
                ("read_conversation", {"sessionId": SID, "turn": 0}, "from 1"),
                ("read_conversation", {"sessionId": SID, "turn": -2}, "from 1"),
                ("read_conversation", {"sessionId": SID, "from": 0, "to": 1}, "from 1"),
                ("read_conversation", {"sessionId": SID, "to": -1}, "from 1"),
                ("read_conversation", {"sessionId": "nope"}, "no indexed session"),
            ]
            for tool, arguments, expected in cases:
                error, text = await call(client, tool, **arguments)
                assert error and expected in text, (tool, arguments, text)
                assert "\n" not in text and not FLAG.search(text), text
                assert "findsession search" not in text, text  # a CLI command, not a tool
            # A NUL inside a query is a separator, not a reason to reject the query.
            error, data = await call(client, "search_conversation", query="syncthing\x00conflict")
            assert not error and data["results"][0]["session"]["id"] == SID, data
            assert not any(FLAG.search(n) for n in data["notes"]), data["notes"]

    asyncio.run(go())


def test_mcp_tools_turn_every_findsession_error_into_a_tool_error(cli: CLI, corpus: Path) -> None:
    cli.run("index")

    async def go() -> None:
        async with connect(cli, corpus) as client:
            error, text = await call(client, "search_conversation", query="sync", after="someday")
            assert error and "cannot read the date 'someday' for after" in text, text
            error, text = await call(client, "read_conversation", sessionId="no-such-session")
            assert error and "has the id 'no-such-session'" in text, text
            error, data = await call(client, "search_conversation", query="syncthing")
            assert not error and data["results"][0]["session"]["id"] == SID

    asyncio.run(go())


def test_mcp_search_says_when_the_background_index_fails(cli: CLI, corpus: Path) -> None:
    cli.run("index")
    db = Path(cli.env["FINDSESSION_DB"])

    async def go() -> None:
        async with connect(cli, corpus, FINDSESSION_WATCH="1") as client:
            error, data = await call(client, "search_conversation", query="syncthing")
            assert not error and data["results"]  # the server holds the index open
            db.rename(db.with_name("moved.db"))
            db.mkdir()  # the indexer's next round cannot open the index any more
            # A new turn wakes the watcher, whose index run then fails.
            more = Transcript(session_id="5e55e55e-0000-4000-8000-000000000009", cwd=str(corpus))
            more.prompt("one more question about the syncthing folder").reply("Answered.")
            more.write(project_dir(Path(cli.env["CLAUDE_CONFIG_DIR"]) / "projects", str(corpus)))
            for _ in range(120):
                await asyncio.sleep(0.25)
                error, data = await call(client, "search_conversation", query="syncthing")
                assert not error and data["results"]
                notes = " ".join(data["notes"])
                if "could not be brought up to date" in notes:
                    break
            assert "could not be brought up to date" in notes, data["notes"]
            assert "is not a regular file" in notes and not FLAG.search(notes)

    asyncio.run(go())


# -- terminal control sequences inside transcripts ----------------------------------------

#: What a hostile or merely colourful transcript can hold: a screen clear, a window
#: title (OSC 0, ended by BEL), a hyperlink (OSC 8, ended by ST), an 8-bit CSI, a bare
#: BEL, a carriage return that would overwrite the line, DEL and a bidi override.
CLEAR = "\x1b[2J\x1b[H"
TITLE = "\x1b]0;pwned\x07"
LINK = "\x1b]8;;https://evil.example/\x1b\\click here\x1b]8;;\x1b\\"
C1 = "\x9b31m"
NASTY = f"{CLEAR}{TITLE}{LINK}{C1} bell\x07 over\rwrite del\x7f bidi\u202eelif.exe"
CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


@pytest.fixture
def hostile(cli: CLI, tmp_path: Path) -> Path:
    root = Path(cli.env["CLAUDE_CONFIG_DIR"]) / "projects"
    cwd = str(tmp_path / f"proj{CLEAR}")
    t = Transcript(session_id=HOSTILE, cwd=cwd)
    t.prompt(f"flamingo prompt {NASTY} tail")
    t.reply(f"flamingo reply {NASTY} tail")
    t.tool(f"Ba{CLEAR}sh", {"command": f"echo {NASTY}"}, f"flamingo output {NASTY} tail")
    t.reply({"type": "thinking", "thinking": f"flamingo thought {NASTY}"})
    t.title(f"flamingo {TITLE}title{CLEAR}")
    t.raw(f"{{not json {NASTY}")
    return t.write(project_dir(root, cwd))


def assert_clean(text: str) -> None:
    found = CONTROLS.findall(text)
    assert not found, f"control characters reached the terminal: {found!r}"


def test_control_sequences_never_reach_the_terminal(cli: CLI, hostile: Path) -> None:
    index = cli.run("index", "-v", "--no-embed")
    assert_clean(index.stderr)
    for args in (
        ("search", "flamingo", "--explain"),
        ("search", "flamingo", "--speaker", "assistant"),
        ("search", "--raw", "flamingo"),
        ("read", HOSTILE, "--tools"),
        ("read", HOSTILE, "--tools", "--raw"),
        ("read", HOSTILE, "--turn", "1"),
        ("status",),
    ):
        proc = cli.run(*args)
        assert_clean(proc.stdout)
        assert_clean(proc.stderr)
    shown = cli.run("read", HOSTILE, "--tools").stdout
    # The text around the sequences is kept; the link's text stays, its target goes.
    assert "flamingo prompt" in shown and "click here" in shown and "tail" in shown
    assert "evil.example" not in shown and "pwned" not in shown
    hit = cli.run("search", "flamingo").stdout
    assert "flamingo" in hit and "click here" in hit


def test_json_keeps_the_text_with_every_control_character_escaped(cli: CLI, hostile: Path) -> None:
    cli.run("index", "--no-embed")
    for args in (("search", "flamingo"), ("read", HOSTILE, "--tools", "--raw"), ("status",)):
        proc = cli.run(args[0], "--json", *args[1:])
        assert_clean(proc.stdout)  # escaped as \u001b, \u009b, \u202e: safe in a terminal
        data = json.loads(proc.stdout)
        if args[0] == "read":
            prompt = data["turns"][0]["messages"][0]["text"]
            assert NASTY in prompt  # the transcript's own text, unchanged
        if args[0] == "search":
            assert "\x1b" in data["results"][0]["session"]["title"]


# -- one line, never a traceback: bytes, files and requests a person or agent may send ----


def _run_bytes(cli: CLI, *args: bytes) -> subprocess.CompletedProcess:
    """The CLI with arguments as raw bytes (what a shell passes for a name that is not
    UTF-8); its output read as text."""
    proc = subprocess.run(
        [sys.executable.encode(), b"-m", b"findsession", *args],
        env=cli.env,
        capture_output=True,
        timeout=300,
    )
    return subprocess.CompletedProcess(
        proc.args, proc.returncode, proc.stdout.decode(errors="replace"),
        proc.stderr.decode(errors="replace"),
    )  # fmt: skip


def test_arguments_that_are_not_utf8_are_refused_in_one_line(cli: CLI, corpus: Path) -> None:
    cli.run("index", "--no-embed")
    for args in (
        (b"search", b"syncthing\xff"),
        (b"\xff\xfe",),
        (b"read", b"5ac3\xff"),
        (b"blame", b"/tmp/notes\xe9.md:1"),
        (b"search", b"syncthing", b"--project", b"/w\xffork"),
    ):
        proc = _run_bytes(cli, *args)
        line = one_line_refusal(proc, "is not UTF-8")
        assert proc.returncode == 2 and ("\\xff" in line or "\\xe9" in line), line


def test_export_to_a_file_it_cannot_replace_is_one_line_and_a_link_stays_a_link(
    cli: CLI, corpus: Path, tmp_path: Path
) -> None:
    cli.run("index", "--no-embed")
    one_line_refusal(cli.run("export", SID, "-o", "/proc/version", check=False), "/proc/version")
    one_line_refusal(cli.run("export", SID, "-o", str(tmp_path), check=False), "folder")
    # A link stays a link: the file it leads to is written.
    target, link = tmp_path / "kept.md", tmp_path / "link.md"
    target.write_text("before\n")
    link.symlink_to(target)
    cli.run("export", SID, "-o", str(link))
    assert link.is_symlink() and "syncthing" in target.read_text()
    # A device or a pipe is written into, never replaced by a file (as root the rename
    # replaced /dev/stdout): here a link to /dev/null, and a FIFO with a reader.
    null = tmp_path / "null.md"
    null.symlink_to(os.devnull)
    cli.run("export", SID, "-o", str(null))
    assert null.is_symlink() and Path(os.devnull).is_char_device()
    fifo = tmp_path / "pipe.md"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    cli.run("handoff", SID, "--no-model", "-o", str(fifo))
    reader.join(30)
    assert stat.S_ISFIFO(fifo.lstat().st_mode) and b"# Handoff:" in got[0]


def test_indexing_a_folder_that_does_not_exist_says_so_and_fails(
    cli: CLI, corpus: Path, tmp_path: Path
) -> None:
    proc = cli.run("index", str(tmp_path / "no-such-folder"), check=False)
    one_line_refusal(proc, "no-such-folder does not exist")
    assert "embedded" not in proc.stderr
    root = Path(cli.env["CLAUDE_CONFIG_DIR"]) / "projects"
    proc = cli.run("index", "--no-embed", str(tmp_path / "gone"), str(root), check=False)
    assert proc.returncode == 1 and "gone does not exist" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
    assert cli.json("search", "syncthing")["results"][0]["session"]["id"] == SID  # the rest read


def test_an_mcp_path_with_a_nul_is_a_tool_error(cli: CLI, corpus: Path) -> None:
    cli.run("index", "--no-embed")

    async def go() -> None:
        async with connect(cli, corpus) as client:
            error, text = await call(client, "sessions_for_file", path="notes\x00.md", fromLine=1)
            assert error and "NUL" in text and "\n" not in text, text
            error, data = await call(client, "search_conversation", query="syncthing")
            assert not error and data["results"]  # the server is still up

    asyncio.run(go())


def test_an_mcp_request_holding_a_lone_surrogate_is_answered(cli: CLI, corpus: Path) -> None:
    """The real server over stdio, spoken to in raw JSON-RPC: the SDK's own client cannot
    send half of a surrogate pair, an agent's client can."""
    cli.run("index", "--no-embed")
    keys = ("FINDSESSION_DB", "FINDSESSION_CONFIG", "HOME", "CLAUDE_CONFIG_DIR")
    env = {**{k: cli.env[k] for k in keys}, "FINDSESSION_WATCH": "0", "PATH": os.environ["PATH"]}
    server = subprocess.Popen(
        [sys.executable, "-m", "findsession", "serve"], cwd=corpus, env=env,
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    assert server.stdin is not None and server.stdout is not None
    answers: queue.Queue[dict] = queue.Queue()
    threading.Thread(
        target=lambda: [answers.put(json.loads(line)) for line in server.stdout], daemon=True
    ).start()

    def send(line: str) -> None:
        server.stdin.write(line.encode() + b"\n")
        server.stdin.flush()

    try:
        hello = {"protocolVersion": "2025-06-18", "capabilities": {},
                 "clientInfo": {"name": "raw", "version": "1"}}  # fmt: skip
        send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}))
        assert answers.get(timeout=120)["id"] == 1
        send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        tool = (
            '{"jsonrpc":"2.0","id":%d,"method":"tools/call",'
            '"params":{"name":"%s","arguments":%s}}'
        )
        send(tool % (2, "search_conversation", '{"query":"syncthing \\ud800conflict"}'))
        answer = answers.get(timeout=60)
        assert answer["id"] == 2 and not answer["result"].get("isError"), answer
        assert SID in answer["result"]["content"][0]["text"]
        send(tool % (3, "read_conversation", '{"sessionId":"\\udc005ac3"}'))
        answer = answers.get(timeout=60)
        assert answer["id"] == 3 and answer["result"]["isError"], answer
    finally:
        server.kill()
        server.wait(30)
