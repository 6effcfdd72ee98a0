"""Pi sessions: found in Pi's agent folder, searched, read back, kept up to date.

The fixture folder (`fixtures/pi/agent`, written from the documented format) holds a
version 3 session (a prompt answered with reasoning, a tool call and its result, a name,
a command the person ran, a malformed line, a second branch made with `/tree` after a
branch summary, an extension's injected message) and a version 1 session (no entry ids).
"""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path

import pytest
from conftest import CLI

from findsession.domain import MessageKind, Root
from findsession.indexing import IndexReport, index_roots
from findsession.indexing.readings import SHARED
from findsession.search.engine import SearchOptions, search
from findsession.sources import pi
from findsession.storage.sqlite import Store

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "pi" / "agent"
SID = "0b7e4c1a-5d2f-4a8e-9c3b-6f1d2e3a4b5c"
OLD = "7a6b5c4d-3e2f-4a1b-8c9d-0e1f2a3b4c5d"
KW = SearchOptions(mode="keyword")


@pytest.fixture
def agent(tmp_path: Path) -> Path:
    agent = tmp_path / "pi-agent"
    shutil.copytree(FIXTURE, agent)
    return agent


def session_file(agent: Path, sid: str = SID) -> Path:
    return next(agent.rglob(f"*_{sid}.jsonl"))


def index(store: Store, agent: Path) -> IndexReport:
    return index_roots(store, [Root(agent / "sessions", "pi")])


def prompts(store: Store, sid: str) -> list[str]:
    return [m.text for m in store.session_messages(sid) if m.kind is MessageKind.PROMPT]


def test_search_finds_a_pi_prompt_and_read_shows_its_turns(cli: CLI, agent: Path) -> None:
    cli.env["PI_CODING_AGENT_DIR"] = str(agent)  # the standard place, no root named
    cli.run("index", "--no-embed")
    hits = cli.json("search", "kiln controller overshoot forty degrees")["results"]
    top = hits[0]["session"]
    assert top["id"] == SID and top["source"] == "pi"
    assert top["title"] == "Kiln overshoot" and top["cwd"] == "/home/dev/kiln"

    read = cli.json("read", SID, "--tools")
    first = [m["text"] for m in read["turns"][0]["messages"]]
    assert first[0] == "Why does the kiln controller overshoot by forty degrees?"
    assert "The PID gains are the usual suspect." in first  # reasoning
    assert any("pid.yaml" in t for t in first) and any("kp: 9.5" in t for t in first)
    assert "Lower kp from 9.5 to 4 and the overshoot stops." in first
    assert any("make flash-controller" in t for t in first)  # a command the person ran
    raw = cli.run("read", SID, "--raw").stdout
    assert "Feed-forward now adds the ramp rate" in raw


def test_every_branch_of_the_tree_is_indexed(store: Store, agent: Path) -> None:
    index(store, agent)
    assert prompts(store, SID) == [
        "Why does the kiln controller overshoot by forty degrees?",
        "Try a feed-forward term instead of retuning kp",
    ]
    kinds = {m.text: m.kind for m in store.session_messages(SID)}
    assert kinds["Remember: the todo list is empty."] is MessageKind.HARNESS
    assert kinds["Lowering kp to 4 was tried on the other branch."] is (MessageKind.COMPACT_SUMMARY)


def test_a_version_1_session_without_entry_ids_is_read(store: Store, agent: Path) -> None:
    index(store, agent)
    assert prompts(store, OLD) == ["Log the thermocouple temperature every second"]
    assert store.get_session(OLD).cwd == "/home/dev/kiln"


def test_a_malformed_line_is_reported_by_its_number(store: Store, agent: Path) -> None:
    report = index(store, agent)
    found = [(Path(p).name, pr.line, pr.reason) for p, pr in report.problems]
    assert found == [(session_file(agent).name, 9, "malformed JSON")]


def test_a_grown_session_is_read_on_and_keeps_its_directory(store: Store, agent: Path) -> None:
    index(store, agent)
    entry = {
        "type": "message",
        "id": "e0000012",
        "parentId": "e0000011",
        "timestamp": "2026-05-04T09:05:00.000Z",
        "message": {"role": "user", "content": "Add a cooling ramp limit"},
    }
    added = (json.dumps(entry) + "\n").encode()
    with open(session_file(agent), "ab") as fh:
        fh.write(added)
    report = index(store, agent)
    assert report.files_read == 1 and report.bytes_read == len(added)
    assert prompts(store, SID)[-1] == "Add a cooling ramp limit"
    new = [m for m in store.session_messages(SID) if m.text == "Add a cooling ramp limit"]
    assert new[0].cwd == "/home/dev/kiln"  # from the header, read again
    assert search(store, "cooling ramp limit", KW).hits[0].session.id == SID


def test_source_filter_sources_and_resume(cli: CLI, agent: Path, tmp_path: Path) -> None:
    project = tmp_path / "dev" / "kiln"
    project.mkdir(parents=True)
    for path in agent.rglob("*.jsonl"):
        path.write_text(path.read_text().replace("/home/dev/kiln", str(project)))
    cli.env["PI_CODING_AGENT_DIR"] = str(agent)
    cli.run("index", "--no-embed")
    kept = cli.json("search", "thermocouple", "--source", "pi")["results"]
    assert [h["session"]["id"] for h in kept] == [OLD]
    assert cli.json("search", "thermocouple", "--source", "qwen")["results"] == []
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}
    assert listed["pi"]["sessions"] == 2
    line = shlex.split(cli.run("open", SID, "--print").stdout)
    assert line == ["cd", str(project), "&&", "pi", "--session", str(session_file(agent))]


REAL = Path(__file__).resolve().parent / "fixtures" / "pi-real" / "agent"
#: The sessions the real Pi 0.74.2 wrote, offline against a scripted model: with the
#: pi-subagents extension (0.34.0), a prompt that made the model call `subagent` and a
#: `/run scout …` the extension answered itself (Pi records no typed message for it);
#: and a module written and edited (`edit`'s list of `edits`), then an edit that failed.
LEAD = "01a24e90-6801-7b51-b0fa-9e8dd251753d"
RUN_LEAD = "01a24e90-926c-7bdf-8879-dc048f82012b"
CHILDREN = {
    "01a24e90-6f5c-7608-a317-503b1590e2a9": LEAD,
    "01a24e90-998e-7394-ba22-815f9592f70a": RUN_LEAD,
}


def counted(path: Path) -> tuple[list[str], int, int, int]:
    """Typed prompts, calls, results and failed results of a Pi file, from its lines."""
    typed: list[str] = []
    calls = results = failed = 0
    for line in path.read_text().splitlines():
        message = json.loads(line).get("message") or {}
        content = message.get("content")
        if message.get("role") == "user":
            typed.append("".join(b["text"] for b in content if b["type"] == "text").strip())
        elif message.get("role") == "assistant":
            calls += sum(b["type"] == "toolCall" for b in content)
        elif message.get("role") == "toolResult":
            results += 1
            failed += message.get("isError") is True
    return typed, calls, results, failed


def test_a_subagent_the_pi_subagents_extension_ran_is_linked_to_its_session(cli: CLI) -> None:
    """pi-subagents keeps each child's session below its parent's, in a folder named as
    the parent's file (`<parent>/<run id>/run-<n>/session.jsonl`): a child of that
    session, not a session of its own. A real home held five such children."""
    cli.env["PI_CODING_AGENT_DIR"] = str(REAL)
    report = cli.json("index", "--no-embed")
    assert report["errors"] == report["problems"] == []
    files = {json.loads(p.open().readline())["id"]: p for p in REAL.rglob("*.jsonl")}
    for child, parent in CHILDREN.items():
        read = cli.json("read", child, "--tools")
        assert read["session"]["subagent"] is True and read["session"]["parent_id"] == parent
        said = [m for t in read["turns"] for m in t["messages"]]
        outputs = [m for m in said if m["kind"] == "tool_output"]
        typed, calls, results, failed = counted(files[child])
        assert [m["text"] for m in said if m["kind"] == "prompt"] == typed
        assert sum(m["kind"] == "tool_call" for m in said) == calls == 2
        assert (len(outputs), sum(m["is_error"] for m in outputs)) == (results, failed) == (2, 1)
    lead = cli.json("read", LEAD, "--tools")["session"]
    assert lead["subagent"] is False and lead["cwd"] == "/home/dev/tides"
    assert counted(files[RUN_LEAD])[0] == []  # `/run` typed nothing Pi kept: no session
    hits = cli.json("search", "scout harbour tide table", "--source", "pi")["results"]
    parents = {h["session"]["id"]: h["session"]["parent_id"] for h in hits}
    assert {sid: parents[sid] for sid in (LEAD, *CHILDREN)} == {LEAD: None, **CHILDREN}


def test_blame_finds_what_pis_write_and_edit_wrote(cli: CLI) -> None:
    """Pi's `edit` takes a list of `edits` (`{oldText, newText}`; the older single
    `oldText`/`newText` is folded into it): each edit that succeeded is a write of the
    file, with the new text of each; the one Pi refused (its old text was not there) is
    none."""
    cli.env["PI_CODING_AGENT_DIR"] = str(REAL)
    cli.run("index", "--no-embed")
    blame = cli.json("blame", "/home/dev/tides/tides/consts.py")
    assert blame["total"] == 2
    edit, write = blame["writers"]  # newest first
    assert (write["tool"], write["op"]) == ("write", "create")
    assert (edit["tool"], edit["op"]) == ("edit", "edit")
    assert edit["added"] == ["DATUM = 'ordnance'", "OFFSET = 2.9"]
    assert edit["removed"] == ["DATUM = 'chart'", "OFFSET = 0.0"]


def test_an_index_made_before_children_were_linked_reads_pi_again_once(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An index made by a release that took a pi-subagents child for a session of its
    own (its reading `<shared>.1`) reads Pi's files again after the upgrade, unchanged as
    they are, and the children are linked."""
    home = tmp_path / "agent"
    shutil.copytree(REAL, home)
    with monkeypatch.context() as older:
        older.setattr(pi, "_parent_file", lambda path: None)
        index(store, home)
    with store.transaction():
        store.set_setting("reading.pi", f"{SHARED}.1")
    assert all(store.get_session(child).parent_id is None for child in CHILDREN)
    report = index(store, home)
    assert report.read_anew == ["pi"]
    assert {child: store.get_session(child).parent_id for child in CHILDREN} == CHILDREN
