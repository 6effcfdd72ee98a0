"""What every reader of another agent's SQLite store does around its own queries: the
cursor it keeps, the early return when no session's token moved (the file's stamp moved,
its sessions did not), a second read that gives only the session that changed, and the
one-line problem for a database without the agent's tables.

Each store is built in the test (`*_store.py`), with two sessions, and read through its
source's `read` as the indexer calls it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from amazon_q_store import AmazonQStore, conversation
from amazon_q_store import prompt as q_prompt
from amazon_q_store import reply as q_reply
from crush_store import FIRST_OPENCODE_SCHEMA, CrushStore
from crush_store import text as crush_text
from goose_store import GooseStore
from goose_store import text as goose_text
from kiro_store import KiroStore, reply
from kiro_store import prompt as kiro_prompt
from opencode_store import OpenCodeStore
from warp_store import WarpStore, message, output, task, user
from zed_store import ZedStore
from zed_store import agent as zed_agent
from zed_store import text as zed_text
from zed_store import user as zed_user

from findsession.sources.amazon_q import AmazonQSource
from findsession.sources.base import Source
from findsession.sources.crush import CrushSource
from findsession.sources.cursor import Cursor, Reading
from findsession.sources.goose import GooseSource
from findsession.sources.kiro import KiroSource
from findsession.sources.opencode import OpenCodeSource
from findsession.sources.warp import WarpSource
from findsession.sources.zed import ZedSource


@dataclass
class Store:
    """A store of two sessions, `a` and `b`, and how to change one of them."""

    path: Path
    source: Source
    keys: tuple[str, str]
    change_b: Callable[[], None]
    #: What a database without the agent's tables is reported as.
    problem: tuple[str, str]


def _kiro(tmp: Path) -> Store:
    s = KiroStore(tmp / "kiro" / "data.sqlite3")
    for cid, words in (("conv-a", "lantern wick"), ("conv-b", "tide table")):
        s.put(
            "/home/dev/harbour",
            cid,
            [
                {
                    "user": kiro_prompt(words, "/home/dev/harbour"),
                    "assistant": reply("m-" + cid, "Done: " + words),
                }
            ],
        )
    again = [
        {
            "user": kiro_prompt("tide table", "/home/dev/harbour"),
            "assistant": reply("m-b2", "High water 06:12"),
        }
    ]
    return Store(
        s.path,
        KiroSource(),
        ("conv-a", "conv-b"),
        lambda: s.put("/home/dev/harbour", "conv-b", again),
        (
            "unknown database",
            "not a Kiro CLI database (no conversations_v2 or"
            " conversations table of the known shape)",
        ),
    )


def _amazon_q(tmp: Path) -> Store:
    """Amazon Q Developer CLI's store: one conversation a directory, read as Kiro's."""
    s = AmazonQStore(tmp / "amazon-q" / "data.sqlite3")

    def put(folder: str, cid: str, *words: str) -> None:
        history = [{"user": q_prompt(w, folder), "assistant": q_reply("m-" + w, w)} for w in words]
        s.put(folder, conversation(cid, history, list(words)))

    put("/home/dev/lamp", "conv-a", "lantern wick")
    put("/home/dev/tide", "conv-b", "tide table")
    return Store(
        s.path,
        AmazonQSource(),
        ("conv-a", "conv-b"),
        lambda: put("/home/dev/tide", "conv-b", "tide table", "and low water"),
        (
            "unknown database",
            "not a Kiro CLI database (no conversations_v2 or"
            " conversations table of the known shape)",
        ),
    )


def _zed(tmp: Path) -> Store:
    s = ZedStore(tmp / "zed" / "threads" / "threads.db")
    s.save("thread-a", "Lantern", [zed_user("trim the wick"), zed_agent(zed_text("Trimmed."))])
    s.save("thread-b", "Tides", [zed_user("tide table"), zed_agent(zed_text("06:12"))])
    later = [zed_user("tide table"), zed_agent(zed_text("06:12")), zed_user("and low water")]
    return Store(
        s.path,
        ZedSource(),
        ("thread-a", "thread-b"),
        lambda: s.save("thread-b", "Tides", later, "2026-05-05T09:00:00+00:00"),
        (
            "not a Zed threads store",
            "no threads table with data, data_type, id, summary, updated_at",
        ),
    )


def _crush(tmp: Path, schema: str | None = None) -> Store:
    folder = ".opencode" if schema else ".crush"
    name = "opencode.db" if schema else "crush.db"
    s = CrushStore(tmp / "project" / folder / name, **({"schema": schema} if schema else {}))
    for sid, words in (("ses-a", "lantern wick"), ("ses-b", "tide table")):
        s.session(sid, words)
        s.message(sid, "user", [crush_text(words)])
        s.message(sid, "assistant", [crush_text("Done: " + words)])
    source: Source = OpenCodeSource() if schema else CrushSource()
    return Store(
        s.path,
        source,
        ("ses-a", "ses-b"),
        lambda: s.message("ses-b", "user", [crush_text("and low water")]),
        (
            "unknown database",
            "not a Crush database (no sessions and messages tables of the known shape)",
        ),
    )


_OPENCODE_LACKS = (
    "it lacks session.id, message.id, message.session_id, message.data, part.id,"
    " part.message_id, part.session_id, part.data"
)


def _opencode(tmp: Path) -> Store:
    s = OpenCodeStore(tmp / "opencode" / "opencode.db")
    for sid, words in (("ses_a", "lantern wick"), ("ses_b", "tide table")):
        s.session(sid, "/home/dev/harbour", words)
        said = s.message(sid, "user")
        s.part(sid, said, {"type": "text", "text": words})

    def change() -> None:
        said = s.message("ses_b", "user")
        s.part("ses_b", said, {"type": "text", "text": "and low water"})

    return Store(
        s.path,
        OpenCodeSource(),
        ("ses_a", "ses_b"),
        change,
        ("not a opencode store this reader knows", _OPENCODE_LACKS),
    )


def _goose(tmp: Path) -> Store:
    s = GooseStore(tmp / "goose" / "sessions.db")
    for key, words in (("20260301_1", "lantern wick"), ("20260301_2", "tide table")):
        s.session(key, "/home/dev/harbour", words)
        s.message(key, "user", goose_text(words))
        s.message(key, "assistant", goose_text("Done: " + words))
    return Store(
        s.path,
        GooseSource(),
        ("20260301_1", "20260301_2"),
        lambda: s.message("20260301_2", "user", goose_text("and low water")),
        ("not a Goose session store", "no sessions table with id, working_dir"),
    )


def _warp(tmp: Path) -> Store:
    s = WarpStore(tmp / "warp" / "warp.sqlite")

    def save(key: str, *said: bytes) -> None:
        s.save(key, [("t-" + key, task("t-" + key, key, list(said)))])

    save("conv-a", message("a1", 1_780_000_000, user("trim the wick", "/home/dev/harbour")))
    tide = message("b1", 1_780_000_100, user("tide table", "/home/dev/harbour"))
    save("conv-b", tide)
    more = message("b2", 1_780_000_200, output("High water at 06:12."))
    return Store(
        s.path,
        WarpSource(),
        ("conv-a", "conv-b"),
        lambda: save("conv-b", tide, more),
        (
            "not a Warp store with agent conversations",
            "no agent_conversations table with conversation_data, conversation_id",
        ),
    )


def _opencode_first(tmp: Path) -> Store:
    store = _crush(tmp, FIRST_OPENCODE_SCHEMA)
    # A database of neither schema is taken for the current OpenCode's, and said so.
    store.problem = ("not a opencode store this reader knows", _OPENCODE_LACKS)
    return store


STORES: dict[str, Callable[[Path], Store]] = {
    "kiro": _kiro,
    "amazon-q": _amazon_q,
    "zed": _zed,
    "crush": _crush,
    "opencode-first": _opencode_first,
    "opencode": _opencode,
    "goose": _goose,
    "warp": _warp,
}


def _read(store: Store, cursor: Cursor | None, path: Path | None = None) -> Reading:
    path = path or store.path
    sf = store.source.describe(path)
    with path.open("rb") as fh:
        return store.source.read(sf, fh, cursor)


def _keys(reading: Reading, store: Store) -> set[str]:
    return {key.rsplit(":", 1)[-1] for key in reading.replaced} & set(store.keys)


@pytest.mark.parametrize("name", sorted(STORES))
def test_a_store_is_read_by_session_and_costs_nothing_when_none_moved(
    tmp_path: Path, name: str
) -> None:
    store = STORES[name](tmp_path)
    first = _read(store, None)
    assert _keys(first, store) == set(store.keys) and first.records and not first.problems
    assert first.cursor.lines == 2 and set(first.cursor.state or {}) >= set(store.keys)
    assert first.lines_read >= 2 and first.bytes_read > 0 and not first.fresh

    # The file's stamp may move with no session's token moving: nothing is read.
    still = _read(store, first.cursor)
    assert still.unchanged and still.records == [] and still.cursor == first.cursor
    assert (still.bytes_read, still.lines_read, still.replaced) == (0, 0, frozenset())

    store.change_b()
    second = _read(store, first.cursor)
    assert not second.unchanged and _keys(second, store) == {store.keys[1]}
    assert second.records and all(
        getattr(r, "session_key", store.keys[1]) == store.keys[1] for r in second.records
    )
    moved = {k for k, v in (second.cursor.state or {}).items() if first.cursor.state[k] != v}
    assert moved == {store.keys[1]}


@pytest.mark.parametrize("name", sorted(STORES))
def test_a_database_without_the_agents_tables_is_one_problem(tmp_path: Path, name: str) -> None:
    store = STORES[name](tmp_path)
    other = tmp_path / "other" / store.path.parent.name / store.path.name
    other.parent.mkdir(parents=True)
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE notes (body TEXT)")
    conn.close()
    reading = _read(store, None, other)
    assert reading.records == [] and not reading.unchanged
    assert reading.cursor == Cursor(other.stat().st_size, 0, None, {})
    [problem] = reading.problems
    what, detail = store.problem
    assert problem.line == 0 and problem.reason == what
    assert problem.detail == detail
