"""Bad input never costs data: every broken thing is skipped, counted and reported."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import CLI, index
from transcripts import Transcript, project_dir

from findsession.search.engine import SearchOptions, search
from findsession.storage.sqlite import Store

KW = SearchOptions(mode="keyword")


def good_session(folder: Path, sid: str = "good") -> Path:
    t = Transcript(session_id=sid)
    t.prompt("rotate the signing keys").reply("New keys are in the vault.")
    return t.write(folder)


def test_malformed_lines_are_skipped_with_file_and_line(store: Store, projects: Path) -> None:
    folder = project_dir(projects, "/home/dev/code/app")
    t = Transcript(session_id="broken")
    t.prompt("first question about caching").reply("first answer")
    t.raw('{"type":"user","message":{"role":"user","content":"[REDACTED_TEXT')  # line 3
    t.raw("[1, 2, 3]")  # line 4: JSON, but not an object
    t.prompt("second question about eviction").reply("second answer")
    path = t.write(folder)
    report = index(store, projects)
    assert [(p.line, p.reason) for _, p in report.problems] == [
        (3, "malformed JSON"),
        (4, "not a JSON object"),
    ]
    assert store.query("SELECT file_path, line FROM problems ORDER BY line") == [
        (str(path), 3),
        (str(path), 4),
    ]
    assert store.get_session("broken").n_turns == 2


def test_invalid_utf8_and_lone_surrogates_are_replaced(store: Store, projects: Path) -> None:
    folder = project_dir(projects, "/home/dev/code/app")
    t = Transcript(session_id="enc")
    t.prompt("PLACEHOLDER").reply("fine")
    data = t.render().replace(b"PLACEHOLDER", b"caf\xe9 cr\xc3\xa8me \\ud800 br\xfbl\xe9e")
    (folder / "enc.jsonl").parent.mkdir(parents=True, exist_ok=True)
    (folder / "enc.jsonl").write_bytes(data)
    report = index(store, projects)
    assert report.problems == [] and report.errors == []
    prompt = store.scalar("SELECT prompt FROM units WHERE session_id='enc'")
    assert "crème" in prompt and "\ufffd" in prompt
    assert search(store, "crème", KW).hits[0].session.id == "enc"


def test_huge_lines_and_odd_files_do_not_stop_the_run(store: Store, projects: Path) -> None:
    folder = project_dir(projects, "/home/dev/code/app")
    good = good_session(folder)
    (folder / "empty.jsonl").write_bytes(b"")
    (folder / "binary.jsonl").write_bytes(b"\x00\x01\x02SQLite format 3\x00" * 100)
    (folder / "summary-only.jsonl").write_text(
        json.dumps({"type": "summary", "summary": "x", "leafUuid": "y"}) + "\n"
    )
    (folder / "not-claude.jsonl").write_text(
        json.dumps({"timestamp": "2026-01-01", "type": "session_meta", "payload": {}}) + "\n"
    )
    big = Transcript(session_id="big")
    big.prompt("show me the build log")
    big.tool("Bash", {"command": "make"}, "error: undefined reference " * 40_000)  # ~1 MB line
    big.prompt("deeply nested? " + "[" * 50_000 + "]" * 50_000)
    big.reply("That is a very large log.")
    big.write(folder)
    deep = folder / "deep.jsonl"
    deep.write_text("[" * 100_000 + "]" * 100_000 + "\n")
    (folder / "dir.jsonl").mkdir()

    report = index(store, projects)

    assert store.get_session("good") is not None and store.get_session("big") is not None
    assert store.get_session("empty") is None and store.get_session("summary-only") is None
    statuses = dict(store.query("SELECT path, status FROM files"))
    assert statuses[str(folder / "binary.jsonl")] == "binary"
    assert statuses[str(good)] == "ok"
    assert any(p.reason == "malformed JSON" for path, p in report.problems if path == str(deep))
    tools = store.scalar("SELECT tools FROM units WHERE session_id='big' AND ordinal=1")
    assert len(tools) < 20_000  # capped: a huge output is findable, not stored whole
    assert search(store, "undefined reference", KW).hits[0].session.id == "big"


def test_file_that_vanishes_between_scan_and_read(store: Store, projects: Path) -> None:
    folder = project_dir(projects, "/home/dev/code/app")
    good_session(folder, "keep")
    doomed = good_session(folder, "doomed")

    def delete_when_its_turn_comes(done: int, total: int, path: str) -> None:
        # The progress callback runs just before each file is opened: the file system
        # changes under the indexer there, as it does when Claude Code cleans up.
        if path == str(doomed):
            doomed.unlink()

    report = index(store, projects, progress=delete_when_its_turn_comes)
    assert [(p, e) for p, e in report.errors] == [(str(doomed), "vanished before it could be read")]
    assert store.get_session("keep") is not None


def test_transcripts_are_never_written(store: Store, projects: Path) -> None:
    folder = project_dir(projects, "/home/dev/code/app")
    path = good_session(folder)
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    path.chmod(0o444)
    index(store, projects)
    index(store, projects, prune=True)
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before


def test_a_hostile_set_indexes_without_losing_the_other_files(store: Store, projects: Path) -> None:
    folder = project_dir(projects, "/home/dev/code/app")
    good = good_session(folder)
    (folder / "loop").symlink_to(folder, target_is_directory=True)  # a link loop
    (projects / "up").symlink_to(projects.parent, target_is_directory=True)
    huge = Transcript(session_id="huge")
    huge.prompt("paste: " + "x" * (10 << 20))  # one 10 MB line
    huge.reply("That was long.")
    huge.write(folder)
    nul = Transcript(session_id="nul")
    nul.prompt("a prompt with a \x00 NUL inside").reply("handled")
    nul.write(folder)
    shrinking = Transcript(session_id="shrinking")
    for i in range(20):
        shrinking.prompt(f"question {i} about pelicans").reply(f"answer {i}")
    path = shrinking.write(folder)

    index(store, projects)
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 3])  # cut mid-line
    report = index(store, projects)

    assert store.get_session("good") is not None and store.get_session("nul") is not None
    # Capped at 100,000 characters, moved on to a token boundary at most 1,024 further.
    assert store.scalar("SELECT length(prompt) FROM units WHERE session_id = 'huge'") < 101_300
    kept = store.scalar("SELECT n_turns FROM sessions WHERE id = 'shrinking'")
    assert 0 < kept < 20  # re-read from the start: only what the file still holds
    assert store.scalar("SELECT count(*) FROM files WHERE path LIKE '%loop%'") == 0
    assert report.errors == []
    assert search(store, "NUL inside", KW).hits[0].session.id == "nul"
    assert good.exists()


def test_a_full_disk_stops_the_run_cleanly_and_keeps_the_index(
    store: Store, projects: Path
) -> None:
    folder = project_dir(projects, "/home/dev/code/app")
    good_session(folder)
    index(store, projects)
    pages = store.scalar("PRAGMA page_count")
    store.db.execute(f"PRAGMA max_page_count = {pages + 20}")  # SQLite's own "disk full"
    for i in range(30):
        t = Transcript(session_id=f"filler-{i:02d}")
        for turn in range(10):
            t.prompt(f"filler {i} {turn} " + "words " * 300).reply("more " * 300)
        t.write(folder)
    report = index(store, projects)
    assert report.interrupted
    assert any("full" in message for _, message in report.errors)
    assert search(store, "signing keys", KW).hits[0].session.id == "good"  # still searchable
    store.db.execute("PRAGMA max_page_count = 1073741823")
    again = index(store, projects)
    assert not again.interrupted and store.get_session("filler-29") is not None


def test_a_file_name_that_is_not_utf8_is_skipped_and_named(cli: CLI, tmp_path: Path) -> None:
    """Such a name (written under another locale) stopped the whole run when the indexer
    tried to store it; now it is left out, named, and every other file is indexed."""
    projects = Path(cli.env["CLAUDE_CONFIG_DIR"]) / "projects"
    folder = project_dir(projects, "/home/dev/cafe")
    t = Transcript(session_id="good-one", cwd="/home/dev/cafe")
    t.prompt("the espresso grinder drifts coarse every morning").reply("Recalibrate it.")
    t.write(folder)
    odd = os.fsencode(folder) + b"/caf\xe9.jsonl"
    with open(odd, "wb") as fh:
        fh.write((folder / "good-one.jsonl").read_bytes().replace(b"good-one", b"odd-one"))
    proc = cli.run("index", "--no-embed", check=False)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert "not valid UTF-8" in proc.stderr
    hits = cli.json("search", "espresso grinder")["results"]
    assert [h["session"]["id"] for h in hits] == ["good-one"]


#: A `~name` path whose user this machine does not have (a config copied from a colleague's
#: machine, a variable set for another account).
NO_SUCH_USER = "~findsession-no-such-user"


def test_a_tilde_path_of_a_user_not_here_is_read_as_written(cli: CLI, tmp_path: Path) -> None:
    """`Path.expanduser` raises on `~name` when there is no such user, and every command
    that asked where the agents keep their files (an agent's variable), read the config
    (a root) or took a folder or project ended in a traceback. Such a path is kept as
    written, as a shell keeps it: a place that does not exist, the rest read as before."""
    projects = Path(cli.env["CLAUDE_CONFIG_DIR"]) / "projects"
    good_session(project_dir(projects, "/home/dev/app"))
    Path(cli.env["FINDSESSION_CONFIG"]).write_text(
        f'[sources.markdown]\nroots = ["{NO_SUCH_USER}/notes"]\n', encoding="utf-8"
    )
    cli.env["CODEX_HOME"] = f"{NO_SUCH_USER}/.codex"
    proc = cli.run("index", "--no-embed", check=False)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    hits = cli.json("search", "signing keys")["results"]
    assert [h["session"]["id"] for h in hits] == ["good"]
    places = {s["kind"]: s["roots"] for s in cli.json("sources", "--all")["sources"]}
    assert [r["exists"] for r in places["codex"]] == [False], places["codex"]
    typed = cli.run("index", f"{NO_SUCH_USER}/x", check=False)
    assert typed.returncode != 0 and "Traceback" not in typed.stderr, typed.stderr
    assert f"{NO_SUCH_USER}/x" in typed.stderr and "does not exist" in typed.stderr
    listed = cli.run("sessions", "--project", f"{NO_SUCH_USER}/x", check=False)
    assert listed.returncode == 0 and "Traceback" not in listed.stderr, listed.stderr



#: Runs the CLI as a user the password database does not know (a container started under
#: an arbitrary uid): the lookup of this uid's entry fails as it does there.
AS_UNKNOWN_USER = """
import pwd, sys

def unknown(uid):
    raise KeyError(f"getpwuid(): uid not found: {uid}")

pwd.getpwuid = unknown
from findsession.cli import main

raise SystemExit(main(sys.argv[1:]))
"""


def test_a_user_with_no_home_is_told_so_in_one_line(cli: CLI, tmp_path: Path) -> None:
    """Under an arbitrary uid with HOME unset there is no home to find: every command
    asked for the config's or the agents' folders and ended in a traceback. It says so
    in one line, naming HOME, and exits 1; `--help` still answers."""
    env = {k: v for k, v in cli.env.items() if k != "HOME"}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-c", AS_UNKNOWN_USER, *args],
            env=env, capture_output=True, text=True, timeout=120, cwd=tmp_path,
        )  # fmt: skip

    for args in (["index", "--no-embed"], ["search", "signing keys"], ["status"]):
        proc = run(*args)
        assert proc.returncode == 1, (args, proc.stderr)
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and "HOME" in lines[0], proc.stderr
    helped = run("--help")
    assert helped.returncode == 0 and "search" in helped.stdout


def test_paths_are_shortened_to_tilde_only_below_the_home_folder(cli: CLI, tmp_path: Path) -> None:
    """`~` stands for the home folder and nothing else. A container's user gets `HOME=/`
    (Docker's default for a uid with no entry): every path was shown as `~/…`, and the
    index run's note had every `/` turned into `~`. A home of `…/al` also shortened
    `…/alice/…` to `~ice/…`."""
    claude = tmp_path / "alice" / ".claude"
    cli.env["CLAUDE_CONFIG_DIR"] = str(claude)
    for home in ("/", str(tmp_path / "al")):
        cli.env["HOME"] = home
        ran = cli.run("index", "--no-embed")
        assert f"no transcripts found at {claude / 'projects'};" in ran.stderr, ran.stderr
        shown = cli.run("search", "--top", "3", "flaky test").stdout
        assert "  /home/dev/code/" in shown and "~/" not in shown, shown
