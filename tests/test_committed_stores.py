"""A store an agent keeps inside a project can come with a cloned repository: someone
else's `.opencode/opencode.db`, `.crush/crush.db` or SpecStory exports, committed, were
indexed as the person's own sessions. Whether git tracks such a store is read from the
repository's index file (git itself is never run by findsession; these tests use it to
make real repositories); a committed store is left out and named, unless the config
reads them.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
import specstory_exports as ss
from conftest import CLI
from crush_store import FIRST_OPENCODE_SCHEMA, CrushStore, text
from transcripts import Transcript, project_dir

from findsession.indexing import Root, index_roots
from findsession.search.engine import SearchOptions, search
from findsession.sources.git_index import tracked
from findsession.storage.sqlite import Store


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=dev@example.test", "-c", "user.name=Dev", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


def repository(folder: Path, *options: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    git(folder, "init", "-q", *options)
    return folder


def first_opencode(project: Path, session: str, words: str, first_message: int = 0) -> Path:
    """A first OpenCode store; its message ids count from `first_message` (ids shared by
    two stores would make the second's messages replays of the first's)."""
    store = CrushStore(project / ".opencode" / "opencode.db", schema=FIRST_OPENCODE_SCHEMA)
    store.n = first_message
    store.session(session, "A session")
    store.message(session, "user", [text(f"tell me about the {words}")])
    store.message(session, "assistant", [text(f"The {words} is fine.")])
    store.close()
    return store.path


def name_the_project(cli: CLI, project: Path, session: str) -> None:
    """A Claude Code session that ran in the project: the index then looks inside it."""
    t = Transcript(session_id=session, cwd=str(project))
    t.prompt("run the tests").reply("They pass.")
    t.write(project_dir(Path(cli.env["CLAUDE_CONFIG_DIR"]) / "projects", str(project)))


def found(cli: CLI, words: str) -> list[str]:
    hits = cli.json("search", "--mode", "keyword", words)["results"]
    return [h["session"]["source"] for h in hits]


def index(cli: CLI) -> dict[str, Any]:
    return cli.json("index", "--no-embed")


@pytest.fixture
def projects(cli: CLI, tmp_path: Path) -> tuple[Path, Path]:
    """A cloned project whose repository ships a first OpenCode store, a Crush store and
    a SpecStory export, and beside them an export the person's own editor wrote (not
    committed); and a project of the person's whose own OpenCode store is not tracked."""
    cli.env.pop("XDG_DATA_HOME", None)
    cloned = repository(tmp_path / "home" / "code" / "cloned")
    first_opencode(cloned, "planted-1", "quokka ledger")
    crush = CrushStore(cloned / ".crush" / "crush.db")
    crush.n = 200
    crush.session("planted-2", "A session")
    crush.message("planted-2", "user", [text("always run the wallaby installer")])
    crush.message("planted-2", "assistant", [text("I will run the wallaby installer.")])
    crush.close()
    turn = ("2026-01-02 10:00Z", "explain the numbat cache", ["The numbat cache is warm."])
    ss.write(cloned, "2026-01-02_10-00Z-planted.md", ss.current("a1", "Planted", "x", [turn]))
    (cloned / "README.md").write_text("a project\n")
    git(cloned, "add", "-A")
    git(cloned, "commit", "-qm", "initial")
    own = ("2026-02-03 09:00Z", "why is the platypus slow", ["The platypus waits on IO."])
    ss.write(cloned, "2026-02-03_09-00Z-mine.md", ss.current("a2", "Mine", "y", [own]))
    mine = repository(tmp_path / "home" / "code" / "mine")
    (mine / "README.md").write_text("mine\n")
    git(mine, "add", "README.md")
    git(mine, "commit", "-qm", "initial")
    first_opencode(mine, "own-1", "kookaburra report", first_message=100)
    name_the_project(cli, cloned, "cc-cloned")
    name_the_project(cli, mine, "cc-mine")
    return cloned, mine


def test_stores_a_repository_ships_are_left_out_and_named(
    cli: CLI, projects: tuple[Path, Path]
) -> None:
    cloned, mine = projects
    index(cli)  # the Claude Code sessions name the projects
    report = index(cli)
    left = {
        path: reason
        for path, reason in ((s["path"], s["reason"]) for s in report["skipped"])
        if "committed" in reason
    }
    assert set(left) == {
        str(cloned / ".opencode" / "opencode.db"),
        str(cloned / ".crush" / "crush.db"),
        str(cloned / ".specstory" / "history" / "2026-01-02_10-00Z-planted.md"),
    }, report["skipped"]
    assert all(
        f"at {cloned}" in reason and "committed_stores" in reason for reason in left.values()
    )
    assert found(cli, "quokka ledger") == [] and found(cli, "wallaby installer") == []
    assert found(cli, "numbat cache") == []
    assert found(cli, "platypus slow") == ["specstory"]  # written here, not committed
    assert found(cli, "kookaburra report") == ["opencode"]  # the person's own store
    notes = {s["kind"]: s["notes"] for s in cli.json("sources")["sources"]}
    assert (
        f"{cloned}/.opencode/opencode.db: committed to its git repository (left out)"
        in (notes["opencode"])
    )
    assert f"{mine}/.opencode/opencode.db: not committed" in notes["opencode"]
    assert (
        f"{cloned}/.crush/crush.db: committed to its git repository (left out)" in (notes["crush"])
    )
    assert (
        f"{cloned}/.specstory/history: 2 files, 1 committed to its git repository (left out)"
        in notes["specstory"]
    )

    config = Path(cli.env["FINDSESSION_CONFIG"])
    config.write_text('[privacy]\ncommitted_stores = "index"\n')
    report = index(cli)
    assert not [s for s in report["skipped"] if "committed" in s["reason"]]
    assert found(cli, "quokka ledger") == ["opencode"] and found(cli, "numbat cache")
    assert found(cli, "wallaby installer") == ["crush"]


def test_a_store_indexed_before_it_was_committed_goes_when_it_is(cli: CLI, tmp_path: Path) -> None:
    cli.env.pop("XDG_DATA_HOME", None)
    project = repository(tmp_path / "home" / "code" / "shop")
    first_opencode(project, "s-1", "echidna invoice")
    name_the_project(cli, project, "cc-shop")
    index(cli)
    index(cli)
    assert found(cli, "echidna invoice") == ["opencode"]
    git(project, "add", "-A")
    git(project, "commit", "-qm", "ship the store")
    index(cli)
    assert found(cli, "echidna invoice") == []


def test_a_watchers_run_leaves_out_a_store_committed_since(store: Store, tmp_path: Path) -> None:
    """A run over the changed files alone (the service's watcher) looks at no other
    file: a store committed since it was indexed, then written to, is left out all the
    same, and what it gave before goes."""
    project = repository(tmp_path / "shop")
    crush = CrushStore(project / ".crush" / "crush.db")
    crush.session("s-1", "A session")
    crush.message("s-1", "user", [text("count the echidna invoices")])
    roots = [Root(crush.path, "crush")]
    index_roots(store, roots)
    keyword = SearchOptions(mode="keyword")
    assert search(store, "echidna", keyword).hits
    git(project, "add", "-A")
    git(project, "commit", "-qm", "ship the store")
    crush.message("s-1", "assistant", [text("There are three echidna invoices.")])
    crush.close()
    report = index_roots(store, roots, only=[str(crush.path)])
    assert report.full_scan and not search(store, "echidna", keyword).hits


@pytest.mark.parametrize(
    "layout",
    ["v2", "v3-intent-to-add", "v4", "split", "sparse", "sha256", "worktree"],
)
def test_git_index_files_of_every_layout_say_what_is_tracked(tmp_path: Path, layout: str) -> None:
    """Versions 2 to 4 of the index file, a split index, a sparse index (a folder
    outside the cone kept as one entry), SHA-256 object names, a worktree's `.git`
    file: what git lists is tracked, nothing else."""
    repo = repository(
        tmp_path / "repo", *(["--object-format=sha256"] if layout == "sha256" else [])
    )
    (repo / ".opencode").mkdir()
    (repo / ".opencode" / "opencode.db").write_bytes(b"x")
    (repo / "deep" / "er").mkdir(parents=True)
    for n in range(40):
        (repo / "deep" / "er" / f"file{n}.txt").write_text(str(n))
    (repo / "loose.txt").write_text("not added")
    git(repo, "add", ".opencode", "deep")
    git(repo, "commit", "-qm", "c")
    where = repo
    if layout == "v4":
        git(repo, "update-index", "--index-version", "4")
    elif layout == "v3-intent-to-add":
        (repo / "planned.txt").write_text("later")
        git(repo, "add", "-N", "planned.txt")
    elif layout == "split":
        git(repo, "update-index", "--split-index")
        (repo / "later.txt").write_text("later")
        git(repo, "add", "later.txt")
    elif layout == "sparse":
        git(repo, "sparse-checkout", "init", "--cone", "--sparse-index")
        git(repo, "sparse-checkout", "set", ".opencode")
        assert tracked(repo / "deeper.txt") is None  # not inside the folder `deep/`
    elif layout == "worktree":
        git(repo, "worktree", "add", "-q", str(tmp_path / "tree"))
        where = tmp_path / "tree"
    assert tracked(where / ".opencode" / "opencode.db") == where
    assert tracked(repo / "deep" / "er" / "file37.txt") == repo
    assert tracked(repo / "loose.txt") is None
    if layout == "v3-intent-to-add":
        assert tracked(repo / "planned.txt") == repo
    if layout == "split":
        assert tracked(repo / "later.txt") == repo
    assert tracked(tmp_path / "elsewhere" / "x.db") is None


def test_a_shared_index_that_names_itself_is_read_once(tmp_path: Path) -> None:
    """A split index's shared part is read without its own `link`: git writes none, and
    one naming itself (a planted `.git`) would recurse until the walk of the folder
    failed."""
    repo = repository(tmp_path / "repo")
    (repo / "kept.txt").write_text("x")
    git(repo, "add", "kept.txt")
    git(repo, "commit", "-qm", "c")
    git(repo, "update-index", "--split-index")
    [shared] = (repo / ".git").glob("sharedindex.*")
    name = bytes.fromhex(shared.name.removeprefix("sharedindex."))
    data = shared.read_bytes()
    link = b"link" + len(name).to_bytes(4, "big") + name
    shared.write_bytes(data[: -len(name)] + link + data[-len(name) :])
    assert tracked(repo / "kept.txt") == repo
    assert tracked(repo / "other.txt") is None


def test_a_misspelt_setting_is_named_not_taken_for_either(cli: CLI) -> None:
    """Only "skip" and "index" are understood: a typo must not quietly read the stores."""
    Path(cli.env["FINDSESSION_CONFIG"]).write_text('[privacy]\ncommitted_stores = "yes"\n')
    proc = cli.run("index", "--no-embed", check=False)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    assert 'committed_stores must be "skip" or "index"' in proc.stderr
