"""cecli (Aider Community Edition) chat histories: `.cecli/chat.history`, written by the
real cecli 1.10.0 in two runs in a project (an edit applied, a rename whose SEARCH block
failed to match, a failing `/run`, a prompt of two lines, agent mode running a shell
command, the second run with the first one's saved session loaded), read as sessions of
their own source and checked against counts taken here over the raw files."""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path

import pytest
from conftest import CLI

from findsession.domain import Root
from findsession.indexing import IndexReport, index_roots
from findsession.sources.cecli import FILE_NAME, default_roots, discover, session_id
from findsession.storage.sqlite import Store

FIXTURE = Path(__file__).parent / "fixtures" / "cecli" / "rain-gauge"
FIRST = "# cecli chat started at 2026-12-07 07:00:40"
SECOND = "# cecli chat started at 2026-12-07 07:01:20"


@pytest.fixture
def code(tmp_path: Path) -> Path:
    """A folder of projects holding the rain-gauge project and its cecli history."""
    root = tmp_path / "code"
    shutil.copytree(FIXTURE, root / "rain-gauge")
    return root


def history(code: Path) -> Path:
    return code / "rain-gauge" / FILE_NAME


def index(store: Store, root: Path) -> IndexReport:
    return index_roots(store, [Root(root, "cecli")])


def blocks(path: Path) -> list[str]:
    """The `####` blocks cecli wrote (consecutive `#### ` lines are one input), counted
    over the raw file."""
    found: list[list[str]] = []
    previous = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#### "):
            if not previous:
                found.append([])
            found[-1].append(line[5:].rstrip())
        previous = line.startswith("#### ")
    return ["\n".join(b) for b in found]


def typed(path: Path) -> list[str]:
    """What was typed, from `.cecli/input.history` (`# <time>` then `+` lines)."""
    entries: list[list[str]] = []
    for line in (path.parent / "input.history").read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            entries.append([])
        elif line.startswith("+") and entries:
            entries[-1].append(line[1:])
    return ["\n".join(e) for e in entries]


def test_each_run_is_a_cecli_session_whose_prompts_are_what_was_typed(
    store: Store, code: Path
) -> None:
    report = index(store, code)
    assert report.errors == [] and report.problems == []
    path = history(code)
    raw = path.read_text(encoding="utf-8")
    assert len(re.findall(r"(?m)^# cecli chat started at", raw)) == 2
    first, second = (
        store.get_session(session_id(path, FIRST)),
        store.get_session(session_id(path, SECOND)),
    )
    assert first.source == second.source == "cecli" and first.id.startswith("cecli-")
    # The project is the folder `.cecli/` sits in, not `.cecli/` itself.
    assert first.cwd == second.cwd == str(code / "rain-gauge")
    assert first.title.startswith("the gauge reports inches but tips_to_mm()")
    prompts = [
        t for (t,) in store.query("SELECT text FROM messages WHERE kind = 'prompt' ORDER BY line")
    ]
    assert prompts == blocks(path)
    assert (first.n_turns, second.n_turns) == (7, 2)
    # Every prompt is an input typed, in order; cecli stopped writing its chat history
    # after the question it asked in agent mode (the input typed after it is only in
    # input.history).
    inputs = typed(path)
    rest = iter(inputs)
    assert all(prompt in rest for prompt in prompts)  # in order, each once
    assert len(inputs) == len(prompts) + 2


def test_edits_are_tool_calls_and_notes_are_tool_output(store: Store, code: Path) -> None:
    index(store, code)
    path = history(code)
    calls = store.query(
        "SELECT tool_name, files FROM messages WHERE kind = 'tool_call' ORDER BY line"
    )
    raw = path.read_text(encoding="utf-8")
    assert len(calls) == len(re.findall(r"(?m)^<{7} SEARCH$", raw)) == 3
    # The applied edit, the one that failed, and cecli's copy of the failed block in its
    # error (which names no file, as Aider's does).
    assert calls == [("edit", '["gauge.py"]'), ("edit", '["gauge.py"]'), ("edit", None)]
    outputs = " ".join(
        t for (t,) in store.query("SELECT text FROM messages WHERE kind = 'tool_output'")
    )
    assert "Applied edit to gauge.py" in outputs and "Tool Call: local • Command" in outputs
    assert "AttributeError" not in outputs  # cecli logs only that output went to the chat


def test_search_finds_a_cecli_prompt_and_resume_goes_back_to_the_project(
    cli: CLI, code: Path
) -> None:
    cli.run("index", "--no-embed", "--source", "cecli", str(code))
    hits = cli.json("search", "--mode", "keyword", "which sensor does the gauge read")["results"]
    top = hits[0]
    assert top["session"]["source"] == "cecli"
    assert top["session"]["id"] == session_id(history(code), FIRST)
    assert top["session"]["path"] == str(history(code))
    assert top["resume"]["command"] == ["cecli", "--auto-load"]
    result = cli.run("open", top["session"]["id"], "--print")
    assert shlex.split(result.stdout) == [
        "cd",
        str(code / "rain-gauge"),
        "&&",
        "cecli",
        "--auto-load",
    ]
    assert "cannot load its chat history again" in result.stderr


def test_an_aider_history_beside_it_stays_aider(store: Store, code: Path) -> None:
    aider = code / "rain-gauge" / ".aider.chat.history.md"
    aider.write_text("\n# aider chat started at 2024-03-05 10:15:02\n\n#### tidy the dotfiles  \n")
    assert list(discover(code)) == [history(code)]
    index_roots(store, [Root(code, "cecli"), Root(code, "aider")])
    sources = dict(store.query("SELECT file_path, source FROM sessions GROUP BY file_path"))
    assert sources == {str(history(code)): "cecli", str(aider): "aider"}


def test_default_roots_follow_cecli_s_variable_and_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("CECLI_CHAT_HISTORY_FILE", raising=False)
    assert default_roots() == [tmp_path / FILE_NAME]
    (tmp_path / ".cecli").mkdir()
    (tmp_path / ".cecli" / ".cecli.conf.yml").write_text("chat-history-file: /srv/cecli.md\n")
    assert default_roots() == [Path("/srv/cecli.md"), tmp_path / FILE_NAME]
    monkeypatch.setenv("CECLI_CHAT_HISTORY_FILE", str(tmp_path / "logs" / "cecli.md"))
    assert default_roots() == [tmp_path / "logs" / "cecli.md", tmp_path / FILE_NAME]


def test_blame_names_the_run_whose_edit_applied(cli: CLI, code: Path) -> None:
    cli.run("index", "--no-embed", "--source", "cecli", str(code))
    gauge = code / "rain-gauge" / "gauge.py"
    got = json.loads(cli.run("blame", "--json", f"{gauge}:3").stdout)
    (line,) = got["lines"]
    assert "0.2  # millimetres" in line["text"]
    writer = got["writers"][line["writer"] - 1]
    assert writer["session"]["id"] == session_id(history(code), FIRST)
