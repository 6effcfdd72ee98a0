"""After an upgrade that reads a source's files otherwise, an index made before reads
them again once: an unchanged file costs a stat, so without this what an older release
dropped stayed dropped for as long as the file did not change."""

from __future__ import annotations

from pathlib import Path

from conftest import CLI, index
from test_embed_reuse import Counting
from transcripts import Transcript, project_dir

from findsession.embeddings.base import Embedder
from findsession.indexing.embed import embed_pending
from findsession.search.engine import SearchOptions, search
from findsession.storage.sqlite import Store

KW = SearchOptions(mode="keyword")


def write_session(projects: Path) -> None:
    t = Transcript(session_id="upgraded")
    t.prompt("why does the tideline importer skip Tuesdays?")
    t.reply("Its cron mask reads 1-5 as Monday to Friday minus one: Tuesday falls out.")
    t.prompt("fix the mask and rerun")
    t.reply("Mask is 0-6 now; the rerun imported 7 days.")
    t.write(project_dir(projects, "/home/dev/code/tideline"))


def as_an_older_release_left_it(store: Store) -> None:
    """The index as a release before readings were recorded left it, having dropped
    the session's first turn (as turn building did with a turn that opened without a
    typed prompt)."""
    with store.transaction():
        store.execute("DELETE FROM settings WHERE key LIKE 'reading.%'")
        store.execute(
            "DELETE FROM units WHERE session_id = 'upgraded'"
            " AND (title || prompt || reply) LIKE '%Tuesday%'"
        )


def found(store: Store, query: str) -> bool:
    return any(h.session.id == "upgraded" for h in search(store, query, KW).hits)


def test_a_file_an_older_release_read_is_read_again_once(store: Store, projects: Path) -> None:
    write_session(projects)
    index(store, projects)
    assert found(store, "Tuesdays")
    as_an_older_release_left_it(store)
    assert not found(store, "Tuesdays")

    upgrade = index(store, projects)

    assert upgrade.read_anew == ["claude-code"] and upgrade.files_read == 1
    assert found(store, "Tuesdays")
    after = index(store, projects)
    assert after.read_anew == [] and after.files_read == 0 and after.files_unchanged == 1


def test_a_new_index_records_its_reading_and_reads_nothing_twice(
    store: Store, projects: Path
) -> None:
    first = index(store, projects)  # empty: nothing indexed yet
    assert first.read_anew == []
    write_session(projects)
    assert index(store, projects).files_read == 1
    again = index(store, projects)
    assert again.read_anew == [] and again.files_read == 0


def test_reading_again_keeps_the_vectors_of_unchanged_text(
    store: Store, projects: Path, embedder: Embedder
) -> None:
    write_session(projects)
    index(store, projects)
    embed_pending(store, embedder)
    with store.transaction():
        store.execute("DELETE FROM settings WHERE key LIKE 'reading.%'")

    assert index(store, projects).read_anew == ["claude-code"]

    counting = Counting(embedder)
    again = embed_pending(store, counting)
    assert again.units == 0 and counting.texts == 0


def test_the_run_says_which_sources_it_read_again(cli: CLI, tmp_path: Path, store: Store) -> None:
    projects = tmp_path / "home" / ".claude" / "projects"
    projects.mkdir(parents=True)
    write_session(projects)
    cli.run("index", "--no-embed")
    with store.transaction():
        store.execute("DELETE FROM settings WHERE key LIKE 'reading.%'")

    upgrade = cli.run("index", "--no-embed")

    assert "read again from the start" in upgrade.stderr and "claude-code" in upgrade.stderr
    assert cli.json("index", "--no-embed")["read_anew"] == []
