"""Real SpecStory exports (Cursor chats people committed with their projects, in the
first and the spring 2025 header styles, CRLF and LF): each file indexes as one session
whose typed prompts, replies and tool calls agree with an independent count of the raw
Markdown, made here with a few regular expressions and never with the project's parser.

They are read from `../shared/realfiles/specstory` (see its SOURCES.md), which a user's
clone does not have: the tests skip, saying so, when it is absent.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import SHARED

from findsession.indexing import IndexReport, Root, index_roots
from findsession.storage.sqlite import Store

REAL = SHARED / "realfiles" / "specstory"
pytestmark = pytest.mark.skipif(
    not REAL.is_dir(), reason=f"the real SpecStory exports are not at {REAL} (developers only)"
)

LABEL = re.compile(r"^_\*\*(User|Assistant|Agent)\b[^\n]*\*\*_[ \t]*$", re.MULTILINE)
PIECE_BREAK = re.compile(r"^---[ \t]*$", re.MULTILINE)
#: A part of a reply that is a tool's: its first line says so.
TOOL_START = re.compile(r"^(?:<details|<tool-use|Tool use: \*\*|Read file: )")
WHOLE_FENCE = re.compile(r"^```(diff|bash|shell|sh|powershell)\n(?:(?!\n```).)*\n```$", re.DOTALL)
FAILURE = re.compile(
    r"^(Cancelled|Tool call timed out after|Error calling tool|Could not find file"
    r"|Could not resolve URI)[^\n]*$"
)
#: Thinking, which is no reply: an export cut short leaves a `<think>` open to its end.
THINKING = re.compile(
    r"<think>.*?(?:</think>|\Z)|^.{0,3}```thinking\n.*?^```$", re.DOTALL | re.MULTILINE
)


@dataclass
class Counted:
    prompts: list[str]
    replied: int  # turns whose reply holds words of the assistant's own
    tools: int


def count(path: Path) -> Counted:
    """The independent count: labels split the file, `---` lines split a reply into
    parts, and a part is a tool's when its first line is tool markup."""
    text = path.read_bytes().decode("utf-8").replace("\r\n", "\n")
    pieces = LABEL.split(text)
    labels, bodies = pieces[1::2], pieces[2::2]
    prompts: list[str] = []
    replied = tools = 0
    answered = False
    for label, body in zip(labels, bodies, strict=True):
        if label == "User":
            said = "\n".join(ln for ln in body.split("\n") if ln.strip() not in ("---", ""))
            if said.strip():
                prompts.append(" ".join(said.split()))
                answered = False
            continue
        for part in PIECE_BREAK.split(THINKING.sub("", body)):
            part = part.replace("_****_", "").strip()
            if not part:
                continue
            if TOOL_START.match(part) or WHOLE_FENCE.match(part):
                tools += 1
            elif not FAILURE.match(part) and prompts and not answered:
                replied, answered = replied + 1, True
    return Counted(prompts, replied, tools)


def exports() -> Iterator[Path]:
    yield from sorted(p for p in REAL.rglob("*.md") if not p.name.startswith("."))


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Store, IndexReport]]:
    store = Store.open(tmp_path_factory.mktemp("specstory") / "index.db")
    report = index_roots(store, [Root(REAL, "specstory")])
    yield store, report
    store.close()


def test_every_export_is_read_as_one_session(indexed: tuple[Store, IndexReport]) -> None:
    store, report = indexed
    files = list(exports())
    assert report.errors == [] and report.problems == [] and report.skipped == []
    assert report.files_read == report.files_seen == len(files) == 9
    rows = store.query("SELECT file_path, count(*), min(source) FROM sessions GROUP BY file_path")
    assert {Path(p): (n, s) for p, n, s in rows} == {p: (1, "specstory") for p in files}


@pytest.mark.parametrize("path", list(exports()) if REAL.is_dir() else [], ids=lambda p: p.name)
def test_prompts_replies_and_tools_agree_with_an_independent_count(
    indexed: tuple[Store, IndexReport], path: Path
) -> None:
    store, _ = indexed
    expected = count(path)
    [(sid,)] = store.query("SELECT id FROM sessions WHERE file_path = ?", (str(path),))
    turns = store.query(
        "SELECT prompt, reply FROM units WHERE session_id = ? AND kind = 'turn' ORDER BY ordinal",
        (sid,),
    )
    assert len(turns) == len(expected.prompts)
    for (prompt, _), want in zip(turns, expected.prompts, strict=True):
        got = " ".join(prompt.split())
        if "[REDACTED:" not in got:  # a secret in a prompt is stored redacted
            assert got[:200] == want[:200]
    assert sum(1 for _, reply in turns if reply.strip()) == expected.replied
    [(calls,)] = store.query(
        "SELECT count(*) FROM messages WHERE session_id = ? AND kind = 'tool_call'", (sid,)
    )
    assert calls == expected.tools


def test_the_31_prompt_export_keeps_every_prompt(indexed: tuple[Store, IndexReport]) -> None:
    """As Markdown notes it was cut at the assistant's own headings into 2 units, and
    the 100,000-character cap dropped the later prompts."""
    store, _ = indexed
    [path] = [p for p in exports() if p.name.startswith("2025-04-15_19-33")]
    [(turns, started)] = store.query(
        "SELECT n_turns, first_ts FROM sessions WHERE file_path = ?", (str(path),)
    )
    assert turns == len(count(path).prompts) == 31
    # The header's local time (UTC+8), moved to UTC by the file name's.
    assert started.startswith("2025-04-15T19:33:12")
