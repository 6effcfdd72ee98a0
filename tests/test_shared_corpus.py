"""Every real transcript of the shared corpus indexes, with the expected counts.

These tests read `../shared/corpus` (real files from public repositories), which a
user's clone does not have: they skip, saying so, when it is absent.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from claude_code_counts import count
from conftest import SHARED
from shared_corpus_expected import EXPECTED

from findsession.domain import MessageKind
from findsession.indexing import IndexReport, Root, index_roots
from findsession.reader import read_session
from findsession.search.engine import SearchOptions, search
from findsession.storage.sqlite import Store

CORPUS = SHARED / "corpus"
pytestmark = pytest.mark.skipif(
    not CORPUS.is_dir(), reason=f"the shared corpus is not at {CORPUS} (only developers have it)"
)


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Store, IndexReport]:
    store = Store.open(tmp_path_factory.mktemp("shared") / "index.db")
    report = index_roots(store, [Root(CORPUS, "claude-code")])
    yield store, report
    store.close()


def test_every_file_indexes_without_errors(indexed: tuple[Store, IndexReport]) -> None:
    store, report = indexed
    assert report.errors == []
    assert report.files_read == report.files_seen == len(EXPECTED)
    # SOURCES.md lists 28 + 35 + 112 + 28 lines broken by the owners' sanitiser.
    assert report.skipped_by_reason() == {"malformed JSON": 203}


def test_per_file_sessions_and_turns(indexed: tuple[Store, IndexReport]) -> None:
    store, _ = indexed
    found = {path: (0, 0) for (path,) in store.query("SELECT path FROM files")}
    for path, n, turns in store.query(
        "SELECT file_path, count(*), sum(n_turns) FROM sessions GROUP BY file_path"
    ):
        found[path] = (n, turns)
    relative = {str(Path(p).relative_to(CORPUS)): v for p, v in found.items()}
    assert relative == EXPECTED


def test_prompts_replies_and_tool_calls_agree_with_an_independent_count(
    indexed: tuple[Store, IndexReport],
) -> None:
    """Every file's typed prompts, replies, tool calls and turns as `read --tools` shows
    them, against a count of the raw lines that never uses the parser: slash-command
    starts, background tasks' notices, `/btw` questions and words typed during a tool
    run among them."""
    store, _ = indexed
    kinds = {MessageKind.PROMPT: "prompts", MessageKind.STEER: "prompts",
             MessageKind.REPLY: "replies", MessageKind.TOOL_CALL: "tools"}  # fmt: skip
    read: dict[str, Counter] = {}
    for sid, path, turns in store.query("SELECT id, file_path, n_turns FROM sessions"):
        got = read.setdefault(path, Counter())
        got["turns"] += turns
        for turn in read_session(store, sid, tools=True).turns:
            got.update(kinds[m.kind] for m in turn.messages if m.kind in kinds)
    counted = {path: c for path, c in count(CORPUS).items() if +c}
    assert {p: +c for p, c in read.items() if +c} == counted


def test_reindex_reads_nothing_and_searches_answer(indexed: tuple[Store, IndexReport]) -> None:
    store, _ = indexed
    again = index_roots(store, [Root(CORPUS, "claude-code")])
    assert again.files_read == 0 and again.bytes_read == 0
    hits = search(store, "phx.server doesnt start", SearchOptions(mode="keyword")).hits
    assert hits[0].session.id == "short"
    for query in ('a-b "c" NOT (d*', "syncthing", "rebase conflicts"):
        search(store, query, SearchOptions(mode="keyword"))
