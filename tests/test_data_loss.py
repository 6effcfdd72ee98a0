"""No data lost: what a hostile run found, each reproduced before it was fixed.

Forgetting one project must not forget its neighbours, pruning must not drop a session
another file still holds, a rebuild must neither overwrite an earlier set-aside index nor
bring forgotten sessions back, and no odd file (a FIFO, a link out of the roots, a NUL
byte, an edit in place) may hang a run or hide what a transcript holds.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from conftest import CLI, index
from transcripts import Transcript, project_dir

from findsession.archive.folder import key_of
from findsession.indexing import Root, index_roots
from findsession.projects import in_project
from findsession.search.engine import SearchOptions, search
from findsession.storage.sqlite import Store

KW = SearchOptions(mode="keyword")


def _session(root: Path, sid: str, cwd: str, words: str) -> Path:
    t = Transcript(session_id=sid, cwd=cwd)
    t.prompt(f"question about {words}").reply(f"answer about {words}")
    return t.write(project_dir(root, cwd))


def _ids(n: int) -> str:
    return f"{n:08x}-0000-4000-8000-000000000000"


# -- 1. a project is its path or a path below it, nothing else ---------------------------


def test_project_match_is_exact_path_or_below_case_sensitive_wildcards_literal() -> None:
    assert in_project("/a/my_app", "/a/my_app")
    assert in_project("/a/my_app/sub/deeper", "/a/my_app")
    assert in_project("/a/my_app/sub", "/a/my_app/")
    for other in ("/a/myXapp/sub", "/a/MY_APP/deep", "/a/my%app/x", "/a/my_apps", "/a"):
        assert not in_project(other, "/a/my_app"), other
    assert not in_project("/a/b", "/a/%")
    assert in_project("/a/%/b", "/a/%")
    assert in_project("/anything", "/")
    # Windows paths compare as Windows does: either separator, any case.
    assert in_project("C:\\Users\\Dev\\App\\src", "c:/users/dev/app")
    assert not in_project("C:\\Users\\Dev\\Apps", "C:\\Users\\Dev\\App")


def test_forget_project_forgets_only_that_project(cli: CLI) -> None:
    root = Path(cli.env["CLAUDE_CONFIG_DIR"]) / "projects"
    cwds = ["/a/my_app", "/a/my_app/sub", "/a/myXapp/sub", "/a/MY_APP/deep", "/a/my%app/x"]
    for n, cwd in enumerate(cwds):
        _session(root, _ids(n + 1), cwd, f"topic{n}")
    cli.run("index", "--no-embed")
    out = cli.json("forget", "--project", "/a/my_app")
    assert sorted(out["forgotten"]) == [_ids(1), _ids(2)]
    wild = cli.run("forget", "--project", "/a/%", check=False)
    assert wild.returncode != 0 and "no indexed session" in wild.stderr
    cli.run("index", "--no-embed")
    left = cli.json("search", "question", "--mode", "keyword", "--top", "20")["results"]
    assert sorted(h["session"]["cwd"] for h in left) == sorted(cwds[2:])


def test_search_project_filter_is_case_sensitive(store: Store, projects: Path) -> None:
    _session(projects, _ids(1), "/a/my_app", "kettle")
    _session(projects, _ids(2), "/a/MY_APP", "kettle")
    _session(projects, _ids(3), "/a/my_app_old", "kettle")
    index(store, projects)
    hits = search(store, "kettle", SearchOptions(mode="keyword", project="/a/my_app")).hits
    assert [h.session.id for h in hits] == [_ids(1)]


# -- 2. prune keeps a session another file still holds -----------------------------------


def test_prune_keeps_a_session_copied_into_another_root(store: Store, tmp_path: Path) -> None:
    live, archive = tmp_path / "live", tmp_path / "archive"
    original = _session(live, _ids(7), "/home/dev/app", "heron migration")
    copy = archive / original.relative_to(live)
    copy.parent.mkdir(parents=True)
    shutil.copy2(original, copy)
    roots = [Root(live, "claude-code"), Root(archive, "claude-code")]
    index_roots(store, roots)
    original.unlink()
    index_roots(store, roots, prune=True)
    hits = search(store, "heron", KW).hits
    assert len(hits) == 1 and hits[0].session.file_path == str(copy)
    index_roots(store, roots, prune=True)  # and it stays on the next run
    assert len(search(store, "heron", KW).hits) == 1


def test_prune_keeps_a_project_folder_moved_within_a_root(store: Store, projects: Path) -> None:
    path = _session(projects, _ids(8), "/home/dev/app", "pelican rollout")
    index(store, projects)
    moved = projects / "-home-dev-app-renamed" / path.name
    moved.parent.mkdir()
    shutil.copy2(path, moved)
    index(store, projects)  # both exist for a while (a sync tool copies, then deletes)
    path.unlink()
    index(store, projects, prune=True)
    hits = search(store, "pelican", KW).hits
    assert len(hits) == 1 and hits[0].session.file_path == str(moved)


# -- 3, 7. rebuild: unique set-aside names, forgotten sessions stay forgotten ------------


def test_two_rebuilds_in_one_second_keep_both_set_aside_files(cli: CLI) -> None:
    root = Path(cli.env["CLAUDE_CONFIG_DIR"]) / "projects"
    for n in range(3):
        _session(root, _ids(n + 1), "/home/dev/app", f"word{n}")
    cli.run("index", "--no-embed")
    db = Path(cli.env["FINDSESSION_DB"])
    cli.run("index", "--no-embed", "--rebuild")
    cli.run("index", "--no-embed", "--rebuild")
    aside = [p for p in db.parent.iterdir() if ".broken-" in p.name]
    aside = [p for p in aside if not p.name.endswith(("-wal", "-shm"))]
    assert len(aside) == 2, aside
    for p in aside:
        with Store.open(p) as old:
            assert old.scalar("SELECT count(*) FROM sessions") == 3


def test_rebuild_does_not_bring_forgotten_sessions_back(cli: CLI) -> None:
    root = Path(cli.env["CLAUDE_CONFIG_DIR"]) / "projects"
    _session(root, _ids(1), "/home/dev/app", "albatross")
    _session(root, _ids(2), "/home/dev/app", "cormorant")
    cli.run("index", "--no-embed")
    cli.run("forget", _ids(1)[:8])
    cli.run("index", "--no-embed", "--rebuild")
    assert cli.json("status")["sessions"] == 1
    assert cli.json("search", "albatross", "--mode", "keyword")["results"] == []


# -- 4. forget refuses blank ids and says when nothing matched -----------------------------


def test_forget_refuses_blank_ids_and_reports_no_match(cli: CLI) -> None:
    root = Path(cli.env["CLAUDE_CONFIG_DIR"]) / "projects"
    _session(root, _ids(1), "/home/dev/app", "puffin")
    cli.run("index", "--no-embed")
    for blank in (" ", ""):
        proc = cli.run("forget", blank, check=False)
        assert proc.returncode != 0 and "blank" in proc.stderr.lower(), proc.stderr
    proc = cli.run("forget", "ffffffff", check=False)
    assert proc.returncode != 0 and "no indexed session" in proc.stderr
    assert cli.json("status")["sessions"] == 1


# -- 5. a NUL byte costs its line, not the file -------------------------------------------


def test_a_nul_byte_skips_only_its_line_and_names_the_file(store: Store, projects: Path) -> None:
    folder = project_dir(projects, "/home/dev/app")
    t = Transcript(session_id=_ids(5))
    t.raw('{"type":"user","bro\x00ken":1}')
    t.prompt("how do we shard the kingfisher table").reply("By tenant id.")
    path = t.write(folder)
    report = index(store, projects)
    assert [(p.line, p.reason) for _, p in report.problems] == [(1, "NUL byte in line")]
    assert [h.session.id for h in search(store, "kingfisher", KW).hits] == [_ids(5)]
    assert report.problems[0][0] == str(path)


def test_a_binary_file_is_named_in_the_report(store: Store, projects: Path) -> None:
    folder = project_dir(projects, "/home/dev/app")
    folder.mkdir(parents=True)
    (folder / "blob.jsonl").write_bytes(b"\x00\x01\x02" * 5000)
    report = index(store, projects)
    assert [(Path(p).name, why) for p, why in report.skipped] == [
        ("blob.jsonl", "binary: no line of it is JSON")
    ]


# -- 6. an edit in place is seen ----------------------------------------------------------


def test_a_same_size_edit_far_before_the_end_is_read_again(store: Store, projects: Path) -> None:
    folder = project_dir(projects, "/home/dev/app")
    t = Transcript(session_id=_ids(6))
    t.prompt("the token is tok_oriole_1234 keep it").reply("ok")
    for n in range(40):
        t.prompt(f"filler question {n} " + "x" * 100).reply("filler answer " + "y" * 100)
    path = t.write(folder)
    index(store, projects)
    assert search(store, "tok_oriole_1234", KW).hits
    data = path.read_bytes()
    st = path.stat()
    path.write_bytes(data.replace(b"tok_oriole_1234", b"tok_XXXXXX_XXXX"))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    index(store, projects)
    assert search(store, "tok_oriole_1234", KW).hits == []
    assert search(store, "tok_XXXXXX_XXXX", KW).hits


# -- 10, 11. forget leaves no byte behind; side files are private -------------------------


def test_forget_leaves_no_byte_of_the_text_in_the_keyword_index(cli: CLI) -> None:
    root = Path(cli.env["CLAUDE_CONFIG_DIR"]) / "projects"
    for n in range(4):
        t = Transcript(session_id=_ids(n + 1), cwd="/home/dev/app")
        for turn in range(20):
            word = "zyxwvquokka" if n == 0 else f"common{turn}"
            t.prompt(f"{word} question {turn} about budgets").reply(f"{word} answer {turn}")
        t.write(project_dir(root, "/home/dev/app"))
    cli.run("index", "--no-embed")
    cli.run("forget", _ids(1)[:8])
    db = Path(cli.env["FINDSESSION_DB"])
    files = [p for p in db.parent.rglob("*") if p.is_file()]
    stored = b"".join(p.read_bytes() for p in files if p.name.startswith(db.name))
    assert b"zyxwvquokka" not in stored
    assert b"quokka" not in stored
    # The archive beside the index kept the transcripts as written: the forgotten one's
    # copy is gone with it, the others stay.
    archived = {p.name for p in files if p.suffix == ".zst"}
    gone = project_dir(root, "/home/dev/app") / f"{_ids(1)}.jsonl"
    assert len(archived) == 3 and f"{key_of(str(gone))}.zst" not in archived


def test_wal_and_shm_are_created_private(db_path: Path) -> None:
    with Store.open(db_path) as store:
        with store.transaction():
            store.set_setting("probe", "1")
        for suffix in ("", "-wal", "-shm"):
            side = Path(f"{db_path}{suffix}")
            assert side.exists(), side
            assert stat.S_IMODE(side.stat().st_mode) == 0o600, side


# -- 12, 14, 17. links out of the roots, FIFOs, unreadable folders ------------------------


def test_a_link_out_of_the_roots_is_not_followed(
    store: Store, projects: Path, tmp_path: Path
) -> None:
    folder = project_dir(projects, "/home/dev/app")
    _session(projects, _ids(1), "/home/dev/app", "osprey")
    outside = tmp_path / "outside.jsonl"
    Transcript(session_id=_ids(2)).prompt("secret plans of the grebe").reply("x").write(
        tmp_path, "outside.jsonl"
    )
    (folder / "x.jsonl").symlink_to(outside)
    (folder / "y.jsonl").symlink_to("/dev/zero")
    inside = folder / (_ids(1) + ".jsonl")
    (folder / "z.jsonl").symlink_to(inside)  # inside the root: fine
    report = index(store, projects)
    assert not search(store, "grebe", KW).hits
    skipped = {Path(p).name: why for p, why in report.skipped}
    assert "outside the indexed folders" in skipped["x.jsonl"]
    assert "outside the indexed folders" in skipped["y.jsonl"]
    assert "z.jsonl" not in skipped


def test_a_fifo_does_not_hang_the_run(projects: Path, db_path: Path, tmp_path: Path) -> None:
    folder = project_dir(projects, "/home/dev/app")
    _session(projects, _ids(1), "/home/dev/app", "bittern")
    os.mkfifo(folder / "pipe.jsonl")
    env = {**os.environ, "FINDSESSION_DB": str(db_path), "HOME": str(tmp_path / "home")}
    for _ in range(2):  # the second run must not hang either
        proc = subprocess.run(
            [sys.executable, "-m", "findsession", "index", "--no-embed", str(projects)],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.returncode == 0, proc.stderr
        assert "pipe.jsonl" in proc.stderr and "not a regular file" in proc.stderr
    with Store.open(db_path) as store:
        assert search(store, "bittern", KW).hits


def test_an_unreadable_folder_is_named(tmp_path: Path, projects: Path) -> None:
    _session(projects, _ids(1), "/home/dev/app", "plover")
    locked = projects / "-home-dev-locked"
    locked.mkdir()
    (locked / "a.jsonl").write_text("{}\n")
    locked.chmod(0)
    env = {**os.environ, "FINDSESSION_DB": str(tmp_path / "db" / "i.db"), "HOME": str(tmp_path)}
    try:
        proc = subprocess.run(
            [*_without_root_rights(), sys.executable, "-m", "findsession", "index"]
            + ["--no-embed", "--json", str(projects)],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        locked.chmod(0o755)
    assert proc.returncode == 0, proc.stderr
    skipped = json.loads(proc.stdout)["skipped"]
    assert [(Path(s["path"]).name, s["reason"]) for s in skipped] == [
        ("-home-dev-locked", "cannot read the folder: Permission denied")
    ]
    assert "-home-dev-locked" in proc.stderr


def _without_root_rights() -> list[str]:
    """A command prefix under which file modes apply even to root (as they do to users)."""
    if os.geteuid() != 0:
        return []
    if not shutil.which("setpriv"):
        pytest.skip("needs setpriv(1) to drop root's right to read any folder")
    return ["setpriv", "--bounding-set", "-dac_override,-dac_read_search"]


# -- 15. two processes opening a new index at once ---------------------------------------


def test_two_processes_creating_an_index_at_once_both_succeed(tmp_path: Path) -> None:
    for attempt in range(6):
        db = tmp_path / f"race{attempt}" / "index.db"
        env = {**os.environ, "FINDSESSION_DB": str(db), "HOME": str(tmp_path / "home")}
        procs = [
            subprocess.Popen(
                [sys.executable, "-m", "findsession", "status"],
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(3)
        ]
        for proc in procs:
            _, stderr = proc.communicate(timeout=120)
            assert proc.returncode == 0, stderr


def test_concurrent_opens_in_threads_share_one_migration(tmp_path: Path) -> None:
    db = tmp_path / "t" / "index.db"
    errors: list[BaseException] = []

    def open_it() -> None:
        try:
            Store.open(db).close()
        except BaseException as exc:  # noqa: BLE001 - collected for the assertion
            errors.append(exc)

    threads = [threading.Thread(target=open_it) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


# -- 16. a read-only index is still searchable; unusable paths are one line -------------


def _make_index(cli: CLI) -> Path:
    root = Path(cli.env["CLAUDE_CONFIG_DIR"]) / "projects"
    _session(root, _ids(1), "/home/dev/app", "avocet")
    cli.run("index", "--no-embed")
    return Path(cli.env["FINDSESSION_DB"])


def _read_only(cli: CLI, folder: Path, *args: str) -> subprocess.CompletedProcess:
    """Run the CLI with `folder` on a read-only mount (root ignores file modes)."""
    if os.geteuid() != 0:
        old = stat.S_IMODE(folder.stat().st_mode)
        folder.chmod(0o555)
        for p in folder.iterdir():
            p.chmod(0o444)
        try:
            return cli.run(*args, check=False)
        finally:
            folder.chmod(old)
    if not shutil.which("unshare"):
        pytest.skip("needs unshare(1) to mount a folder read-only as root")
    script = 'mount --bind -o ro "$0" "$0" && exec "$@"'
    return subprocess.run(
        [
            "unshare",
            "--mount",
            "sh",
            "-c",
            script,
            str(folder),
            sys.executable,
            "-m",
            "findsession",
            *args,
        ],
        env=cli.env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_read_only_index_is_still_searchable(cli: CLI) -> None:
    db = _make_index(cli)
    proc = _read_only(cli, db.parent, "search", "--json", "avocet", "--mode", "keyword")
    assert proc.returncode == 0, proc.stderr
    assert len(json.loads(proc.stdout)["results"]) == 1
    proc = _read_only(cli, db.parent, "status", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["sessions"] == 1
    proc = _read_only(cli, db.parent, "index", "--no-embed")
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr and "read-only" in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


@pytest.mark.parametrize("where", ["/dev/null", "{tmp}/file/index.db", "{tmp}/file/sub/x.db"])
def test_an_unusable_index_path_is_one_line(cli: CLI, tmp_path: Path, where: str) -> None:
    (tmp_path / "file").write_text("a file, not a folder")
    cli.env["FINDSESSION_DB"] = where.format(tmp=tmp_path)
    for command in ("status", "index"):
        proc = cli.run(command, check=False)
        assert proc.returncode != 0
        assert "Traceback" not in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
        assert "--db" in proc.stderr
    assert Path("/dev/null").is_char_device()


def test_mcp_project_scope_treats_wildcards_literally(cli: CLI, tmp_path: Path) -> None:
    from test_mcp import call, connect

    root = Path(cli.env["CLAUDE_CONFIG_DIR"]) / "projects"
    for n, cwd in enumerate(["/a/my_app", "/a/myXapp", "/a/MY_APP/deep", "/b/other"]):
        _session(root, _ids(n + 1), cwd, "ibis migration")
    cli.run("index", "--no-embed")
    # Opened to every project, so that a directory argument is a filter, not refused.
    Path(cli.env["FINDSESSION_CONFIG"]).write_text("[mcp]\nall_projects = true\n")

    async def go() -> None:
        async with connect(cli, tmp_path) as client:
            failed, listed = await call(client, "list_sessions", directory="%")
            assert not failed and listed["sessions"] == []
            failed, listed = await call(client, "list_sessions", directory="/a/my_app")
            assert [s["id"] for s in listed["sessions"]] == [_ids(1)]
            failed, found = await call(
                client, "search_conversation", query="ibis migration", directory="/a/my_app"
            )
            assert not failed
            assert {h["session"]["id"] for h in found["results"]} == {_ids(1)}

    asyncio.run(go())


def test_read_raw_does_not_hang_on_a_transcript_replaced_by_a_fifo(cli: CLI) -> None:
    root = Path(cli.env["CLAUDE_CONFIG_DIR"]) / "projects"
    path = _session(root, _ids(1), "/home/dev/app", "shearwater")
    cli.run("index", "--no-embed")
    path.unlink()
    os.mkfifo(path)
    proc = cli.run("read", "--raw", _ids(1)[:8], check=False)
    assert proc.returncode == 0, proc.stderr
    assert "shearwater" in proc.stdout  # the indexed text stands in


def test_a_file_rewritten_in_place_is_read_again_only_when_its_content_changed(
    tmp_path: Path,
) -> None:
    from findsession.domain import MetaEvent, MetaKind
    from findsession.sources.cursor import read_whole

    def parse(data: bytes, problems: list) -> list[MetaEvent]:  # noqa: ARG001
        return [MetaEvent(MetaKind.CUSTOM_TITLE, data.decode(), 1)] if data.strip() else []

    path = tmp_path / "chat.json"
    path.write_bytes(b"first title")
    with open(path, "rb") as fh:
        first = read_whole(fh, None, parse)
    assert first.fresh and [r.value for r in first.records] == ["first title"]
    with open(path, "rb") as fh:
        again = read_whole(fh, first.cursor, parse)
    assert again.unchanged and again.records == []
    path.write_bytes(b"other title")  # same size, other bytes
    with open(path, "rb") as fh:
        third = read_whole(fh, first.cursor, parse)
    assert third.fresh and [r.value for r in third.records] == ["other title"]
    path.write_bytes(b"\x00\x01\x02")
    with open(path, "rb") as fh:
        assert read_whole(fh, third.cursor, lambda d, p: []).binary
