"""GitHub Copilot CLI 1.0.102's own session folders, through the real CLI.

Every file was written by the real Copilot CLI 1.0.102 offline (its custom-provider mode,
`COPILOT_PROVIDER_BASE_URL`, against a scripted OpenAI-compatible server on localhost), in
one project (`zoo`), paths renamed to `/home/dev`, each `system.message`'s system prompt
(some 21,000 characters of the CLI's instructions) cut to a note of its length, nothing
else changed: `ZEBRA` by `copilot -p` and three `--resume -p` (a `create`, an `edit`, a
`bash` command that exits 1, a plain question); `PELICAN`, one question, then
`--resume -p /compact` (a compaction: its request and answer written as `model.*` events,
its summary as `session.compaction_complete`); `KESTREL`, whose model handed the question
to a subagent with the `task` tool. The `model.messages_snapshot` and
`model.model_call_success` of the compaction hold the system prompt too: cut alike.

New since the versions read before: a shell command that exits non-zero is written with
`success: true` and its exit code in `shellExecution.exitCode`; the task a subagent is
given is written again as a `user.message` of the parent's log with `source:
"agent-<id>"` (the CLI's schema: "an inter-agent prompt") and no `parentToolCallId`, so
it read as a second typed prompt of the parent, splitting its turn in two.

The counts come from the events themselves, not from the parser: a `user.message` with no
`source` is a typed prompt; an inter-agent one is the prompt of the subagent its
`subagent.started` before it named; an `assistant.message`'s content is a reply and each
of its `toolRequests` a call, a `tool.execution_complete` an output, failed when
`success` is false or the command's exit code is not 0; each goes to the subagent its
`parentToolCallId` names, else to the session.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter, defaultdict
from pathlib import Path

import pytest
from conftest import CLI

from findsession.indexing import Root, index_roots
from findsession.storage.sqlite import Store

FIXTURE = Path(__file__).parent / "fixtures" / "copilot-cli-1.0.102" / "home" / ".copilot"
ZEBRA = "df444b5b-5c1b-47fe-95d0-136f25ff772c"
PELICAN = "a572f52a-b4c6-425b-8668-4442b89b5d0f"
KESTREL = "3a5bbfab-ed5f-4ab6-83ed-bb18ca62fead"
HELPER = f"{KESTREL}:call_6f6d5fa0"


@pytest.fixture
def copilot(cli: CLI, tmp_path: Path) -> Path:
    cli.env["COPILOT_HOME"] = str(shutil.copytree(FIXTURE, tmp_path / "copilot-home"))
    return Path(cli.env["COPILOT_HOME"])


def expected(log: Path) -> dict[str, tuple[Counter[str], list[str]]]:
    """Per session id (the log's, or `<log>:<call id>` for a subagent), what it holds."""
    session = log.parent.name
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    prompts: dict[str, list[str]] = defaultdict(list)
    started = None
    for line in log.read_text().splitlines():
        event = json.loads(line)
        data = event["data"]
        parent = data.get("parentToolCallId")
        key = f"{session}:{parent}" if parent else session
        if event["type"] == "subagent.started":
            started = f"{session}:{data['toolCallId']}"
        elif event["type"] == "user.message":
            source = data.get("source", "")
            key = started if source.startswith("agent-") else key
            prompts[key].append(data["content"])
            counts[key]["prompt"] += 1
        elif event["type"] == "assistant.message":
            counts[key]["reply"] += bool(data["content"].strip())
            counts[key]["tool_call"] += len(data["toolRequests"])
        elif event["type"] == "tool.execution_complete":
            counts[key]["tool_output"] += 1
            code = (data.get("shellExecution") or {}).get("exitCode", 0)
            counts[key]["failed"] += data["success"] is False or code != 0
    return {k: (counts[k], prompts[k]) for k in counts}


def indexed(cli: CLI, session: str) -> tuple[Counter[str], list[str]]:
    turns = cli.json("read", session, "--tools")["turns"]
    messages = [m for t in turns for m in t["messages"]]
    counts = Counter(m["kind"] for m in messages)
    counts["failed"] = sum(m["is_error"] for m in messages)
    return counts, [m["text"] for m in messages if m["kind"] == "prompt"]


def test_each_session_gives_what_its_events_hold(cli: CLI, copilot: Path) -> None:
    report = cli.json("index", "--no-embed", "--source", "copilot-cli")
    assert report["problems"] == []
    totals: Counter[str] = Counter()
    for session in (ZEBRA, PELICAN, KESTREL):
        log = copilot / "session-state" / session / "events.jsonl"
        for key, (want, want_prompts) in expected(log).items():
            got, prompts = indexed(cli, key)
            assert +got == +want, key
            assert prompts == want_prompts, key
            totals += want
    assert totals == Counter(prompt=7, reply=11, tool_call=4, tool_output=4, failed=1)


def test_a_subagents_task_is_its_prompt_not_a_second_one_of_the_parent(
    cli: CLI, copilot: Path
) -> None:
    cli.json("index", "--no-embed", "--source", "copilot-cli")
    turns = cli.json("read", KESTREL)["turns"]
    assert [t["messages"][0]["text"] for t in turns] == ["kestrel: ask a helper the question"]
    child = cli.json("read", HELPER)
    assert child["session"]["parent_id"] == KESTREL
    assert child["session"]["title"] == "Answer the lemur question: where do lemurs live?"


def test_a_command_that_exits_non_zero_is_failed(cli: CLI, copilot: Path) -> None:
    cli.json("index", "--no-embed", "--source", "copilot-cli")
    turns = cli.json("read", ZEBRA, "--tools")["turns"]
    outputs = [m for t in turns for m in t["messages"] if m["kind"] == "tool_output"]
    assert [m["is_error"] for m in outputs] == [False, False, True]
    assert "exit code 1" in outputs[2]["text"]


def test_a_compaction_is_its_summary_not_a_turn(tmp_path: Path) -> None:
    """The compaction's request and answer (`model.*` events) give nothing; its summary
    is kept beside the session's one turn."""
    state = shutil.copytree(FIXTURE / "session-state", tmp_path / "session-state")
    log = state / PELICAN / "events.jsonl"
    [summary] = [
        json.loads(line)["data"]["summaryContent"]
        for line in log.read_text().splitlines()
        if json.loads(line)["type"] == "session.compaction_complete"
    ]
    with Store.open(tmp_path / "index.db") as store:
        assert index_roots(store, [Root(state, "copilot-cli")]).errors == []
        rows = store.query(
            "SELECT kind, text FROM messages WHERE session_id = ? ORDER BY line", (PELICAN,)
        )
    assert rows == [
        ("prompt", "pelican: what do pelicans eat?"),
        ("reply", "Reply to: pelican question answered."),
        ("compact_summary", summary),
    ]
