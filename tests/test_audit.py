"""The audit of agents' searches and the evidence budget, through a real MCP client.

What a person (or a team) relies on: every answer an agent gets is recorded before it is
given, the record never holds the question's text, a record that cannot be written means
no answer, and one agent session cannot read out more turns than the budget allows.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CLI
from test_mcp import call, connect
from transcripts import Transcript, project_dir

PATHS = "aaaa1111-aaaa-4bbb-8ccc-000000000001"
EMOJI = "aaaa2222-aaaa-4bbb-8ccc-000000000002"
ELSEWHERE = "bbbb3333-aaaa-4bbb-8ccc-000000000003"
LOADER = "cccc4444-aaaa-4bbb-8ccc-000000000004"
#: Words no transcript holds: if the audit kept the query, they would be in the file.
SECRET_QUERY = "did we settle how the quokkavault paths get normalized on windows"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "work" / "app"
    path.mkdir(parents=True)
    return path


@pytest.fixture
def indexed(cli: CLI, project: Path) -> CLI:
    root = Path(cli.env["CLAUDE_CONFIG_DIR"]) / "projects"
    t = Transcript(session_id=PATHS, cwd=str(project))
    t.prompt("how should we normalize file paths on Windows?")
    t.reply("Decision: store POSIX paths, convert at the edges with pathlib.PurePosixPath.")
    t.prompt("and symlinks?").reply("Resolve them once, when the root is added.")
    t.prompt("and drive letters?").reply("Lower-case them before comparing paths.")
    t.write(project_dir(root, str(project)))
    u = Transcript(session_id=EMOJI, cwd=str(project))
    u.prompt("the release notes generator drops emoji").reply("It encoded as latin-1; now UTF-8.")
    u.write(project_dir(root, str(project)))
    w = Transcript(session_id=LOADER, cwd=str(project))
    w.prompt("normalize the file paths in the config loader").reply("Done with os.path.normpath.")
    w.write(project_dir(root, str(project)))
    v = Transcript(session_id=ELSEWHERE, cwd="/home/dev/other")
    v.prompt("normalize file paths in the other tool too").reply("Done, same policy for paths.")
    v.write(project_dir(root, "/home/dev/other"))
    cli.run("index")
    return cli


def refused(text: str, code: str) -> bool:
    """Whether a tool error carries `code` first, after the SDK's `Error executing tool
    <name>: `, so an agent can tell it from other failures."""
    return re.match(rf"Error executing tool \w+: {code}: ", text) is not None


def key_file(cli: CLI) -> Path:
    db = Path(cli.env["FINDSESSION_DB"])
    return db.with_name(db.name + ".audit-key")


def index_bytes(cli: CLI) -> bytes:
    """Every byte of the index: the file, its write-ahead log and shared memory."""
    db = Path(cli.env["FINDSESSION_DB"])
    return b"".join(p.read_bytes() for p in db.parent.glob(db.name + "*") if p.is_file())


def test_every_answer_is_recorded_with_a_digest_never_the_query(
    indexed: CLI, project: Path
) -> None:
    async def go() -> None:
        async with connect(indexed, project) as client:
            for query in (SECRET_QUERY, SECRET_QUERY, "release notes emoji"):
                error, data = await call(client, "search_conversation", query=query)
                assert not error and data["results"], data
            error, _ = await call(client, "read_conversation", sessionId=PATHS, turn=2)
            assert not error
            error, _ = await call(client, "list_sessions")
            assert not error
            # While the server runs the records sit in the write-ahead log: read it too.
            raw = index_bytes(indexed)
            assert raw and b"quokkavault" not in raw and SECRET_QUERY.encode() not in raw

    asyncio.run(go())
    assert b"quokkavault" not in index_bytes(indexed)
    key = key_file(indexed)
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    secret = bytes.fromhex(key.read_text().strip())
    assert len(secret) == 32

    records = indexed.json("audit")["records"]
    assert [r["tool"] for r in records] == [
        "list_sessions",
        "read_conversation",
        "search_conversation",
        "search_conversation",
        "search_conversation",
    ]
    assert len({r["connection"] for r in records}) == 1
    listing, read, emoji, second, first = records
    expected = hmac.new(secret, SECRET_QUERY.encode(), hashlib.sha256).hexdigest()
    assert first["query_digest"] == second["query_digest"] == expected
    assert emoji["query_digest"] != expected
    assert read["query_digest"] is None and read["results"] == [{"session": PATHS, "turn": 2}]
    assert {r["session"] for r in listing["results"]} == {PATHS, EMOJI, LOADER}

    # The search's filters, what it returned and why, and what the project filter kept out.
    assert first["filters"]["project"] == str(project) and first["filters"]["top"] == 5
    assert first["strategy"] == "hybrid" and first["confidence"] in ("strong", "weak")
    hit = first["results"][0]
    assert hit["session"] == PATHS and hit["rank"] == 1 and hit["turn"] == 1
    assert hit["score"] > 0 and hit["keyword_rank"] == 1 and 0 < hit["cosine"] <= 1
    excluded = first["excluded"]
    assert excluded["depth"] == 100 and excluded["candidates"]["keyword"] >= 1
    # The other project's session matches too; the scope kept it (and only it) out.
    assert excluded["by_filter"]["project"]["keyword"] == 1
    assert ELSEWHERE not in {r["session"] for r in first["results"]}

    # Whoever holds the key can ask whether a given question was asked, and when.
    asked = indexed.json(
        "audit", "--query", "  did we settle how the quokkavault paths get normalized   on windows"
    )["records"]
    assert [r["id"] for r in asked] == [second["id"], first["id"]]
    assert indexed.json("audit", "--query", "something never asked")["records"] == []
    assert len(indexed.json("audit", "--limit", "2")["records"]) == 2
    assert indexed.json("audit", "--since", "2999-01-01")["records"] == []

    shown = indexed.run("audit").stdout
    assert "search_conversation" in shown and expected[:16] in shown and "quokka" not in shown
    assert "kept out of the top 100: project 1 keyword" in shown


def test_the_record_counts_what_each_filter_kept_out(indexed: CLI, project: Path) -> None:
    Path(indexed.env["FINDSESSION_CONFIG"]).write_text("[mcp]\nall_projects = true\n")

    async def go() -> None:
        async with connect(indexed, project) as client:
            error, data = await call(
                client,
                "search_conversation",
                query="normalize file paths",
                directory="/",
                after="2026-06-20",  # every session here is from 11 June
                speaker="user",
            )
            assert not error and data["results"] == []

    asyncio.run(go())
    [record] = indexed.json("audit")["records"]
    assert record["filters"]["project"] is None and record["filters"]["after"].startswith(
        "2026-06-20"
    )
    assert record["results"] == [] and record["confidence"] == "nothing"
    excluded = record["excluded"]
    assert set(excluded["by_filter"]) == {"after", "speaker"}  # "/" is no project filter
    candidates = excluded["candidates"]
    assert candidates["keyword"] >= 3 and candidates["vector"] >= 3
    assert excluded["by_filter"]["after"] == candidates  # it kept out every candidate
    # "and drive letters?" was answered "... comparing paths": only the reply matches.
    assert 1 <= excluded["by_filter"]["speaker"]["keyword"] < candidates["keyword"]


def test_a_failed_audit_write_fails_the_search(indexed: CLI, project: Path) -> None:
    async def go() -> None:
        async with connect(indexed, project) as client:
            error, _ = await call(client, "search_conversation", query="release notes emoji")
            assert not error
            key = key_file(indexed)
            saved = key.read_bytes()
            key.unlink()
            key.mkdir()  # the key cannot be read: nothing may be answered unrecorded
            for tool, args in (
                ("search_conversation", {"query": "release notes emoji"}),
                ("read_conversation", {"sessionId": EMOJI}),
                ("list_sessions", {}),
            ):
                error, text = await call(client, tool, **args)
                assert error and refused(text, "audit_failed"), text
                assert "not a regular file" in text and "emoji" not in text.lower()
            key.rmdir()
            key.write_bytes(saved)
            key.chmod(0o644)  # a key others can read is refused, with what to do
            error, text = await call(client, "search_conversation", query="release notes")
            assert error and "can be read by other users" in text and "chmod 600" in text
            key.chmod(0o600)
            error, data = await call(client, "search_conversation", query="release notes")
            assert not error and data["results"][0]["session"]["id"] == EMOJI

    asyncio.run(go())
    # Only the two answered searches were recorded.
    records = indexed.json("audit")["records"]
    assert [r["tool"] for r in records] == ["search_conversation"] * 2


LOCKER = """
import sys, time, apsw
db = apsw.Connection(sys.argv[1])
db.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
time.sleep(120)
"""


def test_an_index_locked_past_the_wait_fails_the_search(indexed: CLI, project: Path) -> None:
    """A real second process holds the write lock longer than a writer waits (30 s):
    searching still reads, but the record cannot be written, so no results are given."""

    async def go() -> None:
        async with connect(indexed, project) as client:
            error, _ = await call(client, "search_conversation", query="release notes emoji")
            assert not error
            locker = subprocess.Popen(
                [sys.executable, "-c", LOCKER, indexed.env["FINDSESSION_DB"]],
                stdout=subprocess.PIPE,
                text=True,
            )
            try:
                assert locker.stdout is not None and locker.stdout.readline() == "locked\n"
                error, text = await call(client, "search_conversation", query="emoji")
            finally:
                locker.kill()
                locker.wait()
            assert error and refused(text, "audit_failed") and "locked" in text, text
            error, data = await call(client, "search_conversation", query="emoji")
            assert not error and data["results"]

    asyncio.run(go())
    assert len(indexed.json("audit")["records"]) == 2


def test_the_evidence_budget_answers_exhausted_at_its_ceiling(indexed: CLI, project: Path) -> None:
    Path(indexed.env["FINDSESSION_CONFIG"]).write_text(
        "[mcp]\nevidence_budget = 4\nall_projects = true\n"
    )

    async def go() -> None:
        async with connect(indexed, project) as client:
            error, data = await call(client, "read_conversation", sessionId=PATHS)
            assert not error and [t["turn"] for t in data["turns"]] == [1, 2, 3]
            assert data["evidence_budget"] == {"limit": 4, "used": 3, "held_back": 0}
            # The same turns again cost nothing.
            error, data = await call(client, "read_conversation", sessionId=PATHS, turn=2)
            assert not error and data["evidence_budget"]["used"] == 3
            # Two more sessions match and one turn is left: the answer is cut to fit.
            error, data = await call(
                client, "search_conversation", query="normalize file paths", directory="/"
            )
            assert not error
            ids = [r["session"]["id"] for r in data["results"]]
            assert ids[0] == PATHS and len(ids) == 2 and ids[1] in (ELSEWHERE, LOADER)
            assert data["evidence_budget"] == {"limit": 4, "used": 4, "held_back": 1}
            assert any("evidence budget" in note for note in data["notes"])
            held = LOADER if ids[1] == ELSEWHERE else ELSEWHERE
            # At the ceiling: anything new is refused, with what to do about it.
            for tool, args in (
                ("search_conversation", {"query": "release notes emoji"}),
                ("read_conversation", {"sessionId": held[:8]}),
            ):
                error, text = await call(client, tool, **args)
                assert error and refused(text, "search_budget_exhausted"), text
                assert "raise the evidence budget" in text and "new session" in text
            # What was shown already can still be found and read.
            error, data = await call(
                client, "search_conversation", query="drive letters", sessionId=PATHS
            )
            assert not error and data["results"][0]["match"]["turn"] == 3
            error, data = await call(client, "read_conversation", sessionId=ids[1][:8])
            assert not error and data["evidence_budget"]["used"] == 4

    asyncio.run(go())
    # Newest first: a refusal is recorded as nothing returned, everything held back.
    records = indexed.json("audit")["records"]
    searches = [(len(r["results"]), r["held_back"]) for r in records if "search" in r["tool"]]
    [drive_letters, refused_search, cut] = searches
    assert drive_letters == (1, 0) and cut == (2, 1)
    assert refused_search[0] == 0 and refused_search[1] >= 1


def test_a_session_prefix_works_in_search_as_in_read(indexed: CLI, project: Path) -> None:
    async def go() -> None:
        async with connect(indexed, project) as client:
            error, data = await call(
                client, "search_conversation", query="normalize paths", sessionId=PATHS[:9]
            )
            assert not error and {r["session"]["id"] for r in data["results"]} == {PATHS}
            error, data = await call(client, "read_conversation", sessionId=PATHS[:9], turn=1)
            assert not error and data["session"]["id"] == PATHS
            error, text = await call(
                client, "search_conversation", query="normalize paths", sessionId="aaaa"
            )
            assert error and "matches 2 sessions" in text and "give more of the id" in text
            error, text = await call(
                client, "search_conversation", query="paths", sessionId="ffff0000"
            )
            assert error and "has the id 'ffff0000'" in text
            error, text = await call(client, "search_conversation", query="paths", sessionId=" ")
            assert error and "blank session id" in text

    asyncio.run(go())
    [record] = [r for r in indexed.json("audit")["records"] if r["tool"] == "search_conversation"]
    assert record["filters"]["session"] == PATHS  # the full id it resolved to


def test_a_bad_budget_in_the_config_is_refused(indexed: CLI) -> None:
    Path(indexed.env["FINDSESSION_CONFIG"]).write_text("[mcp]\nevidence_budget = 0\n")
    proc = indexed.run("status", check=False)
    assert proc.returncode == 1 and "evidence_budget must be a whole number" in proc.stderr


def test_no_audit_key_yet_means_no_query_can_be_checked(indexed: CLI) -> None:
    assert indexed.json("audit")["records"] == []
    assert "no agent searches recorded" in indexed.run("audit").stdout
    proc = indexed.run("audit", "--query", "anything", check=False)
    assert proc.returncode == 1 and "no audit key" in proc.stderr
    assert not key_file(indexed).exists()


@pytest.mark.skipif(os.name != "posix", reason="file modes")
def test_the_key_is_made_once_and_kept(indexed: CLI, project: Path) -> None:
    async def go() -> None:
        async with connect(indexed, project) as client:
            await call(client, "list_sessions")

    asyncio.run(go())
    first = key_file(indexed).read_bytes()
    asyncio.run(go())
    assert key_file(indexed).read_bytes() == first
    leftovers = [p.name for p in key_file(indexed).parent.iterdir() if p.suffix == ".tmp"]
    assert leftovers == []
