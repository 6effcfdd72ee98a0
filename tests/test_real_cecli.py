"""Real cecli histories of other people (`../shared/realfiles/cecli/<owner+repo>/.cecli/
chat.history`, committed to public repositories, one with the `input.history` cecli keeps
of what was typed) against counts taken here over the raw files, never our parser.

cecli stops writing its chat history for the rest of a run once a question it asked was
answered at the keyboard (cecli/io.py: the answer is awaited as an acknowledgement
before anything is logged again), and the one published input history holds 80 inputs
where its chat history holds 3: the inputs a run's chat history does not hold (answers
to a question left out) are read from the input history as prompts of the run, counted
here from the raw files by the runs' header times.
These tests skip, saying so, where the shared folder is absent.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

import pytest
from conftest import SHARED

from findsession.indexing import IndexReport, Root, index_roots
from findsession.storage.sqlite import Store

REAL = SHARED / "realfiles" / "cecli"
HISTORIES = sorted(REAL.glob("*/.cecli/chat.history")) if REAL.is_dir() else []
pytestmark = pytest.mark.skipif(
    not HISTORIES, reason=f"no real cecli histories at {REAL} (only developers have them)"
)


def plain(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.splitlines()).strip()


def blocks(raw: str) -> list[str]:
    """The `####` blocks in the file: consecutive `#### ` (or bare `####`) lines."""
    found: list[list[str]] = []
    previous = False
    for line in raw.splitlines():
        marked = line.startswith("#### ") or line.rstrip() == "####"
        if marked:
            if not previous:
                found.append([])
            found[-1].append(line[5:])
        previous = marked
    return [plain("\n".join(b)) for b in found]


def typed(history: Path) -> list[tuple[datetime, str]]:
    """The input history's entries (`# <time>` then `+` lines), with their times."""
    entries: list[tuple[datetime, list[str]]] = []
    for line in (history.parent / "input.history").read_text(errors="replace").splitlines():
        if line.startswith("# "):
            entries.append((datetime.fromisoformat(line[2:].strip()), []))
        elif line.startswith("+") and entries:
            entries[-1][1].append(line[1:])
    return [(at, plain("\n".join(e))) for at, e in entries]


def lost(history: Path, runs: list[tuple[str, str]]) -> list[str]:
    """The inputs each run's `####` blocks do not hold (each block holds one input),
    an input being of the run whose header time is the latest at or before its own;
    answers to a question, and inputs before the first run, left out."""
    if not (history.parent / "input.history").exists():
        return []
    starts = [datetime.fromisoformat(h.removeprefix("# cecli chat started at ")) for h, _ in runs]
    pools = [blocks(body) for _, body in runs]
    out = []
    for at, text in typed(history):
        if not text or text.lower() in ("y", "n", "yes", "no", "a", "s", "d") or at < starts[0]:
            continue
        n = max(i for i, start in enumerate(starts) if start <= at)
        if text in pools[n]:
            pools[n].remove(text)
        else:
            out.append(text)
    return out


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Store, IndexReport]:
    store = Store.open(tmp_path_factory.mktemp("real-cecli") / "index.db")
    report = index_roots(store, [Root(REAL, "cecli")])
    yield store, report
    store.close()


@pytest.mark.parametrize("path", HISTORIES, ids=lambda p: p.parent.parent.name)
def test_each_history_holds_every_input_it_logged(
    indexed: tuple[Store, IndexReport], path: Path
) -> None:
    store, report = indexed
    assert report.errors == []
    raw = path.read_text(encoding="utf-8", errors="replace")
    sessions = store.query("SELECT source, cwd FROM sessions WHERE file_path = ?", (str(path),))
    # cecli sometimes writes a run's header twice as it starts (the first with nothing
    # under it: no session); two runs started in one second are one.
    runs = re.findall(
        r"(?m)^(# cecli chat started at .*)\n((?:(?!# cecli chat started).*\n?)*)", raw
    )
    headers = {header for header, body in runs if body.strip()}
    assert len(sessions) == len(headers)
    assert {s for s, _ in sessions} == {"cecli"}
    assert {c for _, c in sessions} == {str(path.parent.parent)}
    prompts = [
        plain(text)
        for (text,) in store.query(
            "SELECT text FROM messages WHERE file_path = ? AND kind = 'prompt' ORDER BY line, part",
            (str(path),),
        )
    ]
    recovered = lost(path, runs)
    assert sorted(prompts) == sorted(blocks(raw) + recovered)
    if (path.parent / "input.history").exists():
        rest = iter(text for _, text in typed(path))
        assert all(prompt in rest for prompt in prompts)  # in the order typed
    calls = store.scalar(
        "SELECT count(*) FROM messages WHERE file_path = ? AND kind = 'tool_call'", (str(path),)
    )
    assert calls == len(re.findall(r"(?m)^\s*<{5,9} SEARCH>?\s*$", raw))
