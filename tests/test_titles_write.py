"""`findsession titles --write` and `--undo` on Claude Code transcripts, run as a user would.

Every test drives the real CLI over real transcript files (written in Claude Code's own
format by `transcripts.py`) and a real index, and checks the bytes on disk: the appended
line exactly as Claude Code writes it, every other byte untouched, each refusal with its
reason, `--undo` giving back the file byte for byte, and no re-read after our own write.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI
from transcripts import Transcript, project_dir

NOTES = "5ac30ab5-0000-4000-8000-000000000001"
DEPLOY = "7c1e4a52-0000-4000-8000-000000000002"
TITLED = "aa000000-0000-4000-8000-000000000004"


def age(path: Path, minutes: float) -> None:
    """Set a file's mtime `minutes` back, as if its agent had stopped writing then."""
    then = time.time() - minutes * 60
    os.utime(path, (then, then))


def line_for(title: str, sid: str) -> bytes:
    return f'{{"type":"custom-title","customTitle":"{title}","sessionId":"{sid}"}}\n'.encode()


@pytest.fixture
def corpus(cli: CLI, tmp_path: Path) -> dict[str, Path]:
    """Three sessions last written two hours ago, one with the person's own title, and
    a config naming this machine as the writer."""
    root = tmp_path / "home" / ".claude" / "projects"
    t = Transcript(session_id=NOTES, cwd="/home/dev/notes")
    t.prompt("i have another syncthing conflict in my notes, can you look at it and fix it")
    t.tool("Read", {"file_path": "/home/dev/notes/todo.md"}, "# todo\n- call the plumber")
    t.reply("Merged the conflict copy into todo.md and deleted the copy.")
    t.prompt("why does syncthing keep creating these conflicts?")
    t.reply("Two devices edit todo.md within one rescan interval.")
    u = Transcript(session_id=DEPLOY, cwd="/home/dev/code/webshop")
    u.prompt("the webshop deploy script reports live but shop1 still serves the old build")
    u.reply("The health check followed the old release symlink.")
    v = Transcript(session_id=TITLED, cwd="/home/dev/code/webshop")
    v.prompt("round the invoice totals once, at the end")
    v.reply("Done.")
    v.title("invoice rounding (mine)")
    files = {
        "notes": t.write(project_dir(root, "/home/dev/notes")),
        "deploy": u.write(project_dir(root, "/home/dev/code/webshop")),
        "titled": v.write(project_dir(root, "/home/dev/code/webshop")),
    }
    for path in files.values():
        age(path, 120)
    configure(cli, tmp_path, 'writer = "desk"')
    cli.run("index", "--no-embed")
    return files


def configure(cli: CLI, tmp_path: Path, titles: str, machine: str | None = "desk") -> None:
    text = f"[titles]\n{titles}\n"
    if machine is not None:
        text += f'[machine]\nname = "{machine}"\n'
    (tmp_path / "config.toml").write_text(text)
    cli.env.pop("FINDSESSION_MACHINE", None)


def results(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["session"]["id"]: r for r in report["sessions"]}


def test_write_appends_one_byte_exact_line_and_the_index_reads_nothing_after(
    cli: CLI, corpus: dict[str, Path]
) -> None:
    before = {k: p.read_bytes() for k, p in corpus.items()}
    proposed = results(cli.json("titles"))
    assert set(proposed) == {NOTES, DEPLOY}  # the person's titled session is left alone
    assert all(r["status"] == "proposed" and r["reason"] is None for r in proposed.values())
    title = proposed[NOTES]["title"]
    assert "syncthing" in title.split("-") and title.endswith("-fix")
    assert {p.read_bytes() for p in corpus.values()} == set(before.values())  # only proposed

    written = results(cli.json("titles", "--write"))
    assert {r["status"] for r in written.values()} == {"written"}
    assert written[NOTES]["title"] == title
    after = corpus["notes"].read_bytes()
    assert after == before["notes"] + line_for(title, NOTES)
    last = json.loads(after.splitlines()[-1])
    assert list(last) == ["type", "customTitle", "sessionId"]
    assert corpus["titled"].read_bytes() == before["titled"]
    assert corpus["notes"].stat().st_mtime > time.time() - 60  # it advanced, honestly

    again = cli.json("index", "--no-embed")
    assert again["files_read"] == 0 and again["bytes_read"] == 0
    assert cli.json("read", NOTES)["session"]["title"] == title
    # Ours now: not proposed again, not counted as the person's.
    assert cli.json("titles")["sessions"] == []


def test_undo_gives_back_every_file_byte_for_byte(cli: CLI, corpus: dict[str, Path]) -> None:
    before = {k: p.read_bytes() for k, p in corpus.items()}
    cli.run("titles", "--write")
    assert corpus["deploy"].read_bytes() != before["deploy"]
    undone = cli.json("titles", "--undo")
    assert sorted(r["status"] for r in undone["undone"]) == ["removed", "removed"]
    assert {k: p.read_bytes() for k, p in corpus.items()} == before
    assert cli.json("read", NOTES)["session"]["title"].startswith("i have another syncthing")
    assert cli.json("titles", "--undo")["undone"] == []  # nothing of ours is left


def test_undo_takes_our_line_out_of_the_middle_and_keeps_what_the_agent_appended(
    cli: CLI, corpus: dict[str, Path], tmp_path: Path
) -> None:
    path = corpus["notes"]
    path.chmod(0o640)
    original = path.read_bytes()
    cli.run("titles", "--write", "--session", NOTES)
    ours = path.read_bytes()[len(original) :]
    resumed = Transcript(session_id=NOTES, cwd="/home/dev/notes")
    resumed.prompt("and the .stignore file?").reply("It ignores nothing yet.")
    agent = resumed.append_to(path)
    agent += ours  # Claude Code re-appends the title line it last saw: its own copy
    with open(path, "ab") as fh:
        fh.write(ours)
    age(path, 45)
    cli.run("index", "--no-embed")

    undone = cli.json("titles", "--undo")["undone"]
    assert [r["status"] for r in undone] == ["removed"]
    assert path.read_bytes() == original + agent  # exactly our bytes left, at our offset
    assert undone[0]["offset"] == len(original)
    assert "1 more time" in undone[0]["note"]
    assert path.stat().st_mode & 0o777 == 0o640
    assert not list(path.parent.glob(".*.undo"))


def test_undo_refuses_when_our_bytes_were_changed(cli: CLI, corpus: dict[str, Path]) -> None:
    path = corpus["deploy"]
    cli.run("titles", "--write", "--session", DEPLOY)
    data = path.read_bytes()
    edited = data.replace(b'"customTitle":"', b'"customTitle":"X', 1)[:-2] + b'"}\n'
    path.write_bytes(edited)
    undone = cli.json("titles", "--undo")["undone"]
    assert undone[0]["status"] == "refused"
    assert undone[0]["reason"]["code"] == "not_ours_any_more"
    assert path.read_bytes() == edited


def test_undo_waits_while_the_agent_writes_and_only_the_writer_undoes(
    cli: CLI, corpus: dict[str, Path], tmp_path: Path
) -> None:
    path = corpus["notes"]
    cli.run("titles", "--write", "--session", NOTES)
    Transcript(session_id=NOTES).prompt("still there?").reply("Yes.").append_to(path)
    before = path.read_bytes()
    (undone,) = cli.json("titles", "--undo")["undone"]
    assert (undone["status"], undone["reason"]["code"]) == ("refused", "recently_modified")
    age(path, 45)
    configure(cli, tmp_path, 'writer = "desk"', machine="laptop")
    (undone,) = cli.json("titles", "--undo")["undone"]
    assert (undone["status"], undone["reason"]["code"]) == ("refused", "not_writer")
    assert path.read_bytes() == before
    configure(cli, tmp_path, 'writer = "desk"')
    (undone,) = cli.json("titles", "--undo")["undone"]
    assert undone["status"] == "removed"
    assert len(path.read_bytes()) == len(before) - len(line_for(undone["title"], NOTES))


def test_the_persons_title_always_wins(cli: CLI, corpus: dict[str, Path]) -> None:
    before = corpus["titled"].read_bytes()
    proc = cli.run("titles", "--write", "--session", TITLED, "--json", check=False)
    assert proc.returncode == 1
    result = json.loads(proc.stdout)["sessions"][0]
    assert (result["status"], result["reason"]["code"]) == ("refused", "person_title")
    assert result["title_kind"] == "custom"
    assert corpus["titled"].read_bytes() == before


def test_a_recently_written_transcript_is_left_alone(
    cli: CLI, corpus: dict[str, Path], tmp_path: Path
) -> None:
    path = corpus["deploy"]
    more = Transcript(session_id=DEPLOY, cwd="/home/dev/code/webshop")
    more.prompt("is it live now?").reply("Yes.").append_to(path)
    cli.run("index", "--no-embed")
    before = path.read_bytes()
    result = results(cli.json("titles", "--write"))[DEPLOY]
    assert (result["status"], result["reason"]["code"]) == ("refused", "recently_modified")
    assert "quiet period of 30 minutes" in result["reason"]["says"]
    assert path.read_bytes() == before
    configure(cli, tmp_path, 'writer = "desk"\nquiet_minutes = 0')
    assert results(cli.json("titles", "--write"))[DEPLOY]["status"] == "written"


@pytest.mark.parametrize(
    ("titles", "machine", "env", "code"),
    [
        ('writer = "desk"', "laptop", None, "not_writer"),
        ('writer = "desk"', "desk", "laptop", "not_writer"),  # the variable wins
        ("", "desk", None, "no_writer"),
        ('writer = "desk"', None, None, "no_machine_name"),
    ],
)
def test_only_the_configured_writer_machine_writes(
    cli: CLI,
    corpus: dict[str, Path],
    tmp_path: Path,
    titles: str,
    machine: str | None,
    env: str | None,
    code: str,
) -> None:
    configure(cli, tmp_path, titles, machine)
    if env:
        cli.env["FINDSESSION_MACHINE"] = env
    before = corpus["notes"].read_bytes()
    for result in cli.json("titles", "--write")["sessions"]:
        assert (result["status"], result["reason"]["code"]) == ("refused", code)
    assert corpus["notes"].read_bytes() == before


def test_a_transcript_changed_since_indexed_is_refused(cli: CLI, corpus: dict[str, Path]) -> None:
    path = corpus["notes"]
    more = Transcript(session_id=NOTES, cwd="/home/dev/notes")
    more.prompt("one more thing").reply("Sure.").append_to(path)
    age(path, 60)  # quiet again, but the index has not read the new turn
    before = path.read_bytes()
    result = results(cli.json("titles", "--write"))[NOTES]
    assert (result["status"], result["reason"]["code"]) == ("refused", "changed_since_indexed")
    assert path.read_bytes() == before


def test_a_transcript_gone_since_indexed_is_refused(cli: CLI, corpus: dict[str, Path]) -> None:
    corpus["deploy"].unlink()
    result = results(cli.json("titles", "--write"))[DEPLOY]
    assert (result["status"], result["reason"]["code"]) == ("refused", "transcript_missing")
    assert not corpus["deploy"].exists()  # never created


def test_a_transcript_without_a_final_newline_is_refused(cli: CLI, corpus: dict[str, Path]) -> None:
    path = corpus["deploy"]
    half = b'{"type":"user","message":{"role":"user","content":"half'
    with open(path, "ab") as fh:
        fh.write(half)
    age(path, 60)
    cli.run("index", "--no-embed")
    before = path.read_bytes()
    result = results(cli.json("titles", "--write"))[DEPLOY]
    assert (result["status"], result["reason"]["code"]) == ("refused", "no_trailing_newline")
    assert path.read_bytes() == before


def test_an_agent_title_is_kept_unless_the_session_is_named(
    cli: CLI, corpus: dict[str, Path], tmp_path: Path
) -> None:
    path = corpus["deploy"]
    Transcript(session_id=DEPLOY).title("Webshop deploy check", kind="ai-title").append_to(path)
    age(path, 60)
    cli.run("index", "--no-embed")
    before = path.read_bytes()
    bulk = results(cli.json("titles", "--write"))[DEPLOY]
    assert (bulk["status"], bulk["reason"]["code"], bulk["title_kind"]) == (
        "skipped",
        "agent_title",
        "ai",
    )
    assert bulk["title"]  # still proposed, for the person to see
    assert path.read_bytes() == before
    named = cli.json("titles", "--write", "--session", DEPLOY[:8])["sessions"][0]
    assert named["status"] == "written"
    assert path.read_bytes() == before + line_for(named["title"], DEPLOY)


def test_people_see_one_line_per_session_and_the_tally(cli: CLI, corpus: dict[str, Path]) -> None:
    title = results(cli.json("titles"))[NOTES]["title"]
    proc = cli.run("titles")
    assert f"proposed  {title}  5ac30ab5" in proc.stdout
    assert "2 proposed; 1 with a title of their own left alone" in proc.stderr
    assert "findsession titles --write" in proc.stderr
    bad = cli.run("titles", "--write", "--undo", check=False)
    assert bad.returncode == 2 and "not allowed with" in bad.stderr
