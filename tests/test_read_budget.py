"""The work one file may cost: a small compressed file that expands to millions of lines
(a CPU bomb), or a transcript too long for one read, is cut at the budget, named in one
line of the run's summary and in `status`, and the rest of the run goes on.

A 293 KB `rollout-*.jsonl.zst` of `{}` lines kept `findsession index` busy for more than
five minutes: the cap on decompressed bytes bounded memory, not time."""

from __future__ import annotations

import io
import json
import random
import time
from pathlib import Path
from typing import Any

import pytest
import zstandard
from chat_exports import APPS, expected, zipped
from conftest import CLI, index
from peak_memory import run_measured
from transcripts import Transcript, project_dir

from findsession.domain import Root
from findsession.indexing.run import index_roots
from findsession.search.engine import SearchOptions, search
from findsession.sources import budget, codex, codex_zst
from findsession.storage.sqlite import Store

KW = SearchOptions(mode="keyword")
BOMB_ID = "019e0000-0000-7000-8000-00000000b0b0"


def zstd_bomb(path: Path, lines: int) -> Path:
    """`lines` lines of `{}` compressed as Codex compresses a rollout, streamed so the
    expanded text is never held whole."""
    out = io.BytesIO()
    chunk = b"{}\n" * (1 << 20)
    with zstandard.ZstdCompressor(level=3).stream_writer(out, closefd=False) as writer:
        for _ in range(lines >> 20):
            writer.write(chunk)
        writer.write(b"{}\n" * (lines & ((1 << 20) - 1)))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(out.getvalue())
    return path


def test_a_compressed_bomb_costs_seconds_and_is_named(cli: CLI, tmp_path: Path) -> None:
    """A gigabyte of `{}` lines in about a hundred KB of zstd, beside a real session."""
    home = tmp_path / "home"
    folder = home / ".codex" / "sessions" / "2026" / "05" / "04"
    bomb = zstd_bomb(folder / f"rollout-2026-05-04T10-00-00-{BOMB_ID}.jsonl.zst", 350_000_000)
    assert bomb.stat().st_size < 300_000
    t = Transcript(session_id="5ac30ab5-0000-4000-8000-00000000cafe", cwd="/home/dev/mill")
    t.prompt("why does the millwheel bearing squeal").reply("It wants grease.")
    t.write(project_dir(home / ".claude" / "projects", "/home/dev/mill"))

    started = time.monotonic()
    out = cli.run("index", "--json", "--no-embed")
    assert time.monotonic() - started < 150  # more than five minutes before
    report = json.loads(out.stdout)
    assert report["errors"] == [] and not report["interrupted"]
    [cut] = report["cut"]
    assert cut["path"] == str(bomb) and "over 1,000,000 lines" in cut["reason"]
    assert f"cut short ~/{bomb.relative_to(home)}: over 1,000,000 lines" in out.stderr
    assert cli.json("search", "millwheel bearing", "--mode", "keyword")["results"]
    status = cli.json("status")
    assert [(f["path"], f["status"]) for f in status["file_errors"]] == [(str(bomb), "ok")]
    # Read whole, cut, and unchanged since: the next run does not pay for it again.
    again = cli.json("index", "--no-embed")
    assert again["files_read"] == 0 and again["cut"] == []


def test_a_long_transcript_is_read_on_from_the_cut_on_the_next_run(
    store: Store, projects: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(budget, "MAX_LINES", 10)
    folder = project_dir(projects, "/home/dev/code/app")
    t = Transcript(session_id="long")
    for n in range(12):
        t.prompt(f"question {n} about the sluice{n} gate").reply(f"answer {n}")
    path = t.write(folder)  # 24 lines

    first = index(store, projects)
    assert [p for p, _ in first.cut] == [str(path)]
    assert "over 10 lines" in first.cut[0][1] and "read on the next run" in first.cut[0][1]
    assert search(store, "sluice4", KW).hits and not search(store, "sluice5", KW).hits
    assert [f["path"] for f in store.status().file_errors] == [str(path)]

    second = index(store, projects)  # the file did not change: read on all the same
    assert second.lines_read == 10 and search(store, "sluice9", KW).hits
    third = index(store, projects)
    assert third.lines_read == 4 and third.cut == []
    assert search(store, "sluice11", KW).hits
    assert store.status().file_errors == []
    assert index(store, projects).files_read == 0


def test_a_read_is_cut_at_its_time(
    store: Store, projects: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(budget, "MAX_SECONDS", 0.0)
    folder = project_dir(projects, "/home/dev/code/app")
    t = Transcript(session_id="slow")
    for n in range(200):
        t.prompt(f"question {n}").reply(f"answer {n}")
    path = t.write(folder)  # 400 lines: the clock is looked at every 256
    report = index(store, projects)
    assert [(p, "over 0 s in one read" in why) for p, why in report.cut] == [(str(path), True)]
    assert report.lines_read == 255


#: One rollout line of each kind a bomb of valid records repeats (the shape Codex writes).
_META = {
    "timestamp": "2026-05-04T10:00:00.000Z",
    "type": "session_meta",
    "payload": {"id": BOMB_ID, "timestamp": "2026-05-04T10:00:00.000Z", "cwd": "/home/dev/mill",
                "originator": "codex_cli_rs", "cli_version": "0.128.0", "source": "cli"},
}  # fmt: skip


def _said(role: str, text: str) -> bytes:
    kind = "input_text" if role == "user" else "output_text"
    line = {
        "timestamp": "2026-05-04T10:00:01.000Z",
        "type": "response_item",
        "payload": {"type": "message", "role": role, "content": [{"type": kind, "text": text}]},
    }
    return (json.dumps(line) + "\n").encode()


def valid_bomb(path: Path, turns: int) -> Path:
    """A rollout of `turns` identical valid turns (a prompt and its reply), compressed
    as Codex compresses one: a few KB that a reader without a bound takes for millions
    of messages."""
    out = io.BytesIO()
    turn = _said("user", "why does the millrace sluice stick") + _said(
        "assistant", "The sluice gate swells when wet; plane its edge."
    )
    with zstandard.ZstdCompressor(level=3).stream_writer(out, closefd=False) as writer:
        writer.write((json.dumps(_META) + "\n").encode())
        for _ in range(turns // 10_000):
            writer.write(turn * 10_000)
        writer.write(turn * (turns % 10_000))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(out.getvalue())
    return path


def _indexed(cli: CLI, folder: Path) -> tuple[dict[str, Any], str, float, float]:
    """`index --json --no-embed` in a process of its own: its report, what it said,
    its wall seconds and its peak memory in MB."""
    out, err = folder / "out", folder / "err"
    started = time.monotonic()
    with out.open("wb") as stdout, err.open("wb") as stderr:
        code, peak = run_measured(
            ["index", "--json", "--no-embed"], cli.env, folder, stdout, stderr
        )
    seconds = time.monotonic() - started
    said = err.read_text("utf-8")
    assert code == 0, said
    return json.loads(out.read_text("utf-8")), said, seconds, peak


def test_a_compressed_file_of_valid_records_adds_what_its_size_allows(
    cli: CLI, tmp_path: Path
) -> None:
    """15 KB of zstd holding a million valid messages took 152 s and 1.26 GB and made an
    876 MB index. A compressed file now expands to 250 times its size at most, and is
    parsed a slice at a time: the run is short, its memory and the index small, and the
    cut is one line naming the file."""
    home = tmp_path / "home"
    folder = home / ".codex" / "sessions" / "2026" / "05" / "04"
    bomb = valid_bomb(folder / f"rollout-2026-05-04T10-00-00-{BOMB_ID}.jsonl.zst", 500_000)
    assert bomb.stat().st_size < 64_000
    report, said, seconds, peak = _indexed(cli, tmp_path)
    db = Path(cli.env["FINDSESSION_DB"])
    size_mb = sum(p.stat().st_size for p in db.parent.iterdir()) / 1e6
    print(f"{seconds:.1f} s, peak {peak:.0f} MB, index {size_mb:.1f} MB")
    assert seconds < 60 and peak < 300 and size_mb < 64, (seconds, peak, size_mb)
    [cut] = report["cut"]
    assert cut["path"] == str(bomb) and "times its" in cut["reason"], cut
    lines = [line for line in said.splitlines() if "cut short" in line]
    assert len(lines) == 1 and lines[0].startswith(f"cut short ~/{bomb.relative_to(home)}: over")
    assert cli.json("search", "millrace sluice", "--mode", "keyword")["results"]
    assert cli.json("index", "--no-embed")["files_read"] == 0  # cut, and not read again


def test_a_compressed_rollout_is_read_a_slice_at_a_time_and_loses_no_turn(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As a plain rollout is: each slice's records are stored before the next is parsed
    (a compressed one was parsed whole, a million messages in memory at once), in the
    mode the slice before ended in, and every turn is found."""
    monkeypatch.setattr(codex_zst, "SLICE_BYTES", 2_000)
    slices = []
    read = codex_zst.read_compressed

    def counted(*args: Any) -> Any:
        reading = read(*args)
        slices.append(len(reading.records))
        return reading

    monkeypatch.setattr(codex, "read_compressed", counted)
    sessions = tmp_path / ".codex" / "sessions"
    lines = [(json.dumps(_META) + "\n").encode()] + [
        _said(role, f"{words} sluice{n} gate")
        for n in range(60)
        for role, words in (("user", "how is"), ("assistant", "oiled is"))
    ]
    path = sessions / "2026" / "05" / "04" / f"rollout-2026-05-04T10-00-00-{BOMB_ID}.jsonl.zst"
    path.parent.mkdir(parents=True)
    path.write_bytes(zstandard.ZstdCompressor().compress(b"".join(lines)))
    report = index_roots(store, [Root(sessions, "codex")])
    assert report.cut == [] and report.errors == [] and len(slices) > 3, slices
    assert store.totals()[1] == 60
    for n in (0, 29, 59):
        assert search(store, f"sluice{n}", KW).hits, n
    assert index_roots(store, [Root(sessions, "codex")]).files_read == 0


def test_a_big_chat_export_is_read_over_several_runs_each_going_on_from_the_last(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An export of more conversations than one read may cost is cut, named, and read on
    from the conversations not yet read by the next runs, never from the start."""
    monkeypatch.setattr(budget, "MAX_LINES", 1)
    app = APPS["chatgpt"]
    export = zipped(app.older, tmp_path / "export.zip")
    conversations, _ = expected(app, app.older)
    read = []
    for _ in range(conversations):
        report = index_roots(store, [Root(export, "chatgpt")])
        read.append(report.sessions_changed)
        if len(read) < conversations:
            [(path, why)] = report.cut
            assert path == str(export) and "read on the next run" in why
    assert read == [1] * conversations  # one more each run, none twice
    final = index_roots(store, [Root(export, "chatgpt")])
    assert final.cut == [] and final.sessions_changed == 0
    assert store.totals()[0] == conversations


def test_a_compressed_blob_past_its_cap_is_cut_and_named() -> None:
    """A zstd blob held in memory (a thread in Zed's database) is capped as a file is,
    by its own size: past the cap decompression stops and says so, rather than failing
    the whole store's read."""
    blob = zstandard.ZstdCompressor().compress(b"x" * (3 << 20))
    kept, stopped = codex_zst.inflate(blob)
    assert len(kept) == 1 << 20  # the floor: 250 times a few hundred bytes is less
    assert stopped.cut == f"over 1 MB decompressed from {len(blob) / 1e3:,.1f} KB"
    block = random.Random(7).randbytes(8192)  # 4 MB that compresses about 500 times
    blob = zstandard.ZstdCompressor().compress(block * 512)
    kept, stopped = codex_zst.inflate(blob)
    assert len(kept) == 250 * len(blob) and "250 times its" in (stopped.cut or "")
