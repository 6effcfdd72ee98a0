"""The index of files written, the same on every backend (an SQLite file, and a fresh
database on a real PostgreSQL server): a session's rows replaced whole, found by the
file's name and folder newest first, narrowed to a project, and gone with their session."""

from __future__ import annotations

from findsession.domain import Session
from findsession.storage.base import Storage, WriteRow

TAIL = "/app/pricing.py"


def row(turn: int, path: str, ts: str, text: str = "x = 1", seq: int = 0) -> WriteRow:
    name = path.rsplit("/", 1)[-1]
    absolute = path if path.startswith("/") else None
    return WriteRow(turn, seq, ts, "Edit", "edit", path, absolute, name, "/w/app", text, "x = 0",
                    len(text) > 10)  # fmt: skip


def save(storage: Storage, sid: str, cwd: str, rows: list[WriteRow]) -> None:
    with storage.transaction():
        storage.save_session(Session(sid, "claude-code", f"/t/{sid}.jsonl", cwd, sid, None, None))
        storage.save_file_writes(sid, rows)


def named(storage: Storage, project: str | None = None) -> list[tuple[str, int]]:
    return [(w.session_id, w.turn) for w in storage.file_writes_named("pricing.py", TAIL, project)]


def test_writes_are_found_by_name_and_folder_newest_first_and_replaced_whole(
    storage: Storage,
) -> None:
    first = [row(1, "/w/app/pricing.py", "2026-06-01T09:00:00Z"),
             row(2, "/w/app/other.py", "2026-06-01T09:05:00Z", seq=1)]  # fmt: skip
    save(storage, "a", "/w", first)
    save(storage, "b", "/w", [row(1, "/w/app/pricing.py", "2026-06-02T09:00:00Z",
                                  text="return round(x, 2)")])  # fmt: skip
    save(storage, "c", "/x", [row(3, "/x/app/pricing.py", "2026-06-03T09:00:00Z")])
    save(storage, "d", "/y", [row(1, "/y/lib/pricing.py", "2026-06-04T09:00:00Z"),
                              row(2, "app/pricing.py", "2026-06-04T09:01:00Z", seq=1)])  # fmt: skip
    # d's lib/pricing.py is another folder's file; its relative app/pricing.py may be this.
    assert named(storage) == [("d", 2), ("c", 3), ("b", 1), ("a", 1)]
    found = storage.file_writes_named("pricing.py", TAIL, None)
    assert found[2].session_cwd == "/w" and found[2].truncated and found[2].abs_path
    texts = storage.file_write_texts([found[2].id])
    assert texts == {found[2].id: ("return round(x, 2)", "x = 0")}
    assert named(storage, "/w") == [("b", 1), ("a", 1)]
    assert storage.file_writes_named("nothing.py", "/app/nothing.py", None) == []
    with storage.transaction():  # the session rebuilt: its rows replaced, not added to
        storage.save_file_writes("a", [row(4, "/w/app/pricing.py", "2026-06-05T09:00:00Z")])
    assert named(storage)[0] == ("a", 4) and ("a", 1) not in named(storage)
    assert storage.file_writes_named("other.py", "/app/other.py", None) == []
    assert storage.file_writes_backlog(10) == []  # a new index has nothing left to derive


def test_a_forgotten_sessions_writes_go_with_it(storage: Storage) -> None:
    save(storage, "a", "/w", [row(1, "/w/app/pricing.py", "2026-06-01T09:00:00Z")])
    save(storage, "b", "/w", [row(1, "/w/app/pricing.py", "2026-06-02T09:00:00Z")])
    with storage.transaction():
        storage.forget(["a"])
    assert named(storage) == [("b", 1)]
    with storage.transaction():
        storage.delete_session("b")
    assert named(storage) == []
