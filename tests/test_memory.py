"""A session's indexing memory does not grow with the session: the service lives under a
memory ceiling (MemoryMax=600M in its systemd unit), and a single session of 100k
messages needed 0.7-1.0 GB to index, so the service was killed and restarted in a loop.

The file is read in slices (`sources.jsonl.SLICE_BYTES`) and the session rebuilt from its
stored messages a page at a time, each turn's unit written as it is complete. Measured
on the real CLI: the peak RSS of indexing a session eight times longer is about the same.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import CLI
from peak_memory import run_measured, supported

pytestmark = pytest.mark.skipif(not supported(), reason="reads a process's peak from /proc")

WORDS = ("deploy", "health", "check", "gunicorn", "preload", "worker", "schema", "vector")


def _session(path: Path, turns: int) -> None:
    """A Claude Code session of `turns` turns of four messages each, about 6 KB a turn:
    a prompt, a tool call, its output (near the parser's cap) and a reply."""
    sid = "b16b16b1-0000-4000-8000-000000000001"
    path.parent.mkdir(parents=True, exist_ok=True)

    def text(n: int, salt: int) -> str:
        return " ".join(WORDS[(salt * 7 + i * 3) % len(WORDS)] + str(i % 97) for i in range(n))

    with open(path, "w", encoding="utf-8") as fh:
        for t in range(turns):
            base = {"sessionId": sid, "cwd": "/home/dev/big", "timestamp": "2026-06-11T09:00:00Z"}
            lines = [
                {"type": "user", "message": {"role": "user", "content": text(40, t)}},
                {
                    "type": "assistant",
                    "message": {
                        "id": f"m{t}",
                        "role": "assistant",
                        "content": [
                            {
                                "type": "tool_use",
                                "id": f"tu{t}",
                                "name": "Bash",
                                "input": {"command": f"make step {t}"},
                            }
                        ],
                    },
                },  # fmt: skip
                {
                    "type": "user",
                    "message": {
                        "role": "user",
                        "content": [
                            {
                                "type": "tool_result",
                                "tool_use_id": f"tu{t}",
                                "content": text(450, t + 1),
                            }
                        ],
                    },
                },  # fmt: skip
                {
                    "type": "assistant",
                    "message": {
                        "id": f"r{t}",
                        "role": "assistant",
                        "content": [{"type": "text", "text": text(180, t + 2)}],
                    },
                },  # fmt: skip
            ]
            for n, line in enumerate(lines):
                fh.write(json.dumps({**base, **line, "uuid": f"u{t}-{n}"}) + "\n")


def _peak_mb(cli: CLI, root: Path) -> float:
    """Peak RSS of `findsession index` over `root`, in MB, and it succeeded."""
    code, peak = run_measured(
        ["index", "--no-embed", str(root)],
        cli.env,
        root.parent,
        subprocess.DEVNULL,
        subprocess.DEVNULL,
    )
    assert code == 0
    return peak


def test_indexing_memory_does_not_grow_with_the_session(tmp_path: Path) -> None:
    peaks = {}
    for turns in (750, 6000):  # 3,000 and 24,000 messages; 4.5 and 36 MB
        root = tmp_path / f"s{turns}" / "projects"
        _session(root / "-home-dev-big" / "b16b16b1-0000-4000-8000-000000000001.jsonl", turns)
        cli = CLI(tmp_path / f"s{turns}", tmp_path / f"s{turns}" / "index" / "findsession.db")
        cli.env["FINDSESSION_NO_SERVICE"] = "1"
        peaks[turns] = _peak_mb(cli, root)
        assert cli.json("status")["turns"] == turns
    grown = peaks[6000] - peaks[750]
    print(f"peak RSS by turns: {peaks}")
    assert grown < 50, f"a session 8x longer needed {grown:.0f} MB more ({peaks})"
