"""What Claude Code 2.1.x writes besides a plain typed prompt, each read as it means.

- A session started by a slash command (`/init`): its replies and tool calls come before
  anything was typed, and are a turn without a prompt, read and found like any other.
- A background task's notice (`origin: {"kind": "task-notification"}`) is the harness
  speaking, not a prompt: the replies to it stay in the turn they answer.
- A `/btw` side question (`subagents/agent-aside_question-*.jsonl`): the parent's records
  copied, then the question inside a `<system-reminder>` frame, then the answer.
- Words typed while a tool ran: a text block beside the tool's result (2.1.8x), or a
  `queued_command` attachment (2.1.10x on), the only record of them those versions write.
- A Windows folder written `c:\\Users\\…` by the VS Code extension and `C:\\Users\\…` by
  the CLI: one project.

Each file is laid out as Claude Code writes it, with synthetic text.
"""

from __future__ import annotations

from pathlib import Path

from conftest import index
from transcripts import Transcript, project_dir

from findsession.domain import MessageKind
from findsession.jsonout.sessions import read_json
from findsession.reader import read_session
from findsession.search.engine import SearchOptions, search
from findsession.storage.sqlite import Store

CWD = "/home/dev/code/orchard"


def kinds(store: Store, sid: str) -> list[list[tuple[str, str]]]:
    """Each turn `read --tools` shows: its messages' kinds and texts."""
    view = read_session(store, sid, tools=True)
    return [[(m.kind.value, m.text) for m in t.messages] for t in view.turns]


def found(store: Store, query: str) -> list[str]:
    return [h.session.id for h in search(store, query, SearchOptions(mode="keyword")).hits]


def test_a_session_started_by_a_slash_command_keeps_what_came_before_the_first_prompt(
    store: Store, projects: Path
) -> None:
    t = Transcript(cwd=CWD, version="2.1.114")
    t.prompt(
        "<command-message>init</command-message>\n<command-name>/init</command-name>\n"
        "<command-args>focus on the pruning scheduler</command-args>"
    )
    t.prompt([{"type": "text", "text": "Please analyze this codebase and write CLAUDE.md"}],
             isMeta=True)  # fmt: skip
    t.reply({"type": "thinking", "thinking": "Start with the layout.", "signature": "s"})
    t.tool("Bash", {"command": "ls orchard"}, "scheduler.py\nbranches.py")
    t.tool("Write", {"file_path": f"{CWD}/CLAUDE.md", "content": "# Orchard\n"}, "ok")
    t.reply("Wrote CLAUDE.md describing the quincunx pruning scheduler.")
    t.prompt("now document the grafting module too")
    t.reply("Added a grafting section.")
    t.write(project_dir(projects, CWD))

    report = index(store, projects)
    assert report.errors == []
    session = store.get_session(t.session_id)
    assert session is not None and session.n_turns == 2
    # The first typed prompt still names the session.
    assert session.title == "now document the grafting module too"
    first, second = kinds(store, t.session_id)
    assert [k for k, _ in first] == [
        "thinking", "tool_call", "tool_output", "tool_call", "tool_output", "reply",
    ]  # fmt: skip
    assert first[-1][1] == "Wrote CLAUDE.md describing the quincunx pruning scheduler."
    assert second[0] == ("prompt", "now document the grafting module too")
    # Search finds the reply before the first prompt, in turn 1.
    hits = search(store, "quincunx", SearchOptions(mode="keyword")).hits
    assert [(h.session.id, h.turn) for h in hits] == [(t.session_id, 1)]
    # The file it wrote is the first turn's, as search numbers it.
    rows = store.query("SELECT turn, name FROM file_writes WHERE session_id = ?", (t.session_id,))
    assert rows == [(1, "CLAUDE.md")]


def test_a_background_tasks_notice_is_not_a_prompt(store: Store, projects: Path) -> None:
    t = Transcript(cwd=CWD, version="2.1.114")
    t.prompt("rebuild the orchard index in the background")
    t.tool("Bash", {"command": "make index", "run_in_background": True}, "started bq7")
    t.reply("The rebuild runs in the background.")
    t.prompt(
        "<task-notification>\n<task-id>bq7</task-id>\n<status>completed</status>\n"
        '<summary>Background command "make index" completed (exit code 0)</summary>\n'
        "</task-notification>",
        origin={"kind": "task-notification"},
        promptId="p-1",
    )
    t.reply("The rebuild finished: 4812 saplings indexed.")
    t.write(project_dir(projects, CWD))

    index(store, projects)
    [turn] = kinds(store, t.session_id)
    assert turn[0] == ("prompt", "rebuild the orchard index in the background")
    assert turn[-1] == ("reply", "The rebuild finished: 4812 saplings indexed.")
    assert not any(k == "prompt" and "task-notification" in x for k, x in turn)


def test_a_side_question_and_its_answer_are_read_and_found(store: Store, projects: Path) -> None:
    parent = Transcript(cwd=CWD, version="2.1.72")
    parent.prompt("prune the apple rows before the frost")
    parent.tool("Bash", {"command": "python prune.py --rows apple"}, "pruned 40 rows")
    folder = project_dir(projects, CWD)
    lines = parent.lines[:]
    parent.write(folder)
    # The side question's file copies the parent's records (their uuids too), marked as
    # a sidechain of an agent named after it, then asks and answers.
    agent = "aside_question-5e1f0c2a9b8d7e6f"
    aside = Transcript(session_id=parent.session_id, cwd=CWD, version="2.1.72", sidechain=True,
                       agent_id=agent)  # fmt: skip
    aside.lines = [{**line, "isSidechain": True, "agentId": agent} for line in lines]
    aside.parent = lines[-1]["uuid"]
    aside.prompt(
        "<system-reminder>This is a side question from the user. You must answer this "
        "question directly in a single response.\n\nSimply answer the question with the "
        "information you have.</system-reminder>\n\nwill pruning hurt the pear grafts?"
    )
    aside.reply("No: the pear grafts sit on other rows, which the run left alone.")
    path = aside.write(folder / parent.session_id / "subagents", f"agent-{agent}.jsonl")

    index(store, projects)
    [child] = store.subagents_of(parent.session_id)
    assert child.file_path == str(path) and child.n_turns == 1
    assert child.title == "will pruning hurt the pear grafts?"
    assert kinds(store, child.id) == [[
        ("prompt", "will pruning hurt the pear grafts?"),
        ("reply", "No: the pear grafts sit on other rows, which the run left alone."),
    ]]  # fmt: skip
    assert found(store, "pear grafts") == [child.id]
    # The parent's records it copied stay the parent's alone.
    [own] = kinds(store, parent.session_id)
    assert [k for k, _ in own] == ["prompt", "tool_call", "tool_output"]


def test_words_typed_while_a_tool_ran_steer_its_turn(store: Store, projects: Path) -> None:
    """Words typed while a tool ran ride beside its result: typed by the person, shown
    and counted as a prompt, and found, but in the turn they were typed into (they steer
    it) rather than a turn of their own."""
    t = Transcript(cwd=CWD, version="2.1.87")
    t.prompt("water the seedlings in bed three")
    t.reply({"type": "tool_use", "id": "toolu_w1", "name": "Bash",
             "input": {"command": "irrigate --bed 3"}})  # fmt: skip
    t.prompt(
        [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_w1",
                "content": "valve open",
                "is_error": False,
            },
            {"type": "text", "text": "stop at half a litre per seedling"},
        ],  # fmt: skip
        promptId="p-2",
    )
    t.reply("Stopping at half a litre each.")
    # ToolSearch's own answer rides beside a result too, and is not typed.
    t.reply({"type": "tool_use", "id": "toolu_w2", "name": "ToolSearch",
             "input": {"query": "select:TaskOutput"}})  # fmt: skip
    t.prompt([{"type": "tool_result", "tool_use_id": "toolu_w2",
               "content": [{"type": "tool_reference", "tool_name": "TaskOutput"}]},
              {"type": "text", "text": "Tool loaded."}])  # fmt: skip
    t.write(project_dir(projects, CWD))

    index(store, projects)
    [turn] = kinds(store, t.session_id)
    assert turn[:4] == [("prompt", "water the seedlings in bed three"),
                        ("tool_call", "command: irrigate --bed 3"),
                        ("tool_output", "valve open"),
                        ("steer", "stop at half a litre per seedling")]  # fmt: skip
    assert ("reply", "Stopping at half a litre each.") in turn
    assert not any(x == "Tool loaded." for _, x in turn)
    hits = search(store, "half a litre per seedling", SearchOptions(mode="keyword")).hits
    assert (hits[0].session.id, hits[0].turn) == (t.session_id, 1)
    shown = read_json(read_session(store, t.session_id))["turns"][0]["messages"]
    assert [(m["kind"], m["steers"]) for m in shown if m["kind"] == "prompt"] == [
        ("prompt", False),
        ("prompt", True),
    ]


def test_a_prompt_queued_while_the_agent_worked_steers_its_turn(
    store: Store, projects: Path
) -> None:
    t = Transcript(cwd=CWD, version="2.1.145")
    t.prompt("graft the pear scions onto the quince rootstock")
    t.tool("Bash", {"command": "graft --scion pear --stock quince"}, "12 grafts made")
    # Typed while the tool ran: Claude Code queues it and hands it over at the next
    # step, recorded as an attachment (a string, or blocks beside the IDE's context).
    t.attachment({"type": "queued_command", "prompt": "wrap each graft in budding tape",
                  "commandMode": "prompt"})  # fmt: skip
    t.reply("Wrapping each graft.")
    t.tool("Bash", {"command": "wrap --all"}, "12 wrapped")
    t.attachment({
        "type": "queued_command",
        "prompt": [
            {"type": "text", "text": "<ide_opened_file>The user opened the file "
                                     "grafts.md in the IDE.</ide_opened_file>"},
            {"type": "text", "text": "and label them by row"},
        ],
        "source_uuid": "7c1d9e42-0b6a-4f3e-9d21-5a8b7c6d4e3f",
        "commandMode": "prompt",
    })  # fmt: skip
    # A background task's notice is queued the same way, and is not typed.
    t.attachment({"type": "queued_command", "commandMode": "task-notification",
                  "prompt": "<task-notification>\n<task-id>b7q</task-id>\n"
                            "<status>completed</status>\n</task-notification>"})  # fmt: skip
    # A message the harness queues itself (a coordinator's, marked in the attachment).
    t.attachment({"type": "queued_command", "prompt": "stop the sleeps now",
                  "origin": {"kind": "coordinator"}, "isMeta": True})  # fmt: skip
    t.reply("Labelled by row.")
    t.write(project_dir(projects, CWD))

    index(store, projects)
    # Typed into the running turn, each steers it: one turn, its task and its results
    # together (opened as turns of their own, they cut a working turn in two and
    # questions about its results found it lower).
    [turn] = kinds(store, t.session_id)
    assert turn[0] == ("prompt", "graft the pear scions onto the quince rootstock")
    assert turn[-1] == ("reply", "Labelled by row.")
    # Only what was typed is: not the notice, the IDE's context or the harness's.
    assert [x for k, x in turn if k in ("prompt", "steer")] == [
        "graft the pear scions onto the quince rootstock",
        "wrap each graft in budding tape",
        "and label them by row",
    ]
    hits = search(store, "budding tape", SearchOptions(mode="keyword")).hits
    assert (hits[0].session.id, hits[0].turn) == (t.session_id, 1)
    assert store.get_session(t.session_id).n_turns == 1


def test_a_teammates_message_is_the_lead_agents_not_the_persons(
    store: Store, projects: Path
) -> None:
    """In an agent team, what a teammate sends the lead arrives in the lead's transcript as
    a user record in a `<teammate-message>` envelope (relayed from another session with a
    line before it): what came back from another agent, found in the turn it came in, as
    a tool's output is. A background shell's `<bash-notification>` is the harness's. In
    the teammate's own transcript the lead's message is what it was asked: its prompt."""
    lead = Transcript(cwd=CWD, version="2.1.150")
    lead.prompt("split the orchard survey between two teammates")
    lead.reply("Asked the north and south teammates.")
    lead.prompt(
        '<teammate-message teammate_id="north" color="blue" summary="North rows done">\n'
        "Surveyed rows 1 to 20: three trees show fire blight.\n</teammate-message>"
    )
    lead.prompt(
        'Another Claude session sent a message:\n<teammate-message teammate_id="south">\n'
        "Rows 21 to 40 are clear, no quarantine.\n</teammate-message>"
    )
    lead.prompt("<bash-notification>\n<shell-id>b09efb5</shell-id>\n</bash-notification>")
    lead.reply("Three blighted trees, all in the north rows.")
    folder = project_dir(projects, CWD)
    lead.write(folder)
    agent = "a5e0c1d2b3f4a5968"
    north = Transcript(session_id=lead.session_id, cwd=CWD, version="2.1.150",
                       sidechain=True, agent_id=agent)  # fmt: skip
    north.prompt('<teammate-message teammate_id="team-lead">\nSurvey rows 1 to 20 for '
                 "fire blight.\n</teammate-message>")  # fmt: skip
    north.reply("Rows 1 to 20 surveyed.")
    north.write(folder / lead.session_id / "subagents", f"agent-{agent}.jsonl")

    index(store, projects)
    typed = [x for turn in kinds(store, lead.session_id) for k, x in turn if k == "prompt"]
    assert typed == ["split the orchard survey between two teammates"]
    # What the teammates said stays searchable, in the turn it came in.
    [turn] = kinds(store, lead.session_id)
    assert ("reply", "Three blighted trees, all in the north rows.") in turn
    assert any(k == "tool_output" and "no quarantine" in x for k, x in turn)
    hits = search(store, "quarantine", SearchOptions(mode="keyword")).hits
    assert [(h.session.id, h.turn) for h in hits] == [(lead.session_id, 1)]
    assert not any(k == "tool_output" and "shell-id" in x for k, x in turn)
    [child] = store.subagents_of(lead.session_id)
    [[first, *_]] = kinds(store, child.id)
    assert first[0] == "prompt" and "Survey rows 1 to 20" in first[1]


def test_a_windows_folder_spelled_with_either_drive_letter_is_one_project(
    store: Store, projects: Path
) -> None:
    cli = Transcript(cwd="C:\\Users\\dev\\orchard", version="2.1.80")
    cli.prompt("list the orchard rows").reply("Rows A to F.")
    cli.write(projects / "C--Users-dev-orchard")
    vscode = Transcript(cwd="c:\\Users\\dev\\orchard", version="2.1.80")
    vscode.prompt("count the orchard rows", entrypoint="claude-vscode").reply("Six rows.")
    vscode.write(projects / "c--Users-dev-orchard")

    index(store, projects)
    folders = {store.get_session(s.session_id).cwd for s in (cli, vscode)}
    assert folders == {"C:\\Users\\dev\\orchard"}
    assert {m.cwd for m in store.session_messages(vscode.session_id)} == {"C:\\Users\\dev\\orchard"}
    assert MessageKind.PROMPT in {m.kind for m in store.session_messages(vscode.session_id)}


def test_a_teammate_in_its_own_pane_is_asked_by_the_leads_message(
    store: Store, projects: Path
) -> None:
    """A teammate that runs in a pane of its own (not in the lead's process) writes a
    transcript of its own beside the lead's, `<session id>.jsonl`, every record marked
    with the team's name and its own (`teamName`, `agentName`; the lead's records carry
    `teamName` alone). There, as in an in-process teammate's `subagents/` file, the
    lead's message is what it was asked: its prompt, opening its turn, not another
    agent's output with no prompt before it."""
    team = {"teamName": "session-0a1b2c3d"}
    lead = Transcript(cwd=CWD, version="2.1.150")
    lead.prompt("survey the orchard with a teammate", **team)
    lead.prompt(
        '<teammate-message teammate_id="north" color="blue">\n'
        "Rows 1 to 20 show fire blight.\n</teammate-message>",
        **team,
    )
    lead.reply("The north rows are blighted.")
    folder = project_dir(projects, CWD)
    lead.write(folder)
    north = Transcript(cwd=CWD, version="2.1.150")
    member = {**team, "agentName": "north"}
    north.prompt('<teammate-message teammate_id="team-lead" summary="Survey north">\n'
                 "Survey rows 1 to 20 for fire blight.\n</teammate-message>",
                 **member)  # fmt: skip
    north.reply("Rows 1 to 20 surveyed: three trees blighted.")
    north.prompt('<teammate-message teammate_id="team-lead">\nNow check the pear '
                 "rows too.\n</teammate-message>", **member)  # fmt: skip
    north.reply("The pear rows are clear.")
    north.write(folder)

    index(store, projects)
    turns = kinds(store, north.session_id)
    assert [[x for k, x in t if k == "prompt"] for t in turns] == [
        ['<teammate-message teammate_id="team-lead" summary="Survey north">\n'
         "Survey rows 1 to 20 for fire blight.\n</teammate-message>"],
        ['<teammate-message teammate_id="team-lead">\nNow check the pear rows too.\n'
         "</teammate-message>"],
    ]  # fmt: skip
    assert store.get_session(north.session_id).n_turns == 2
    # In the lead's transcript a teammate's message stays what came back from it.
    typed = [x for t in kinds(store, lead.session_id) for k, x in t if k == "prompt"]
    assert typed == ["survey the orchard with a teammate"]


def test_what_the_harness_wrote_in_the_persons_place_is_no_prompt(
    store: Store, projects: Path
) -> None:
    """Later versions say who wrote a user record: `promptSource` (`typed`, `sdk`, or
    `system` for the harness's own) and `origin.kind`. A continuation the harness sends
    when a usage limit resets (`auto-continuation`), its note that background agents were
    stopped, or a continuation queued the same way, opens no turn; a message another
    session sent (`origin.kind: "peer"`) is another agent's, found in the turn it came
    in. A prompt sent from the phone (`promptSource: "sdk"`, `origin.kind: "human"`) was
    typed."""
    t = Transcript(cwd=CWD, version="2.1.263")
    typed = {"origin": {"kind": "human"}, "promptSource": "typed"}
    system = {"promptSource": "system"}
    t.prompt("thin the apricot blossoms on the south wall", **typed)
    t.reply("You've hit your session limit · resets 4pm")
    t.prompt("Your usage limit has reset. Continue the task you were working on.",
             origin={"kind": "auto-continuation"}, **system)  # fmt: skip
    t.reply("Thinned the blossoms to one per spur.")
    t.prompt("2 background agents were stopped by the user.", **system)
    t.attachment({"type": "queued_command", "prompt": "continue", "commandMode": "prompt",
                  "origin": {"kind": "auto-continuation"}})  # fmt: skip
    t.prompt("<cross-session-message from-name=\"pruner\">The east wall is thinned too."
             "</cross-session-message>", origin={"kind": "peer", "name": "pruner"})  # fmt: skip
    t.reply("Both walls are thinned.")
    t.prompt("and net the cherries", origin={"kind": "human"}, promptSource="sdk",
             entrypoint="remote_mobile")  # fmt: skip
    t.reply("Netted.")
    t.write(project_dir(projects, CWD))

    index(store, projects)
    turns = kinds(store, t.session_id)
    assert [[x for k, x in turn if k in ("prompt", "steer")] for turn in turns] == [
        ["thin the apricot blossoms on the south wall"],
        ["and net the cherries"],
    ]
    assert any(k == "tool_output" and "east wall" in x for k, x in turns[0])
    assert found(store, "east wall") == [t.session_id]
