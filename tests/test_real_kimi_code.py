"""Real Kimi Code CLI sessions of other people (`../shared/realfiles/kimi-code/
<owner+repo>/…`: a `.kimi-code` home, or a session folder as `kimi export` unpacks it,
`state.json` beside `agents/`), through the real CLI, each agent's prompts, replies,
calls, results and failures against a counter written over the raw records
(`test_source_kimi_code.count`), never our reader.

One such session is known: an unpacked `kimi export` of Kimi Code 0.31.1 (wire protocol
1.4, Windows: a main agent and six `explore` subagents) committed to
mohamed2in2/crispy-octo-doodle @a0377cf (`agents/`, `state.json` and `manifest.json` at
its root), not at hand when these tests were written. They skip, saying so, where the
shared folder holds none.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import CLI, SHARED
from read_counts import indexed
from test_source_kimi_code import count

REAL = SHARED / "realfiles" / "kimi-code"
WIRES = sorted(REAL.glob("**/agents/*/wire.jsonl")) if REAL.is_dir() else []
pytestmark = pytest.mark.skipif(
    not WIRES, reason=f"no real Kimi Code sessions at {REAL} (only developers have them)"
)


def session_id(wire: Path) -> str:
    """The id the index gives an agent's log: its session folder's name, and the agent's
    after a colon for any agent but `main`."""
    sid = wire.parents[2].name
    return sid if wire.parent.name == "main" else f"{sid}:{wire.parent.name}"


def test_every_agent_of_every_session_is_read_whole(cli: CLI, tmp_path: Path) -> None:
    cli.env["KIMI_CODE_HOME"] = str(tmp_path / "none")  # only the real files, named below
    report = cli.json("index", "--no-embed", "--source", "kimi-code", str(REAL))
    assert report["errors"] == [] and report["problems"] == []
    checked = 0
    for wire in WIRES:
        expected = count(wire)
        if expected is None:
            continue
        sid = session_id(wire)
        assert indexed(cli, sid) == {k: v for k, v in expected.items() if k != "steers"}, sid
        session = cli.json("read", sid)["session"]
        state = json.loads((wire.parents[2] / "state.json").read_text(encoding="utf-8"))
        assert session["cwd"] == (state.get("cwd") or state.get("workDir")), sid
        assert session["subagent"] is (wire.parent.name != "main"), sid
        checked += 1
    assert checked
