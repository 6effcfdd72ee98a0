"""The chat apps' exports (ChatGPT, Claude.ai, Gemini Apps), as a person uses them,
through the real CLI: the zip as downloaded named with `--source`, the newer export of
the same account read after it, and every way an export can be odd.

What the index holds is held to counts written apart from the readers
(`chat_exports.expected`), and each export is read-only: its bytes and time stay.
"""

from __future__ import annotations

import json
import os
import shutil
import zipfile
from pathlib import Path
from typing import Any

import pytest
from chat_exports import APPS, expected, zipped
from conftest import CLI

from findsession import Findsession
from findsession.api import ListOptions
from findsession.jsonout import session_json

APP_IDS = sorted(APPS)


def index(cli: CLI, *args: str) -> dict[str, Any]:
    return cli.json("index", "--no-embed", *args)


def sessions(cli: CLI, kind: str) -> dict[str, dict[str, Any]]:
    """Every session of `kind` in the index, by id, as `--json` shows a session."""
    with Findsession.open(cli.env["FINDSESSION_DB"]) as fs:
        listed = fs.sessions(ListOptions(limit=-1))
    return {s.id: session_json(s) for s in listed if s.source == kind}


def found(cli: CLI, kind: str, words: str) -> set[str]:
    hits = cli.json("search", "--mode", "keyword", "--source", kind, words)["results"]
    return {h["session"]["id"] for h in hits}


def stamp(path: Path) -> tuple[bytes, int]:
    return path.read_bytes(), os.stat(path).st_mtime_ns


@pytest.mark.parametrize("kind", APP_IDS)
def test_the_zip_as_downloaded_is_read_whole_and_never_written(
    cli: CLI, tmp_path: Path, kind: str
) -> None:
    app = APPS[kind]
    export = zipped(app.older, tmp_path / "downloads" / f"{kind}-export.zip")
    before = stamp(export)
    report = index(cli, "--source", kind, str(export))
    assert report["files_read"] == 1 and report["errors"] == [], report
    conversations, turns = expected(app, app.older)
    held = sessions(cli, kind)
    assert len(held) == conversations
    assert sum(s["turns"] for s in held.values()) == turns
    assert app.deleted in held and app.changed in held
    assert stamp(export) == before
    assert sorted(p.name for p in export.parent.iterdir()) == [export.name]  # nothing beside it
    # Unchanged, it costs a stat.
    assert index(cli, "--source", kind, str(export))["files_read"] == 0


@pytest.mark.parametrize("kind", APP_IDS)
def test_the_folder_it_unpacks_to_gives_the_same_sessions(
    cli: CLI, tmp_path: Path, kind: str
) -> None:
    app = APPS[kind]
    unpacked = tmp_path / "export"
    shutil.copytree(app.older, unpacked)
    before = {p: stamp(p) for p in unpacked.rglob("*") if p.is_file()}
    index(cli, "--source", kind, str(unpacked))
    assert {p: stamp(p) for p in unpacked.rglob("*") if p.is_file()} == before
    conversations, turns = expected(app, app.older)
    held = sessions(cli, kind)
    assert (len(held), sum(s["turns"] for s in held.values())) == (conversations, turns)


@pytest.mark.parametrize("kind", APP_IDS)
def test_a_newer_export_updates_adds_and_keeps_what_the_account_deleted(
    cli: CLI, tmp_path: Path, kind: str
) -> None:
    app = APPS[kind]
    older = zipped(app.older, tmp_path / "exports" / "older.zip")
    index(cli, "--source", kind, str(older))
    newer = zipped(app.newer, tmp_path / "exports" / "newer.zip")
    report = index(cli, "--source", kind, str(newer))
    # Only what the newer export changed or added is stored again.
    assert report["sessions_changed"] == 2 and report["errors"] == []
    held = sessions(cli, kind)
    now, _ = expected(app, app.newer)
    assert len(held) == now + 1  # the deleted one stays
    assert found(cli, kind, app.changed_word) == {app.changed}  # one session, not two
    assert found(cli, kind, app.added_word) == {app.added}
    assert found(cli, kind, app.deleted_word) == {app.deleted}
    assert held[app.changed]["path"].startswith(str(newer))
    assert held[app.deleted]["path"].startswith(str(older))
    assert held[app.same]["path"].startswith(str(older))  # the same in both: not read again
    # The older export read again (touched) does not put its older copy back.
    os.utime(older)
    index(cli, "--source", kind, str(older))
    assert found(cli, kind, app.changed_word) == {app.changed}
    # The newer export deleted and pruned: each conversation stays while an export
    # holds it, as that export holds it.
    newer.unlink()
    index(cli, "--prune")
    held = sessions(cli, kind)
    assert app.added not in held and held[app.changed]["path"].startswith(str(older))
    assert found(cli, kind, app.changed_word) == set()


@pytest.mark.parametrize("kind", APP_IDS)
def test_an_older_export_read_after_the_newer_leaves_the_newer_copy(
    cli: CLI, tmp_path: Path, kind: str
) -> None:
    app = APPS[kind]
    newer = zipped(app.newer, tmp_path / "newer.zip")
    index(cli, "--source", kind, str(newer))
    turns = sessions(cli, kind)[app.changed]["turns"]
    older = zipped(app.older, tmp_path / "older.zip")
    index(cli, "--source", kind, str(older))
    held = sessions(cli, kind)
    assert held[app.changed]["turns"] == turns  # not the older, shorter copy
    assert found(cli, kind, app.changed_word) == {app.changed}
    assert app.deleted in held  # what only the older export holds is read from it
    # With the newer export gone and pruned, the conversation stays, from the older.
    newer.unlink()
    index(cli, "--prune")
    held = sessions(cli, kind)
    assert app.changed in held and held[app.changed]["path"].startswith(str(older))
    assert found(cli, kind, app.changed_word) == set()


@pytest.mark.parametrize("kind", APP_IDS)
def test_a_named_export_is_read_again_by_a_run_that_names_nothing(
    cli: CLI, tmp_path: Path, kind: str
) -> None:
    app = APPS[kind]
    folder = tmp_path / "exports"
    zipped(app.older, folder / "first.zip")
    index(cli, "--source", kind, str(folder))
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}[kind]
    assert listed["export"] and listed["roots"] == [{"path": str(folder), "exists": True}]
    # The next export, saved beside the first: `findsession index` alone reads it.
    zipped(app.newer, folder / "second.zip")
    report = index(cli)
    assert str(folder) in report["roots"] and report["files_read"] == 1
    assert found(cli, kind, app.added_word) == {app.added}


@pytest.mark.parametrize("kind", APP_IDS)
def test_an_export_cut_short_keeps_what_came_before_the_cut_and_says_so(
    cli: CLI, tmp_path: Path, kind: str
) -> None:
    app = APPS[kind]
    unpacked = tmp_path / "export"
    shutil.copytree(app.older, unpacked)
    document = unpacked / app.document
    raw = document.read_bytes()
    document.write_bytes(raw[: int(len(raw) * 0.8)])
    proc = cli.run("index", "--no-embed", "--source", kind, str(unpacked))
    cut = [line for line in proc.stderr.splitlines() if line.startswith("cut short")]
    assert len(cut) == 1 and "before it are read" in cut[0], proc.stderr
    assert 0 < len(sessions(cli, kind)) < expected(app, app.older)[0] + 1


@pytest.mark.parametrize("kind", APP_IDS)
def test_a_download_cut_short_or_another_zip_is_named_in_one_line(
    cli: CLI, tmp_path: Path, kind: str
) -> None:
    app = APPS[kind]
    good = zipped(app.older, tmp_path / "exports" / "whole.zip")
    broken = tmp_path / "exports" / "broken.zip"
    broken.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    other = tmp_path / "exports" / "photos.zip"
    with zipfile.ZipFile(other, "w") as archive:
        archive.writestr("IMG_0001.txt", "not an export")
    proc = cli.run("index", "--no-embed", "--source", kind, str(tmp_path / "exports"))
    named = [line for line in proc.stderr.splitlines() if "broken.zip" in line]
    assert len(named) == 1 and named[0].startswith("could not read"), proc.stderr
    assert any(
        line.startswith("skipped") and "photos.zip" in line for line in proc.stderr.splitlines()
    )
    assert len(sessions(cli, kind)) == expected(app, app.older)[0]  # the whole one is read


def test_another_apps_export_named_with_the_wrong_source_gives_nothing_and_says_which(
    cli: CLI, tmp_path: Path
) -> None:
    claude = zipped(APPS["claude-ai"].older, tmp_path / "claude.zip")
    report = index(cli, "--source", "chatgpt", str(claude))
    assert report["sessions_total"] == 0
    assert {p["reason"] for p in report["problems"]} == {"a Claude.ai conversation"}
    # A big one is given up on after a few of its items, in one line, not one per item.
    many = tmp_path / "many" / "conversations.json"
    many.parent.mkdir()
    many.write_text(json.dumps([{"uuid": f"u{n}", "chat_messages": []} for n in range(500)]))
    report = index(cli, "--source", "chatgpt", str(many.parent))
    reasons = [p["reason"] for p in report["problems"]]
    assert len(reasons) == 21 and reasons[-1] == "not a ChatGPT export"


@pytest.mark.parametrize("kind", APP_IDS)
def test_the_source_filter_keeps_an_app_beside_an_agent(
    cli: CLI, tmp_path: Path, kind: str
) -> None:
    app = APPS[kind]
    index(cli, "--source", kind, str(zipped(app.older, tmp_path / "e.zip")))
    index(
        cli,
        str(Path(__file__).parents[1] / "src" / "findsession" / "sample" / "claude" / "projects"),
    )
    everything = cli.json("search", "--mode", "keyword", app.deleted_word)["results"]
    assert {h["session"]["source"] for h in everything} >= {kind}
    assert found(cli, kind, app.deleted_word) == {app.deleted}
    agents = cli.json("search", "--mode", "keyword", "--source", "claude-code", app.deleted_word)
    assert {h["session"]["source"] for h in agents["results"]} <= {"claude-code"}


@pytest.mark.parametrize("kind", APP_IDS)
def test_a_newer_export_saved_over_the_older_keeps_what_the_account_deleted(
    cli: CLI, tmp_path: Path, kind: str
) -> None:
    app = APPS[kind]
    export = zipped(app.older, tmp_path / "export.zip")
    index(cli, "--source", kind, str(export))
    zipped(app.newer, tmp_path / "newer.zip").replace(export)  # the same name, saved over
    report = index(cli)
    assert report["files_read"] == 1 and report["sessions_changed"] == 2
    held = sessions(cli, kind)
    assert app.deleted in held and app.added in held
    assert found(cli, kind, app.changed_word) == {app.changed}
    assert found(cli, kind, app.deleted_word) == {app.deleted}


def test_a_zip_member_that_expands_far_past_its_size_is_cut_and_named(
    cli: CLI, tmp_path: Path
) -> None:
    """A zip whose conversations file inflates hundreds of times over (a bomb: 40 MB of
    spaces in a first conversation) is read as far as 250 times its packed size, as a
    compressed rollout is, named in one line, and the run goes on."""
    app = APPS["chatgpt"]
    doc = json.loads((app.older / app.document).read_text(encoding="utf-8"))
    doc[0]["pad"] = " " * (40 << 20)
    bomb = tmp_path / "exports" / "bomb.zip"
    bomb.parent.mkdir()
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(app.document, json.dumps(doc))
        [member] = archive.infolist()
    assert member.compress_size * 250 < member.file_size
    proc = cli.run("index", "--no-embed", "--source", "chatgpt", str(bomb))
    assert proc.returncode == 0, proc.stderr
    [cut] = [line for line in proc.stderr.splitlines() if line.startswith("cut short")]
    assert "bomb.zip" in cut and "250 times its" in cut, cut
    assert len(sessions(cli, "chatgpt")) < expected(app, app.older)[0]
