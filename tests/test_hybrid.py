"""Hybrid search with the real bundled model: meaning, exact tokens, filters, fallbacks."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest
from conftest import REPO, index
from transcripts import Transcript, project_dir

from findsession.embeddings.base import Embedder, EmbeddingUnavailable
from findsession.indexing.embed import embed_pending
from findsession.search.engine import search
from findsession.search.filters import SearchOptions
from findsession.storage.sqlite import Store

TOPICS = {
    "deploy": (
        "/home/dev/code/shop",
        "Yesterday's release announced success, yet the servers kept running the previous build.",
        "The rollout script never compared the running version with the new one.",
    ),
    "csv": (
        "/home/dev/code/shop",
        "Write unit tests for the CSV parser and fix the off-by-one in column handling.",
        "Added six tests; the loop started at index 1.",
    ),
    "token": (
        "/home/dev/code/ledger",
        "Rotate the leaked API token and move it into the CI vault.",
        "Revoked the old one and stored the new value as a masked CI variable.",
    ),
    "sql": (
        "/home/dev/code/ledger",
        "Speed up the slow SQL query on the orders table by adding an index.",
        "A composite index on (customer_id, created_at) cut it from 900 ms to 4 ms.",
    ),
    "faq": (
        "/home/dev/notes",
        "Fix the sticky header that covers anchor links on the FAQ page.",
        "scroll-margin-top on the headings keeps them below the header.",
    ),
}


@pytest.fixture
def corpus(store: Store, projects: Path, embedder: Embedder) -> Store:
    for n, (name, (cwd, prompt, reply)) in enumerate(TOPICS.items()):
        t = Transcript(session_id=name, cwd=cwd, start=datetime(2026, 3, 1 + n * 7, tzinfo=UTC))
        t.prompt(prompt).reply(reply)
        t.write(project_dir(projects, cwd))
    index(store, projects)
    embed_pending(store, embedder)
    return store


def run(store: Store, embedder: Embedder, query: str, **opts: object):  # noqa: ANN201
    return search(store, query, SearchOptions(**opts), embedder=lambda: embedder)  # type: ignore[arg-type]


def words(text: str) -> set[str]:
    return {w[:5] for w in re.findall(r"[a-z]+", text.lower())}  # crude stem: first 5 letters


def test_bundled_model_matches_the_fp32_reference(embedder: Embedder) -> None:
    ref = json.loads((REPO / "tests" / "fixtures" / "minilm_reference.json").read_text())
    ours = embedder.embed(ref["texts"], "document")
    cosines = (ours * np.asarray(ref["vectors"], dtype=np.float32)).sum(axis=1)
    assert ours.shape == (len(ref["texts"]), 384)
    # Measured by bench/fidelity.py with the 7-bit-weight graph, the same on the AVX2 and
    # the AVX-512 VNNI kernels (docs/benchmarks.md, "Fidelity per instruction set"):
    # min 0.9663 (the empty text; the others 0.983-0.994), mean 0.9887 on both paths.
    assert cosines.min() >= 0.96 and cosines.mean() >= 0.985, cosines.round(3)


def test_long_text_is_chunked_not_truncated(embedder: Embedder) -> None:
    text = "alpha beta gamma delta. " * 300  # about 1,500 tokens
    spans = embedder.spans(text)
    assert len(spans) >= 5
    assert spans[0][0] == 0 and spans[-1][1] >= len(text.rstrip()) - 1
    assert all(b[0] < a[1] for a, b in zip(spans, spans[1:], strict=False))  # they overlap


@pytest.mark.parametrize(
    ("query", "session"),
    [("the deploy that lied about being live", "deploy"), ("credentials got exposed", "token")],
)
def test_a_paraphrase_sharing_no_words_is_found_by_meaning(
    corpus: Store, embedder: Embedder, query: str, session: str
) -> None:
    _, prompt, reply = TOPICS[session]
    assert not words(query) & words(prompt + " " + reply) - {"the", "that", "about"}
    assert run(corpus, embedder, query, mode="keyword").hits == []
    vector = run(corpus, embedder, query, mode="vector")
    assert vector.strategy == "vector" and vector.hits[0].session.id == session
    hybrid = run(corpus, embedder, query)
    assert hybrid.strategy == "hybrid" and hybrid.hits[0].session.id == session
    assert hybrid.hits[0].vector_rank == 1 and hybrid.hits[0].keyword_rank is None


def test_unrelated_vector_hits_are_not_shown(corpus: Store, embedder: Embedder) -> None:
    assert run(corpus, embedder, "zqxv wwkj plonk").hits == []
    hits = run(corpus, embedder, "credentials got exposed").hits
    assert [h.session.id for h in hits] == ["token"]


def test_an_identifier_in_tool_output_wins_over_meaning(
    store: Store, projects: Path, embedder: Embedder
) -> None:
    folder = project_dir(projects, "/home/dev/code/app")
    holder = Transcript(session_id="holder")
    holder.prompt("run the importer").reply("It failed; see the trace.")
    holder.tool("Bash", {"command": "make import"}, "KeyError in normalize_ledger_rows at line 88")
    holder.write(folder)
    for i in range(6):  # sessions about normalising ledger rows, without the identifier
        t = Transcript(session_id=f"talk{i}")
        t.prompt(f"how should we normalize ledger rows, attempt {i}?")
        t.reply("Normalise each ledger row by currency and date before import.")
        t.write(folder)
    index(store, projects)
    embed_pending(store, embedder)
    hits = run(store, embedder, "normalize_ledger_rows").hits
    assert hits[0].session.id == "holder" and hits[0].pinned == "identifier"
    assert hits[0].matched_field == "tools"
    sha = Transcript(session_id="sha")
    sha.prompt("what was the last commit?").tool(
        "Bash", {"command": "git log -1"}, "commit 3f9a2c17e0d1c2b3a4f5e6d7c8b9a0f1e2d3c4b5"
    )
    sha.write(folder)
    index(store, projects)
    assert run(store, embedder, "3f9a2c1").hits[0].session.id == "sha"  # short hash


def session_ids(store: Store, embedder: Embedder, query: str, **opts: object) -> list[str]:
    return [h.session.id for h in run(store, embedder, query, **opts).hits]


#: The same story told in three projects on three dates, for the filter tests.
DEPLOYS = {
    "deploy": ("/home/dev/code/shop", 1),  # from TOPICS
    "deploy-ledger": ("/home/dev/code/ledger", 18),
    "deploy-notes": ("/home/dev/notes", 30),
}


@pytest.fixture
def deploys(corpus: Store, projects: Path, embedder: Embedder) -> Store:
    for name in ("deploy-ledger", "deploy-notes"):
        cwd, day = DEPLOYS[name]
        t = Transcript(session_id=name, cwd=cwd, start=datetime(2026, 3, day, tzinfo=UTC))
        t.prompt("The service rollout said it succeeded, but the old build kept serving.")
        t.reply("The release step never checked which version was running.")
        t.prompt("add that check to the rollout").reply("Done: it compares the build hash.")
        t.write(project_dir(projects, cwd))
    index(corpus, projects)
    embed_pending(corpus, embedder)
    return corpus


@pytest.mark.parametrize("mode", ["keyword", "vector", "hybrid"])
def test_filters_exclude_and_keep_what_a_post_filter_would_lose(
    deploys: Store, embedder: Embedder, mode: str
) -> None:
    query = "release rollout build version"
    found = session_ids(deploys, embedder, query, mode=mode)
    assert set(found[:3]) == set(DEPLOYS)
    top1 = session_ids(deploys, embedder, query, mode=mode, top=1)
    # A post-filter of the global top-1 to the other projects would show nothing.
    for name, (cwd, _) in DEPLOYS.items():
        if name not in top1:
            assert session_ids(deploys, embedder, query, mode=mode, top=1, project=cwd) == [name]
    shop = session_ids(deploys, embedder, query, mode=mode, project="/home/dev/code/shop")
    assert shop[0] == "deploy" and "deploy-ledger" not in shop
    assert session_ids(deploys, embedder, query, mode=mode, session="deploy-l") == ["deploy-ledger"]
    if mode != "keyword":  # meaning finds even a session not about the query: where in it?
        assert session_ids(deploys, embedder, query, mode=mode, session="csv") == ["csv"]
    after = session_ids(deploys, embedder, query, mode=mode, after="2026-03-20")
    assert after[0] == "deploy-notes" and not set(after) & {"deploy", "deploy-ledger"}
    before = session_ids(deploys, embedder, query, mode=mode, before="2026-03-20")
    assert set(before[:2]) == {"deploy", "deploy-ledger"} and "deploy-notes" not in before
    fingerprints = run(deploys, embedder, query, mode=mode, kind="session").hits
    turns = run(deploys, embedder, query, mode=mode, kind="turn").hits
    assert fingerprints and all(h.unit_kind == "session" for h in fingerprints)
    assert turns and all(h.unit_kind == "turn" for h in turns)


@pytest.mark.parametrize("mode", ["keyword", "vector"])
def test_speaker_filter_matches_only_that_side(
    corpus: Store, embedder: Embedder, mode: str
) -> None:
    # "composite index ... 900 ms to 4 ms" is only in the assistant's reply.
    query = "composite index on customer_id and created_at"
    assert session_ids(corpus, embedder, query, mode=mode, speaker="assistant")[0] == "sql"
    user = run(corpus, embedder, query, mode=mode, speaker="user").hits
    assert all(h.matched_field != "reply" for h in user)


def test_model_unavailable_degrades_to_keyword_and_says_so(corpus: Store) -> None:
    def unavailable() -> Embedder:
        raise EmbeddingUnavailable("no model here")

    response = search(corpus, "sticky header", SearchOptions(), embedder=unavailable)
    assert response.strategy == "keyword"
    assert response.hits[0].session.id == "faq"
    assert any("no model here" in n and "keyword search only" in n for n in response.notes)


def test_fts_failure_degrades_to_vector(corpus: Store, embedder: Embedder) -> None:
    response = run(corpus, embedder, "NEAR(sticky", raw=True)
    assert response.strategy == "vector"
    assert any("FTS5 rejected" in n for n in response.notes)


def test_neither_retrieval_says_what_to_configure(corpus: Store) -> None:
    def unavailable() -> Embedder:
        raise EmbeddingUnavailable("no model here")

    opts = SearchOptions(raw=True)
    response = search(corpus, "NEAR(sticky", opts, embedder=unavailable)
    assert response.strategy == "none" and response.hits == []
    assert any("configure an embedding model" in n for n in response.notes)


def test_vectors_of_another_model_are_never_mixed(corpus: Store, embedder: Embedder) -> None:
    class Other:
        identity = "other-model"
        dims = 384
        min_cosine = 0.0

        def embed(self, texts: list[str], role: str) -> np.ndarray:
            return embedder.embed(texts, role)  # type: ignore[arg-type]

        def spans(self, text: str) -> list[tuple[int, int]]:
            return embedder.spans(text)

    response = search(corpus, "credentials got exposed", SearchOptions(), embedder=Other)
    assert response.strategy == "keyword"
    assert any("another model" in n and "re-embed" in n for n in response.notes)
    report = embed_pending(corpus, Other())
    assert report.replaced_model == embedder.identity
    assert report.units == corpus.scalar("SELECT count(*) FROM units")
    assert corpus.setting("embedding_model") == "other-model"


def test_chinese_and_japanese_queries_find_their_sessions(
    store: Store, projects: Path, embedder: Embedder
) -> None:
    folder = project_dir(projects, "/home/dev/code/cn")
    zh = Transcript(session_id="zh")
    zh.prompt("部署失败了，健康检查一直超时，帮我看看").reply("健康检查的端口配置错了，已经修好。")
    zh.write(folder)
    ja = Transcript(session_id="ja")
    ja.prompt("テストが時々失敗する原因を調べて").reply("タイムゾーンの扱いが原因でした。")
    ja.write(folder)
    en = Transcript(session_id="en")
    en.prompt("the health check times out after deploy").reply("Fixed the port.")
    en.write(folder)
    index(store, projects)
    embed_pending(store, embedder)
    hits = run(store, embedder, "健康检查超时").hits
    assert hits[0].session.id == "zh" and hits[0].keyword_rank is not None
    assert "健康" in hits[0].snippet and hits[0].highlights
    assert run(store, embedder, "テスト 失敗", mode="keyword").hits[0].session.id == "ja"
    assert run(store, embedder, "部", mode="keyword").hits[0].session.id == "zh"  # one character
