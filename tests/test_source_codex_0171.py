"""A rollout the real Codex CLI 0.171.0 wrote, read through the real CLI.

The file (`fixtures/codex-0171/home`) was written by `codex exec` offline against a
scripted Responses API server on localhost, in one project (`greet`): a prompt whose
answer added a file with `apply_patch`, then `codex exec resume` three times (a patch
that edited it, an `exec_command` that failed with exit code 2, a plain question), then
`codex resume` in the terminal UI: a prompt, `/compact`, and one more prompt. Paths were
renamed to /home/dev; Codex's base instructions (`session_meta`) and its skills list (a
developer message) were cut, and say so; nothing else was changed. Beside it, Codex's
`state_5.sqlite`, its paths renamed the same way, the rows of other threads and of its
migrations table deleted, and stored with 512-byte pages (so it is small).

0.171 no longer writes the `event_msg` `user_message` older rollouts hold for each typed
prompt: what the person typed is an `event_msg` `item_completed` whose item is a
`UserMessage` (beside `AgentMessage`, `FileChange`, `CommandExecution` and
`ContextCompaction` items that copy what the `response_item`s hold). The counts below
are made from the raw lines, without findsession.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI
from test_source_codex import index, item, record

from findsession.domain import MessageKind
from findsession.storage.sqlite import Store

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "codex-0171" / "home"
SID = "01a250af-c820-7363-b82f-ff2bf4bf3bf2"


@pytest.fixture
def home(tmp_path: Path) -> Path:
    place = tmp_path / "codex"
    shutil.copytree(FIXTURE, place)
    return place


def raw_lines() -> list[dict[str, Any]]:
    path = next(FIXTURE.rglob(f"rollout-*{SID}.jsonl"))
    return [json.loads(line) for line in path.read_text().splitlines()]


def counted() -> dict[str, Any]:
    """What the rollout holds, counted from its lines: each typed prompt (the text of a
    `UserMessage` item), each reply (an assistant `response_item` message), each tool call
    and output, and the outputs of commands that exited other than 0."""
    typed, replies, calls, outputs, failed = [], 0, 0, 0, 0
    for rec in raw_lines():
        payload = rec.get("payload") or {}
        kind = payload.get("type")
        if rec["type"] == "event_msg" and kind == "item_completed":
            item = payload["item"]
            if item["type"] == "UserMessage":
                typed.append("\n".join(b["text"] for b in item["content"] if b["type"] == "text"))
            if item["type"] == "CommandExecution" and item.get("exit_code") not in (None, 0):
                failed += 1
        if rec["type"] != "response_item":
            continue
        if kind == "message" and payload["role"] == "assistant":
            # The compaction's own answer, which the `compacted` line after it holds.
            replies += rec.get("metadata", {}).get("compaction_output") is not True
        elif kind in ("function_call", "custom_tool_call"):
            calls += 1
        elif kind in ("function_call_output", "custom_tool_call_output"):
            outputs += 1
            code = re.search(r"^(?:Exit code:|Process exited with code) (-?\d+)$",
                             payload["output"], re.M)  # fmt: skip
            assert code is not None
    return {"typed": typed, "replies": replies, "calls": calls, "outputs": outputs,
            "failed": failed}  # fmt: skip


def test_the_raw_count() -> None:
    """The independent count, pinned: six prompts, nine replies (the compaction's own
    answer, marked `compaction_output`, is the `compacted` summary's text), four calls and
    their outputs, one failure."""
    c = counted()
    assert c["typed"] == [
        "Please zzwrite a greeter script in greeter.py",
        "Now zzedit the greeting to say good morning",
        "zzfail: list the quokka directory please",
        "Thanks, what does greeter.py do now?",
        "From the TUI: say hello to the pelican keeper",
        "After compacting, one more question please",
    ]
    assert (c["replies"], c["calls"], c["outputs"], c["failed"]) == (9, 4, 4, 1)


def test_each_prompt_codex_0171_recorded_is_a_turn_of_its_own(cli: CLI, home: Path) -> None:
    cli.json("index", "--no-embed", "--source", "codex", str(home))
    read = cli.json("read", SID, "--tools")
    messages = [m for t in read["turns"] for m in t["messages"]]
    c = counted()
    prompts = [m["text"] for m in messages if m["kind"] == "prompt"]
    assert prompts == c["typed"]
    assert read["total_turns"] == len(c["typed"])
    assert [t["messages"][0]["text"] for t in read["turns"]] == c["typed"]
    assert sum(m["kind"] == "reply" for m in messages) == c["replies"]
    assert sum(m["kind"] == "tool_call" for m in messages) == c["calls"]
    outputs = [m for m in messages if m["kind"] == "tool_output"]
    assert len(outputs) == c["outputs"]
    assert sum(m["is_error"] for m in outputs) == c["failed"]
    failed = next(m for m in outputs if m["is_error"])
    assert "nonexistent-quokka-dir" in failed["text"]
    assert read["session"]["cwd"] == "/home/dev/greet"
    # The name Codex gave the thread (`threads.name` of its `state_5.sqlite`), not the
    # `title` column, which 0.171 fills with the first prompt.
    assert read["session"]["title"] == "From the TUI: say hello to the pelican keeper"
    # The compaction's answer is its summary, not a reply to the prompt before it.
    assert not any("Be concise" in m["text"] for m in messages if m["kind"] == "reply")

    hits = cli.json("search", "--mode", "keyword", "pelican keeper")["results"]
    assert hits[0]["session"]["id"] == SID and hits[0]["match"]["field"] == "prompt"


def typed_item(text: str) -> dict:
    """An `item_completed` event's payload for words the person typed, as 0.171 writes it."""
    content = [{"type": "text", "text": text, "text_elements": []}]
    return {"type": "item_completed", "item": {"type": "UserMessage", "content": content}}


def test_words_written_both_ways_are_one_prompt_and_a_read_goes_on_inside_a_task(
    store: Store, tmp_path: Path
) -> None:
    """A rollout a 0.14x began (`user_message`) and 0.171 resumed (`UserMessage` items),
    with a task that holds the same words as both records (a version writing both): each
    typing is read once, words sent into a running task steer it whichever record holds
    them, and a read that stopped inside a task goes on knowing which record it used."""
    day = tmp_path / "codex" / "sessions" / "2026" / "12" / "07"
    day.mkdir(parents=True)
    sid = "01a250af-0000-7000-8000-0000000000aa"
    path = day / f"rollout-2026-12-07T13-00-00-{sid}.jsonl"
    path.write_text(
        record("session_meta", {"id": sid, "cwd": "/home/dev/greet", "cli_version": "0.146.0"})
        + record("event_msg", {"type": "task_started", "turn_id": "t1"})
        + record("event_msg", {"type": "user_message", "message": "sort the guest list"})
        + record("response_item", item("assistant", "Sorted."))
        + record("event_msg", {"type": "task_complete", "turn_id": "t1"})
        + record("event_msg", {"type": "task_started", "turn_id": "t2"})
        + record("event_msg", {"type": "user_message", "message": "print the seating plan"})
        + record("event_msg", typed_item("print the seating plan"))
        + record("response_item", item("assistant", "Printed."))
        + record("event_msg", {"type": "task_complete", "turn_id": "t2"})
        + record("event_msg", {"type": "task_started", "turn_id": "t3"})
        + record("event_msg", typed_item("mail the invitations"))
    )
    index(store, tmp_path / "codex")  # stops inside the third task
    with open(path, "a") as fh:
        fh.write(
            record("event_msg", typed_item("to the cousins first"))
            + record("response_item", item("assistant", "Mailed."))
            + record("event_msg", {"type": "task_complete", "turn_id": "t3"})
        )
    index(store, tmp_path / "codex")
    kinds = [(m.kind, m.text) for m in store.session_messages(sid)
             if m.kind in (MessageKind.PROMPT, MessageKind.STEER)]  # fmt: skip
    assert kinds == [
        (MessageKind.PROMPT, "sort the guest list"),
        (MessageKind.PROMPT, "print the seating plan"),
        (MessageKind.PROMPT, "mail the invitations"),
        (MessageKind.STEER, "to the cousins first"),
    ]
    assert store.get_session(sid).n_turns == 3


@pytest.mark.parametrize(
    ("output", "failed"),
    [
        ("Exit code: 1\nWall time: 0 seconds\nOutput:\nerror: no such file\n", True),
        ("Chunk ID: 9\nWall time: 0.1 seconds\nProcess exited with code 0\nOutput:\nok\n", False),
        ("Process running with session ID 7\nOutput:\nwatching\n", False),
        ("Success.\nExit code: 3\n", False),  # no header: the command's own words
    ],
)
def test_a_command_output_is_failed_when_its_header_says_so(
    store: Store, tmp_path: Path, output: str, failed: bool
) -> None:
    day = tmp_path / "codex" / "sessions" / "2026" / "12" / "07"
    day.mkdir(parents=True)
    sid = "01a250af-0000-7000-8000-0000000000bb"
    call = {"type": "function_call", "name": "exec_command", "call_id": "c1",
            "arguments": json.dumps({"cmd": "make"})}  # fmt: skip
    (day / f"rollout-2026-12-07T13-00-00-{sid}.jsonl").write_text(
        record("session_meta", {"id": sid, "cwd": "/home/dev/greet", "cli_version": "0.171.0"})
        + record("event_msg", {"type": "task_started", "turn_id": "t1"})
        + record("event_msg", typed_item("build it"))
        + record("response_item", call)
        + record(
            "response_item", {"type": "function_call_output", "call_id": "c1", "output": output}
        )  # fmt: skip
    )
    index(store, tmp_path / "codex")
    out = [m for m in store.session_messages(sid) if m.kind is MessageKind.TOOL_OUTPUT]
    assert [m.is_error for m in out] == [failed]


AGENTS = Path(__file__).resolve().parent / "fixtures" / "codex-0171-agents" / "home"
LEAD = "01a250b9-1da5-7083-8e87-a89c47b4221b"
HELPER = "01a250b9-1e31-7ab1-8b15-bb455f6df6d1"


def test_a_subagent_of_the_second_multi_agent_mode_answers_its_lead(
    cli: CLI, tmp_path: Path
) -> None:
    """Two rollouts the real Codex 0.171.0 wrote with `--enable multi_agent_v2`, in a
    project `crew` (renamed to /home/dev, the base instructions and skills list cut): the
    lead's `spawn_agent` (in the `collaboration` namespace) started a helper, its
    `wait_agent` waited, and the helper's answer came back to the lead as an
    `agent_message` line (`Message Type: FINAL_ANSWER` … `Payload:` and the answer), a
    `response_item` type older versions did not write. It is read as what came back from
    another agent, like a tool's output: found in the lead's turn. The task the helper was
    given is an `agent_message` to it whose payload is `encrypted_content`, not read."""
    home = tmp_path / "codex"
    shutil.copytree(AGENTS, home)
    lead_lines = [json.loads(x) for x in next(home.rglob(f"*{LEAD}.jsonl")).open()]
    answers = [
        b["text"].partition("Payload:\n")[2]
        for rec in lead_lines
        if rec["type"] == "response_item" and rec["payload"]["type"] == "agent_message"
        for b in rec["payload"]["content"]
        if b["type"] == "input_text" and "FINAL_ANSWER" in b["text"]
    ]
    assert answers == ["The word pelican has three vowels: e, i, a."]
    cli.json("index", "--no-embed", "--source", "codex", str(home))

    lead = [m for t in cli.json("read", LEAD, "--tools")["turns"] for m in t["messages"]]
    assert [m["tool"] for m in lead if m["kind"] == "tool_call"] == ["spawn_agent", "wait_agent"]
    outputs = [m["text"] for m in lead if m["kind"] == "tool_output"]
    assert outputs[-1] == answers[0]
    helper = cli.json("read", HELPER)
    assert helper["session"]["parent_id"] == LEAD
    assert helper["session"]["title"] == "agent: vowel_counter"  # its task, no role
    assert [m["kind"] for t in helper["turns"] for m in t["messages"]] == ["reply"]


MIGRATED = Path(__file__).resolve().parent / "fixtures" / "codex-0171" / "migrated"
ORCHARD = "019df26e-2d00-7f29-8645-deec08007ae4"  # test_source_codex's main rollout


def test_a_rollout_migrate_rollouts_rewrote_in_place_reads_as_before(
    cli: CLI, tmp_path: Path
) -> None:
    """`codex migrate-rollouts --apply` (0.171.0) rewrites an older rollout in place for
    its paginated history: each `user_message` becomes an `item_completed` `UserMessage`,
    `agent_reasoning` a `Reasoning` item, `turn_context` and `token_count` lines go, and
    every line gains an `ordinal`. The file in `migrated/` is what the real 0.171.0 made of
    `test_source_codex`'s main rollout (unchanged since). Read again once rewritten, the
    session holds what it held, once."""
    home = tmp_path / "codex"
    shutil.copytree(Path(__file__).resolve().parent / "fixtures" / "codex" / "home", home)
    cli.json("index", "--no-embed", "--source", "codex", str(home))
    before = cli.json("read", ORCHARD, "--tools")["turns"]
    target = next(home.rglob(f"rollout-*{ORCHARD}.jsonl"))
    migrated = (MIGRATED / target.name).read_text()
    assert '"user_message"' not in migrated and '"UserMessage"' in migrated
    target.write_text(migrated)
    cli.json("index", "--no-embed", "--source", "codex", str(home))
    after = cli.json("read", ORCHARD, "--tools")["turns"]

    def said(turns: list[dict[str, Any]]) -> list[tuple[str, str]]:
        return [(m["kind"], m["text"]) for t in turns for m in t["messages"]]

    assert said(after) == said(before)
    assert [m["text"] for t in after for m in t["messages"] if m["kind"] == "prompt"] == [
        "Why does the drip scheduler skip the north orchard on Tuesdays?",
        "Add a regression test for the Tuesday valve window",
    ]


def test_a_thread_without_a_name_keeps_the_name_session_index_gives_it(
    cli: CLI, home: Path
) -> None:
    """0.171's `threads.title` is the first prompt when the thread has no name (what
    `codex migrate-rollouts` leaves for a thread an older version named in
    `session_index.jsonl`): no name, so the index's line names it; with neither, the
    first prompt does."""
    with sqlite3.connect(home / "state_5.sqlite") as conn:
        conn.execute("UPDATE threads SET name = NULL")
    conn.close()
    cli.json("index", "--no-embed", "--source", "codex", str(home))
    assert cli.json("read", SID)["session"]["title"] == counted()["typed"][0]
    line = {"id": SID, "thread_name": "Greeter chores", "updated_at": "2026-12-07T14:00:00Z"}
    (home / "session_index.jsonl").write_text(json.dumps(line) + "\n")
    cli.json("index", "--no-embed", "--rebuild", "--source", "codex", str(home))
    assert cli.json("read", SID)["session"]["title"] == "Greeter chores"


FORK = "01a250ce-30b8-7ac1-82d2-ceec87376053"  # `codex fork SID`, then one prompt


def test_a_fork_of_0171_names_where_it_forked_and_holds_its_own_turns(
    cli: CLI, home: Path
) -> None:
    """`codex fork` (0.171.0, in the terminal UI) writes no copy of the history it forks:
    its `session_meta` names the thread and the line it forked at
    (`forked_from_id`, `forked_from_ordinal_exclusive`). Read first or last, it is a
    session of its own with its one prompt, and the session it forked keeps its six."""
    meta = json.loads(next(home.rglob(f"*{FORK}.jsonl")).open().readline())["payload"]
    assert meta["forked_from_id"] == SID and "forked_from_ordinal_exclusive" in meta
    files = sorted(home.rglob("rollout-*.jsonl"), key=lambda p: FORK not in p.name)
    for order in (files, files[::-1]):
        cli.json("index", "--no-embed", "--rebuild", "--source", "codex", *map(str, order))
        fork = cli.json("read", FORK)
        assert fork["session"]["parent_id"] is None
        said = [m["text"] for t in fork["turns"] for m in t["messages"] if m["kind"] == "prompt"]
        assert said == ["In the fork: ask about the albatross roost"]
        assert cli.json("read", SID)["total_turns"] == 6
