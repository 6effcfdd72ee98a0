"""The README's list of sources is the registry's: written by tools/readme_sources.py,
never typed again, so a source added to (or renamed in) the registry fails here until
the tool is run."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from findsession.sources import SOURCES
from findsession.sources.registry import NAMES

REPO = Path(__file__).resolve().parents[1]
TOOL = REPO / "tools" / "readme_sources.py"


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("readme_sources", TOOL)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_source_has_a_name_for_the_list() -> None:
    assert set(NAMES) == set(SOURCES)
    assert all(name.strip() for name in NAMES.values())


def test_the_readme_lists_the_registrys_sources_as_the_tool_writes_them() -> None:
    tool = _tool()
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert tool.rewritten(readme) == readme, "run tools/readme_sources.py"
    block = readme[readme.index(tool.BEGIN) : readme.index(tool.END)]
    for kind in SOURCES:
        assert f"(`{kind}`)" in block, kind


def test_the_tool_says_when_the_readme_drifted(tmp_path: Path) -> None:
    tool = _tool()
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    drifted = readme.replace(f"{NAMES['chatgpt']} (`chatgpt`), ", "")
    assert tool.rewritten(drifted) == readme  # rewriting puts it back
    check = subprocess.run(
        [sys.executable, str(TOOL), "--check"], capture_output=True, text=True, cwd=REPO
    )
    assert check.returncode == 0, check.stderr
