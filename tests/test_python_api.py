"""The Python API as docs/python-api.md shows it: its example runs as written, on the
sample corpus, and `findsession.api` offers exactly its `__all__`, each name cheaply."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from conftest import CLI

REPO = Path(__file__).resolve().parents[1]
DOC = REPO / "docs" / "python-api.md"
SAMPLE = REPO / "src" / "findsession" / "sample" / "claude"


def test_the_documented_script_searches_and_reads(cli: CLI) -> None:
    example = re.search(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert example is not None
    env = {**cli.env, "CLAUDE_CONFIG_DIR": str(SAMPLE)}
    out = subprocess.run(
        [sys.executable, "-c", example.group(1)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    ).stdout
    lines = out.splitlines()
    assert lines[0].startswith("hybrid ")  # the strategy, then how sure it is
    assert any("7c1e4a52-9b3d-4f0e-8a61-2d5f9c3b7e14" in line for line in lines[1:])
    assert any("prompt" in line and "deploy" in line.lower() for line in lines)  # a turn read
    assert any("'claude', '--resume'" in line for line in lines)


def test_the_api_offers_its_all_and_option_names_load_no_index() -> None:
    code = (
        "import sys, findsession.api as api\n"
        "from findsession.api import SearchOptions, KINDS, SOURCE_KINDS\n"
        "heavy = ('numpy', 'apsw', 'findsession.core.findsession')\n"
        "light = not any(m in sys.modules for m in heavy)\n"
        "missing = [n for n in api.__all__ if getattr(api, n, None) is None]\n"
        "print(light, missing, sorted(set(api.__all__)) == sorted(api.__all__))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    ).stdout.split()
    assert out[0] == "True", "option names pulled in the index"
    assert out[1] == "[]" and out[2] == "True"
