"""Re-indexing reads only what changed, and sessions outlive their transcript files."""

from __future__ import annotations

import os
from pathlib import Path

from conftest import index
from transcripts import Transcript, project_dir

from findsession.search.engine import SearchOptions, search
from findsession.storage.sqlite import Store

KW = SearchOptions(mode="keyword")


def live_session(projects: Path) -> tuple[Transcript, Path]:
    t = Transcript(session_id="live")
    t.prompt("set up the postgres replica").reply("The replica streams from the primary.")
    path = t.write(project_dir(projects, "/home/dev/code/db"))
    return t, path


def test_unchanged_files_are_not_read(store: Store, projects: Path) -> None:
    live_session(projects)
    first = index(store, projects)
    assert first.files_read == 1 and first.bytes_read > 0
    again = index(store, projects)
    assert again.files_seen == 1 and again.files_unchanged == 1
    assert again.files_read == 0 and again.bytes_read == 0


def test_appended_lines_are_searchable_after_reading_only_them(
    store: Store, projects: Path
) -> None:
    t, path = live_session(projects)
    index(store, projects)
    size_before = path.stat().st_size
    t.prompt("why is the replica lagging behind by hours?")
    t.reply("wal_keep_size is too small, so the replica falls back to archive recovery.")
    added = t.append_to(path)

    report = index(store, projects)

    assert report.files_read == 1
    assert report.bytes_read == len(added) == path.stat().st_size - size_before
    assert report.lines_read == 2
    hits = search(store, "replica lagging", KW).hits
    assert hits and hits[0].session.id == "live" and hits[0].turn == 2
    assert store.get_session("live").n_turns == 2


def test_reply_appended_to_an_open_turn_joins_it(store: Store, projects: Path) -> None:
    t, path = live_session(projects)
    t.prompt("and the failover?")
    t.append_to(path)
    index(store, projects)
    t.reply("Promote it with pg_ctl promote.")
    t.append_to(path)
    index(store, projects)
    rows = store.query(
        "SELECT ordinal, reply FROM units WHERE session_id='live' AND kind='turn' ORDER BY ordinal"
    )
    assert rows[-1] == (2, "Promote it with pg_ctl promote.")


def test_partial_last_line_waits_for_the_next_run(store: Store, projects: Path) -> None:
    t, path = live_session(projects)
    index(store, projects)
    t.prompt("a prompt still being written")
    whole = t.render()
    t.lines = []
    with open(path, "ab") as fh:
        fh.write(whole[:40])  # cut mid-line, no newline
    report = index(store, projects)
    assert report.problems == []  # not malformed: just not finished
    assert store.get_session("live").n_turns == 1
    with open(path, "ab") as fh:
        fh.write(whole[40:])
    index(store, projects)
    assert store.get_session("live").n_turns == 2


def test_rewritten_or_shrunk_file_is_read_again(store: Store, projects: Path) -> None:
    _, path = live_session(projects)
    index(store, projects)
    t = Transcript(session_id="live")
    t.prompt("completely different: tune the kafka consumer").reply("Raise max.poll.records.")
    path.write_bytes(t.render())  # shorter than before
    report = index(store, projects)
    assert report.bytes_read == path.stat().st_size
    assert not search(store, "postgres replica", KW).hits
    assert search(store, "kafka consumer", KW).hits[0].session.id == "live"

    # Same size and grown, but the old bytes changed: also a full re-read.
    data = path.read_bytes().replace(b"kafka", b"kafkb")
    path.write_bytes(data + Transcript(session_id="x").prompt("more").reply("yes").render())
    index(store, projects)
    assert not search(store, "kafka", KW).hits
    assert store.get_session("live").n_turns == 2


def test_vanished_file_stays_searchable_until_pruned(store: Store, projects: Path) -> None:
    _, path = live_session(projects)
    index(store, projects)
    path.unlink()
    report = index(store, projects)
    assert report.files_missing == 1
    hits = search(store, "postgres replica", KW).hits
    assert hits and hits[0].session.missing
    # The file coming back restores it.
    t, path = live_session(projects)
    index(store, projects)
    assert not store.get_session("live").missing
    path.unlink()
    index(store, projects)
    pruned = index(store, projects, prune=True)
    assert pruned.files_pruned == 1
    assert store.get_session("live") is None
    assert not search(store, "postgres", KW).hits
    assert store.scalar("SELECT count(*) FROM messages") == 0


def test_touched_but_unchanged_file_reads_nothing_new(store: Store, projects: Path) -> None:
    _, path = live_session(projects)
    index(store, projects)
    os.utime(path, ns=(1, 1))
    report = index(store, projects)
    assert report.files_read == 1 and report.bytes_read == 0
    assert store.get_session("live").n_turns == 1


def test_rewrite_that_drops_a_subagent_removes_it_from_search(store: Store, projects: Path) -> None:
    folder = project_dir(projects, "/home/dev/code/db")
    t = Transcript(session_id="rewritten")
    t.prompt("check the indexes").reply("Delegating.")
    side = Transcript(session_id="rewritten", sidechain=True)
    side.prompt("list unused indexes").reply("idx_orders_legacy is never used.")
    t.lines += side.lines
    path = t.write(folder)
    index(store, projects)
    assert search(store, "idx_orders_legacy", KW).hits
    keep = Transcript(session_id="rewritten").prompt("check the indexes").reply("Done.")
    path.write_bytes(keep.render())
    index(store, projects)
    assert not search(store, "idx_orders_legacy", KW).hits
    assert store.get_session("rewritten:sidechain") is None
