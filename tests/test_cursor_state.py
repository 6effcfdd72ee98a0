"""A source keeps its own state in the cursor, and an index written before that goes on.

Until cursors had a state, a source that needed more than a digest folded it into the
digest's string (`aider:<end>:…`, `<hash>|codex:<flags>`, `rows:<tokens>`, markers of a
session its agent's store holds, `<hash>|<the copy indexed>`). An index holds those
strings for every file it read then. Here every such file of `stateful_corpus` is
indexed, its row set back to the string the previous release stored for the same
cursor, and the index run again: each file goes on from where it stopped (nothing is read
again, a grown file only its new part), and the index holds what it held.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import pytest
from stateful_corpus import build

from findsession.domain import Root
from findsession.indexing import IndexReport, index_roots
from findsession.sources import Cursor
from findsession.storage.sqlite import Store

ROLLOUT = "crc32:918d5eae:892:acfeaa5fdbe3de78ff4c897c23b5c9a4"
#: Cursor texts as the previous release stored them, and what each stands for now.
OLD_TEXTS = [
    (
        "aider:2498:2fd75ceb:634c8329061b51946d2a30db235228d1",
        "crc32:2fd75ceb:2498:634c8329061b51946d2a30db235228d1",
        {"end": 2498},
    ),
    (
        "crc32:bbeda535:1839:a8e7756b2bbfa005efcf914f56e5fda1|codex:e",
        "crc32:bbeda535:1839:a8e7756b2bbfa005efcf914f56e5fda1",
        {"events": True, "replaying": False},
    ),
    (f"{ROLLOUT}|codex:", ROLLOUT, {"events": False, "replaying": False}),
    (f"{ROLLOUT}|codex:er", ROLLOUT, {"events": True, "replaying": True}),
    (
        'rows:{"pump":"1780000080:1:3","vent":"1780000010:2:2"}',
        None,
        {"pump": "1780000080:1:3", "vent": "1780000010:2:2"},
    ),
    ("rows:{", None, {}),  # tokens that do not parse: the store is read whole, as then
    ("goose:in-store", None, {"in_store": True}),
    ("held-by-database", None, {"in_store": True}),
    ("kiro:in-database", None, {"in_store": True}),
    ("blake2b:e7050b6727f66334064a38ad9770954e|", "blake2b:e7050b6727f66334064a38ad9770954e", None),
    (
        "blake2b:f3bd|2026-01-16_16-26-02Z-pump.md beside it holds the same session",
        "blake2b:f3bd",
        {"elsewhere": "2026-01-16_16-26-02Z-pump.md beside it holds the same session"},
    ),
    ("crc32:1f7e9b87:955:9eaf07a7", "crc32:1f7e9b87:955:9eaf07a7", None),
    ("blake2b:9c1f", "blake2b:9c1f", None),
    ("tree:4a65", "tree:4a65", None),
    (None, None, None),
]


@pytest.mark.parametrize(("text", "digest", "state"), OLD_TEXTS)
def test_a_cursor_stored_by_the_previous_release_is_read_as_its_source_keeps_it_now(
    text: str | None, digest: str | None, state: dict[str, str | int] | None
) -> None:
    cursor = Cursor.restored(120, 7, text)
    assert cursor == Cursor(120, 7, digest, state)
    assert Cursor.restored(120, 7, cursor.stored()) == cursor  # and kept as it is from now on


def test_a_state_round_trips_through_the_text_the_index_keeps() -> None:
    plain = Cursor(10, 2, "crc32:00ff:10:ab")
    assert plain.stored() == "crc32:00ff:10:ab"  # no state: stored as it always was
    for cursor in (
        Cursor(10, 2, "crc32:00ff:10:ab", {"events": True, "replaying": False}),
        Cursor(4096, 3, None, {"ses_1": "3:17", "ses:2": "1:4", "item:x": "9"}),
        Cursor(4096, 0, None, {}),
        Cursor(5, 0, '{"a digest that looks like JSON"}'),
    ):
        assert Cursor.restored(cursor.offset, cursor.lines, cursor.stored()) == cursor
    assert Cursor.restored(10, 2, "{not json") == Cursor(10, 2)  # read again, as if new
    assert Cursor.restored(10, 2, '{"digest": 7, "state": [1]}') == Cursor(10, 2)


def previous_release(source: str, text: str | None) -> str | None:
    """The text the previous release stored for the cursor `text` stands for now."""
    cursor = Cursor.restored(0, 0, text)
    state, digest = cursor.state, cursor.digest
    if state is None:
        return f"{digest}|" if source == "specstory" else digest
    if state == {"in_store": True}:
        return {"goose": "goose:in-store", "opencode": "held-by-database"}.get(
            source, "kiro:in-database"
        )
    if "end" in state:
        _, crc, end, tail = (digest or "").split(":")
        return f"aider:{end}:{crc}:{tail}"
    if "events" in state:
        flags = ("e" if state["events"] else "") + ("r" if state["replaying"] else "")
        return f"{digest or ''}|codex:{flags}"
    if "elsewhere" in state:
        return f"{digest}|{state['elsewhere']}"
    return "rows:" + json.dumps(dict(state), separators=(",", ":"), sort_keys=True)


@pytest.fixture
def corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[Root]:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    for name in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "CODEX_HOME", "CLAUDE_CONFIG_DIR"):
        monkeypatch.delenv(name, raising=False)
    return build(home)


def index(store: Store, roots: list[Root]) -> IndexReport:
    report = index_roots(store, roots)
    assert report.errors == [], report.errors
    return report


def contents(store: Store) -> list[tuple[object, ...]]:
    return store.query(
        "SELECT session_id, kind, ordinal, title, prompt, reply, tools FROM units"
        " ORDER BY session_id, kind, ordinal"
    )


def set_back(store: Store, old: bool = True) -> dict[str, str | None]:
    """Every file's row as the previous release left it (or as it is, `old=False`), each
    to be read again: its stored size matches no file. The texts by path."""
    texts: dict[str, str | None] = {}
    with store.transaction():
        for path, state in store.file_states().items():
            text = previous_release(state.source, state.tail_hash) if old else state.tail_hash
            texts[path] = text
            store.save_file(replace(state, tail_hash=text, size=-1))
    return texts


def cost(report: IndexReport) -> tuple[int, ...]:
    return (report.files_seen, report.files_unchanged, report.bytes_read, report.lines_read)


def test_an_index_of_the_previous_release_goes_on_where_each_file_stopped(
    store: Store, corpus: list[Root]
) -> None:
    first = index(store, corpus)
    assert first.files_seen == 21 and first.bytes_read > 0
    rows = {p: (s.offset, s.lines, s.tail_hash) for p, s in store.file_states().items()}
    held = contents(store)
    set_back(store, old=False)
    current = index(store, corpus)  # every file opened, each read from its cursor
    assert current.bytes_read < first.bytes_read / 20  # a half-written last line, no more

    old = set_back(store)
    kinds = {store.file_states()[p].source for p, text in old.items() if text != rows[p][2]}
    assert kinds == {"aider", "codex", "crush", "cursor", "goose", "kiro", "opencode", "specstory"}
    again = index(store, corpus)
    # Read from the old cursors, each file cost what it costs from the current ones: no
    # file read again from its start, no store's session read again.
    assert cost(again) == cost(current)
    assert contents(store) == held
    # The previous release did not keep whether a rollout's task was still running (so
    # words sent into it steer it); this one reads every rollout again once for that
    # (`reads`), so only these two flags of a rollout left mid-task may differ here.
    got = {p: (s.offset, s.lines, _no_task(s.tail_hash)) for p, s in store.file_states().items()}
    assert got == {p: (offset, lines, _no_task(text)) for p, (offset, lines, text) in rows.items()}


def _no_task(text: str | None) -> str | None:
    return re.sub(r',"(prompted|running)":(true|false)', "", text) if text else text


def test_a_file_grown_since_the_previous_release_read_it_is_read_from_there(
    store: Store, corpus: list[Root]
) -> None:
    index(store, corpus)
    set_back(store)
    states = store.file_states()
    [rollout] = [p for p in states if p.endswith("019df75d-9a80-7823-8f7e-d4086c564b4e.jsonl")]
    [history] = [p for p in states if p.endswith(".aider.chat.history.md")]
    line = {
        "timestamp": "2026-05-05T09:30:00.000Z",
        "type": "event_msg",
        "payload": {"type": "user_message", "message": "does the tide gauge drift in frost"},
    }
    added = (json.dumps(line) + "\n").encode()
    with open(rollout, "ab") as fh:
        fh.write(added)
    run = b"\n# aider chat started at 2024-03-07 09:00:00\n\n#### is the rain gauge heated\n"
    with open(history, "ab") as fh:
        fh.write(run)

    report = index(store, [r for r in corpus if r.source in ("codex", "aider")])
    # The rollout from its end, the history from the start of its last run: no more.
    aider_from = states[history].offset
    assert report.bytes_read == len(added) + Path(history).stat().st_size - aider_from
    prompts = [p for (p,) in store.query("SELECT prompt FROM units WHERE kind = 'turn'")]
    assert "does the tide gauge drift in frost" in prompts
    assert "is the rain gauge heated" in prompts
