"""The MCP server as an agent uses it: a real `findsession serve` driven by the SDK client."""

from __future__ import annotations

import asyncio
import json
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from transcripts import Transcript, project_dir

MAIN = "11111111-aaaa-4bbb-8ccc-000000000001"
OTHER = "22222222-aaaa-4bbb-8ccc-000000000002"
ELSEWHERE = "33333333-aaaa-4bbb-8ccc-000000000003"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "work" / "app"
    path.mkdir(parents=True)
    return path


@pytest.fixture
def indexed(cli: CLI, tmp_path: Path, project: Path) -> CLI:
    root = Path(cli.env["CLAUDE_CONFIG_DIR"]) / "projects"
    t = Transcript(session_id=MAIN, cwd=str(project))
    t.prompt("how should we normalize file paths on Windows?")
    t.reply("Decision: store POSIX paths, convert at the edges with pathlib.PurePosixPath.")
    t.tool("Bash", {"command": "pytest tests/test_paths.py"}, "4 passed")
    t.prompt("and symlinks?").reply("Resolve them once, when the root is added.")
    t.title("Path normalization policy")
    t.write(project_dir(root, str(project)))
    u = Transcript(session_id=OTHER, cwd=str(project), start=datetime(2026, 7, 1, tzinfo=UTC))
    u.prompt("the release notes generator drops emoji").reply("It encoded as latin-1; now UTF-8.")
    u.write(project_dir(root, str(project)))
    v = Transcript(session_id=ELSEWHERE, cwd="/home/dev/other")
    v.prompt("normalize file paths in the other tool too").reply("Done, same policy.")
    v.write(project_dir(root, "/home/dev/other"))
    cli.run("index")
    return cli


@asynccontextmanager
async def connect(cli: CLI, cwd: Path, **env: str) -> AsyncIterator[Client]:
    keys = ("FINDSESSION_DB", "FINDSESSION_CONFIG", "HOME", "CLAUDE_CONFIG_DIR")
    server_env = {k: cli.env[k] for k in keys} | {"FINDSESSION_WATCH": "0"} | env
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "findsession", "serve"], env=server_env, cwd=cwd
    )
    async with Client(params, read_timeout_seconds=120) as client:
        yield client


async def call(client: Client, tool: str, **arguments: Any) -> tuple[bool, Any]:
    result = await client.call_tool(tool, arguments)
    text = result.content[0].text
    if result.is_error:
        return True, text
    try:
        return False, json.loads(text)
    except json.JSONDecodeError:
        return False, text


def test_tools_and_their_parameters_are_listed(indexed: CLI, project: Path) -> None:
    async def go() -> None:
        async with connect(indexed, project) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert set(tools) == {
                "search_conversation",
                "read_conversation",
                "list_sessions",
                "handoff",
                "sessions_for_file",
            }
            search = tools["search_conversation"].input_schema
            assert search["required"] == ["query"]
            assert set(search["properties"]) == {
                "query",
                "directory",
                "sessionId",
                "speaker",
                "after",
                "before",
                "kind",
                "source",
                "top",
            }
            read = tools["read_conversation"].input_schema["properties"]
            assert {
                "sessionId",
                "turn",
                "from",
                "to",
                "context",
                "includeToolOutput",
                "maxChars",
            } == set(read)
            for tool in tools.values():
                assert len(tool.description or "") > 40

    asyncio.run(go())


def test_search_then_read_the_turn_it_points_to(indexed: CLI, project: Path) -> None:
    async def go() -> None:
        async with connect(indexed, project) as client:
            error, data = await call(
                client, "search_conversation", query="did we decide how to handle path separators"
            )
            assert not error and data["schema"] == "findsession.search/1"
            assert data["strategy"] == "hybrid" and data["scope"] == str(project)
            hit = data["results"][0]
            session, match = hit["session"], hit["match"]
            assert session["id"] == MAIN and session["title"] == "Path normalization policy"
            assert session["cwd"] == str(project) and match["turn"] == 1
            assert hit["rank"] == 1 and hit["explain"]["vector_rank"] is not None
            assert "Bash" in match["tools"]
            assert ELSEWHERE not in {r["session"]["id"] for r in data["results"]}  # other project
            error, data = await call(
                client, "read_conversation", sessionId=session["id"], turn=match["turn"]
            )
            assert not error and data["schema"] == "findsession.read/1"
            assert data["total_turns"] == 2 and [t["turn"] for t in data["turns"]] == [1]
            texts = [m["text"] for m in data["turns"][0]["messages"]]
            assert any("store POSIX paths" in text for text in texts)
            assert not any("4 passed" in text for text in texts) and data["left_out_chars"] == 0
            error, data = await call(
                client,
                "read_conversation",
                sessionId=MAIN,
                **{"from": 1, "to": 2},
                includeToolOutput=True,
            )
            assert [t["turn"] for t in data["turns"]] == [1, 2]
            texts = [m["text"] for t in data["turns"] for m in t["messages"]]
            assert "4 passed" in texts and any("symlinks" in text for text in texts)
            kinds = {m["kind"] for m in data["turns"][0]["messages"]}
            assert {"prompt", "reply", "tool_call", "tool_output"} <= kinds
            whole = sum(map(len, texts))
            assert whole > 200 and data["left_out_chars"] == 0
            error, data = await call(
                client, "read_conversation", sessionId=MAIN, includeToolOutput=True, maxChars=200
            )
            cut = [m["text"] for t in data["turns"] for m in t["messages"]]
            assert sum(map(len, cut)) == 200 and data["left_out_chars"] == whole - 200
            assert cut[:-1] == texts[: len(cut) - 1]  # whole messages up to the cut
            # Every project is the person's to open, not the agent's (test_agent_reach).
            error, text = await call(
                client, "search_conversation", query="normalize file paths", directory="/"
            )
            assert error and "outside" in text and ELSEWHERE not in text

    asyncio.run(go())


def test_list_sessions_newest_first_with_first_prompts(indexed: CLI, project: Path) -> None:
    async def go() -> None:
        async with connect(indexed, project) as client:
            error, data = await call(client, "list_sessions")
            assert not error and data["schema"] == "findsession.sessions/1"
            assert data["scope"] == str(project)
            ids = [s["id"] for s in data["sessions"]]
            assert ids == [OTHER, MAIN]  # newest first
            first = {s["id"]: s["first_prompt"] for s in data["sessions"]}
            assert first[MAIN].startswith("how should we normalize file paths")
            main = data["sessions"][1]
            assert main["title"] == "Path normalization policy" and main["turns"] == 2
            assert main["cwd"] == str(project) and main["started"] <= main["ended"]
            error, data = await call(client, "list_sessions", directory=str(project), limit=1)
            assert len(data["sessions"]) == 1

    asyncio.run(go())


def test_bad_arguments_get_clear_errors_and_the_server_stays_up(
    indexed: CLI, project: Path
) -> None:
    async def go() -> None:
        async with connect(indexed, project) as client:
            cases = [
                ("search_conversation", {"query": ""}, "query is empty"),
                ("search_conversation", {"query": "x" * 3000}, "limit is 2000"),
                ("search_conversation", {"query": "paths", "top": 0}, "between 1 and 20"),
                ("search_conversation", {"query": "paths", "top": 1000}, "between 1 and 20"),
                (
                    "search_conversation",
                    {"query": "paths", "after": "last tuesday"},
                    "cannot read the date",
                ),
                ("read_conversation", {"sessionId": "nope"}, "no indexed session"),
                ("read_conversation", {"sessionId": "../../etc/passwd"}, "no indexed session"),
                ("read_conversation", {"sessionId": "/etc/passwd"}, "no indexed session"),
                ("read_conversation", {"sessionId": MAIN, "turn": 9}, "has turns 1–2"),
                ("list_sessions", {"before": "soonish"}, "cannot read the date"),
            ]
            for tool, arguments, expected in cases:
                error, text = await call(client, tool, **arguments)
                assert error and expected in text, (tool, arguments, text)
            error, data = await call(client, "search_conversation", query="release notes emoji")
            assert not error and data["results"][0]["session"]["id"] == OTHER

    asyncio.run(go())


def test_the_agents_own_session_is_left_out(indexed: CLI, project: Path) -> None:
    async def go() -> None:
        async with connect(indexed, project, FINDSESSION_CURRENT_SESSION=MAIN) as client:
            error, data = await call(client, "search_conversation", query="normalize paths")
            assert MAIN not in {r["session"]["id"] for r in data["results"]}
            assert data["excluded_current_session"] == MAIN
            assert [r["rank"] for r in data["results"]] == list(range(1, len(data["results"]) + 1))
            # Asked for by id, it is searched all the same.
            error, data = await call(
                client, "search_conversation", query="normalize paths", sessionId=MAIN
            )
            assert data["results"][0]["session"]["id"] == MAIN
            assert data["excluded_current_session"] is None

    asyncio.run(go())


def test_empty_index_says_how_to_fill_it(cli: CLI, project: Path) -> None:
    async def go() -> None:
        async with connect(cli, project) as client:
            error, data = await call(client, "search_conversation", query="anything")
            assert not error and data["results"] == [] and data["index_empty"] is True
            notes = " ".join(data["notes"])
            assert "the index is empty" in notes and "findsession index" in notes

    asyncio.run(go())


def test_background_indexing_finds_new_sessions_and_searches_never_fail(
    indexed: CLI, project: Path, tmp_path: Path
) -> None:
    root = Path(indexed.env["CLAUDE_CONFIG_DIR"]) / "projects"
    bulk = tmp_path / "bulk"  # a second root, indexed by a separate process meanwhile
    for i in range(150):
        t = Transcript(session_id=f"bulk-{i:04d}", cwd=str(project))
        for turn in range(10):
            t.prompt(f"bulk question {turn} about module {i}").reply("answer " * 60)
        t.write(project_dir(bulk, str(project)))

    async def go() -> None:
        async with connect(indexed, project, FINDSESSION_WATCH="1") as client:
            writer = subprocess.Popen(
                [sys.executable, "-m", "findsession", "index", str(bulk), "--no-embed"],
                env=indexed.env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            new = Transcript(session_id="44444444-aaaa-4bbb-8ccc-000000000004", cwd=str(project))
            new.prompt("the flamingo cache evicts too early").reply("Raised the TTL.")
            new.write(project_dir(root, str(project)))
            found, errors, searches = False, [], 0
            deadline = time.monotonic() + 90
            # Searches start with the writer; a few more after it ends, whatever the speed
            # of the model, so both sides of the write are covered.
            while time.monotonic() < deadline and not (
                found and writer.poll() is not None and searches > 3
            ):
                error, data = await call(client, "search_conversation", query="flamingo cache")
                searches += 1
                if error:
                    errors.append(data)
                elif any(r["session"]["id"].startswith("44444444") for r in data["results"]):
                    found = True
                await asyncio.sleep(0.2)
            _, err = writer.communicate(timeout=120)
            assert writer.returncode == 0, err
            assert errors == [] and searches > 3
            assert found, "the watcher did not pick up the new session"

    asyncio.run(go())


def test_beside_a_running_service_the_server_leaves_indexing_to_it(
    indexed: CLI, project: Path
) -> None:
    """One index, one indexer: while the resident service keeps the index fresh, the
    agent's server runs no index round of its own (not even its catch-up run), and when
    the service stops, the server's watcher takes over."""
    runtime = Path(tempfile.mkdtemp(prefix="fs-"))  # short: socket paths are limited
    indexed.env["XDG_RUNTIME_DIR"] = str(runtime)
    root = Path(indexed.env["CLAUDE_CONFIG_DIR"]) / "projects"
    db = Path(indexed.env["FINDSESSION_DB"])

    def runs() -> int:
        with sqlite3.connect(db) as con:
            return con.execute("SELECT count(*) FROM runs").fetchone()[0]

    def settled() -> int:
        """The count of index runs once it has not moved for two seconds."""
        last, since = runs(), time.monotonic()
        while time.monotonic() - since < 2:
            time.sleep(0.2)
            if runs() != last:
                last, since = runs(), time.monotonic()
        return last

    def write(sid: str, prompt: str) -> None:
        t = Transcript(session_id=sid, cwd=str(project))
        t.prompt(prompt).reply("Noted.")
        t.write(project_dir(root, str(project)))

    async def found(client: Client, query: str, prefix: str) -> bool:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            error, data = await call(client, "search_conversation", query=query)
            if not error and any(r["session"]["id"].startswith(prefix) for r in data["results"]):
                return True
            await asyncio.sleep(0.3)
        return False

    async def go() -> None:
        before = settled()
        async with connect(
            indexed, project, FINDSESSION_WATCH="1", XDG_RUNTIME_DIR=str(runtime)
        ) as client:
            await asyncio.sleep(3)  # the server's catch-up run would have begun by now
            assert runs() == before, "the server indexed beside the service"
            write("55555555-aaaa-4bbb-8ccc-000000000005", "the pelican queue stalls")
            assert await found(client, "pelican queue", "55555555"), "the service indexed it"
            assert settled() == before + 1, "one round for one change: the service's alone"
            indexed.run("service", "stop")
            write("66666666-aaaa-4bbb-8ccc-000000000006", "the heron retry storm")
            assert await found(client, "heron retry", "66666666"), "the server took over"

    indexed.run("service", "start")
    try:
        asyncio.run(go())
    finally:
        indexed.run("service", "stop", check=False)
        shutil.rmtree(runtime, ignore_errors=True)
