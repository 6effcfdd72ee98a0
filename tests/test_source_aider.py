"""Aider chat histories: each run a session, found by search, read back, read on as the
file grows, and the shared corpus's real history indexed with the counts it holds."""

from __future__ import annotations

import json
import re
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from conftest import CLI, SHARED

from findsession.domain import Root
from findsession.indexing import IndexReport, index_roots
from findsession.search.engine import SearchOptions, search
from findsession.sources.aider import FILE_NAME, discover, session_id
from findsession.sources.places.homes import aider as default_roots
from findsession.storage.sqlite import Store

KW = SearchOptions(mode="keyword")
FIXTURE = Path(__file__).parent / "fixtures" / "aider" / "weather-station"
FIRST = "# aider chat started at 2024-03-05 10:15:02"
SECOND = "# aider chat started at 2024-03-06 08:00:41"
CORPUS = SHARED / "corpus"
DEV_SESSIONS = SHARED / "benchmarks" / "known-item-dev" / "sessions.tsv"


@pytest.fixture
def code(tmp_path: Path) -> Path:
    """A folder of projects holding the weather-station project and its history."""
    root = tmp_path / "code"
    shutil.copytree(FIXTURE, root / "weather-station")
    return root


def history(code: Path) -> Path:
    return code / "weather-station" / FILE_NAME


def index(store: Store, root: Path) -> IndexReport:
    return index_roots(store, [Root(root, "aider")])


def turns(store: Store, sid: str) -> list[tuple[str, str, str, list[str]]]:
    rows = store.query(
        "SELECT prompt, reply, tools, files FROM units WHERE session_id = ? AND kind = 'turn'"
        " ORDER BY ordinal",
        (sid,),
    )
    return [(p, r, t, json.loads(f) if f else []) for p, r, t, f in rows]


def texts(store: Store, kind: str) -> list[str]:
    """Every message of one kind, in the order indexed."""
    return [t for (t,) in store.query("SELECT text FROM messages WHERE kind = ?", (kind,))]


def utc(local: str) -> str:
    """A header's local time as the index stores it."""
    moment = datetime.fromisoformat(local).astimezone(UTC).replace(tzinfo=None)
    return moment.isoformat(timespec="seconds") + "Z"


def test_each_run_is_a_session_with_its_project_start_and_title(store: Store, code: Path) -> None:
    report = index(store, code)
    assert report.errors == [] and report.problems == []
    path = history(code)
    first, second = (
        store.get_session(session_id(path, FIRST)),
        store.get_session(session_id(path, SECOND)),
    )
    assert first.id.startswith("aider-") and "/" not in first.id
    assert (first.n_turns, second.n_turns) == (4, 2)
    assert first.cwd == second.cwd == str(path.parent)
    assert first.first_ts == utc("2024-03-05 10:15:02")
    assert second.first_ts == utc("2024-03-06 08:00:41")
    assert second.version == "0.51.0"
    # The first prompt that asks something, not the `/add` before it.
    assert first.title.startswith("the barometer reading drifts after midnight")
    assert second.title == "which module owns the anemometer calibration table?"


def test_prompts_replies_edits_and_notes_each_go_where_they_belong(
    store: Store, code: Path
) -> None:
    index(store, code)
    add, fix, run, wrong = turns(store, session_id(history(code), FIRST))
    assert add[0] == "/add station/sensors.py" and "Added station/sensors.py" in add[2]
    prompt, reply, tools, files = fix
    assert prompt.splitlines() == [
        "the barometer reading drifts after midnight",
        "can you make read_pressure() reset the rolling average at 00:00 local time?",
    ]
    assert "never being cleared" in reply and "no longer carries" in reply
    assert "SEARCH" not in reply and "self.window.clear()" in tools
    assert "Applied edit to station/sensors.py" in tools and "Tokens:" not in reply
    assert files == ["station/sensors.py"]
    assert run[0] == "/run pytest -q tests/test_sensors.py" and "14 lines of output" in run[2]
    # The model's own heading and quote stay in its reply: aider's lines carry a mark.
    assert "#### Why test_midnight_rollover failed" in wrong[1]
    assert "> A frozen clock hides the rollover." in wrong[1]
    ask, move = turns(store, session_id(history(code), SECOND))
    assert "defined next to the wind speed" in ask[2] and "next to `to_knots()`" in ask[1]
    assert move[3] == ["station/wind.py"] and move[1] == ""


def test_search_finds_a_prompt_and_read_shows_the_turns(cli: CLI, code: Path) -> None:
    cli.run("index", "--no-embed", "--source", "aider", str(code))
    hits = cli.json("search", "--mode", "keyword", "barometer drifts after midnight")["results"]
    top = hits[0]
    assert top["session"]["source"] == "aider"
    assert top["session"]["id"] == session_id(history(code), FIRST)
    assert top["session"]["path"] == str(history(code)) and top["match"]["turn"] == 2
    read = cli.json("read", top["session"]["id"])
    assert read["total_turns"] == 4
    second = read["turns"][1]["messages"]
    assert [m["kind"] for m in second] == ["prompt", "reply", "reply"]
    with_tools = cli.json("read", top["session"]["id"], "--turn", "2", "--tools")
    kinds = [(m["kind"], m["tool"]) for m in with_tools["turns"][0]["messages"]]
    assert ("tool_call", "edit") in kinds and ("tool_output", None) in kinds


def test_two_runs_in_one_file_are_two_hits(cli: CLI, code: Path) -> None:
    cli.run("index", "--no-embed", "--source", "aider", str(code))
    hits = cli.json("search", "--mode", "keyword", "station")["results"]
    ids = {h["session"]["id"] for h in hits}
    assert ids == {session_id(history(code), FIRST), session_id(history(code), SECOND)}
    assert {h["session"]["path"] for h in hits} == {str(history(code))}


def test_with_no_folder_named_the_home_history_and_configured_roots_are_read(
    cli: CLI, code: Path, tmp_path: Path
) -> None:
    home = Path(cli.env["HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / FILE_NAME).write_text(f"\n{FIRST}\n\n#### tidy the dotfiles repo  \n")
    Path(cli.env["FINDSESSION_CONFIG"]).write_text(f'[sources.aider]\nroots = ["{code}"]\n')
    cli.run("index", "--no-embed")
    aider = next(s for s in cli.json("sources")["sources"] if s["kind"] == "aider")
    assert aider["files"] == 2 and aider["sessions"] + aider["subagents"] == 3
    assert {r["path"] for r in aider["roots"]} >= {str(home / FILE_NAME), str(code)}
    hits = cli.json("search", "--mode", "keyword", "--source", "aider", "dotfiles")["results"]
    assert [h["session"]["path"] for h in hits] == [str(home / FILE_NAME)]


def test_read_raw_gives_the_recorded_text_the_index_redacted(cli: CLI, code: Path) -> None:
    token = "ghp_R8sT2vW5yZ1aB4cD7eF0gH3iJ6kL9mN2oP5q"
    with history(code).open("a") as fh:
        fh.write(f"\n#### push with the deploy token {token}  \n")
    cli.run("index", "--no-embed", "--source", "aider", str(code))
    sid = session_id(history(code), SECOND)
    stored = cli.json("read", sid, "--turn", "3")["turns"][0]["messages"][0]["text"]
    raw = cli.json("read", sid, "--turn", "3", "--raw")["turns"][0]["messages"][0]["text"]
    assert token not in stored and "[REDACTED" in stored
    assert raw == f"push with the deploy token {token}"


def test_a_grown_history_is_read_on_from_its_last_run(store: Store, code: Path) -> None:
    path = history(code)
    index(store, code)
    first = session_id(path, FIRST)
    kept = store.query("SELECT id, hash FROM units WHERE session_id = ?", (first,))
    last_run = path.read_bytes().index(SECOND.encode())
    third = "# aider chat started at 2024-03-07 19:30:00"
    with path.open("a") as fh:
        fh.write("\n#### log the gust speed every ten seconds  \n\nDone: gusts are logged.\n")
        fh.write(f"\n{third}\n\n> Aider v0.52.0  \n\n#### /ask what unit is rainfall in?  \n")

    report = index(store, code)

    assert report.files_read == 1 and report.bytes_read == path.stat().st_size - last_run
    assert store.get_session(session_id(path, SECOND)).n_turns == 3
    assert store.get_session(session_id(path, third)).n_turns == 1
    assert store.query("SELECT id, hash FROM units WHERE session_id = ?", (first,)) == kept
    hits = search(store, "gust speed", KW).hits
    assert hits[0].session.id == session_id(path, SECOND) and hits[0].turn == 3
    assert index(store, code).files_read == 0


def test_a_watchers_run_walks_for_a_new_history_and_not_for_the_code_aider_wrote(
    store: Store, code: Path
) -> None:
    """The resident service hands the indexer the paths that changed. Under a folder of
    projects, the code an agent writes is nothing Aider keeps: passed over, where it
    cost a walk of every root. A new project's history is found by a walk."""
    roots = [Root(code, "aider")]
    index_roots(store, roots)
    written = history(code).parent / "station.py"
    written.write_text("READINGS_PER_HOUR = 12\n", encoding="utf-8")
    inputs = history(code).parent / ".aider.input.history"
    inputs.write_text("\n# 2026-01-02 10:00:00.1\n+y\n", encoding="utf-8")
    report = index_roots(store, roots, only=[str(written), str(inputs)])
    assert not report.full_scan and report.files_read == 0
    other = code / "barometer" / FILE_NAME
    other.parent.mkdir()
    shutil.copyfile(history(code), other)
    report = index_roots(store, roots, only=[str(other)])
    assert report.full_scan and report.files_read == 1


def test_an_edit_before_the_end_reads_the_file_again(store: Store, code: Path) -> None:
    path = history(code)
    index(store, code)
    path.write_bytes(path.read_bytes().replace(b"barometer", b"hygrometer"))
    index(store, code)
    assert search(store, "barometer", KW).hits == []
    assert search(store, "hygrometer", KW).hits[0].session.id == session_id(path, FIRST)


def test_broken_lines_are_reported_and_the_rest_is_indexed(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "proj" / FILE_NAME
    path.parent.mkdir()
    huge = "word " * 600_000  # 3 MB on one line
    path.write_bytes(
        b"\n# aider chat started at 2024-05-01 09:00:00\n\n> Aider v0.60.0  \n\n"
        b"#### caf\xe9 menu \xff\xfe parser  \n\n"  # line 6: Latin-1, not UTF-8
        + f"{huge}\n".encode()
        + b"\x00\x00 binary junk\n\n"  # line 9
        b"#### the anemometer still reads zero  \n\n"
        b"#### and a last prompt cut mid-wri"  # no line break yet: not yet a prompt
    )
    report = index(store, tmp_path)
    assert [(p.line, p.reason) for _, p in report.problems] == [(9, "NUL byte in line")]
    sid = session_id(path, "# aider chat started at 2024-05-01 09:00:00")
    (first, huge_reply, _, _), (second, cut, _, _) = turns(store, sid)
    assert first == "caf\ufffd menu \ufffd\ufffd parser"
    assert 100_000 <= len(huge_reply) < 110_000 and "more characters not indexed" in huge_reply
    assert second == "the anemometer still reads zero" and "cut mid-wri" in cut
    with path.open("ab") as fh:  # the writer finishes its line
        fh.write(b"ting  \n")
    index(store, tmp_path)
    assert [(t[0], t[1]) for t in turns(store, sid)][1:] == [
        ("the anemometer still reads zero", ""),
        ("and a last prompt cut mid-writing", ""),
    ]


def test_a_binary_file_named_like_a_history_is_skipped(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "proj" / FILE_NAME
    path.parent.mkdir()
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + b"a line of text\n" * 3)
    report = index(store, tmp_path)
    assert report.skipped == [(str(path), "binary: no Aider run header in it")]
    assert store.query("SELECT count(*) FROM sessions") == [(0,)]


def test_discovery_skips_heavy_folders_and_links_out_of_the_root(tmp_path: Path) -> None:
    root, outside = tmp_path / "code", tmp_path / "elsewhere"
    for folder in (
        "app",
        "app/node_modules/pkg",
        "app/.git",
        "env",  # a virtualenv
        "rust/target",  # a tagged cache
        "nested/deeper/tool",
    ):
        (root / folder).mkdir(parents=True)
        (root / folder / FILE_NAME).write_text(f"\n{FIRST}\n\n#### hello  \n")
    (root / "env" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (root / "rust" / "target" / "CACHEDIR.TAG").write_text(
        "Signature: 8a477f597d28d172789f06886806bc55\n"
    )
    outside.mkdir()
    (outside / FILE_NAME).write_text(f"\n{FIRST}\n\n#### secret elsewhere  \n")
    (root / "linked").symlink_to(outside, target_is_directory=True)
    skipped: list[tuple[Path, str]] = []
    found = list(discover(root, lambda p, r: skipped.append((p, r))))
    assert found == [root / "app" / FILE_NAME, root / "nested/deeper/tool" / FILE_NAME]
    assert skipped == []


def test_default_roots_are_aiders_own_settings_and_the_home_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("AIDER_CHAT_HISTORY_FILE", raising=False)
    assert default_roots() == [tmp_path / FILE_NAME]
    (tmp_path / ".aider.conf.yml").write_text("model: sonnet\nchat-history-file: ~/logs/aider.md\n")
    assert default_roots() == [tmp_path / "logs" / "aider.md", tmp_path / FILE_NAME]
    monkeypatch.setenv("AIDER_CHAT_HISTORY_FILE", "/srv/aider/history.md")
    assert default_roots()[0] == Path("/srv/aider/history.md")


def test_runs_of_one_file_are_not_subagents(store: Store, code: Path) -> None:
    index(store, code)
    first = store.get_session(session_id(history(code), FIRST))
    assert not first.is_subagent and first.parent_id is None


def test_the_private_marker_hides_only_its_own_run(store: Store, code: Path) -> None:
    with history(code).open("a") as fh:
        fh.write("\n#### findsession:private the calibration is a secret  \n")
    index(store, code)
    assert store.get_session(session_id(history(code), SECOND)) is None
    assert store.get_session(session_id(history(code), FIRST)).n_turns == 4


def test_forgetting_one_run_keeps_the_others(cli: CLI, code: Path) -> None:
    cli.run("index", "--no-embed", "--source", "aider", str(code))
    cli.run("forget", session_id(history(code), SECOND))
    with history(code).open("a") as fh:
        fh.write("\n#### one more question about the anemometer  \n")
    cli.run("index", "--no-embed", "--source", "aider", str(code))
    hits = cli.json("search", "--mode", "keyword", "anemometer")["results"]
    assert hits == []
    assert cli.json("read", session_id(history(code), FIRST))["total_turns"] == 4


# -- the shared corpus: real histories, counted without our parser ------------------------

_RUN = re.compile(r"(?m)^(?=# aider chat started at )")


def _expected(text: str) -> dict[str, int]:
    """Prompts per run: blocks of consecutive `#### ` lines (the corpus has no replies
    that could hold such a line)."""
    counts = {}
    for chunk in _RUN.split(text):
        if chunk.startswith("# aider chat started at"):
            header, lines = chunk.splitlines()[0], chunk.splitlines()[1:]
            starts = [
                i
                for i, line in enumerate(lines)
                if line.startswith("#### ") and (i == 0 or not lines[i - 1].startswith("#### "))
            ]
            counts[header] = len(starts)
    return counts


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"the shared corpus is not at {CORPUS}")
def test_every_aider_history_of_the_shared_corpus_indexes(store: Store) -> None:
    files = sorted(CORPUS.rglob(FILE_NAME))
    assert files, "the corpus holds Aider histories"
    report = index(store, CORPUS)
    assert report.errors == [] and report.files_read == len(files)
    for path in files:
        expected = _expected(path.read_text(encoding="utf-8", errors="replace"))
        found = {
            sid: n
            for sid, n in store.query(
                "SELECT id, n_turns FROM sessions WHERE file_path = ?", (str(path),)
            )
        }
        assert found == {session_id(path, h): n for h, n in expected.items()}, path
    if DEV_SESSIONS.is_file():
        for row in DEV_SESSIONS.read_text(encoding="utf-8").splitlines():
            cells = row.split("\t")
            if len(cells) > 2 and cells[1] == "aider":
                file, header = cells[2].split("::", 1)
                assert store.get_session(session_id(CORPUS / file, header)), cells[2]


def said(text: str) -> str:
    """A message as aider logs what it sends (`InputOutput.user_input`)."""
    return "\n#### " + "  \n#### ".join(text.splitlines()) + "  \n"


def answer(text: str) -> str:
    """A model's reply as aider logs it (`InputOutput.ai_output`)."""
    return "\n" + text.strip() + "\n\n"


def note(*lines: str) -> str:
    return "".join(f"> {line}  \n" for line in lines)


PLAN = (
    "   Count the bucket tips on GPIO 17 with an interrupt.\n\n"
    "#### Wiring\n\nThe reed switch goes to GPIO 17 and ground; log tips per hour to tips.csv.\n"
)
EDIT = (
    "gauge.py\n```python\n<<<<<<< SEARCH\nTIPS = 0\n=======\nTIPS = count_tips()\n"
    ">>>>>>> REPLACE\n```"
)
#: What the person typed into the run below, in order.
TYPED = [
    "Plan a rain gauge logger for the tipping bucket",
    "/code add a debounce of 50 ms to the reed switch",
    "/ask why fifty milliseconds",
    "/help how do I undo the last edit",
    "/ok",
    "/architect plan the battery monitor",
    "Log the battery voltage too",
]
ARCHITECT_RUN = (
    "\n# aider chat started at 2025-03-11 21:23:54\n\n"
    + note("Aider v0.76.2", "Main model: gpt-4o with architect edit format")
    + said(TYPED[0]) + answer(PLAN)
    + note("Tokens: 2.0k sent, 496 received.", "Edit the files? (Y)es/(N)o [Yes]: y")
    + said(PLAN) + answer("Here is the edit:\n\n" + EDIT) + note("Applied edit to gauge.py")
    + said(TYPED[1]) + said("add a debounce of 50 ms to the reed switch") + answer(EDIT)
    + said(TYPED[2]) + note("Creating empty file notes.md")
    + said("why fifty milliseconds") + answer("A reed switch bounces for a few ms.")
    + said(TYPED[3])
    + said("# Question: how do I undo the last edit\n\n# Relevant docs:\n\n<doc>/undo</doc>")
    + answer("Type /undo.")
    + said(TYPED[4]) + said("Ok, please go ahead and make those changes.") + answer(EDIT)
    + said(TYPED[5]) + said("plan the battery monitor") + answer("Read the ADC on channel 2.")
    + note("Edit the files? (Y)es/(N)o [Yes]: n")
    + said(TYPED[6]) + answer("The voltage is logged beside the tips.")
)  # fmt: skip


@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["lf", "crlf"])
def test_what_aider_sends_again_for_the_person_is_not_a_prompt(
    store: Store, tmp_path: Path, newline: str
) -> None:
    """Architect mode logs the architect's reply again as `####` lines (what the editor
    model is sent), and `/code X`, `/ask X`, `/help X` and `/ok` log the message they
    send: none of them was typed, and the turns stay the person's."""
    project = tmp_path / "gauge"
    project.mkdir()
    (project / FILE_NAME).write_bytes(ARCHITECT_RUN.replace("\n", newline).encode())
    index(store, project)
    prompts = texts(store, "prompt")
    assert prompts == TYPED
    [(sid,)] = store.query("SELECT id FROM sessions")
    planned = turns(store, sid)[0]
    assert "log tips per hour to tips.csv" in planned[1]  # the architect's reply, once
    assert planned[3] == ["gauge.py"]  # the editor's edit belongs to the typed request
    assert store.scalar("SELECT count(*) FROM messages WHERE kind = 'harness'") == 6


def reflowed(text: str) -> str:
    """What typed text becomes once a Markdown formatter (Prettier) has rewritten the
    history: each `####` line a heading of its own, no line break, a blank line between."""
    return "\n" + "\n\n".join(f"#### {line}".rstrip() for line in text.splitlines()) + "\n"


def reflowed_note(*lines: str) -> str:
    """A note so rewritten: its last line loses aider's line break, the others keep it."""
    return "".join(f"> {line}  \n" for line in lines[:-1]) + f"> {lines[-1]}\n"


def test_a_history_a_markdown_formatter_rewrote_keeps_its_prompts(
    store: Store, tmp_path: Path
) -> None:
    """A formatter run over the project (Prettier) rewrites `.aider.chat.history.md`
    too: every `####` line loses aider's mark and gets a blank line after it, and each
    note's last line loses it. The lines of one input are still one prompt, `/clear`
    then `/drop` still two, and the model's own heading is still its reply's."""
    project = tmp_path / "shop"
    project.mkdir()
    run = (
        "# aider chat started at 2024-08-20 14:08:19\n\n"
        + reflowed_note("Aider v0.50.1", "Git repo: .git with 116 files", "Use /help <question>")
        + reflowed("/add steps.md") + "\n" + reflowed_note("Added steps.md to the chat")
        + reflowed("follow steps.md one step at a time\nask me before each step")
        + answer("Step 1 sets up the menu.\n\n#### 1. The menu file\n\nmenu.css\n```css\n"
                 "<<<<<<< SEARCH\na {}\n=======\na { color: red }\n>>>>>>> REPLACE\n```")
        + reflowed_note("Tokens: 2.1k sent, 310 received.", "Applied edit to menu.css")
        + reflowed("/clear") + reflowed("/drop") + "\n"
        + reflowed_note("Dropping all files from the chat session.")
        + reflowed("go on") + answer("Step 2 adds the cart.")
    )  # fmt: skip
    (project / FILE_NAME).write_text(run, encoding="utf-8")
    index(store, project)
    prompts = texts(store, "prompt")
    assert prompts == [
        "/add steps.md",
        "follow steps.md one step at a time\nask me before each step",
        "/clear",
        "/drop",
        "go on",
    ]
    [(sid,)] = store.query("SELECT id FROM sessions")
    follow = turns(store, sid)[1]
    assert "#### 1. The menu file" in follow[1] and follow[3] == ["menu.css"]
    assert "Applied edit to menu.css" in follow[2]
    assert turns(store, sid)[-1][1] == "Step 2 adds the cart."


def test_an_answer_aider_gives_for_a_group_of_questions_is_not_a_prompt(
    store: Store, tmp_path: Path
) -> None:
    """After "(A)ll" or "(S)kip all", aider answers the rest of the group itself and logs
    each question with that answer as a `####` line (`InputOutput.confirm_ask`): typed by
    no one, so harness, not prompts."""
    project = tmp_path / "plotter"
    project.mkdir()
    ask = "Add file to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]: "
    run = (
        "# aider chat started at 2026-05-02 13:55:40\n\n"
        + note("Aider v0.86.2")
        + said("which files draw the axes?") + answer("plot/axes.py and plot/ticks.py.")
        + note("Tokens: 1.9k sent, 638 received.", "plot/axes.py", ask + "s", "plot/ticks.py")
        + said(ask + "skip") + note(ask + "s", "plot/grid.py")
        + said(ask + "skip") + note(ask + "s")
        + said("/add plot/axes.py") + note("Added plot/axes.py to the chat")
        + said("/architect label both axes") + said("label both axes")
        + answer("Labels go in draw().")
        + note("plot/legend.py", ask + "a", "plot/title.py")
        + said(ask + "all") + note(ask + "a", "Edit the files? (Y)es/(N)o [Yes]: y")
        + said("Labels go in draw().") + answer("axes.py\n```python\n<<<<<<< SEARCH\n"
                                              "=======\nlabel()\n>>>>>>> REPLACE\n```")
    )  # fmt: skip
    (project / FILE_NAME).write_text(run, encoding="utf-8")
    index(store, project)
    prompts = texts(store, "prompt")
    assert prompts == [
        "which files draw the axes?",
        "/add plot/axes.py",
        "/architect label both axes",
    ]
    harness = texts(store, "harness")
    # Between the architect's reply and its copy for the editor, aider's own answer
    # leaves the copy still known as one.
    assert harness == [ask + "skip", ask + "skip", "label both axes", ask + "all",
                       "Labels go in draw()."]  # fmt: skip


def test_an_architect_reply_sent_again_without_its_thinking_is_not_a_prompt(
    store: Store, tmp_path: Path
) -> None:
    """Aider logs a reasoning model's thinking inside the reply, between its
    `<thinking-content-…>` tags, but sends the editor the reply without it: that copy is
    still the architect's reply, not something typed."""
    project = tmp_path / "render"
    project.mkdir()
    tag = "thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b"
    plan = "# Frame budget plan\n\n1. Cap the frame at 8 ms.\n2. Skip a frame when late."
    run = (
        "# aider chat started at 2026-05-02 14:03:46\n\n"
        + note("Aider v0.86.2", "Model: openai/qwen with architect edit format")
        + said("/architect") + said("review the frame budget plan")
        + answer(f"<{tag}>\nThe plan's line numbers are off.\n</{tag}>\n\n{plan}")
        + note("Tokens: 30k sent, 2.4k received.", "Edit the files? (Y)es/(N)o [Yes]: y")
        + said(plan) + answer("frame.py\n```python\n<<<<<<< SEARCH\nBUDGET = 16\n=======\n"
                              "BUDGET = 8\n>>>>>>> REPLACE\n```")
    )  # fmt: skip
    (project / FILE_NAME).write_text(run, encoding="utf-8")
    index(store, project)
    prompts = texts(store, "prompt")
    assert prompts == ["/architect", "review the frame budget plan"]
    [(sid,)] = store.query("SELECT id FROM sessions")
    review = turns(store, sid)[-1]
    assert "Skip a frame when late." in review[1] and review[3] == ["frame.py"]
