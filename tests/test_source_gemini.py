"""Gemini CLI chats: both file forms, rewrites in place, rewinds, resumed and helper
chats, subagents and project folders, through the real CLI.

The fixture is a hand-written Gemini home (`fixtures/gemini/home/.gemini`): a project
under a slug named in `projects.json` (a single-JSON chat and a helper chat sharing its
id), one under a hashed folder whose path only `trustedFolders.json` names (a JSONL chat
with `$set`, a re-appended reply, a `$rewindTo`, a tool response recorded as a user
message and a malformed line), and one with a `.project_root` marker (a `.json` resumed
into a `.jsonl` twin, a subagent chat, and a background skill-extraction run).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI, SHARED

from findsession.indexing import Root, index_roots
from findsession.storage.sqlite import Store

FIXTURE = Path(__file__).parent / "fixtures" / "gemini" / "home"
ORCHARD = "aaaa1111-0000-4000-8000-000000000001"
LIGHTHOUSE = "bbbb2222-0000-4000-8000-000000000002"
KILN = "cccc3333-0000-4000-8000-000000000003"
SURVEY = "dddd4444-0000-4000-8000-000000000004"
LIGHTHOUSE_DIR = "aa436a2400ab81b233fedc3681fefbcf706ec860456e8735d463559fd1037180"


@pytest.fixture
def gemini(cli: CLI, tmp_path: Path) -> Path:
    """A copy of the fixture home, found by the CLI through `GEMINI_CLI_HOME`."""
    home = tmp_path / "gemini-home"
    shutil.copytree(FIXTURE, home)
    cli.env["GEMINI_CLI_HOME"] = str(home)
    return home / ".gemini"


def index(cli: CLI) -> dict[str, Any]:
    return cli.json("index", "--no-embed")


def hits(cli: CLI, query: str) -> list[dict[str, Any]]:
    return cli.json("search", "--mode", "keyword", "--source", "gemini", query)["results"]


def found(cli: CLI, query: str) -> list[str]:
    return [h["session"]["id"] for h in hits(cli, query)]


def problems_of(report: dict[str, Any], path: Path) -> list[dict[str, Any]]:
    return sorted(
        (p for p in report["problems"] if p["path"] == str(path)), key=lambda p: p["line"]
    )


def chat(gemini: Path, project: str, name: str) -> Path:
    return gemini / "tmp" / project / "chats" / name


def test_the_standard_place_under_gemini_cli_home_is_indexed(cli: CLI, gemini: Path) -> None:
    report = index(cli)
    assert str(gemini / "tmp") in report["roots"]
    # Five chats: the resumed `.json` is left to its `.jsonl` twin, the skill-extraction
    # run is left out.
    assert report["files_read"] == 5 and report["errors"] == []
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["gemini"]
    assert (listed["files"], listed["sessions"], listed["subagents"]) == (
        5,
        3,
        2,
    )  # sessions, and subagents apart
    assert index(cli)["files_read"] == 0  # unchanged files cost a stat


def test_a_single_json_chat_gives_prompts_replies_tools_title_and_project(
    cli: CLI, gemini: Path
) -> None:
    index(cli)
    [hit] = hits(cli, "graft pear trees quince")
    session = hit["session"]
    assert session["id"] == ORCHARD and session["turns"] == 2
    assert session["title"] == "Pear grafting on quince rootstock"  # the chat's summary
    assert session["cwd"] == "/home/dev/orchard"  # projects.json maps the slug
    assert found(cli, "north row") == [ORCHARD]  # a tool's output
    assert found(cli, "cancelled") == []  # an info message is not conversation
    tools = cli.json("read", ORCHARD, "--tools")["turns"][0]["messages"]
    assert [(m["kind"], m["tool"]) for m in tools] == [
        ("prompt", None),
        ("thinking", None),
        ("reply", None),
        ("tool_call", "read_file"),
        ("tool_output", "read_file"),
    ]


def test_a_chat_rewritten_in_place_is_read_again_without_duplicates(cli: CLI, gemini: Path) -> None:
    index(cli)
    path = chat(gemini, "orchard", "session-2025-11-03T09-15-aaaa1111.json")
    data = json.loads(path.read_text())
    data["messages"] += [
        {"id": "o-u3", "timestamp": "2025-11-03T10:00:00Z", "type": "user",
         "content": [{"text": "How far apart should the espaliered rows stand?"}]},
        {"id": "o-g3", "timestamp": "2025-11-03T10:00:09Z", "type": "gemini",
         "content": "Three metres between espalier rows leaves room to mow."},
    ]  # fmt: skip
    path.write_text(json.dumps(data, indent=2))
    assert index(cli)["files_read"] == 1
    assert found(cli, "espaliered rows") == [ORCHARD]
    hit = hits(cli, "sealing wax graft union")[0]
    assert hit["session"]["turns"] == 3
    assert cli.json("read", ORCHARD)["total_turns"] == 3

    # A rewrite that drops a turn takes its words out of the index.
    data["messages"] = [m for m in data["messages"] if m["id"] not in ("o-u2", "o-g2")]
    path.write_text(json.dumps(data, indent=2))
    index(cli)
    assert found(cli, "sealing wax") == []
    assert cli.json("read", ORCHARD)["total_turns"] == 2


def test_a_jsonl_chat_is_the_conversation_it_resolves_to(cli: CLI, gemini: Path) -> None:
    report = index(cli)
    [problem] = report["problems"]
    assert problem["path"].endswith("bbbb2222.jsonl") and problem["line"] == 9
    assert problem["reason"] == "malformed JSON"
    [hit] = hits(cli, "lamp rotation motor relay")
    session = hit["session"]
    assert session["id"] == LIGHTHOUSE and session["turns"] == 2
    assert session["title"] == "Lighthouse lamp relay and keeper journal"  # from `$set`
    assert session["cwd"] == "/home/dev/lighthouse"  # its hash is of a trusted folder
    assert found(cli, "foghorn") == []  # rewound
    assert found(cli, "capacitor") == []  # replaced by the same id appended again
    # "System: Please continue." is no prompt: the reply after it joins turn 1.
    turns = cli.json("read", LIGHTHOUSE, "--tools")["turns"]
    first = [m["text"] for m in turns[0]["messages"] if m["kind"] == "reply"]
    assert first[-1] == "Also add a flyback diode across the relay coil."
    outputs = [m for t in turns for m in t["messages"] if m["kind"] == "tool_output"]
    # The tool response recorded twice (in the call and as a user message) counts once.
    assert [m["text"] for m in outputs] == ["12: relay K2 rated 10 A", "logs/lamp-hours.log"]


def test_what_is_appended_later_can_rewind_or_replace_what_was_indexed(
    cli: CLI, gemini: Path
) -> None:
    index(cli)
    path = chat(gemini, LIGHTHOUSE_DIR, "session-2026-04-20T14-02-bbbb2222.jsonl")
    with path.open("a") as fh:
        for record in (
            {"id": "l-g1", "type": "gemini", "content": "Swap in a relay rated for 40 A."},
            {"$rewindTo": "l-u4"},
            {"id": "l-u5", "type": "user", "content": [{"text": "Paint the gallery railings"}]},
            {"id": "l-g5", "type": "gemini", "content": "Use marine enamel on the railings."},
        ):
            fh.write(json.dumps(record) + "\n")
    index(cli)
    assert found(cli, "column") == []  # the rewound turn's reply
    assert found(cli, "inrush current") == []  # the replaced reply's thoughts went too
    assert found(cli, "gallery railings") == [LIGHTHOUSE]
    assert found(cli, "relay rated 40") == [LIGHTHOUSE]
    assert cli.json("read", LIGHTHOUSE)["total_turns"] == 2


def test_turns_a_compression_leaves_out_stay_searchable(cli: CLI, gemini: Path) -> None:
    path = chat(gemini, LIGHTHOUSE_DIR, "session-2026-04-20T14-02-bbbb2222.jsonl")
    kept = [json.loads(line) for line in path.read_text().splitlines()[12:16]]
    snapshot = "<state_snapshot>\nThe keeper wants lamp hours logged.\n</state_snapshot>"
    with path.open("a") as fh:
        for record in (
            {"$set": {"messages": [
                {"id": "c-1", "type": "user", "content": [{"text": snapshot}]},
                {"id": "c-2", "type": "gemini",
                 "content": [{"text": "Got it. Thanks for the additional context!"}]},
                *kept,
            ]}},
            {"id": "l-u6", "type": "user", "content": [{"text": "Order spare lamp bulbs"}]},
            {"id": "l-g6", "type": "gemini", "content": "Two spare bulbs ordered."},
        ):  # fmt: skip
            fh.write(json.dumps(record) + "\n")
    index(cli)
    assert found(cli, "flyback diode") == [LIGHTHOUSE]  # compressed away, still said
    turns = cli.json("read", LIGHTHOUSE)["turns"]
    assert [t["messages"][0]["text"] for t in turns] == [
        "The lighthouse lamp rotation motor stalls at dusk; check the relay wiring",
        "Instead, log the lamp hours in the keeper's journal",
        "Order spare lamp bulbs",
    ]
    assert all("Got it" not in m["text"] for t in turns for m in t["messages"])


def test_a_resumed_chat_is_indexed_once_from_its_jsonl(cli: CLI, gemini: Path) -> None:
    index(cli)
    hit = hits(cli, "celadon glaze cone")[0]
    session = hit["session"]
    assert session["id"] == KILN and session["turns"] == 2
    assert session["path"].endswith("cccc3333.jsonl")
    assert session["cwd"] == "/home/dev/kiln"  # the slug folder's .project_root
    assert found(cli, "celadon")[0] == KILN and found(cli, "celadon").count(KILN) == 1


def test_a_chat_resumed_after_it_was_indexed_stays_one_session(cli: CLI, gemini: Path) -> None:
    twin = chat(gemini, "kiln", "session-2026-05-01T08-30-cccc3333.jsonl")
    kept = twin.read_bytes()
    twin.unlink()
    index(cli)
    twin.write_bytes(kept)
    index(cli)
    assert found(cli, "celadon") == [KILN]


def test_subagent_and_helper_chats_lead_to_their_session(cli: CLI, gemini: Path) -> None:
    index(cli)
    sub = hits(cli, "glaze recipes crawling defects")[0]
    assert sub["session"]["id"] == SURVEY
    assert sub["session"]["subagent"] and sub["session"]["parent_id"] == KILN
    helper = hits(cli, "exported markdown")[0]
    assert helper["session"]["subagent"] and helper["session"]["parent_id"] == ORCHARD
    assert helper["session"]["cwd"] == "/home/dev/orchard"
    assert cli.json("read", ORCHARD[:8])["session"]["id"] == ORCHARD  # the prefix is unique
    assert found(cli, "reusable skills") == []  # the background run is not indexed


def test_read_raw_reads_both_forms_back(cli: CLI, gemini: Path) -> None:
    index(cli)
    for sid, reply in (
        (ORCHARD, "A beeswax and pine resin blend stays supple"),
        (LIGHTHOUSE, "The relay coil is undersized"),
    ):
        raw = cli.json("read", sid, "--raw")
        assert raw["turns"] == cli.json("read", sid)["turns"]
        texts = [m["text"] for t in raw["turns"] for m in t["messages"]]
        assert any(t.startswith(reply) for t in texts)


def test_a_chat_caught_half_written_keeps_its_whole_messages(cli: CLI, gemini: Path) -> None:
    path = chat(gemini, "orchard", "session-2025-11-03T09-15-aaaa1111.json")
    text = path.read_text()
    path.write_text(text[: text.index("Which sealing wax") + 5])  # cut inside message 3
    [problem] = problems_of(index(cli), path)
    assert problem["reason"] == "truncated JSON" and problem["line"] > 1
    assert found(cli, "graft pear trees") == [ORCHARD]
    path.write_text(text)  # the write completes
    assert problems_of(index(cli), path) == []
    assert found(cli, "sealing wax") == [ORCHARD]


def test_hostile_files_are_reported_never_fatal(cli: CLI, gemini: Path) -> None:
    chats = chat(gemini, "orchard", "")
    (chats / "session-2025-12-01T10-00-ffff0001.json").write_bytes(b"\x00\x01\x02" * 300)
    (chats / "session-2025-12-01T10-05-ffff0002.jsonl").write_bytes(
        b'{"sessionId": "ffff0002", "projectHash": "x"}\n'
        b'{"id": "z1", "type": "user", "content": "tidy the \xff\xfe potting shed"}\n'
        b"[1, 2]\n"
        b'{"id": "z2", "type": "gemini", "content": "Shelves first, then the bench."'
    )
    report = index(cli)
    assert report["errors"] == []
    assert any(s["reason"].startswith("binary") for s in report["skipped"])
    problems = [
        (p["line"], p["reason"])
        for p in problems_of(report, chats / "session-2025-12-01T10-05-ffff0002.jsonl")
    ]
    assert problems == [(3, "not a JSON object"), (4, "incomplete last line")]
    assert found(cli, "potting shed") == ["ffff0002"]


def test_forget_removes_a_gemini_session_for_good(cli: CLI, gemini: Path) -> None:
    index(cli)
    cli.run("forget", ORCHARD)
    chat(gemini, "orchard", "session-2025-11-03T09-15-aaaa1111.json").touch()
    index(cli)
    assert found(cli, "graft pear quince") == []


# -- the shared corpus: real chat files ------------------------------------------------

CORPUS = SHARED / "corpus"
SESSIONS_TSV = SHARED / "benchmarks" / "known-item-dev" / "sessions.tsv"
needs_corpus = pytest.mark.skipif(
    not CORPUS.is_dir(), reason=f"the shared corpus is not at {CORPUS} (only developers have it)"
)


def _typed_prompts(path: Path) -> int:
    """User messages that are typed text, counted from the JSON alone."""
    harness = ("Please continue.", "System: Please continue.")
    count = 0
    for msg in json.loads(path.read_text(encoding="utf-8"))["messages"]:
        content = msg.get("content")
        parts = [{"text": content}] if isinstance(content, str) else content or []
        text = "".join(p.get("text", "") for p in parts if isinstance(p, dict)).strip()
        responds = any("functionResponse" in p for p in parts if isinstance(p, dict))
        if msg.get("type") == "user" and text and text not in harness and not responds:
            count += 1
    return count


@needs_corpus
def test_every_shared_gemini_chat_indexes_with_its_sessions_and_prompts(tmp_path: Path) -> None:
    files = sorted(p for p in CORPUS.glob("*/.gemini/tmp/*/chats/*") if p.is_file())
    assert files, "the corpus holds Gemini chats"
    with Store.open(tmp_path / "index.db") as store:
        report = index_roots(store, [Root(CORPUS, "gemini")])
        assert report.errors == [] and report.problems == []
        assert report.files_read == len(files)
        for path in files:
            rows = store.query(
                "SELECT count(*), sum(n_turns) FROM sessions WHERE file_path = ?", (str(path),)
            )
            assert rows == [(1, _typed_prompts(path))], path

        tsv = [line.split("\t") for line in SESSIONS_TSV.read_text().splitlines()[1:]]
        gemini_rows = [row for row in tsv if row[1] == "gemini"]
        assert len(gemini_rows) == len(files)
        for file, _, session_id, role, *_ in gemini_rows:
            [(sid, parent)] = store.query(
                "SELECT id, parent_id FROM sessions WHERE file_path = ?", (str(CORPUS / file),)
            )
            assert (sid if role == "main" else parent) == session_id, file


def _older_copy(gemini: Path) -> Path:
    """The orchard chat as the CLI left it in the project's hashed folder before it moved
    the project to its slug folder: the same name and id, one turn fewer, no summary."""
    slug = chat(gemini, "orchard", "session-2025-11-03T09-15-aaaa1111.json")
    doc = json.loads(slug.read_text())
    del doc["summary"]
    doc["messages"] = doc["messages"][:2]
    hashed = hashlib.sha256(b"/home/dev/orchard").hexdigest()
    copy = chat(gemini, hashed, slug.name)
    copy.parent.mkdir(parents=True)
    copy.write_text(json.dumps(doc, indent=2))
    return copy


def test_a_chat_in_both_the_hashed_and_the_slug_folder_keeps_its_title(
    cli: CLI, gemini: Path
) -> None:
    copy = _older_copy(gemini)
    index(cli)
    [session] = [h["session"] for h in hits(cli, "quince rootstock")]
    assert session["id"] == ORCHARD and session["title"] == "Pear grafting on quince rootstock"
    assert "/orchard/chats/" in session["path"] and session["turns"] == 2
    with Store.open(Path(cli.env["FINDSESSION_DB"])) as store:
        assert store.query("SELECT count(*) FROM files WHERE path = ?", (str(copy),)) == [(0,)]


def test_the_slug_copy_found_after_the_hashed_one_replaces_it(cli: CLI, gemini: Path) -> None:
    slug = chat(gemini, "orchard", "session-2025-11-03T09-15-aaaa1111.json")
    kept = slug.read_bytes()
    _older_copy(gemini)
    slug.unlink()
    index(cli)
    assert [h["session"]["title"] for h in hits(cli, "quince rootstock")] != [
        "Pear grafting on quince rootstock"
    ]
    slug.write_bytes(kept)
    index(cli)
    sessions = [h["session"] for h in hits(cli, "quince rootstock")]
    assert [(s["id"], s["title"]) for s in sessions] == [
        (ORCHARD, "Pear grafting on quince rootstock")
    ]


def one_turn_chat(
    cli: CLI, gemini: Path, short: str, when: str, prompt: str, reply: dict[str, Any]
) -> dict[str, Any]:
    """A `.json` chat of one prompt and one reply in the `kiln` project, indexed: its turn."""
    session = f"{short}-0000-4000-8000-00000000000{short[0]}"
    doc = {
        "sessionId": session,
        "messages": [
            {"id": "p1", "type": "user", "content": [{"text": prompt}]},
            {"id": "g1", "type": "gemini", **reply},
        ],
    }
    chat(gemini, "kiln", f"session-{when}-{short}.json").write_text(json.dumps(doc))
    index(cli)
    [turn] = cli.json("read", session, "--tools")["turns"]
    return turn


def test_identical_tool_calls_of_one_message_are_each_shown(cli: CLI, gemini: Path) -> None:
    """A reply that runs the same command three times (polling a build) has three calls,
    each with its own id and output: `read --tools` shows all three."""
    def call(n: int) -> dict[str, Any]:
        return {
            "id": f"run_shell_command-{n}", "name": "run_shell_command",
            "args": {"command": "make -C kiln status"}, "status": "success",
            "result": [{"functionResponse": {"id": f"run_shell_command-{n}",
                        "name": "run_shell_command",
                        "response": {"output": "firing: cone 6, 1180C"}}}],
            "timestamp": f"2025-11-04T10:00:0{n}.000Z",
        }  # fmt: skip

    turn = one_turn_chat(
        cli, gemini, "ffff6666", "2025-11-04T10-00",
        "watch the kiln firing until it reaches cone six",
        {"content": "It reached cone 6.", "toolCalls": [call(1), call(2), call(3)]},
    )  # fmt: skip
    kinds = [m["kind"] for m in turn["messages"]]
    assert kinds.count("tool_call") == 3 and kinds.count("tool_output") == 3


def test_each_call_of_a_batch_has_its_own_output(cli: CLI, gemini: Path) -> None:
    """When the CLI rebuilds a message from the model's history (a resume, a rollback:
    `updateMessagesFromHistory`, still in 0.61.0), each call of a batch gets the whole
    turn of responses as its `result`, as in a real chat of June 2026 (three calls, each
    result the same three responses): a call's output is its own response only."""
    outputs = {"read_file-1": "flask==3.1.3", "run_shell_command-2": "pip 25.2"}
    batch = [
        {"functionResponse": {"id": cid, "name": cid.split("-")[0], "response": {"output": out}}}
        for cid, out in outputs.items()
    ]
    calls = [
        {"id": cid, "name": cid.split("-")[0], "args": {}, "result": batch, "status": "success"}
        for cid in outputs
    ]
    turn = one_turn_chat(
        cli, gemini, "ffff7777", "2026-06-12T04-16", "why does the kiln app not start",
        {"content": "Flask is not installed in the venv.", "toolCalls": calls},
    )  # fmt: skip
    shown = [m["text"] for m in turn["messages"] if m["kind"] == "tool_output"]
    assert shown == list(outputs.values())
