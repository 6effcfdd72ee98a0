"""Real Aider histories (`../shared/realfiles/aider/`, committed to public repositories
with the `.aider.input.history` Aider keeps of what was typed) against a counter written
here over the raw files, never our parser.

What was typed is the input history's entries, less the answers to Aider's yes/no
questions (kept there too) and less an entry repeated at once (the input history keeps
one). Aider logs more `####` blocks than that: after `/code X` it sends `X` again, logged
as a block of its own. These tests skip, saying so, where the shared folder is absent.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import SHARED

from findsession.indexing import IndexReport, Root, index_roots
from findsession.storage.sqlite import Store

REAL = SHARED / "realfiles" / "aider"
HISTORIES = sorted(REAL.glob("*/.aider.chat.history.md")) if REAL.is_dir() else []
pytestmark = pytest.mark.skipif(
    not HISTORIES, reason=f"no real Aider histories at {REAL} (only developers have them)"
)
ANSWER = re.compile(r"(?i)(y|yes|n|no|a|all|s|skip|d|don't ask again)")
MARKED = re.compile(r"#### .*  |####\s*")  # a line Aider wrote (a Markdown line break)


def plain(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.splitlines()).strip()


def once(items: list[str]) -> list[str]:
    """Without an item repeated at once (the input history keeps one of them)."""
    return [x for i, x in enumerate(items) if i == 0 or items[i - 1] != x]


def typed(folder: Path) -> list[str]:
    """What the person typed, from the input history (`# <time>` then `+` lines)."""
    entries: list[list[str]] = []
    path = folder / ".aider.input.history"
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith("# "):
            entries.append([])
        elif line.startswith("+") and entries:
            entries[-1].append(line[1:])
    return [e for e in (plain("\n".join(lines)) for lines in entries) if not ANSWER.fullmatch(e)]


def answered(chat: list[str], inputs: list[str]) -> int:
    """Typed prompts the model answered: text of its own (not a `####` block, not a
    `>` note or the lines right under one) before the next typed prompt."""
    count, expected, last, state, note = 0, 0, None, None, False
    i = 0
    while i < len(chat):
        line = chat[i]
        if MARKED.fullmatch(line):
            block = []
            while i < len(chat) and (chat[i].startswith("#### ") or chat[i].strip() == "####"):
                block.append(chat[i][5:])
                i += 1
            text = plain("\n".join(block))
            if expected < len(inputs) and text == inputs[expected]:
                expected, last, state = expected + 1, text, "asked"
            elif text == last and state:
                state = "asked"
            note = False
            continue
        if line.startswith("# aider chat started at"):
            state = None
        elif line.startswith(">"):
            note = True
        elif line.strip() and not note and state == "asked":
            count, state = count + 1, "answered"
        note = note and bool(line.strip())
        i += 1
    return count


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Store, IndexReport]:
    store = Store.open(tmp_path_factory.mktemp("real-aider") / "index.db")
    report = index_roots(store, [Root(REAL, "aider")])
    yield store, report
    store.close()


@pytest.mark.parametrize("path", HISTORIES, ids=lambda p: p.parent.name)
def test_each_history_holds_what_was_typed_and_what_answered_it(
    indexed: tuple[Store, IndexReport], path: Path
) -> None:
    store, report = indexed
    assert report.errors == []
    raw = path.read_text(encoding="utf-8", errors="replace")
    chat = raw.splitlines()
    sessions = store.scalar("SELECT count(*) FROM sessions WHERE file_path = ?", (str(path),))
    assert sessions == len(re.findall(r"(?m)^# aider chat started at", raw))
    prompts = [
        plain(text)
        for (text,) in store.query(
            "SELECT text FROM messages WHERE file_path = ? AND kind = 'prompt' ORDER BY line",
            (str(path),),
        )
    ]
    inputs = typed(path.parent) if (path.parent / ".aider.input.history").exists() else []
    assert once(prompts) == once(inputs)
    edits = len(re.findall(r"(?m)^\s*<{5,9} SEARCH>?\s*$", raw))
    edits += len(re.findall(r"(?m)^\s*```diff\s*$", raw))
    calls = store.scalar(
        "SELECT count(*) FROM messages WHERE file_path = ? AND kind = 'tool_call'", (str(path),)
    )
    assert calls == edits
    replied = store.scalar(
        "SELECT count(*) FROM units u JOIN sessions s ON s.id = u.session_id"
        " WHERE s.file_path = ? AND u.kind = 'turn' AND u.reply != ''",
        (str(path),),
    )
    assert replied == answered(chat, inputs)
