"""A tool call's arguments as text and files, written once (`tool_args`) and read the
same way by every source: Codex's argv joined into a command line, Copilot CLI's calls
with arguments that are not an object shown rather than dropped."""

from __future__ import annotations

import json

from findsession.sources.codex_items import tool_call as codex_call
from findsession.sources.copilot_cli_records import EventParser
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
