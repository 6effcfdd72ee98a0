"""An RA.Aid store's runs read without findsession, by this file's own rules, for the tests
to hold the index to: each run's typed prompts, and how many tool calls, results and
failed results its rows say it had.

- a run's rows are those with its `session_id`, and (a store before runs were linked, or
  `ask_human`'s answers) those with none written between its start and the next run's;
- the prompts are its `human_input` rows, an unlinked one left out when a linked one of
  the run says the same (`--chat` writes its first request twice), an empty one none; a
  `user_query` whose input row is gone stands for it;
- a call is a trajectory row naming a tool (not a garbage collector's), or a
  `task_display`; not a call: CIAYN's `{code}` row right after the same tool's own row
  failing with the same error, an
  `error` row without parameters (a fallback's report), `ask_expert`'s answer row;
- a result is a failed call's error, a recorded `tool_result`, an expert's answer; it
  failed when the call did (`is_error`, or a result saying `success: false`).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Run:
    prompts: list[str] = field(default_factory=list)
    calls: int = 0
    results: int = 0
    failed: int = 0

    def shape(self) -> dict[str, Any]:
        """As `read_counts.indexed` gives it (RA.Aid keeps no replies)."""
        return {"prompts": self.prompts, "replies": 0, "calls": self.calls,
                "results": self.results, "failed": self.failed}  # fmt: skip


def counted(db: Path) -> dict[int, Run]:
    """Every run of the store with something in it, by its id."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return _count(conn)
    finally:
        conn.close()


def _count(conn: sqlite3.Connection) -> dict[int, Run]:
    tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master")}
    if "session" not in tables:
        return {}  # a store RA.Aid made before its first run
    starts = conn.execute("SELECT id, start_time FROM session ORDER BY start_time, id").fetchall()

    def run_of(session: int | None, when: str) -> int | None:
        if session is not None:
            return session
        earlier = [rid for rid, start in starts if start <= when]
        return earlier[-1] if earlier else (starts[0][0] if starts else None)

    inputs: dict[int, list[tuple[str, bool]]] = {}
    present = set()
    for iid, when, content, session in conn.execute(
        "SELECT id, created_at, content, session_id FROM human_input ORDER BY id"
    ):
        present.add(iid)
        run = run_of(session, when)
        if run is not None and content.strip():  # an empty answer says nothing
            inputs.setdefault(run, []).append((content.strip(), session is not None))
    runs: dict[int, Run] = {}
    for run, said in inputs.items():
        linked = {c for c, own in said if own}
        runs[run] = Run([c for c, own in said if own or c not in linked])
    last: dict[int, tuple[str, bool, str | None, bool]] = {}
    for row in conn.execute(
        "SELECT created_at, session_id, record_type, tool_name, tool_parameters, tool_result,"
        " step_data, is_error, error_message, error_type, human_input_id FROM trajectory"
        " ORDER BY id"
    ):
        when, session, kind, tool, params, result, data, error, message, error_type, input_id = row
        run = run_of(session, when)
        if run is None:
            continue
        counts = runs.setdefault(run, Run())
        step = json.loads(data) if data else {}
        if kind == "user_query":
            if input_id not in present:
                counts.prompts.append(str(step.get("query", "")).strip())
            continue
        args = json.loads(params) if params else None
        code = isinstance(args, dict) and list(args) == ["code"]
        before = last.get(run)
        if tool:
            last[run] = (tool, bool(error), message, code)
        if kind == "task_display":
            counts.calls += 1
            continue
        if not tool or kind == "gc_operation":
            continue
        if step.get("display_title") == "Expert Response":
            counts.results += bool(str(step.get("response_content") or "").strip())
            continue
        if error_type == "ToolExecutionError" and code and before == (tool, True, message, False):
            continue
        if kind == "error" and params is None:
            continue
        counts.calls += 1
        outcome = json.loads(result) if result else None
        if error:
            counts.results += 1
            counts.failed += 1
        elif outcome is not None:
            counts.results += 1
            counts.failed += isinstance(outcome, dict) and outcome.get("success") is False
    return {run: c for run, c in runs.items() if c.prompts or c.calls or c.results}
