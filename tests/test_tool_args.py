"""A tool call's arguments as text and files, written once (`tool_args`) and read the
same way by every source: Codex's argv joined into a command line, Copilot CLI's calls
with arguments that are not an object shown rather than dropped."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from findsession.domain import Message, MessageKind
from findsession.sources.codex_items import tool_call as codex_call
from findsession.sources.copilot_cli_records import EventParser
from findsession.sources.registry import SOURCES
from findsession.sources.tool_args import args_text, files


def test_a_list_of_words_stays_json_unless_the_caller_joins_it() -> None:
    args = {"command": ["bash", "-lc", "ls -la"], "timeout": 5, "env": None, "opts": [1, "a"]}
    assert args_text(args, 2000) == 'command: ["bash", "-lc", "ls -la"]\ntimeout: 5\nopts: [1, "a"]'
    joined = args_text(args, 2000, join_lists=True)
    assert joined == 'command: bash -lc ls -la\ntimeout: 5\nopts: [1, "a"]'
    assert args_text({"argv": []}, 2000, join_lists=True) == "argv: "


def test_files_keep_the_callers_order_and_leave_out_what_names_no_file() -> None:
    args = {"file_path": "/src/b.py", "path": "/src/a.py", "filePath": "two\nlines"}
    assert files(args, ("path", "file_path", "filePath")) == ("/src/a.py", "/src/b.py")
    assert files({"path": "p" * 1024}) == ()
    assert files(["/src/a.py"]) == ()


def test_a_codex_local_shell_call_reads_as_the_command_that_ran() -> None:
    action = {"type": "exec", "command": ["bash", "-lc", "cargo test"], "working_directory": "/w"}
    payload = {"type": "local_shell_call", "call_id": "call_1", "action": action}
    message = codex_call("local_shell_call", payload, {"line": 3})
    assert message.text == "type: exec\ncommand: bash -lc cargo test\nworking_directory: /w"
    assert message.tool_name == "local_shell"
    edit = {"name": "edit", "arguments": json.dumps({"path": "/w/a.rs", "line": 2})}
    assert codex_call("function_call", edit, {"line": 4}).files == ("/w/a.rs",)


def test_a_copilot_call_whose_arguments_are_not_an_object_is_shown() -> None:
    def call_text(arguments: object) -> tuple[str, tuple[str, ...]]:
        request = {"toolCallId": "c1", "name": "tool", "arguments": arguments}
        event = {"type": "assistant.message", "data": {"toolRequests": [request]}}
        (message,) = EventParser().parse(1, event)
        return message.text, message.files

    assert call_text(["one", "two"]) == ('["one", "two"]', ())
    assert call_text('{"path": "/p/x.md", "limit": 3}') == ("path: /p/x.md\nlimit: 3", ("/p/x.md",))
    assert call_text("plain words") == ("plain words", ())


FIXTURES = Path(__file__).parent / "fixtures"


def _messages(kind: str, folder: str, of: MessageKind) -> list[Message]:
    source = SOURCES[kind]
    found: list[Message] = []
    for path in source.discover(FIXTURES / folder, lambda p, why: None):
        with path.open("rb") as fh:
            reading = source.read(source.describe(path), fh, None)
        found += [r for r in reading.records if isinstance(r, Message) and r.kind == of]
    return found


#: Each source whose reader makes its tool call messages with `call_message`: its
#: fixture, each call's (name, id, files, uuid) in order, and the first call's text.
CALLS = [
    ("auggie", "auggie/home/.augment/sessions", [
        ("view", "toolu_k1", ("src/pid.c",), None),
        ("str-replace-editor", "toolu_k2", ("src/pid.c",), None),
        ("save-file", "toolu_k3", ("tests/test_ramp.c",), None),
        ("launch-process", "toolu_k4", (), None),
        ("remove-files", "toolu_k5", (), None),
        ("str-replace-editor", "toolu_k6", ("src/thermocouple.h",), None),
        ("grep-search", "toolu_s1", (), None),
    ], "path: src/pid.c\ntype: file"),
    ("continue", "continue/sessions", [
        ("read_file", "call_1", ("src/loadcell.py",), None),
        ("create_new_file", "call_2", ("src/thermal.py",), None),
        ("run_terminal_command", "call_3", (), None),
        ("Edit", "w1", ("/home/dev/greenhouse/vent.py",), None),
    ], "filepath: src/loadcell.py"),
    ("openhands", "openhands", [
        ("execute_bash", "call_ls01", (), None),
        ("str_replace_editor", "call_ed02", ("/workspace/greenhouse/watering.md",), None),
        ("think", "call_th03", (), None),
        ("file_editor", "call_1", ("/home/dev/greenhouse/vent.py",), None),
        ("file_editor", "call_2", ("/home/dev/greenhouse/vent.py",), None),
        ("terminal", "call_3", (), None),
        ("task", "call_4", (), None),
        ("file_editor", "call_5", ("/home/dev/greenhouse/humidity.py",), None),
        ("terminal", "s_1", (), None),
    ], "command: ls schedules"),
    ("amp", "amp/threads", [
        ("Read", "toolu_01", ("/home/dev/ferry times/pier.html",), None),
    ], "path: /home/dev/ferry times/pier.html"),
    ("opencode", "opencode", [
        ("read", "toolu_01", ("/home/dev/tidepool/tides.csv",), "prt_5a1f00000105"),
        ("bash", "toolu_02", (), "prt_5a1f00000106"),
    ], "filePath: /home/dev/tidepool/tides.csv"),
]  # fmt: skip


@pytest.mark.parametrize(("kind", "folder", "calls", "text"), CALLS)
def test_each_reader_keeps_a_calls_name_id_files_and_text(
    kind: str, folder: str, calls: list[tuple[object, ...]], text: str
) -> None:
    found = _messages(kind, folder, MessageKind.TOOL_CALL)
    assert [(m.tool_name, m.tool_id, m.files, m.uuid) for m in found] == calls
    assert found[0].text == text


#: Each source whose reader makes its result messages with `result_message`: its
#: fixture, each result's (name, id, failed) in order, and the first result's text.
RESULTS = [
    ("auggie", "auggie/home/.augment/sessions", [
        ("view", "toolu_k1", False), ("str-replace-editor", "toolu_k2", False),
        ("save-file", "toolu_k3", False), ("launch-process", "toolu_k4", False),
        ("remove-files", "toolu_k5", False), ("str-replace-editor", "toolu_k6", True),
        ("grep-search", "toolu_s1", False),
    ], "1\tfloat pid_step(float err) {\n     2\t  integral += err * dt;\n"
       "     3\t  return kp * err + ki * integral;\n     4\t}"),
    ("continue", "continue/sessions", [
        ("read_file", "call_1", False), ("create_new_file", "call_2", False),
        ("run_terminal_command", "call_3", True), ("Edit", "w1", False),
    ], "def read():\n    return raw - TARE_OFFSET  # no temperature term"),
    ("openhands", "openhands", [
        (None, None, True), ("execute_bash", "call_ls01", True),
        ("str_replace_editor", "call_ed02", False), ("think", "call_th03", False),
        ("file_editor", "call_1", False), ("file_editor", "call_2", False),
        ("terminal", "call_3", True), ("task", "call_4", False), ("file_editor", "call_5", True),
        ("terminal", "call_6", True), ("terminal", "s_1", False),
    ], "Missing required parameters for function 'execute_bash': {'security_risk'}"),
    ("amp", "amp/threads", [("Read", "toolu_01", False)],
     "<td>Pier 3 departs 07:45 to Kelp Island</td>"),
    ("opencode", "opencode", [("read", "toolu_01", False), ("bash", "toolu_02", True)],
     "time,height\n04:12,0.4 metres slack water at Gull Rock"),
    ("antigravity", "antigravity", [
        ("list_dir", "3.0", False), ("run_command", "5.0", False), ("write_to_file", "7.0", False),
        ("replace_file_content", "7.1", False), ("write_to_file", "14.0", True),
        ("run_command", "1.0", False), ("view_file", "1.0", False),
        ("multi_replace_file_content", "3.0", False),
    ], 'Created At: 2026-06-02T08:00:04Z\n{"name":"rollover.c","sizeBytes":"812"}\n'
       '{"name":"sampler.c","sizeBytes":"2210"}'),
    ("junie", "junie", [("terminal", "term-1", False), ("terminal", "term-2", True)],
     "12: static uint32_t odometer_ram;"),
]  # fmt: skip


@pytest.mark.parametrize(("kind", "folder", "results", "text"), RESULTS)
def test_each_reader_keeps_a_results_call_failure_and_text(
    kind: str, folder: str, results: list[tuple[object, ...]], text: str
) -> None:
    found = _messages(kind, folder, MessageKind.TOOL_OUTPUT)
    assert [(m.tool_name, m.tool_id, m.is_error) for m in found] == results
    assert found[0].text == text
