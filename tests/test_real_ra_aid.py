"""Real RA.Aid stores (`../shared/realfiles/ra-aid/<owner+repo>/.ra-aid/pk.db`, with the
`-wal` beside it where one was committed, as the people who ran RA.Aid committed them to
public repositories), through the real CLI, against `ra_aid_counts`, which reads the
rows without findsession.

They hold what the fixture cannot: RA.Aid 0.17.1 and 0.18.0 stores from before a run's
rows were linked to it (every input and step without a `session_id`), `--chat` runs of
many answers, an empty answer, runs of a model whose calls CIAYN could not parse twenty
times over, the fallback handler's reports, a store whose latest commits wait in its
WAL, and stores RA.Aid made but never ran in. These tests skip, saying so, where the
shared folder is absent.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from conftest import CLI, SHARED
from ra_aid_counts import counted
from read_counts import indexed

from findsession.sources.ra_aid import file_id

REAL = SHARED / "realfiles" / "ra-aid"
STORES = sorted(REAL.glob("*/.ra-aid/pk.db")) if REAL.is_dir() else []
pytestmark = pytest.mark.skipif(
    not STORES, reason=f"no real RA.Aid stores at {REAL} (only developers have them)"
)
#: Runs, typed prompts, calls, results and failed results, as `ra_aid_counts` found them.
KNOWN = {
    "chz160+zork-web": (0, 0, 0, 0, 0),
    "drnit29+terminal-tasks": (3, 8, 131, 2, 2),
    "garywu+dotfiles": (0, 0, 0, 0, 0),
    "greggh+lust-next": (2, 2, 102, 4, 4),
    "guming3d+gmma_auto_decision": (5, 5, 64, 0, 0),
    "hiveminderbot+autonomy-supervisor-agent": (5, 5, 72, 22, 20),
    "tctien342+context-it": (1, 1, 0, 0, 0),
}


@pytest.mark.parametrize("store", STORES, ids=[p.parent.parent.name for p in STORES])
def test_each_run_holds_what_the_rows_say(cli: CLI, tmp_path: Path, store: Path) -> None:
    project = tmp_path / store.parent.parent.name
    shutil.copytree(store.parent.parent, project)  # the shared copy is read-only
    for path in project.rglob("*"):
        os.chmod(path, 0o755 if path.is_dir() else 0o644)
    report = cli.json("index", "--no-embed", "--source", "ra-aid", str(project))
    assert report["errors"] == report["problems"] == []
    db = project / ".ra-aid" / "pk.db"
    expected = counted(db)
    assert report["sessions_total"] == len(expected)
    totals = [len(expected), 0, 0, 0, 0]
    for run, mine in expected.items():
        assert indexed(cli, f"{file_id(db)}:{run}") == mine.shape(), run
        totals[1:] = [totals[1] + len(mine.prompts), totals[2] + mine.calls,
                      totals[3] + mine.results, totals[4] + mine.failed]  # fmt: skip
    assert tuple(totals) == KNOWN[project.name]


def test_blame_names_the_runs_that_wrote_a_file(cli: CLI, tmp_path: Path) -> None:
    """RA.Aid's store keeps the path a write named, not its text: the writers are known."""
    store = REAL / "drnit29+terminal-tasks"
    if not store.is_dir():
        pytest.skip(f"{store} is absent")
    project = tmp_path / "terminal-tasks"
    shutil.copytree(store, project)
    for path in project.rglob("*"):
        os.chmod(path, 0o755 if path.is_dir() else 0o644)
    cli.json("index", "--no-embed", "--source", "ra-aid", str(project))
    writers = cli.json("blame", str(project / "src" / "terminal_tasks_app" / "app.py"))["writers"]
    assert [(w["tool"], w["op"]) for w in writers] == [("put_complete_file_contents", "create")] * 7
