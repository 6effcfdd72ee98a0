"""cecli (Aider Community Edition) chat histories: `.cecli/chat.history`, written by the
real cecli 1.10.0 in two runs in a project (an edit applied, a rename whose SEARCH block
failed to match, a failing `/run`, a prompt of two lines, agent mode running a shell
command, the second run with the first one's saved session loaded), read as sessions of
their own source and checked against counts taken here over the raw files. The second
run shows what cecli 1.10 loses: once the agent's question was answered, nothing more of
the run reaches the chat history; the prompts typed after it are read from
`.cecli/input.history`, which cecli wrote beside it."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from conftest import CLI

from findsession.domain import Root
from findsession.indexing import IndexReport, index_roots
from findsession.sources.aider_inputs import MAX_INPUT_BYTES
from findsession.sources.cecli import FILE_NAME, discover, session_id
from findsession.sources.places.homes import cecli as default_roots
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
    return [text for _, text in timed(path)]


def timed(path: Path) -> list[tuple[datetime, str]]:
    """`typed`, with the local time of each input."""
    entries: list[tuple[datetime, list[str]]] = []
    for line in (path.parent / "input.history").read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            entries.append((datetime.fromisoformat(line[2:]), []))
        elif line.startswith("+") and entries:
            entries[-1][1].append(line[1:])
    return [(at, "\n".join(e)) for at, e in entries]


def lost(path: Path) -> dict[str, list[str]]:
    """Per run header: the inputs typed in the run (from its header's time to the next
    one's) that none of its `####` blocks holds, answers to a question (`y`, `n`) left
    out: what cecli did not log."""
    runs = re.findall(
        r"(?m)^# cecli chat started at (.*)\n((?:(?!# cecli chat started).*\n?)*)",
        path.read_text(encoding="utf-8"),
    )
    starts = [datetime.fromisoformat(t) for t, _ in runs]
    pools = [["\n".join(b) for b in blocks_in(body)] for _, body in runs]
    found: dict[str, list[str]] = {}
    for at, text in timed(path):
        if text.lower() in ("y", "n", "yes", "no", "a", "s", "d") or at < starts[0]:
            continue
        n = max(i for i, start in enumerate(starts) if start <= at)
        if text in pools[n]:
            pools[n].remove(text)
        else:
            found.setdefault(runs[n][0], []).append(text)
    return found


def blocks_in(text: str) -> list[list[str]]:
    found: list[list[str]] = []
    previous = False
    for line in text.splitlines():
        if line.startswith("#### "):
            if not previous:
                found.append([])
            found[-1].append(line[5:].rstrip())
        previous = line.startswith("#### ")
    return found


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
        t
        for (t,) in store.query(
            "SELECT text FROM messages WHERE kind = 'prompt' ORDER BY line, part"
        )
    ]
    # cecli stopped writing its chat history after the question it asked in agent mode:
    # the two inputs typed after it are only in input.history, and are the run's last
    # prompts, each once, timed as typed.
    missing = lost(path)
    assert missing == {
        SECOND[len("# cecli chat started at ") :]: [
            "which sensor does the gauge read in agent mode?",
            "/exit",
        ]
    }
    assert prompts == blocks(path) + [t for ts in missing.values() for t in ts]
    assert (first.n_turns, second.n_turns) == (7, 4)
    assert prompts == typed(path)  # every input typed is a prompt, in order, each once
    times = store.query(
        "SELECT ts FROM messages WHERE session_id = ? AND kind = 'prompt' ORDER BY line, part",
        (second.id,),
    )
    assert [t for (t,) in times] == [
        "2026-12-07T07:01:20Z",
        "2026-12-07T07:01:20Z",
        *(local_as_utc(at) for at, _ in timed(path)[-2:]),
    ]


def local_as_utc(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def prompts_of(store: Store, sid: str) -> list[str]:
    return [
        t
        for (t,) in store.query(
            "SELECT text FROM messages WHERE session_id = ? AND kind = 'prompt'"
            " ORDER BY line, part",
            (sid,),
        )
    ]


def test_inputs_added_later_are_read_once_each_into_the_run_they_were_typed_in(
    store: Store, code: Path
) -> None:
    path = history(code)
    inputs = path.parent / "input.history"
    index(store, code)
    second = session_id(path, SECOND)
    before = prompts_of(store, second)
    assert index(store, code).files_unchanged == 1
    assert prompts_of(store, second) == before
    # Typed later in the second run, an answer to a question among them (no prompt).
    with inputs.open("a", encoding="utf-8") as fh:
        fh.write("\n# 2026-12-07 07:03:10.5\n+where is the gauge calibrated?\n")
        fh.write("\n# 2026-12-07 07:03:20.5\n+y\n")
    report = index(store, code)
    assert report.files_unchanged == 0 and report.problems == []
    assert prompts_of(store, second) == [*before, "where is the gauge calibrated?"]
    # The chat history grows in that run, the inputs it lost still at its end: what the
    # run gave before goes, nothing twice.
    with path.open("a", encoding="utf-8") as fh:
        fh.write("\nThe check printed 2.0, then the command exited with 3.\n")
    index(store, code)
    assert prompts_of(store, second) == [*before, "where is the gauge calibrated?"]
    with path.open("a", encoding="utf-8") as fh:
        fh.write("\n#### and the rain total for today?  \n\nAbout 3 mm.\n")
    index(store, code)
    assert prompts_of(store, second) == [
        *before,
        "where is the gauge calibrated?",
        "and the rain total for today?",
    ]
    first = prompts_of(store, session_id(path, FIRST))
    assert first == blocks(path)[:7]
    # A new run: its inputs are its own, not the run before's.
    with path.open("a", encoding="utf-8") as fh:
        fh.write("\n# cecli chat started at 2026-12-07 08:00:00\n\n#### /add gauge.py  \n")
    with inputs.open("a", encoding="utf-8") as fh:
        fh.write("\n# 2026-12-07 08:00:05.1\n+/add gauge.py\n")
        fh.write("\n# 2026-12-07 08:00:09.1\n+how often does the bucket tip?\n")
    index(store, code)
    third = session_id(path, "# cecli chat started at 2026-12-07 08:00:00")
    assert prompts_of(store, third) == ["/add gauge.py", "how often does the bucket tip?"]
    # The first input that asks something names the run, as a logged one would.
    assert store.get_session(third).title == "how often does the bucket tip?"
    assert len(prompts_of(store, second)) == len(before) + 2
    # Rewritten (not only grown): read again from the top, the same once more.
    everything = store.query("SELECT session_id, line, part, text FROM messages ORDER BY id")
    # An input typed before the first run logged is left out: no run read holds it.
    earlier = "\n# 2026-12-07 06:59:00.5\n+typed before any run the history holds\n"
    changed = inputs.read_text(encoding="utf-8").replace("bucket tip", "bucket empty")
    inputs.write_text(earlier + changed, encoding="utf-8")
    index(store, code)
    assert prompts_of(store, third)[-1] == "how often does the bucket empty?"
    again = store.query("SELECT session_id, line, part, text FROM messages ORDER BY id")
    assert len(again) == len(everything)
    assert not any("before any run" in text for *_, text in again)


def test_a_watchers_run_reads_the_history_an_input_joined_and_walks_for_no_code_file(
    store: Store, code: Path
) -> None:
    """The resident service hands the indexer the paths that changed. An input typed
    in cecli changes `input.history` (and, until cecli stops logging, `chat.history`):
    its chat history is read, with no walk of every root. A file of the project's own
    code an agent wrote is nothing cecli keeps: passed over, not a full scan."""
    path = history(code)
    inputs = path.parent / "input.history"
    roots = [Root(code, "cecli")]
    index_roots(store, roots)
    second = session_id(path, SECOND)
    before = prompts_of(store, second)
    with inputs.open("a", encoding="utf-8") as fh:
        fh.write("\n# 2026-12-07 07:03:10.5\n+where is the gauge calibrated?\n")
    report = index_roots(store, roots, only=[str(inputs)])
    assert not report.full_scan and report.files_read == 1
    assert prompts_of(store, second) == [*before, "where is the gauge calibrated?"]
    written = code / "rain-gauge" / "gauge.py"
    written.write_text("TIPS_PER_MM = 5\n", encoding="utf-8")
    report = index_roots(store, roots, only=[str(written)])
    assert not report.full_scan and report.files_read == 0


def test_a_broken_input_history_costs_only_itself(store: Store, code: Path) -> None:
    path = history(code)
    inputs = path.parent / "input.history"
    kept = typed(path)
    with inputs.open("a", encoding="utf-8") as fh:
        fh.write("\n# not a time\n+typed when?\n")
        fh.write("\n# 2026-12-07 07:02:00+01:00\n+a zone prompt_toolkit never writes\n")
    report = index(store, code)
    assert report.errors == []
    assert [(p.reason, p.detail) for _, p in report.problems] == [
        ("input history: inputs with no time", "input.history: 2 left out")
    ]
    assert prompts_of(store, session_id(path, SECOND))[-1] == "/exit"
    with inputs.open("r+b") as fh:
        fh.truncate(MAX_INPUT_BYTES + 1)  # NUL bytes past a limit nothing typed reaches
    report = index(store, code)
    assert [p.reason for _, p in report.problems] == ["input history too large"]
    assert prompts_of(store, session_id(path, SECOND)) == ["/agent", kept[8]]


def test_an_input_history_that_is_a_fifo_is_one_problem_and_blocks_nothing(
    store: Store, code: Path
) -> None:
    """Opening a FIFO for reading waits for a writer: the run would hang on it."""
    inputs = history(code).parent / "input.history"
    inputs.unlink()
    os.mkfifo(inputs)
    report = index(store, code)
    assert [p.reason for _, p in report.problems] == ["input history unreadable"]
    assert store.query("SELECT count(*) FROM messages")[0][0] > 0


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


def test_a_prompt_only_the_input_history_holds_is_found_and_read_back(
    cli: CLI, code: Path
) -> None:
    cli.run("index", "--no-embed", "--source", "cecli", str(code))
    hits = cli.json("search", "--mode", "keyword", "gauge read in agent mode")["results"]
    assert hits[0]["session"]["id"] == session_id(history(code), SECOND)
    shown = cli.run("read", "--raw", hits[0]["session"]["id"]).stdout
    assert "> which sensor does the gauge read in agent mode?" in shown


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
