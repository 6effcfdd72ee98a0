"""The archive of transcripts, end to end through the real CLI: Claude Code's clean-up
played (the transcript deleted after it was indexed), `open` writing it back byte for
byte before the agent resumes it, `read --raw` and `export --raw` from the copy,
`forget` taking it out for good, and every refusal (a file in the way, a link, a folder
that is not the agent's, a damaged or missing archive) said in one line, with the index
working on.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import stat
import sys
from pathlib import Path

import pytest
from conftest import CLI
from transcripts import Transcript, project_dir

from findsession.archive.folder import key_of

SID = "c1eaa0e0-1111-4222-8333-000000000001"
OTHER = "c1eaa0e0-1111-4222-8333-000000000002"
AGENT = "a5b6c7d8e9f0a1b2c"
#: A key of the shape redaction takes out of the index, which a raw read gives back.
KEY = "AKIA" + "QW3RT7YUI0PASDF5"


def projects(cli: CLI) -> Path:
    return Path(cli.env["CLAUDE_CONFIG_DIR"]) / "projects"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def archive_of(cli: CLI) -> Path:
    db = Path(cli.env["FINDSESSION_DB"])
    return db.with_name(db.name + ".archive")


@pytest.fixture
def work(tmp_path: Path) -> Path:
    path = tmp_path / "work" / "greenhouse"
    path.mkdir(parents=True)
    return path


def session(cli: CLI, work: Path, sid: str = SID, words: str = "greenhouse vents") -> Path:
    """A Claude Code session with a subagent, laid out as Claude Code writes them."""
    t = Transcript(session_id=sid, cwd=str(work))
    t.prompt(f"open the {words} when it passes 28 degrees, the key is {KEY}")
    t.reply(f"The {words} now open above 28 degrees.")
    main = t.write(project_dir(projects(cli), str(work)))
    sub = Transcript(session_id=sid, cwd=str(work), sidechain=True, agent_id=AGENT)
    sub.prompt(f"find the vent motor's relay for the {words}").reply("Relay 3 drives it.")
    sub.write(main.parent / sid / "subagents", f"agent-{AGENT}.jsonl")
    return main


def clean_up(main: Path) -> None:
    """What Claude Code's clean-up does to a session past `cleanupPeriodDays`: its
    transcript and its folder of subagents go."""
    main.unlink()
    for child in sorted((main.parent / main.stem).rglob("*"), reverse=True):
        child.rmdir() if child.is_dir() else child.unlink()
    (main.parent / main.stem).rmdir()


def test_claude_codes_clean_up_is_undone_by_open(cli: CLI, work: Path, tmp_path: Path) -> None:
    main = session(cli, work)
    sub = main.parent / SID / "subagents" / f"agent-{AGENT}.jsonl"
    before, sub_before = digest(main), digest(sub)
    cli.run("index", "--no-embed")
    clean_up(main)
    cli.run("index", "--no-embed")
    status = cli.json("status")
    assert status["missing_sessions"] == 2
    assert status["archive"]["gone_sessions"] == 2 and status["archive"]["gone_held"] == 2
    plan = cli.json("open", SID)["resume"]
    assert plan["restore"] == {"path": str(main), "held": True, "reason": None}
    assert not main.exists()  # --json only says what `open` would do

    opened = cli.run("open", SID, "--print")
    assert shlex.split(opened.stdout) == ["cd", str(work), "&&", "claude", "--resume", SID]
    assert f"restored {main}" in opened.stderr.replace("~", str(Path(cli.env["HOME"])))
    assert digest(main) == before and digest(sub) == sub_before
    assert stat.S_IMODE(main.stat().st_mode) == 0o600
    again = cli.run("open", SID, "--print")  # the file is back: nothing to restore
    assert "restored" not in again.stderr and again.stdout == opened.stdout
    assert cli.json("status")["missing_sessions"] == 0


def test_open_writes_the_transcript_back_before_the_agent_starts(
    cli: CLI, work: Path, tmp_path: Path
) -> None:
    main = session(cli, work)
    before = digest(main)
    cli.run("index", "--no-embed")
    clean_up(main)
    record = tmp_path / "claude-ran.json"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    agent = bin_dir / "claude"
    agent.write_text(
        f"#!{sys.executable}\n"
        "import hashlib, json, os, sys\n"
        f"path = {str(main)!r}\n"
        "data = open(path, 'rb').read() if os.path.exists(path) else None\n"
        "seen = data and hashlib.sha256(data).hexdigest()\n"
        f"open({str(record)!r}, 'w').write(json.dumps({{'argv': sys.argv[1:], 'seen': seen}}))\n"
    )
    agent.chmod(0o755)
    cli.env["PATH"] = f"{bin_dir}{os.pathsep}{cli.env['PATH']}"
    cli.run("open", SID)
    assert json.loads(record.read_text()) == {"argv": ["--resume", SID], "seen": before}


def test_read_and_export_raw_come_from_the_archive_once_the_transcript_is_gone(
    cli: CLI, work: Path, tmp_path: Path
) -> None:
    main = session(cli, work)
    cli.run("index", "--no-embed")
    clean_up(main)
    assert KEY not in cli.run("read", SID).stdout
    assert KEY in cli.run("read", SID, "--raw").stdout
    out = tmp_path / "greenhouse.md"
    cli.run("export", SID, "--raw", "--raw", "-o", str(out))
    assert KEY in out.read_text()
    assert not main.exists()  # read from a private copy, never written back by reading
    assert not [p for p in archive_of(cli).iterdir() if p.name.startswith(".reading-")]


def kept(cli: CLI) -> set[str]:
    return {p.name.removesuffix(".zst") for p in archive_of(cli).glob("*.zst")}


def test_forget_takes_the_copy_out_of_the_archive_for_good(cli: CLI, work: Path) -> None:
    main = session(cli, work)
    other = session(cli, work, OTHER, "potting bench")
    cli.run("index", "--no-embed")
    others = {
        key_of(str(p)) for p in (other, other.parent / OTHER / "subagents" / f"agent-{AGENT}.jsonl")
    }
    assert len(kept(cli)) == 4 and others < kept(cli)  # two sessions, each with a subagent
    done = json.loads(cli.run("forget", SID, "--json").stdout)
    assert done["archived_removed"] == 2
    assert kept(cli) == others
    main.write_bytes(main.read_bytes() + b"\n")  # changed: read again, never archived again
    cli.run("index", "--no-embed")
    assert kept(cli) == others
    assert key_of(str(main)) in (archive_of(cli) / "forgotten").read_text().split()


def test_a_file_in_the_way_is_never_written_over(cli: CLI, work: Path) -> None:
    main = session(cli, work)
    cli.run("index", "--no-embed")
    main.write_text("the person's own file\n")
    opened = cli.run("open", SID, "--print")
    assert "restored" not in opened.stderr
    assert main.read_text() == "the person's own file\n"


def test_a_link_below_the_agents_folder_or_a_foreign_folder_is_refused(
    cli: CLI, work: Path, tmp_path: Path
) -> None:
    main = session(cli, work)
    cli.run("index", "--no-embed")
    clean_up(main)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    folder = main.parent
    folder.rmdir()
    folder.symlink_to(elsewhere, target_is_directory=True)
    refused = cli.run("open", SID, "--print", check=False)
    assert refused.returncode == 1 and refused.stdout == ""
    assert "symbolic link" in refused.stderr and "nothing is written through one" in refused.stderr
    assert list(elsewhere.iterdir()) == []

    backup = tmp_path / "backup" / "projects"  # a copy indexed by name: not where claude looks
    moved = Transcript(session_id=OTHER, cwd=str(work))
    moved.prompt("sow the tomato seeds in trays").reply("Sown in trays.")
    copy = moved.write(backup / "-old")
    cli.run("index", "--no-embed", "--source", "claude-code", str(backup))
    copy.unlink()
    foreign = cli.run("open", OTHER, "--print", check=False)
    assert foreign.returncode == 1 and "is not inside claude-code's folders" in foreign.stderr
    assert not copy.exists()


def test_a_damaged_or_missing_archive_is_said_and_the_index_works_on(cli: CLI, work: Path) -> None:
    main = session(cli, work)
    cli.run("index", "--no-embed")
    clean_up(main)
    for copy in archive_of(cli).glob("*.zst"):
        data = bytearray(copy.read_bytes())
        data[-20] ^= 0xFF  # inside the last frame
        copy.write_bytes(bytes(data))
    damaged = cli.run("open", SID, "--print", check=False)
    assert damaged.returncode == 1 and damaged.stdout == ""
    assert "is damaged" in damaged.stderr and len(damaged.stderr.strip().splitlines()) == 1
    assert not main.exists()
    assert SID in cli.run("search", "--mode", "keyword", "greenhouse vents").stdout
    assert "28 degrees" in cli.run("read", SID).stdout
    cli.run("index", "--no-embed")

    for copy in archive_of(cli).iterdir():
        copy.unlink()
    archive_of(cli).rmdir()
    missing = cli.run("open", SID, "--print", check=False)
    assert missing.returncode == 1
    assert "deleted before the archive kept a copy of it" in missing.stderr
    assert cli.json("status")["archive"]["gone_held"] == 0
    other = session(cli, work, OTHER, "potting bench")
    cli.run("index", "--no-embed")  # the archive is made again for what is read now
    assert kept(cli) == {
        key_of(str(other)),
        key_of(str(other.parent / OTHER / "subagents" / f"agent-{AGENT}.jsonl")),
    }


def test_an_archive_that_cannot_be_written_costs_the_index_nothing(cli: CLI, work: Path) -> None:
    archive_of(cli).parent.mkdir(parents=True, exist_ok=True)
    archive_of(cli).write_text("a file where the archive's folder would be\n")
    session(cli, work)
    ran = cli.run("index", "--no-embed")
    assert "not archived" in ran.stderr and "is not a folder" in ran.stderr
    assert SID in cli.run("search", "--mode", "keyword", "greenhouse vents").stdout


def test_a_session_deleted_before_the_archive_existed_says_so_in_one_line(
    cli: CLI, work: Path
) -> None:
    config = Path(cli.env["FINDSESSION_CONFIG"])
    config.write_text("[archive]\nenabled = false\n")
    main = session(cli, work)
    cli.run("index", "--no-embed")
    assert not archive_of(cli).exists()
    clean_up(main)
    config.write_text("")
    cli.run("index", "--no-embed")
    gone = cli.run("open", SID, "--print", check=False)
    assert gone.returncode == 1 and gone.stdout == ""
    lines = gone.stderr.strip().splitlines()
    assert len(lines) == 1 and "deleted before the archive kept a copy of it" in lines[0]
    sources = cli.json("sources")["sources"]
    claude = next(s for s in sources if s["kind"] == "claude-code")
    assert claude["archived"] is True and claude["gone"] == 2 and claude["gone_held"] == 0


def test_an_appended_turn_adds_only_its_bytes_to_the_archive(cli: CLI, work: Path) -> None:
    t = Transcript(session_id=SID, cwd=str(work))
    for n in range(40):
        t.prompt(f"log the greenhouse humidity reading {n}").reply(f"Reading {n} logged.")
    main = t.write(project_dir(projects(cli), str(work)))
    cli.run("index", "--no-embed")
    (copy,) = archive_of(cli).glob("*.zst")
    first = copy.read_bytes()
    added = t.prompt("and the soil temperature?").reply("Soil at 19 degrees.").append_to(main)
    run = cli.json("index", "--no-embed")
    assert run["bytes_read"] == len(added)
    grown = copy.read_bytes()
    assert grown[: len(first)] == first  # nothing written before is written again
    assert 0 < run["archived_bytes"] == len(grown) - len(first) < len(added)
    before = digest(main)
    main.unlink()
    cli.run("open", SID, "--print")
    assert digest(main) == before


def test_turning_the_archive_on_copies_the_transcripts_already_indexed(
    cli: CLI, work: Path
) -> None:
    config = Path(cli.env["FINDSESSION_CONFIG"])
    config.write_text("[archive]\nclaude-code = false\n")
    main = session(cli, work)
    cli.run("index", "--no-embed")
    assert not archive_of(cli).exists()
    config.write_text("[archive]\nclaude-code = true\n")
    run = cli.json("index", "--no-embed")
    assert run["files_read"] == 0 and run["archived_bytes"] > 0  # unchanged, copied whole
    assert len(kept(cli)) == 2
    before = digest(main)
    clean_up(main)
    cli.run("open", SID, "--print")
    assert digest(main) == before
