"""Real Sourcegraph Cody histories: JetBrains projects' `.idea/cody_history.xml` as the
plugin wrote them in 2024 and their owners committed them to public repositories, read
from `../shared/realfiles/cody/<owner+repo>/.idea/cody_history.xml` (set
`FINDSESSION_SHARED` to read them elsewhere), through the real CLI, against
`cody_counts`, which reads them with regular expressions and no findsession code.

- 12haa/zoom-clone @c454851 (May 2024): the first layout, one list of chats each
  naming its account; 13 chats, one with messages.
- ABHI4529/adverp @236c249 (May 2024): chats under their account and, left behind
  by the plugin's reorganisation, the same chats in the old list (each read once).
- Albaraazain/campus-management-system @8eaad4b (May 2024): one chat of 14 messages,
  code pasted into a prompt, stored with its HTML entities.
- AlbertoBarrago/blackjack_py @0c3a23a (August 2024): Italian and English prompts.
- AnatolSalau/AlgorithmsNotes @0377c8e (September 2024, after the plugin moved its
  chats to its agent): chats' ids and models only, so no session and no problem.

No real VS Code `state.vscdb` holding Cody's history, agent history file or export was
found published (searched: the `sourcegraph.cody-ai` row in the 77 versions of
`state.vscdb` in six committed homes' histories; `cody-local-chatHistory` and
`cody-chat-history-` in public code): only other tools' hand-made fixtures. The tests
skip, saying so, where the shared folder is absent.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections import Counter
from pathlib import Path

import pytest
from cody_counts import count_file
from conftest import CLI, SHARED

REAL = SHARED / "realfiles" / "cody"
FILES = sorted(REAL.glob("*/.idea/cody_history.xml")) if REAL.is_dir() else []
pytestmark = pytest.mark.skipif(
    not FILES, reason=f"no real Cody histories at {REAL} (only developers have them)"
)
#: What each file holds, as the independent count found it when the files were chosen.
EXPECTED = {
    "12haa+zoom-clone": Counter(chats=1, prompts=1, replies=1),
    "ABHI4529+adverp": Counter(chats=2, prompts=7, replies=7),
    "Albaraazain+campus-management-system": Counter(chats=1, prompts=7, replies=7),
    "AlbertoBarrago+blackjack_py": Counter(chats=1, prompts=3, replies=3),
    "AnatolSalau+AlgorithmsNotes": Counter(),
}
_KINDS = {"prompt": "prompts", "reply": "replies"}


@pytest.mark.parametrize("real", FILES, ids=[f.parent.parent.name for f in FILES])
def test_each_project_history_holds_what_an_independent_count_finds(
    cli: CLI, tmp_path: Path, db_path: Path, real: Path
) -> None:
    name = real.parent.parent.name
    project = tmp_path / "home" / "code" / name
    (project / ".idea").mkdir(parents=True)
    copy = project / ".idea" / "cody_history.xml"
    shutil.copyfile(real, copy)
    report = cli.json("index", "--no-embed", "--source", "cody", str(project))
    assert (report["files_read"], report["errors"], report["problems"]) == (1, [], [])
    expected = count_file(copy)
    assert expected == EXPECTED.get(name, expected)
    con = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        rows = con.execute(
            "SELECT id, cwd, first_ts, title FROM sessions WHERE file_path = ?", (str(copy),)
        ).fetchall()
    finally:
        con.close()
    held: Counter[str] = Counter(chats=len(rows))
    for sid, cwd, started, title in rows:
        assert cwd == str(project) and started and title
        for turn in cli.json("read", sid, "--tools")["turns"]:
            held.update(_KINDS.get(m["kind"], m["kind"]) for m in turn["messages"])
    assert +held == +expected
    assert real.read_bytes() == copy.read_bytes()  # nothing written
