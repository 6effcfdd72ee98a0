"""Markdown docs: a configured folder of notes, one search unit per `##` section.

Through the real CLI and a real index: a section is found at its number with its heading
path, an edit in place replaces what the old text gave, an unchanged folder costs a stat,
and hostile files (binary, invalid UTF-8, huge) are reported, never a crash.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from conftest import CLI

from findsession.sources.notes import MAX_NOTE_BYTES
from findsession.storage.sqlite import Store

FIXTURES = Path(__file__).parent / "fixtures" / "notes"


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "notes"
    shutil.copytree(FIXTURES / "docs", folder)
    return folder


def index(cli: CLI, folder: Path) -> dict:
    return cli.json("index", "--no-embed", "--source", "markdown", str(folder))


def search(cli: CLI, *args: str) -> list[dict]:
    return cli.json("search", *args)["results"]


def unit_titles(db: Path, session_id: str) -> list[str]:
    with Store.open(db) as store:
        return [
            r[0]
            for r in store.query(
                "SELECT title FROM units WHERE session_id = ? ORDER BY ordinal", (session_id,)
            )
        ]


def test_a_phrase_is_found_at_its_section_with_the_heading_path(
    cli: CLI, docs: Path, db_path: Path
) -> None:
    index(cli, docs)
    [hit] = search(cli, "garage NAS sftp")
    assert hit["session"]["source"] == "markdown"
    assert hit["session"]["title"] == "Home lab guide"  # the front matter's title
    assert hit["session"]["cwd"] == str(docs)  # the configured folder is the project
    assert hit["session"]["id"].startswith("md-") and "/" not in hit["session"]["id"]
    assert hit["match"]["kind"] == "doc" and hit["match"]["turn"] == 2
    assert unit_titles(db_path, hit["session"]["id"]) == [
        "guide.md › Home lab › Syncthing",
        "guide.md › Home lab › Backups",
        "guide.md › Home lab › Printer",
    ]
    # `read --turn N` reads that section, `###` subsections inside it, as written.
    read = cli.json("read", hit["session"]["id"], "--turn", "2")
    [message] = read["turns"][0]["messages"]
    assert message["kind"] == "section"
    assert message["text"].startswith("## Backups\n\nRestic sends")
    assert "### Pruning" in message["text"] and "Printer" not in message["text"]


def test_a_heading_inside_a_code_fence_is_text(cli: CLI, docs: Path) -> None:
    index(cli, docs)
    [hit] = search(cli, "inside a code fence")
    assert hit["match"]["turn"] == 1  # in the Syncthing section, not a section of its own
    assert hit["session"]["turns"] == 3


def test_front_matter_tags_are_searchable_but_the_block_is_not_indexed(
    cli: CLI, docs: Path
) -> None:
    index(cli, docs)
    [hit] = search(cli, "runbook")
    assert hit["session"]["title"] == "Home lab guide" and hit["match"]["turn"] == 1
    assert search(cli, "quokka") == []  # a front matter value that is no tag or title


def test_a_document_without_sections_is_one_unit_titled_by_its_heading(
    cli: CLI, docs: Path
) -> None:
    index(cli, docs)
    [hit] = search(cli, "neighbour mesh channel")
    assert hit["session"]["title"] == "Wi-Fi" and hit["session"]["turns"] == 1
    assert hit["session"]["cwd"] == str(docs)  # a subfolder's doc belongs to the root


def test_hidden_folders_and_node_modules_are_not_notes(cli: CLI, docs: Path) -> None:
    for folder in (docs / "node_modules" / "pad", docs / ".obsidian"):
        folder.mkdir(parents=True)
        (folder / "README.md").write_text("# x\n\nzebracorn\n")
    (docs / ".aider.chat.history.md").write_text("# aider chat started at\n\nzebracorn\n")
    assert index(cli, docs)["files_seen"] == 2
    assert search(cli, "zebracorn") == []


def test_an_edit_in_place_replaces_the_old_text_and_an_unchanged_folder_reads_nothing(
    cli: CLI, docs: Path
) -> None:
    index(cli, docs)
    again = index(cli, docs)
    assert again["files_read"] == 0 and again["files_unchanged"] == 2

    guide = docs / "guide.md"
    guide.write_text(guide.read_text().replace("garage NAS over sftp", "office rsync.net box"))
    changed = index(cli, docs)
    assert changed["files_read"] == 1 and changed["files_unchanged"] == 1
    assert search(cli, "garage NAS sftp") == []
    [hit] = search(cli, "rsync.net box")
    assert hit["match"]["turn"] == 2

    os.utime(guide)  # touched, same content: read again, nothing changes
    assert index(cli, docs)["units_written"] == 0


def test_filters_keep_doc_sections(cli: CLI, docs: Path) -> None:
    index(cli, docs)
    for args in (["--kind", "doc"], ["--speaker", "user"], ["--source", "markdown"]):
        assert [h["match"]["turn"] for h in search(cli, "IPP Everywhere driver", *args)] == [3]
    assert search(cli, "IPP Everywhere driver", "--kind", "turn") == []
    assert search(cli, "IPP Everywhere driver", "--speaker", "assistant") == []
    assert search(cli, "IPP Everywhere driver", "--project", str(docs))
    assert search(cli, "IPP Everywhere driver", "--project", str(docs / "elsewhere")) == []


def test_read_raw_gives_the_section_as_the_file_holds_it(cli: CLI, docs: Path) -> None:
    index(cli, docs)
    guide = docs / "guide.md"
    key = "sk-ant-api03-" + "Q7x" * 31 + "AA"
    guide.write_text(guide.read_text().replace("vendor blob.", f"vendor blob.\nKEY={key}"))
    index(cli, docs)
    [hit] = search(cli, "vendor blob")
    stored = cli.json("read", hit["session"]["id"], "--turn", "3")["turns"][0]["messages"][0]
    raw = cli.json("read", hit["session"]["id"], "--turn", "3", "--raw")
    assert "[REDACTED" in stored["text"]
    assert key in raw["turns"][0]["messages"][0]["text"] and key not in stored["text"]


def test_hostile_files_are_reported_never_a_crash(cli: CLI, docs: Path) -> None:
    (docs / "image.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    (docs / "latin1.md").write_bytes(
        "# Caf\xe9 notes\n\nThe espresso grinder is set to 14.\n".encode("latin-1")
    )
    (docs / "huge.md").write_bytes(
        b"# Huge\n\n" + b"filler words for a very long note\n" * (MAX_NOTE_BYTES // 30)
    )
    (docs / "fifo.md").unlink(missing_ok=True)
    os.mkfifo(docs / "fifo.md")
    report = index(cli, docs)
    skipped = {s["path"]: s["reason"] for s in report["skipped"]}
    assert skipped[str(docs / "image.md")].startswith("binary")
    assert "FIFO" in skipped[str(docs / "fifo.md")]
    reasons = {p["reason"] for p in report["problems"] if p["path"] == str(docs / "huge.md")}
    assert reasons == {"note too large", "note too long"}  # indexed in part, said so
    [hit] = search(cli, "espresso grinder")
    assert hit["session"]["title"] == "Caf\ufffd notes"  # invalid UTF-8 replaced
    assert search(cli, "filler words")[0]["session"]["title"] == "Huge"


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file whatever its mode")
def test_an_unreadable_note_is_an_error_not_a_crash(cli: CLI, docs: Path) -> None:
    secret = docs / "locked.md"
    secret.write_text("# Locked\n\nnothing to see\n")
    secret.chmod(0)
    report = index(cli, docs)
    assert [e["path"] for e in report["errors"]] == [str(secret)]
    assert search(cli, "Printer IPP")


def test_a_file_name_that_is_not_utf8_is_skipped_and_named(cli: CLI, docs: Path) -> None:
    try:
        (docs / os.fsdecode(b"caf\xe9.md")).write_text("# Menu\n\nzucchini soup\n")
    except (OSError, UnicodeEncodeError):
        pytest.skip("this file system takes UTF-8 file names only")
    report = index(cli, docs)
    [skipped] = report["skipped"]
    assert skipped["reason"] == "the file name is not valid UTF-8; not read"
    assert search(cli, "IPP Everywhere driver")  # the other notes are indexed
