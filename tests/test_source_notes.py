"""Notes among sessions: a doc section and a Claude Code session rank in one list, and an
index written before notes existed opens and takes them."""

from __future__ import annotations

import shutil
from pathlib import Path

import apsw
from conftest import CLI
from transcripts import Transcript, project_dir

from findsession.domain import Root
from findsession.indexing import index_roots
from findsession.storage.sqlite import Store
from findsession.storage.sqlite.migrations import MIGRATIONS, SCHEMA_VERSION

FIXTURES = Path(__file__).parent / "fixtures" / "notes"


def test_a_session_and_a_doc_section_rank_in_one_list(cli: CLI, tmp_path: Path) -> None:
    projects = tmp_path / "home" / ".claude" / "projects"
    session = Transcript(cwd="/home/dev/code/dotfiles")
    session.prompt("syncthing says the folder is out of sync after the laptop wakes up")
    session.reply("Restarting the syncthing user service rescans the folder; done.")
    session.write(project_dir(projects, "/home/dev/code/dotfiles"))
    notes = tmp_path / "notes"
    shutil.copytree(FIXTURES / "docs", notes)
    (tmp_path / "config.toml").write_text(f'[sources.markdown]\nroots = ["{notes}"]\n')

    cli.json("index")  # standard places and configured roots, with vectors
    data = cli.json("search", "syncthing out of sync after the laptop wakes")
    assert data["strategy"] == "hybrid"
    kinds = {(h["session"]["source"], h["match"]["kind"]) for h in data["results"][:2]}
    assert kinds == {("claude-code", "turn"), ("markdown", "doc")}
    [doc] = [h for h in data["results"] if h["match"]["kind"] == "doc"]
    assert doc["match"]["turn"] == 1 and doc["session"]["title"] == "Home lab guide"


def test_an_index_from_before_notes_opens_and_takes_them(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    conn = apsw.Connection(str(db))
    for version, step in enumerate(MIGRATIONS[:6], 1):
        step(conn)
        conn.execute(f"PRAGMA user_version = {version}")
    conn.execute(
        "INSERT INTO messages (session_id, file_path, line, part, kind, text)"
        " VALUES ('s', '/t.jsonl', 1, 0, 'prompt', 'kept as it was')"
    )
    conn.close()

    notes = tmp_path / "notes"
    shutil.copytree(FIXTURES / "docs", notes)
    with Store.open(db) as store:
        assert store.schema_version() == SCHEMA_VERSION
        [old] = store.session_messages("s")
        assert old.text == "kept as it was" and old.heading is None
        index_roots(store, [Root(notes, "markdown")])
        sid = store.query("SELECT id FROM sessions WHERE title = 'Home lab guide'")[0][0]
        headings = [m.heading for m in store.session_messages(sid)]
    assert headings == [
        "guide.md › Home lab › Syncthing",
        "guide.md › Home lab › Backups",
        "guide.md › Home lab › Printer",
    ]
