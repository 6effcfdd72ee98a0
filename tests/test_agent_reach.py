"""What an agent can reach through the MCP server, and what `blame` reads: the server's
project and nothing past it (unless the person opened every project), and no file's
text. `sessions_for_file` and `blame` answer with what sessions wrote, as indexed; a
file on disk is read only to locate lines, only when a session the caller may see wrote
it, only as a regular file of bounded size. Through the real MCP client over stdio and
the real CLI."""

from __future__ import annotations

import asyncio
import json
import os
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI
from mcp import Client
from test_mcp import call, connect
from transcripts import Transcript, project_dir

SHOP = "5a0b0000-1111-4222-8333-000000000001"
BANK = "ba0c0000-2222-4333-8444-000000000002"
#: What the agent wrote into app/settings.py; the index keeps the key redacted.
KEY = "sk-proj-Zq4v9XbT2mL8kR5wN1yH7cJ3pF6sD0gAx"
WRITTEN = [
    '"""Settings of the shop."""',
    "",
    "TIMEOUT_SECONDS = 30",
    f'OPENAI_API_KEY = "{KEY}"',
    "RETRIES = 3",
]
#: A line the person added by hand, and a private key no session wrote.
BY_HAND = 'DB_PASSWORD = "hunter2-typed-by-hand"'
PRIVATE_KEY = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW"
LEDGER = "def balance(account):\n    return sum(account.entries)\n"
#: Every text the answers must never hold.
NEVER = (KEY[8:30], "hunter2", PRIVATE_KEY[10:40], "account.entries")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Two projects, each with a session that wrote its files, indexed; on disk, the
    shop's settings with a line added by hand, a FIFO, a link to /dev/zero and a 9 MB
    file where the session wrote small ones, and a private key no session wrote."""
    tmp = tmp_path_factory.mktemp("reach")
    cli = CLI(tmp, tmp / "index" / "findsession.db")
    cli.env["FINDSESSION_NO_SERVICE"] = "1"
    root = Path(cli.env["CLAUDE_CONFIG_DIR"]) / "projects"
    shop, bank = tmp / "code" / "shop", tmp / "code" / "bank"
    (shop / "app").mkdir(parents=True)
    bank.mkdir(parents=True)
    start = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)
    t = Transcript(SHOP, cwd=str(shop), start=start)
    t.prompt("write the shop's settings module")
    for name, content in (
        ("settings.py", "\n".join(WRITTEN) + "\n"),
        ("pipe.txt", "queued jobs\n"),
        ("zero.txt", "all zeros\n"),
        ("big.txt", "the first line of a big file\n"),
    ):
        t.tool("Write", {"file_path": str(shop / "app" / name), "content": content}, "Created.")
    t.reply("Wrote app/settings.py and the job files.")
    t.write(project_dir(root, str(shop)))
    b = Transcript(BANK, cwd=str(bank), start=start)
    b.prompt("add the ledger's balance function")
    b.tool("Write", {"file_path": str(bank / "ledger.py"), "content": LEDGER}, "Created.")
    b.reply("Added ledger.py.")
    b.write(project_dir(root, str(bank)))
    cli.run("index", "--no-embed")
    (shop / "app" / "settings.py").write_text("\n".join([*WRITTEN, BY_HAND]) + "\n")
    os.mkfifo(shop / "app" / "pipe.txt")
    (shop / "app" / "zero.txt").symlink_to("/dev/zero")
    with (shop / "app" / "big.txt").open("w") as fh:
        fh.write("the first line of a big file\n")
        fh.write(("x" * 99 + "\n") * 90_000)  # 9 MB
    (bank / "ledger.py").write_text(LEDGER)
    ssh = tmp / "home" / ".ssh"
    ssh.mkdir(parents=True)
    (ssh / "id_rsa").write_text(
        f"-----BEGIN OPENSSH PRIVATE KEY-----\n{PRIVATE_KEY}\n-----END OPENSSH PRIVATE KEY-----\n"
    )
    return {"cli": cli, "shop": shop, "bank": bank, "key": ssh / "id_rsa"}


def holds_nothing_secret(answer: Any) -> None:
    text = json.dumps(answer)
    for secret in NEVER:
        assert secret not in text, (secret, text[:2000])


async def quick(client: Client, tool: str, **arguments: Any) -> tuple[bool, Any]:
    """A call that must answer at once (a FIFO once hung it, `/dev/zero` grew it)."""
    return await asyncio.wait_for(call(client, tool, **arguments), timeout=30)


def test_an_agent_gets_no_files_text_only_what_sessions_wrote(world: dict[str, Any]) -> None:
    cli, shop = world["cli"], world["shop"]

    async def go() -> None:
        async with connect(cli, shop) as client:
            # A file no session wrote is not read: no line of it comes back.
            for path in (str(world["key"]), "/dev/zero", "/etc/passwd"):
                error, answer = await quick(
                    client, "sessions_for_file", path=path, fromLine=1, toLine=3
                )
                assert not error, answer
                assert answer["writers"] == [] and answer["lines"] == [], answer
                assert any("not read" in note for note in answer["notes"]), answer
                holds_nothing_secret(answer)
                assert "root:" not in json.dumps(answer)
            # A file the project's session wrote: each line as the session wrote it,
            # none as the file holds it (the key the index redacted, a line by hand).
            error, answer = await quick(
                client, "sessions_for_file", path="app/settings.py", fromLine=1, toLine=6
            )
            assert not error, answer
            holds_nothing_secret(answer)
            lines = {line["line"]: line for line in answer["lines"]}
            assert lines[3]["text"] == "TIMEOUT_SECONDS = 30" and lines[3]["writer"] == 1
            assert lines[5]["text"] == "RETRIES = 3"
            assert lines[4]["writer"] is None and lines[4]["text"] is None  # the key
            assert lines[6]["writer"] is None and lines[6]["text"] is None  # by hand
            # Only a regular file is read, of bounded size: one line, no wait, no growth.
            error, message = await quick(client, "sessions_for_file", path="app/pipe.txt",
                                         fromLine=1)  # fmt: skip
            assert error and "not a regular file (a FIFO)" in message, message
            error, message = await quick(client, "sessions_for_file", path="app/zero.txt",
                                         fromLine=1)  # fmt: skip
            assert error and "character device" in message, message
            error, answer = await quick(client, "sessions_for_file", path="app/big.txt",
                                        fromLine=1)  # fmt: skip
            assert not error and answer["lines"][0]["writer"] == 1, answer
            error, message = await quick(client, "sessions_for_file", path="app/big.txt",
                                         fromLine=89_000)  # fmt: skip
            assert error and "8 MB" in message and "\n" not in message, message

    asyncio.run(go())


def test_blame_reads_no_file_a_session_did_not_write(world: dict[str, Any]) -> None:
    cli, shop = world["cli"], world["shop"]
    for target in (f"{world['key']}:1-3", "/dev/zero:1", "/etc/passwd:1-3"):
        started = time.monotonic()
        done = cli.run("blame", target)
        assert time.monotonic() - started < 30
        assert "no indexed session wrote this file" in done.stdout, done.stdout
        assert "not read" in done.stderr
        holds_nothing_secret(done.stdout + done.stderr)
        assert "root:" not in done.stdout
    got = cli.json("blame", f"{shop / 'app' / 'settings.py'}:1-6")
    holds_nothing_secret(got)
    assert [line["text"] for line in got["lines"]] == [*WRITTEN[:3], None, WRITTEN[4], None]
    shown = cli.run("blame", f"{shop / 'app' / 'settings.py'}:1-6").stdout
    holds_nothing_secret(shown)
    fifo = cli.run("blame", f"{shop / 'app' / 'pipe.txt'}:1", check=False)
    assert fifo.returncode == 1 and "a FIFO" in fifo.stderr
    assert len(fifo.stderr.strip().splitlines()) == 1, fifo.stderr
    zero = cli.run("blame", f"{shop / 'app' / 'zero.txt'}:1", check=False)
    assert zero.returncode == 1 and "character device" in zero.stderr, zero.stderr


def test_the_server_reaches_only_its_own_project(world: dict[str, Any]) -> None:
    cli, shop, bank = world["cli"], world["shop"], world["bank"]

    async def go() -> None:
        async with connect(cli, shop) as client:
            tools = (await client.list_tools()).tools
            assert len(tools) == 5
            for tool in tools:
                assert "project this server was started for" in (tool.description or ""), tool
            # Another project's session is answered as one not indexed, by id or prefix.
            for ref in (BANK, BANK[:8]):
                for tool, arguments in (
                    ("read_conversation", {"sessionId": ref}),
                    ("handoff", {"sessionId": ref}),
                    ("search_conversation", {"query": "ledger balance", "sessionId": ref}),
                ):
                    error, message = await call(client, tool, **arguments)
                    assert error and f"no indexed session of {shop} has the id" in message, message
                    assert "ledger" not in message.replace("ledger balance", "")
            # No directory argument widens the project.
            for directory in ("/", str(bank), f"{shop}/../bank"):
                for tool, arguments in (
                    ("search_conversation", {"query": "ledger balance", "directory": directory}),
                    ("list_sessions", {"directory": directory}),
                    ("sessions_for_file", {"path": str(bank / "ledger.py"), "project": directory}),
                ):
                    error, message = await call(client, tool, **arguments)
                    assert error and "outside" in message and "\n" not in message, message
            error, answer = await call(client, "sessions_for_file", path=str(bank / "ledger.py"),
                                       fromLine=1)  # fmt: skip
            assert not error and answer["writers"] == [] and answer["lines"] == [], answer
            holds_nothing_secret(answer)
            error, answer = await call(client, "search_conversation", query="ledger balance")
            assert not error and BANK not in json.dumps(answer["results"])
            error, answer = await call(client, "list_sessions")
            assert [s["id"] for s in answer["sessions"]] == [SHOP]
            error, answer = await call(client, "read_conversation", sessionId=SHOP[:8])
            assert not error and answer["session"]["id"] == SHOP

    asyncio.run(go())


def test_the_person_can_open_every_project(world: dict[str, Any], tmp_path: Path) -> None:
    cli, shop, bank = world["cli"], world["shop"], world["bank"]
    config = tmp_path / "config.toml"
    config.write_text("[mcp]\nall_projects = true\n")

    async def go() -> None:
        async with connect(cli, shop, FINDSESSION_CONFIG=str(config)) as client:
            error, answer = await call(client, "read_conversation", sessionId=BANK)
            assert not error and answer["session"]["id"] == BANK
            error, answer = await call(client, "handoff", sessionId=BANK[:8])
            assert not error and answer["session"]["id"] == BANK
            error, answer = await call(client, "sessions_for_file", path=str(bank / "ledger.py"),
                                       fromLine=2)  # fmt: skip
            assert not error and answer["writers"][0]["session"]["id"] == BANK
            assert answer["lines"][0]["text"] == "    return sum(account.entries)"
            error, answer = await call(client, "list_sessions", directory="/")
            assert {s["id"] for s in answer["sessions"]} == {SHOP, BANK}

    asyncio.run(go())
