"""The index of files written, the same on every backend (an SQLite file, and a fresh
database on a real PostgreSQL server): a session's rows replaced whole, found by the
file's name newest first, narrowed to a project, and gone with their session."""

from __future__ import annotations

from findsession.domain import Session
from findsession.storage.base import Storage, WriteRow


def row(turn: int, path: str, ts: str, text: str = "x = 1", seq: int = 0) -> WriteRow:
    name = path.rsplit("/", 1)[-1]
    return WriteRow(turn, seq, ts, "Edit", "edit", path, path, name, "/w/app", text, "x = 0",
                    len(text) > 10)  # fmt: skip


def save(storage: Storage, sid: str, cwd: str, rows: list[WriteRow]) -> None:
    with storage.transaction():
        storage.save_session(Session(sid, "claude-code", f"/t/{sid}.jsonl", cwd, sid, None, None))
        storage.save_file_writes(sid, rows)


def test_writes_are_found_by_name_newest_first_and_replaced_whole(storage: Storage) -> None:
    first = [row(1, "/w/app/pricing.py", "2026-06-01T09:00:00Z"),
             row(2, "/w/app/other.py", "2026-06-01T09:05:00Z", seq=1)]  # fmt: skip
    save(storage, "a", "/w/app", first)
    save(storage, "b", "/w/app", [row(1, "/w/app/pricing.py", "2026-06-02T09:00:00Z",
                                      text="return round(x, 2)")])  # fmt: skip
    save(storage, "c", "/elsewhere", [row(3, "/elsewhere/pricing.py", "2026-06-03T09:00:00Z")])
    found = storage.file_writes_named("pricing.py", None)
    assert [(w.session_id, w.turn) for w in found] == [("c", 3), ("b", 1), ("a", 1)]
    assert found[1].session_cwd == "/w/app" and found[1].truncated
    texts = storage.file_write_texts([found[1].id])
    assert texts == {found[1].id: ("return round(x, 2)", "x = 0")}
    assert [w.session_id for w in storage.file_writes_named("pricing.py", "/w/app")] == ["b", "a"]
    assert storage.file_writes_named("nothing.py", None) == []
    with storage.transaction():  # the session rebuilt: its rows replaced, not added to
        storage.save_file_writes("a", [row(4, "/w/app/pricing.py", "2026-06-04T09:00:00Z")])
    assert [(w.session_id, w.turn) for w in storage.file_writes_named("pricing.py", None)] == [
        ("a", 4), ("c", 3), ("b", 1)
    ]
    assert storage.file_writes_named("other.py", None) == []
    assert storage.file_writes_backlog(10) == []  # a new index has nothing left to derive


def test_a_forgotten_sessions_writes_go_with_it(storage: Storage) -> None:
    save(storage, "a", "/w/app", [row(1, "/w/app/pricing.py", "2026-06-01T09:00:00Z")])
    save(storage, "b", "/w/app", [row(1, "/w/app/pricing.py", "2026-06-02T09:00:00Z")])
    with storage.transaction():
        storage.forget(["a"])
    assert [w.session_id for w in storage.file_writes_named("pricing.py", None)] == ["b"]
    with storage.transaction():
        storage.delete_session("b")
    assert storage.file_writes_named("pricing.py", None) == []
