"""Kimi Code CLI's sessions (`~/.kimi-code/sessions/<work dir>/<session>/agents/<agent>/
wire.jsonl`), through the real CLI: each agent's prompts, replies, calls, results and
failures equal to a count of its log made without findsession, what Kimi Code added
(reminders, a `!` command, a skill's text, a subagent's `<git-context>`) kept out of the
prompts, a steer, subagents and a `/btw` agent under their session, a `/fork` read from
where it began, titles from `state.json`, the folder, blame through `Write` and `Edit`
(an append, a failed edit left out), a log read on from where it stopped, a malformed
line and an unknown record reported, and `kimi --session`.

Every file was written by the real Kimi Code CLI 2.1.0 (wire protocol 1.5, on Node 24)
offline against a scripted OpenAI-compatible model on localhost (its `kimi` provider
type): `apiary` `-p` with a file written and a command that failed, resumed twice with
`-r` (a read and an edit; an `explore` subagent); `Spring inspection` in the terminal UI
(a prompt queued while a turn ran, one sent into it with Ctrl-S, `/title`, `!python3
hives.py | wc -l`, `/btw`, `/compact`, `/fork`); the fork, resumed with `-r` and one
prompt; `orchard` in the terminal UI (`/goal`, `/skill:hive-report Linden`, an edit
that failed, a `Write` in `append` mode). And `cellar`, one `-p` of the real Kimi Code
0.10.0 (wire protocol 1.3: no message journal, no agent ids, a `state.json` without the
folder, which only `session_index.jsonl` names). Then each log's tool schemas
(`llm.tools_snapshot`'s `tools`) were emptied and each system prompt (`profile.bind`'s
or `config.update`'s `systemPrompt`) cut to its first line, the rest of every line left
as Kimi wrote it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI
from read_counts import indexed, read_in_two_parts

FIXTURE = Path(__file__).parent / "fixtures" / "kimi-code" / "home" / ".kimi-code"
HIVES = "session_5b0df05c-b052-475f-8e36-56df4598d88f"  # -p, resumed twice, a subagent
SPRING = "session_ca6ff05b-13f2-4785-87b1-a882ea6d8c92"  # the terminal UI, /btw, /fork
FORK = "session_a651df64-4de7-4a61-b29a-e33bfc00259e"  # SPRING's /fork, one prompt more
ORCHARD = "session_4c998d34-a7a2-4712-9335-07cf50ec4c0d"  # /goal, a skill, a failed edit
CELLAR = "session_8b86b8e4-4b6f-433b-9709-4b0aa580d43a"  # Kimi Code 0.10.0, protocol 1.3
COUNTER = f"{HIVES}:agent-0"  # an `explore` subagent
BTW = f"{SPRING}:agent-0"  # the /btw side question's agent


@pytest.fixture
def home(cli: CLI, tmp_path: Path) -> Path:
    place = tmp_path / "home" / ".kimi-code"
    shutil.copytree(FIXTURE, place)
    return place


def index(cli: CLI) -> dict[str, Any]:
    return cli.json("index", "--no-embed")


def hits(cli: CLI, query: str) -> list[str]:
    found = cli.json("search", "--mode", "keyword", "--source", "kimi-code", query)["results"]
    return [h["session"]["id"] for h in found]


def said(cli: CLI, sid: str, kind: str) -> list[str]:
    turns = cli.json("read", sid, "--tools")["turns"]
    return [m["text"] for t in turns for m in t["messages"] if m["kind"] == kind]


def steered(cli: CLI, sid: str) -> list[str]:
    turns = cli.json("read", sid)["turns"]
    return [m["text"] for t in turns for m in t["messages"] if m["steers"]]


def counted(home: Path) -> dict[str, dict[str, Any]]:
    """Each agent's log under `home` counted without findsession (see `count`), by the
    id its session gives it."""
    out: dict[str, dict[str, Any]] = {}
    for wire in sorted(home.glob("sessions/*/*/agents/*/wire.jsonl")):
        if (counts := count(wire)) is not None:
            sid = wire.parents[2].name
            out[sid if wire.parent.name == "main" else f"{sid}:{wire.parent.name}"] = counts
    return out


def count(wire: Path) -> dict[str, Any] | None:
    """One agent's log counted without findsession, from records it does not read: the
    prompts of `turn.prompt` and `turn.steer` (a skill's as its command; a subagent's
    task after its `<git-context>` block), the replies, calls and results of the message
    journal (`agent.message.appended`; the loop's own events where a log has no
    journal), and the failures of `tool.result`. A `/fork`'s copy of its source (up to
    the `forked` record) and a forked agent's copy of its parent's history (before its
    first `turn.prompt`) are left out. None for a log with nothing of its own."""
    state = json.loads((wire.parents[2] / "state.json").read_text(encoding="utf-8"))
    records = [json.loads(line) for line in wire.read_text(encoding="utf-8").splitlines()]
    types = [r["type"] for r in records]
    if "forkedFrom" in state and "forked" in types:
        records = records[types.index("forked") + 1 :]
    if "forkedFrom" in state["agents"].get(wire.parent.name, {}):
        types = [r["type"] for r in records]
        records = records[types.index("turn.prompt") if "turn.prompt" in types else len(types) :]
    prompts = []
    for r in (r for r in records if r["type"] in ("turn.prompt", "turn.steer")):
        origin = r["origin"]
        text = "".join(p["text"] for p in r["input"] if p["type"] == "text").strip()
        if origin["kind"] == "skill_activation":
            text = f"/{origin['skillName']} {origin.get('skillArgs') or ''}".strip()
        elif text.startswith("<git-context"):
            text = text.split("\n\n", 1)[1]
        prompts.append(text)
    events = [r["event"] for r in records if r["type"] == "context.append_loop_event"]
    journal = [r["message"]["message"] for r in records if r["type"] == "agent.message.appended"]
    answers = [m for m in journal if m["role"] == "assistant"]
    if not journal:  # a writer before the journal: the loop's own events
        answers = [
            {"content": [e["part"]], "toolCalls": []} for e in events if e["type"] == "content.part"
        ]
        answers += [{"content": [], "toolCalls": [e]} for e in events if e["type"] == "tool.call"]
    results = [e["result"] for e in events if e["type"] == "tool.result"]
    if not prompts and not answers:
        return None
    return {
        "prompts": prompts,
        "replies": sum(
            p["type"] == "text" and bool(p["text"].strip()) for m in answers for p in m["content"]
        ),
        "calls": sum(len(m["toolCalls"]) for m in answers),
        "results": sum(m["role"] == "tool" for m in journal) if journal else len(results),
        "failed": sum(r.get("isError") is True for r in results),
        "steers": [r["input"][0]["text"] for r in records if r["type"] == "turn.steer"],
    }


def test_every_agent_is_read_and_counted(cli: CLI, home: Path) -> None:
    report = index(cli)
    assert str(home / "sessions") in report["roots"]
    assert report["errors"] == report["problems"] == []
    expected = counted(home)
    assert sorted(expected) == sorted([HIVES, COUNTER, SPRING, BTW, FORK, ORCHARD, CELLAR])
    for sid, counts in expected.items():
        assert indexed(cli, sid) == {k: v for k, v in counts.items() if k != "steers"}, sid
        assert steered(cli, sid) == counts["steers"], sid
    assert expected[HIVES]["failed"] == expected[ORCHARD]["failed"] == 1
    assert expected[SPRING]["steers"] == ["Sort them by mite load, highest first"]


def test_what_kimi_added_is_not_a_prompt(cli: CLI, home: Path) -> None:
    index(cli)
    assert said(cli, COUNTER, "prompt") == [
        "HIVE-COUNT: read hives.py and say how many hives it lists."
    ]  # its `<git-context …/>` is Kimi's
    assert "/hive-report Linden" in said(cli, ORCHARD, "prompt")  # not the skill's text
    assert hits(cli, "varroa") == [SPRING]
    for harness in ("permission mode is active", "bash-input", "side-channel conversation",
                    "three-line health report"):  # fmt: skip
        assert not any(harness in p for s in (SPRING, BTW, ORCHARD) for p in said(cli, s, "prompt"))


def test_subagents_and_the_btw_agent_are_under_their_session(cli: CLI, home: Path) -> None:
    index(cli)
    counter = cli.json("read", COUNTER)["session"]
    assert counter["parent_id"] == HIVES and counter["subagent"] is True
    assert counter["agent_type"] == "explore"
    btw = cli.json("read", BTW)["session"]
    assert btw["parent_id"] == SPRING and btw["subagent"] is True
    # The /btw agent began with the session's messages, copied: they are the session's.
    assert said(cli, BTW, "prompt") == ["which hive is the oldest?"]
    assert hits(cli, "oldest") == [BTW]
    assert hits(cli, "swarm") == [SPRING]


def test_a_fork_is_read_from_where_it_began(cli: CLI, home: Path) -> None:
    index(cli)
    assert said(cli, FORK, "prompt") == ["In this branch, should I swap the frames instead?"]
    assert hits(cli, "frames") == [FORK]
    assert hits(cli, "oxalic") == [SPRING]  # the fork's copy of it is SPRING's


def test_titles_folders_and_resume(cli: CLI, home: Path) -> None:
    index(cli)
    title = {sid: cli.json("read", sid)["session"]["title"] for sid in (SPRING, FORK, HIVES)}
    assert title[SPRING] == "Spring inspection and mites"  # /title
    assert title[FORK] == "Fork: Spring inspection and mites"
    assert title[HIVES] == said(cli, HIVES, "prompt")[0]  # none given: the first prompt
    assert cli.json("read", ORCHARD)["session"]["cwd"] == "/home/dev/orchard"
    opened = cli.json("open", SPRING, "--json")["resume"]
    assert opened["command"] == ["kimi", "--session", SPRING]
    assert opened["cwd"] == "/home/dev/apiary"


def test_a_title_is_what_state_json_says_it_is(cli: CLI, home: Path) -> None:
    """`replaceable` is Kimi's first prompt cut short: no title; `generated` is Kimi's
    and `custom` the person's; a new one is seen though the log did not change."""
    state_path = next(home.glob(f"sessions/*/{ORCHARD}/state.json"))
    state = json.loads(state_path.read_text())
    state_path.write_text(json.dumps({**state, "title": "Cut short"}))  # still replaceable
    index(cli)
    assert (
        cli.json("read", ORCHARD)["session"]["title"] == "Map which orchard rows the bees pollinate"
    )
    state_path.write_text(json.dumps({**state, "title": "Orchard rows", "titleKind": "generated"}))
    index(cli)
    assert cli.json("read", ORCHARD)["session"]["title"] == "Orchard rows"


def test_a_folder_without_its_cwd_is_known_from_kimis_lists(cli: CLI, home: Path) -> None:
    """Kimi Code 0.10 wrote no folder into `state.json`: `session_index.jsonl` has it;
    else `workspaces.json` names the work-directory folder's root."""
    state_path = next(home.glob(f"sessions/*/{ORCHARD}/state.json"))
    state = json.loads(state_path.read_text())
    del state["cwd"]
    state_path.write_text(json.dumps(state))
    listing = home / "session_index.jsonl"
    listing.write_text("".join(x for x in listing.read_text().splitlines(True) if ORCHARD not in x))
    index(cli)
    assert cli.json("read", CELLAR)["session"]["cwd"] == "/home/dev/cellar"
    assert cli.json("read", ORCHARD)["session"]["cwd"] == "/home/dev/orchard"


def test_blame_through_write_and_edit(cli: CLI, home: Path) -> None:
    index(cli)
    hives = cli.json("blame", "/home/dev/apiary/hives.py")
    assert [w["op"] for w in hives["writers"]] == ["edit", "create"]
    rows = cli.json("blame", "/home/dev/orchard/rows.md")
    # The failed edit wrote nothing; the append added its line, with no `mode` in it.
    assert [(w["op"], w["added"]) for w in rows["writers"]] == [
        ("edit", ["Row 5: none planted yet."]),
        (
            "create",
            ["# Pollination", "", "Rows 1-3: apples, worked daily.", "Row 4: pears, rarely."],
        ),
    ]


def test_read_on_from_where_it_stopped_names_a_result_after_its_call(cli: CLI, home: Path) -> None:
    wire = next(home.glob(f"sessions/*/{ORCHARD}/agents/main/wire.jsonl"))
    read_in_two_parts(cli, wire, lambda line: '"name":"Edit"' in line)
    outputs = [
        m
        for t in cli.json("read", ORCHARD, "--tools")["turns"]
        for m in t["messages"]
        if m["kind"] == "tool_output" and m["is_error"]
    ]
    assert [m["tool"] for m in outputs] == ["Edit"]


def test_a_malformed_line_and_an_unknown_record_are_reported(cli: CLI, home: Path) -> None:
    wire = next(home.glob(f"sessions/*/{HIVES}/agents/main/wire.jsonl"))
    with wire.open("a") as fh:
        fh.write('{"type":"context.append_message",\n')
        fh.write('{"type":"hive.weighed","kg":31,"time":1796616700000}\n')
        fh.write('{"type":"hive.weighed","kg":29,"time":1796616800000}\n')
    report = index(cli)
    problems = {p["reason"]: p for p in report["problems"]}
    assert set(problems) == {"malformed JSON", "unknown record"}
    assert problems["unknown record"]["detail"] == "hive.weighed (2 lines)"
    assert len(said(cli, HIVES, "prompt")) == 3


def test_a_context_message_of_the_agent_is_read_as_its_parts_calls_and_result(
    cli: CLI, home: Path
) -> None:
    """The assistant and tool messages Kimi puts into a context (the history a `/btw`
    agent was given: here read as the agent's own, its `state.json` no longer saying it
    is a fork) are read as replies, thinking, calls and their results."""
    state_path = next(home.glob(f"sessions/*/{SPRING}/state.json"))
    state = json.loads(state_path.read_text())
    del state["agents"]["agent-0"]["forkedFrom"]
    state_path.write_text(json.dumps(state))
    index(cli)
    turns = cli.json("read", BTW, "--tools")["turns"]
    kinds = [m["kind"] for t in turns for m in t["messages"]]
    assert (kinds.count("reply"), kinds.count("tool_call"), kinds.count("tool_output")) == (6, 2, 2)
    assert said(cli, BTW, "thinking") == ["Start from the list of hives."]
    assert {m["tool"] for t in turns for m in t["messages"] if m["kind"] == "tool_output"} == {
        "Read",
        "Bash",
    }
