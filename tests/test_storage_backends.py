"""The storage protocols' behaviour, the same on every backend.

Each test runs once per backend (the `storage` fixture: an SQLite file, and a fresh
database on a real PostgreSQL server with pgvector) and speaks only through the
protocols of `findsession.storage.base`: what search, indexing and the core API may rely
on, whichever backend holds the index.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pasted_text import QUERIES, SEED_PROMPT, SEED_REPLY

from findsession.domain import (
    AuditRecord,
    Message,
    MessageKind,
    MetaEvent,
    MetaKind,
    Problem,
    Session,
)
from findsession.errors import DatabaseError
from findsession.quantize import quantize
from findsession.query import Query
from findsession.storage.base import MARK_END, MARK_START, Filters, Storage, TitleWrite, UnitRow


def unit(ordinal: int, prompt: str, reply: str = "", ts: str | None = None) -> UnitRow:
    return UnitRow("turn", ordinal, "claude-code", ts, "", prompt, reply, "", [], [])


def session(sid: str, cwd: str = "/work/app", source: str = "claude-code", **kw: object) -> Session:
    fields: dict[str, object] = {"title": sid, "first_ts": None, "last_ts": None, **kw}
    return Session(sid, source, f"/t/{sid}.jsonl", cwd, **fields)  # type: ignore[arg-type]


def found(storage: Storage, text: str, filters: Filters | None = None) -> list[tuple[str, int]]:
    matches = storage.keyword_search(Query.parse(text), filters or Filters(), 20)
    return [(m.session_id, m.ordinal) for m in matches]


def add(storage: Storage, sid: str, units: list[UnitRow], **kw: object) -> None:
    with storage.transaction():
        storage.save_session(session(sid, **kw))  # type: ignore[arg-type]
        storage.sync_units(sid, units)


def test_keyword_index_follows_inserts_updates_and_deletes(storage: Storage) -> None:
    add(storage, "s", [unit(1, "alpha beta"), unit(2, "gamma")])
    assert found(storage, "alpha") == [("s", 1)]
    with storage.transaction():
        written = storage.sync_units("s", [unit(1, "alpha beta"), unit(2, "delta")])
    assert written == 1  # the unchanged unit was not rewritten
    assert found(storage, "gamma") == [] and found(storage, "delta") == [("s", 2)]
    with storage.transaction():
        storage.sync_units("s", [unit(1, "alpha beta")])
    assert found(storage, "delta") == []


def test_english_word_forms_match_and_stopwords_are_kept(storage: Storage) -> None:
    add(storage, "s", [unit(1, "the deploys were failing"), unit(2, "what is this")])
    assert found(storage, "deploy") == [("s", 1)] and found(storage, "fail") == [("s", 1)]
    assert found(storage, "this") == [("s", 2)]  # a query of stop words still finds them


def test_a_rare_word_outranks_a_common_one(storage: Storage) -> None:
    """BM25's point: the unit holding the query's unusual word comes first."""
    common = [unit(i, f"deploy step {i} of the pipeline deploy again") for i in range(1, 9)]
    add(storage, "s", [*common, unit(20, "deploy the flamingo service")])
    assert found(storage, "deploy flamingo")[0] == ("s", 20)


def test_cjk_text_is_found_by_its_bigrams(storage: Storage) -> None:
    add(storage, "s", [unit(1, "我们讨论了数据库迁移的方案"), unit(2, "unrelated english text")])
    assert found(storage, "数据库迁移") == [("s", 1)]
    assert found(storage, "迁移") == [("s", 1)]
    assert storage.words_held(["数据库", "english", "absent"], [1, 2]) == {"数据库", "english"}


def test_filters_apply_inside_keyword_search(storage: Storage) -> None:
    add(storage, "a1", [unit(1, "rotate the keys", ts="2025-01-05T00:00:00Z")], cwd="/w/app")
    add(storage, "a2", [unit(1, "rotate the keys", ts="2025-03-05T00:00:00Z")], cwd="/w/app_2")
    add(storage, "b1", [unit(1, "keys", reply="rotate them")], cwd="/w/other", source="codex")
    assert {s for s, _ in found(storage, "rotate", Filters(project="/w/app"))} == {"a1"}
    assert {s for s, _ in found(storage, "rotate", Filters(sources=("codex",)))} == {"b1"}
    assert {s for s, _ in found(storage, "rotate", Filters(session="a"))} == {"a1", "a2"}
    after = Filters(after="2025-02-01T00:00:00Z")
    assert {s for s, _ in found(storage, "rotate", after)} == {"a2"}
    before = Filters(before="2025-02-01T00:00:00Z")
    assert {s for s, _ in found(storage, "rotate", before)} == {"a1"}
    assert {s for s, _ in found(storage, "rotate", Filters(speaker="assistant"))} == {"b1"}
    assert {s for s, _ in found(storage, "rotate", Filters(speaker="user"))} == {"a1", "a2"}
    assert found(storage, "rotate", Filters(kind="session")) == []
    # A session named by id answers only inside the filters of whole sessions.
    every = ["a1", "a2", "b1", "absent"]
    assert storage.sessions_kept(every, Filters()) == {"a1", "a2", "b1"}
    assert storage.sessions_kept(every, Filters(project="/w/app")) == {"a1"}
    assert storage.sessions_kept(every, Filters(sources=("codex",))) == {"b1"}
    assert storage.units_kept([1, 2, 3], Filters(project="/w/app")) == {1}


def test_a_filter_that_keeps_every_unit_changes_no_score(storage: Storage) -> None:
    """An unfiltered list and a filtered one are read by different paths on a server
    (the words' own rows, and the units' text through its index): a filter every unit
    passes must give the same units, in the same order, with the same scores, a few
    (where a server reads a phrase only in units that can still reach them) or many."""
    words = ["deploy", "rollback", "canary", "health", "timeout", "cache"]
    for s in range(4):
        units = []
        for n in range(1, 8):
            picked = [words[(s + n + k) % len(words)] for k in range(n % 4 + 1)]
            prompt = " ".join(picked * (1 + (s * 7 + n) % 3)) + f" note {s} {n} " + "x " * n
            prompt += [" utf-8 text", " utf and 8 apart", " at 127.0.0.1:5432", ""][(s + n) % 4]
            reply = f"{words[(s * 3 + n) % len(words)]} fixed after {n + s} tries"
            tools = "kubectl rollout status deploy/api" if (s + n) % 3 == 0 else ""
            units.append(UnitRow("turn", n, "claude-code", None, "", prompt, reply, tools, [], []))
        units.append(unit(9, f"我们讨论了数据库迁移的方案 {'数据库 ' * s}"))
        add(storage, f"s{s}", units, cwd=f"/w/p{s}")
    everything = Filters(project="/w")
    queries = ["deploy", "canary timeout", "rollback health cache", "kubectl", "数据库"]
    phrased = ["utf-8 deploy", "canary 127.0.0.1:5432 utf-8", "rollback utf-8"]
    for text, limit in [(q, n) for q in [*queries, *phrased] for n in (20, 3)]:
        query = Query.parse(text)
        plain = storage.keyword_search(query, Filters(), limit)
        kept = storage.keyword_search(query, everything, limit)
        assert plain, text
        assert [(m.session_id, m.ordinal) for m in plain] == [
            (m.session_id, m.ordinal) for m in kept
        ], text
        assert [m.score for m in plain] == pytest.approx([m.score for m in kept], rel=1e-5)


def test_a_project_filter_keeps_its_folder_and_below_only(storage: Storage) -> None:
    """`_` and `%` are literal and case counts: /a/my_app is not /a/myXapp or /a/MY_APP."""
    for sid, cwd in [("in", "/a/my_app"), ("below", "/a/my_app/sub"), ("x", "/a/myXapp")]:
        add(storage, sid, [unit(1, "needle")], cwd=cwd)
    add(storage, "upper", [unit(1, "needle")], cwd="/a/MY_APP")
    kept = {s for s, _ in found(storage, "needle", Filters(project="/a/my_app/"))}
    assert kept == {"in", "below"}
    assert {s.id for s in storage.recent_sessions("/a/my_app", None, None, -1)} == {"below", "in"}


def test_snippets_mark_the_matched_words(storage: Storage) -> None:
    add(storage, "s", [unit(1, "we fixed the flaky websocket reconnect today")])
    query = Query.parse("websocket")
    match = storage.keyword_search(query, Filters(), 5)[0]
    snippet = storage.keyword_snippet(query, Filters(), match)
    assert f"{MARK_START}websocket{MARK_END}" in snippet


def test_identifiers_are_matched_verbatim(storage: Storage) -> None:
    add(
        storage,
        "s",
        [unit(1, "call normalize_ledger_rows now"), unit(2, "normalize the ledger rows")],
    )
    assert storage.units_with_all(["normalize_ledger_rows"], Filters(), 50) == {1}
    assert storage.unit_holds("ledger", 2) and not storage.unit_holds("absent", 2)


def test_word_rarity_follows_units_added_by_either_connection(
    backend: Callable[[], Storage],
) -> None:
    """A resident searcher must count again after a commit by another process, or its own."""
    searcher, indexer = backend(), backend()
    try:
        with indexer.transaction():
            indexer.sync_units("s1", [unit(1, "alpha"), unit(2, "beta")])
        assert searcher.word_rarity(["alpha"])["alpha"] == pytest.approx(math.log(3 / 2))
        with indexer.transaction():
            indexer.sync_units("s2", [unit(1, "gamma"), unit(2, "delta")])
        assert searcher.word_rarity(["alpha"])["alpha"] == pytest.approx(math.log(5 / 2))
        with searcher.transaction():
            searcher.sync_units("s3", [unit(1, "epsilon")])
        assert searcher.word_rarity(["alpha"])["alpha"] == pytest.approx(math.log(6 / 2))
        with indexer.transaction():  # a session that loses turns: fewer units
            indexer.sync_units("s2", [])
        assert searcher.word_rarity(["alpha"])["alpha"] == pytest.approx(math.log(4 / 2))
    finally:
        searcher.close()
        indexer.close()


def _vector(seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal(384).astype(np.float32)
    return v / np.linalg.norm(v)


def _embed(storage: Storage, unit_id: int, field: str, v: np.ndarray) -> bool:
    ((scale, vec, code),) = quantize(v[None, :])
    text_hash = f"h{unit_id}{field}".encode()
    unit_hash = storage.unit_texts([unit_id])[0][1]
    with storage.transaction():
        storage.set_setting("embedding_dims", "384")  # as the embedding run records it
        return storage.save_vectors(
            unit_id, unit_hash, [(field, 0, 5, scale, vec, code, text_hash)]
        )


def test_vector_search_ranks_by_cosine_with_filters_inside(storage: Storage) -> None:
    add(storage, "a", [unit(1, "one"), unit(2, "two", ts="2025-05-01T00:00:00Z")], cwd="/w/a")
    add(storage, "b", [unit(1, "three")], cwd="/w/b")
    near = _vector(1)
    close = near + 0.5 * _vector(2)
    close /= np.linalg.norm(close)  # models give unit vectors
    for unit_id, field, v in [(1, "prompt", near), (2, "reply", close), (3, "prompt", _vector(3))]:
        assert _embed(storage, unit_id, field, v)
    assert storage.has_vectors() and storage.pending_units() == []
    best = storage.vector_search(near, Filters(), 10)
    assert [m.unit_id for m in best][:2] == [1, 2] and best[0].cosine == pytest.approx(1, abs=0.01)
    assert [m.unit_id for m in storage.vector_search(near, Filters(project="/w/b"), 10)] == [3]
    assert [m.unit_id for m in storage.vector_search(near, Filters(speaker="assistant"), 10)] == [2]
    after = Filters(after="2025-01-01T00:00:00Z")
    assert [m.unit_id for m in storage.vector_search(near, after, 10)] == [2]
    before = Filters(before="2026-01-01T00:00:00Z")  # a unit without a time is in no range
    assert [m.unit_id for m in storage.vector_search(near, before, 10)] == [2]
    assert {m.unit_id for m in storage.vector_search(near, Filters(session="b"), 10)} == {3}
    assert storage.vector_search(near, Filters(sources=("codex",)), 10) == []
    assert storage.vector_search(near, Filters(kind="session"), 10) == []
    ((scale, vec, code),) = quantize(near[None, :])
    assert storage.vectors_of_texts([b"h1prompt"]) == {
        b"h1prompt": (pytest.approx(scale), vec, code)
    }


def test_changed_text_loses_its_vectors_and_stale_vectors_are_refused(storage: Storage) -> None:
    add(storage, "s", [unit(1, "first text")])
    stale_hash = storage.unit_texts([1])[0][1]
    assert _embed(storage, 1, "prompt", _vector(1))
    with storage.transaction():
        storage.sync_units("s", [unit(1, "second text")])
    assert storage.pending_units() == [1] and not storage.has_vectors()
    ((scale, vec, code),) = quantize(_vector(1)[None, :])
    with storage.transaction():
        assert not storage.save_vectors(1, stale_hash, [("prompt", 0, 5, scale, vec, code, None)])


def test_many_units_vectors_are_saved_at_once_and_a_changed_unit_is_left_out(
    storage: Storage,
) -> None:
    """An embedding run writes a batch of units in one call; a unit rewritten meanwhile
    keeps waiting for vectors of its new text, and the others are searchable."""
    add(storage, "s", [unit(i, f"text {i}") for i in (1, 2, 3)])
    hashes = {r[0]: r[1] for r in storage.unit_texts([1, 2, 3])}
    with storage.transaction():
        storage.sync_units("s", [unit(1, "text 1"), unit(2, "rewritten"), unit(3, "text 3")])
    batch = []
    for unit_id in (1, 2, 3):
        ((scale, vec, code),) = quantize(_vector(unit_id)[None, :])
        chunks = [("prompt", 0, 6, scale, vec, code, f"h{unit_id}".encode())]
        batch.append((unit_id, hashes[unit_id], chunks))
    with storage.transaction():
        storage.set_setting("embedding_dims", "384")
        assert storage.save_vectors_many(batch) == 2
        storage.pack_vectors()  # as an embedding run ends
    assert storage.pending_units() == [2]
    for unit_id in (1, 3):
        best = storage.vector_search(_vector(unit_id), Filters(), 1)[0]
        assert best.unit_id == unit_id and best.cosine == pytest.approx(1, abs=0.01)
    assert _embed(storage, 2, "prompt", _vector(2))  # later writes join the built index
    assert storage.vector_search(_vector(2), Filters(), 1)[0].unit_id == 2


def test_a_sessions_subagents_come_in_the_order_they_began(storage: Storage) -> None:
    """The reader nests each subagent under its parent, in the order they ran."""
    add(storage, "main", [unit(1, "split the audit")])
    for sid, ts in (("late", "2025-01-01T10:05:00Z"), ("early", "2025-01-01T10:01:00Z")):
        add(
            storage,
            sid,
            [unit(1, "audit one file")],
            parent_id="main",
            is_subagent=True,
            first_ts=ts,
        )
    add(storage, "other", [unit(1, "unrelated")])
    assert [s.id for s in storage.subagents_of("main")] == ["early", "late"]
    assert storage.subagents_of("other") == []


def test_a_session_adopts_only_the_subagents_that_have_no_parent(storage: Storage) -> None:
    """A subagent indexed before the session naming it was saved is linked once that
    session is read; one with a parent already, or no subagent, is left as it is."""
    add(storage, "main", [unit(1, "plan the release")])
    add(storage, "other", [unit(1, "another plan")])
    add(storage, "orphan", [unit(1, "list the steps")], is_subagent=True)
    add(storage, "owned", [unit(1, "check the tags")], is_subagent=True, parent_id="other")
    add(storage, "plain", [unit(1, "a session of its own")])
    with storage.transaction():
        storage.adopt("main", ["orphan", "owned", "plain", "missing", "main"])
    assert [s.id for s in storage.subagents_of("main")] == ["orphan"]
    assert [s.id for s in storage.subagents_of("other")] == ["owned"]
    assert storage.parent_of("plain") is None and storage.parent_of("main") is None


def test_forget_removes_a_session_and_its_subagents_for_good(storage: Storage) -> None:
    add(storage, "main", [unit(1, "secret plan")])
    add(storage, "child", [unit(1, "secret detail")], parent_id="main", is_subagent=True)
    storage.remember_shown("tty1", ["main", "other"], "2025-01-01T00:00:00Z", "2024-01-01")
    with storage.transaction():
        storage.forget(["main"])
    assert found(storage, "secret") == []
    assert storage.get_session("main") is None and storage.get_session("child") is None
    assert storage.private_sessions() == {"main", "child"}
    assert storage.shown_list("tty1").session_ids == ["", "other"]  # type: ignore[union-attr]


def test_records_round_trip_and_a_line_read_twice_replaces_itself(storage: Storage) -> None:
    text = "binary \x00 output"
    first = Message(MessageKind.PROMPT, "hello", line=1, uuid="u1", files=("a.py",))
    with storage.transaction():
        storage.add_records("/t/f.jsonl", [("s", 0, first)])
        again = Message(MessageKind.REPLY, text, line=1, uuid="u1")
        storage.add_records(
            "/t/f.jsonl", [("s", 0, again), ("s", 0, Message(MessageKind.PROMPT, "x", line=2))]
        )
    messages = storage.session_messages("s")
    assert [m.line for m in messages] == [1, 2] and messages[0].kind is MessageKind.REPLY
    assert messages[0].text.replace("\ufffd", "\x00") == text
    assert storage.uuid_owners(["u1", "nope"]) == {"u1": ("/t/f.jsonl", 1)}
    assert storage.message_sources("s") == [("/t/f.jsonl", 1, 0), ("/t/f.jsonl", 2, 0)]


def test_a_file_forgets_its_lines_past_the_ones_it_keeps(storage: Storage) -> None:
    """What a document that carries on after the lines it keeps drops first: its later
    lines (a meta line too), and its problems; its lines up to there, and other files'
    lines, stay."""
    far = 2_000_000_001  # a line far along, as a compacted document numbers them
    rows = [("s", 0, Message(MessageKind.PROMPT, f"m{line}", line=line)) for line in (1, 2, 3, far)]
    with storage.transaction():
        storage.add_records("/t/f.json", [*rows, ("s", 0, MetaEvent(MetaKind.LAST_PROMPT, "m", 0))])
        storage.add_records("/t/f.json", [("t", 0, MetaEvent(MetaKind.SUMMARY, "x", 5))])
        storage.add_records("/t/g.json", [("s", 0, Message(MessageKind.PROMPT, "g", line=9))])
        storage.add_problems("/t/f.json", [Problem(1, "malformed JSON")])
        assert sorted(storage.forget_file_lines("/t/f.json", 2)) == ["s", "t"]
    assert [m.text for m in storage.session_messages("s")] == ["m1", "m2", "g"]
    assert storage.session_meta("t") == [] and len(storage.session_meta("s")) == 1
    assert storage.status().recent_problems == []


def test_a_session_is_read_a_page_at_a_time_in_file_order(storage: Storage) -> None:
    """Pages of a session's messages, whatever their size, give `session_messages`
    exactly: what the indexer rebuilds a long session from without holding it whole."""
    rows = [("s", part, Message(MessageKind.REPLY, f"m{line}.{part}", line=line)) for line
            in range(7, 0, -1) for part in (1, 0)]  # fmt: skip
    rows += [("s", 0, Message(MessageKind.PROMPT, "sub", line=3))]  # another file, line 3
    with storage.transaction():
        storage.add_records("/t/f.jsonl", rows[:-1])
        storage.add_records("/t/sub.jsonl", rows[-1:])
        storage.add_records("/t/f.jsonl", [("other", 0, Message(MessageKind.PROMPT, "x", line=9))])
    whole = [(m.line, m.text) for m in storage.session_messages("s")]
    assert len(whole) == 15
    for size in (1, 2, 4, 15, 16):
        paged, after = [], None
        while True:
            page, after = storage.session_messages_page("s", after, size)
            paged += [(m.line, m.text) for m in page]
            if after is None:
                break
        assert paged == whole, size


def test_session_prefixes_are_literal(storage: Storage) -> None:
    add(storage, "ab_1", [unit(1, "x")])
    add(storage, "abc1", [unit(1, "x")])
    assert [s.id for s in storage.sessions_with_prefix("ab_")] == ["ab_1"]
    assert [s.id for s in storage.sessions_with_prefix("ab")] == ["ab_1", "abc1"]


def test_a_failed_transaction_leaves_nothing_behind(storage: Storage) -> None:
    with pytest.raises(RuntimeError), storage.transaction():
        storage.sync_units("s", [unit(1, "kept out")])
        with storage.transaction():  # a nested one rolls back with it
            storage.set_setting("k", "v")
        raise RuntimeError("crash")
    assert not storage.has_units() and storage.setting("k") is None


def test_title_log_and_audit_round_trip(storage: Storage) -> None:
    with storage.transaction():
        storage.record_title_write(TitleWrite("s", "/t/s.jsonl", "First", 10, b"line\n"))
        storage.record_title_write(TitleWrite("s", "/t/s.jsonl", "Kept in index"))
    assert storage.index_title("s") == "Kept in index"
    assert [w.offset for w in storage.title_writes("s")] == [10, None]
    assert storage.title_writes("s")[0].line == b"line\n"
    record = AuditRecord("2025-01-01T00:00:00Z", "c1", "search_conversation", "d1", {"a": 1}, [])
    rid = storage.add_audit_record(record)
    (back,) = storage.audit_records(None, 10, "d1")
    assert back.id == rid and back.filters == {"a": 1} and back.excluded is None


def test_status_counts_what_was_stored(storage: Storage) -> None:
    add(storage, "s", [unit(1, "one"), unit(2, "two")])
    status = storage.status()
    assert (status.sessions, status.units, status.turns) == (1, 2, 2)
    assert storage.totals() == (1, 0) and storage.size_bytes() > 0


def test_a_server_that_cannot_be_reached_says_so(tmp_path: object) -> None:
    from findsession.storage import open_storage

    url = "postgresql://nobody@127.0.0.1:1/none?connect_timeout=2"
    with pytest.raises(DatabaseError, match="cannot reach the PostgreSQL index"):
        open_storage(tmp_path, backend="postgresql", url=url)  # type: ignore[arg-type]


def test_a_rebuild_on_the_server_sets_the_old_index_aside_and_keeps_the_forgotten(
    pg_url: str, tmp_path: object
) -> None:
    from findsession.storage import open_storage

    def reopen(rebuild: bool) -> tuple[Storage, list[str]]:
        return open_storage(tmp_path, backend="postgresql", url=pg_url, rebuild=rebuild)  # type: ignore[arg-type]

    store, _ = reopen(False)
    add(store, "gone", [unit(1, "private words")])
    add(store, "kept", [unit(1, "public words")])
    with store.transaction():
        store.forget(["gone"])
        store.record_title_write(TitleWrite("kept", "/t/kept.jsonl", "A title"))
    store.close()
    store, notes = reopen(True)
    try:
        assert any("set the old index aside as schema findsession_aside_" in n for n in notes)
        assert not store.has_units() and store.private_sessions() == {"gone"}
        assert store.index_title("kept") == "A title"
    finally:
        store.close()


@settings(
    max_examples=int(os.environ.get("FINDSESSION_FUZZ_EXAMPLES", "20")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(text=QUERIES, raw=st.booleans())
def test_any_text_is_a_keyword_query_or_a_keyword_query_error(
    storage: Storage, text: str, raw: bool
) -> None:
    """Whatever is pasted reaches each backend's keyword query as free text that never
    fails, or as raw syntax that fails only as a `KeywordQueryError` (said in one line);
    the examples share one index, seeded by the first."""
    from findsession.storage.base import KeywordQueryError

    if storage.setting("seeded") is None:
        add(storage, "s", [unit(1, SEED_PROMPT, SEED_REPLY)])
        storage.set_setting("seeded", "yes")
    try:
        matches = storage.keyword_search(Query.parse(text, raw=raw), Filters(), 20)
    except KeywordQueryError as exc:
        assert raw and str(exc).strip() and "\n" not in str(exc).strip(), (text, exc)
        return
    assert all(m.session_id == "s" for m in matches)
    if not raw and "signing" in text.split():
        assert matches, text


def test_a_raw_query_the_index_cannot_read_is_a_keyword_query_error(storage: Storage) -> None:
    """Free text never fails; a raw query (the index's own syntax) may, and says so."""
    from findsession.storage.base import KeywordQueryError

    add(storage, "s", [unit(1, "deploy to staging")])
    assert found(storage, 'deploy "(((" OR') == [("s", 1)]  # free text: no syntax at all
    with pytest.raises(KeywordQueryError):
        storage.keyword_search(Query.parse("(((", raw=True), Filters(), 10)
    with storage.transaction():  # inside a write transaction, the error leaves it usable
        with pytest.raises(KeywordQueryError):
            storage.keyword_search(Query.parse("(((", raw=True), Filters(), 10)
        storage.set_setting("after", "yes")
    assert storage.setting("after") == "yes"


def test_a_servers_second_connection_ranks_the_same_and_closes_with_the_store(
    pg_url: str, tmp_path: object
) -> None:
    """The tool-text list and half the word counts run on a second connection beside the
    first: the same ranking as one connection alone, and nothing left open after."""
    import psycopg

    from findsession.storage import open_storage

    def connections() -> int:
        with psycopg.connect(pg_url, autocommit=True) as db:
            return db.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND pid <> pg_backend_pid()"
            ).fetchone()[0]

    before = connections()
    store, _ = open_storage(tmp_path, backend="postgresql", url=pg_url)  # type: ignore[arg-type]
    try:
        with store.transaction():
            for n in range(6):
                store.sync_units(
                    f"s{n}",
                    [
                        UnitRow(
                            kind="turn",
                            ordinal=1,
                            source="claude-code",
                            ts=None,
                            title="",
                            prompt=f"why the deploy failed {'again ' * n}",
                            reply="the health check timed out" if n % 2 else "a canary",
                            tools="kubectl rollout status deploy/api" if n % 3 else "",
                            tool_names=[],
                            files=[],
                        )
                    ],
                )
        query = Query.parse("deploy rollout health canary")
        beside = store.keyword_search(query, Filters(), 10)
        with store.transaction():  # inside a transaction: one connection, one list after another
            alone = store.keyword_search(query, Filters(), 10)
        assert [(m.session_id, m.score) for m in beside] == [(m.session_id, m.score) for m in alone]
        assert len(beside) == 6
        assert connections() == before + 2
    finally:
        store.close()
    deadline = time.monotonic() + 5
    while connections() != before:  # a closed backend leaves the list as it exits
        assert time.monotonic() < deadline, "a connection was left open"
        time.sleep(0.05)
