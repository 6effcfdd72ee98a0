"""How the sources whose files lie in one folder list it (`top_files`).

Auggie, Continue and Kiro CLI (its store and its JSON lines) each list the files at
their folder's top the same way: sorted, only the names the source takes, a link not
followed, a missing folder empty, one that cannot be read passed to `skip` with the
reason, and a root that is itself a file taken when its name fits.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from findsession.sources.auggie import AuggieSource
from findsession.sources.base import Source
from findsession.sources.continue_dev import ContinueSource
from findsession.sources.kiro import KiroSource

#: Each source, the names it takes from a folder holding all of `_NAMES`.
CASES = [
    (AuggieSource(), ["a.json", "b.json", "sessions.json"]),
    (ContinueSource(), ["a-backup2.json", "a.json", "b.json"]),
    (KiroSource(), ["c.jsonl", "data.sqlite3"]),
]
_NAMES = ["b.json", "a.json", "a-backup2.json", "sessions.json", "c.jsonl", "data.sqlite3"]


def _folder(tmp_path: Path) -> Path:
    root = tmp_path / "sessions"
    root.mkdir()
    for name in _NAMES:
        (root / name).write_text("{}")
    (root / "sub").mkdir()
    (root / "sub" / "d.json").write_text("{}")
    (root / "z.json").symlink_to(root / "a.json")
    return root


@pytest.mark.parametrize(("source", "taken"), CASES)
def test_top_of_folder_sorted_filtered_no_links(
    tmp_path: Path, source: Source, taken: list[str]
) -> None:
    root = _folder(tmp_path)
    skipped: list[tuple[Path, str]] = []
    found = list(source.discover(root, lambda p, why: skipped.append((p, why))))
    assert [p.name for p in found] == taken
    assert all(p.parent == root for p in found)
    assert skipped == []


@pytest.mark.parametrize(("source", "taken"), CASES)
def test_root_that_is_a_file(tmp_path: Path, source: Source, taken: list[str]) -> None:
    root = _folder(tmp_path)
    for name in _NAMES:
        got = list(source.discover(root / name, lambda p, why: None))
        assert got == ([root / name] if name in taken else [])


@pytest.mark.parametrize(("source", "taken"), CASES)
def test_missing_folder_is_empty(tmp_path: Path, source: Source, taken: list[str]) -> None:
    skipped: list[tuple[Path, str]] = []
    assert list(source.discover(tmp_path / "gone", lambda p, w: skipped.append((p, w)))) == []
    assert skipped == []


@pytest.mark.parametrize(("source", "taken"), CASES)
def test_unreadable_folder_is_skipped_with_reason(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: Source, taken: list[str]
) -> None:
    root = _folder(tmp_path)

    def denied(path: object) -> object:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(os, "scandir", denied)
    skipped: list[tuple[Path, str]] = []
    assert list(source.discover(root, lambda p, w: skipped.append((p, w)))) == []
    assert skipped == [(root, "cannot read the folder: Permission denied")]
