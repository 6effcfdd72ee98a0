"""Real Windsurf `User` folders (`../shared/realfiles/windsurf/<owner+repo>/.config/Windsurf/
User/`, the editor's and its workspaces' `state.vscdb` as two people's Windsurf left them
and committed them to public repositories), through the real CLI, against what an
independent look at their tables says.

spacedouut/dotfiles @74d06bf (November 2024, four workspaces) and
gabrielzantua/dotfiles-backup @b20bae1 (July 2025, Windsurf 1.10.6, three workspaces)
chatted only in Cascade, whose conversations are not in these databases: no chat panel
store (`aiChat.chatdata`), no composer, no `cursorDiskKV`. So each is read as Windsurf's,
with no chat and no problem, and left byte for byte as it was. These tests skip, saying
so, where the shared folder is absent.
"""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest
from conftest import CLI, SHARED

REAL = SHARED / "realfiles" / "windsurf"
HOMES = sorted(REAL.glob("*/.config/Windsurf/User")) if REAL.is_dir() else []
pytestmark = pytest.mark.skipif(
    not HOMES, reason=f"no real Windsurf User folders at {REAL} (only developers have them)"
)
#: The databases of each home: the editor's and its workspaces'.
KNOWN = {"spacedouut+dotfiles": 5, "gabrielzantua+dotfiles-backup": 4}


def chats_held(db: Path) -> int:
    """Chats a database holds, looked at without findsession: a chat panel's tabs, a
    composer's key, a row of Cursor's own table."""
    con = sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True)
    try:
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        held = con.execute(
            "SELECT count(*) FROM ItemTable WHERE key IN ('aiChat.chatdata',"
            " 'workbench.panel.aichat.view.aichat.chatdata', 'composer.composerData')"
        ).fetchone()[0]
        return held + ("cursorDiskKV" in tables)
    finally:
        con.close()


def digest(home: Path) -> dict[str, str]:
    return {
        str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in home.rglob("*") if p.is_file()
    }


@pytest.mark.parametrize("home", HOMES, ids=[p.parents[2].name for p in HOMES])
def test_a_home_that_chatted_only_in_cascade_gives_no_chat_and_no_problem(
    cli: CLI, home: Path
) -> None:
    databases = sorted(home.rglob("state.vscdb"))
    assert databases and sum(chats_held(db) for db in databases) == 0
    before = digest(home)
    report = cli.json("index", "--no-embed", "--source", "windsurf", str(home))
    assert report["errors"] == report["problems"] == []
    assert report["files_seen"] == len(databases) and report["sessions_total"] == 0
    assert digest(home) == before  # never written
    name = home.parents[2].name
    if name in KNOWN:
        assert len(databases) == KNOWN[name]
