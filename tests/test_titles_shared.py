"""Titles written to, and taken back from, copies of real transcripts.

These tests read `../shared/corpus` (real Claude Code files from public repositories,
some with lines broken by their owners' sanitiser), which a user's clone does not have:
they skip, saying so, when it is absent. Only copies are written.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest
from conftest import CLI, SHARED

CORPUS = SHARED / "corpus"
pytestmark = pytest.mark.skipif(
    not CORPUS.is_dir(), reason=f"the shared corpus is not at {CORPUS} (only developers have it)"
)


def contents(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_real_transcripts_get_exact_lines_and_get_them_back_out(cli: CLI, tmp_path: Path) -> None:
    copy = tmp_path / "corpus"
    shutil.copytree(CORPUS, copy)
    then = time.time() - 7200
    for path in copy.rglob("*"):
        os.utime(path, (then, then))
    original = contents(copy)
    (tmp_path / "config.toml").write_text('[machine]\nname = "desk"\n[titles]\nwriter = "desk"\n')
    cli.env.pop("FINDSESSION_MACHINE", None)
    cli.run("index", "--no-embed", "--source", "claude-code", str(copy))

    report = cli.json("titles", "--write")
    written = {r["session"]["path"]: r for r in report["sessions"] if r["status"] == "written"}
    assert len(written) >= 20
    for name, before in original.items():
        after = (copy / name).read_bytes()
        result = written.get(str(copy / name))
        if result is None:
            assert after == before, name
            continue
        assert after[: len(before)] == before, name  # the rest of the file untouched
        line = after[len(before) :]
        assert line.endswith(b"\n") and line.count(b"\n") == 1, name
        record = json.loads(line)
        assert record == {
            "type": "custom-title",
            "customTitle": result["title"],
            "sessionId": Path(name).stem,
        }
        assert (
            line == json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
        )
    assert cli.json("index", "--no-embed", "--source", "claude-code", str(copy))["files_read"] == 0

    undone = cli.json("titles", "--undo")["undone"]
    assert {u["status"] for u in undone} == {"removed"} and len(undone) == len(written)
    assert contents(copy) == original
