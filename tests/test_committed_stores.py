"""Whether git tracks a file, read from the repository's index file (git itself is
never run by findsession; these tests use it to make real repositories)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from findsession.sources.git_index import tracked


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
