"""One bad file never ends a run: whatever a source raises while reading one file becomes
that file's problem, named in the run's summary and in `status`, read again on the next
run from the cursor it had, while every other file of the run is indexed."""

from __future__ import annotations

import io
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import pytest
from conftest import CLI, index
from rich.console import Console
from transcripts import Transcript, project_dir

from findsession import jsonout, render
from findsession.domain import Message
from findsession.search.engine import SearchOptions, search
from findsession.sources import SOURCES, Cursor, Reading, SourceFile
from findsession.sources.claude_code import ClaudeCodeSource
from findsession.storage.sqlite import Store

KW = SearchOptions(mode="keyword")
FIXTURES = Path(__file__).resolve().parent / "fixtures"


class Flaky(ClaudeCodeSource):
    """Claude Code's real reader, made to raise while it is `armed` and the part of the
    file it reads holds a prompt with `kaboom` in it: a parser bug on one record."""

    armed = True

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        reading = super().read(sf, fh, cursor)
        if self.armed and any(
            isinstance(r, Message) and "kaboom" in r.text for r in reading.records
        ):
            raise AttributeError("'NoneType' object has no attribute 'encode'")
        return reading


@pytest.fixture
def flaky() -> Iterator[Flaky]:
    """The test's source registered in place of Claude Code's for the test's duration."""
    made = SOURCES._made  # type: ignore[attr-defined]  # the registry's made sources
    kind = "claude-code"
    source = Flaky()
    before = made.get(kind)
    made[kind] = source
    yield source
    if before is None:
        made.pop(kind, None)
    else:
        made[kind] = before


def found(store: Store, query: str) -> bool:
    return bool(search(store, query, KW).hits)


def test_a_source_that_raises_costs_its_file_only(
    store: Store, projects: Path, flaky: Flaky
) -> None:
    folder = project_dir(projects, "/home/dev/code/app")
    for n, topic in enumerate(("lighthouse", "tidechart")):
        t = Transcript(session_id=f"fine-{n}")
        t.prompt(f"tune the {topic} parser").reply("Tuned.")
        t.write(folder)
    bad = Transcript(session_id="bad")
    bad.prompt("the kaboom in the oyster farm sensor").reply("Looked.")
    bad_path = bad.write(folder)

    report = index(store, projects)
    assert not report.interrupted
    assert found(store, "lighthouse") and found(store, "tidechart")
    assert not found(store, "oyster")
    [(path, why)] = report.errors
    assert path == str(bad_path)
    assert "AttributeError" in why and "next run" in why
    # One line for it in the run's summary, and it stays named in `status`.
    err = Console(file=io.StringIO(), width=300)
    render.print_index_report(err, report, verbose=False)
    assert f"could not read {bad_path}: AttributeError" in err.file.getvalue()  # type: ignore[attr-defined]
    status = store.status()
    assert [(e["path"], e["status"]) for e in status.file_errors] == [(str(bad_path), "error")]
    out = Console(file=io.StringIO(), width=300)
    render.print_status(out, jsonout.status_json(status))
    assert str(bad_path) in out.file.getvalue()  # type: ignore[attr-defined]

    # The file has not changed, yet the next run reads it again; fixed, it is indexed.
    again = index(store, projects)
    assert [p for p, _ in again.errors] == [str(bad_path)]
    flaky.armed = False
    fixed = index(store, projects)
    assert fixed.errors == [] and fixed.files_read == 1
    assert found(store, "oyster")
    assert store.status().file_errors == []


def test_a_failed_read_keeps_the_cursor_it_had(store: Store, projects: Path, flaky: Flaky) -> None:
    """What the file gave before stays searchable, and once the source reads it again it
    goes on from the old cursor: only the bytes appended since are read."""
    folder = project_dir(projects, "/home/dev/code/app")
    t = Transcript(session_id="growing")
    t.prompt("why does the greenhouse vent stick").reply("The actuator is worn.")
    path = t.write(folder)
    index(store, projects)
    t.prompt("and now a kaboom in the vent log").reply("A bad relay.")
    added = t.append_to(path)

    report = index(store, projects)
    assert [p for p, _ in report.errors] == [str(path)]
    assert found(store, "greenhouse")  # the earlier turn is kept
    assert not found(store, "relay")

    flaky.armed = False
    resumed = index(store, projects)
    assert resumed.errors == []
    assert resumed.bytes_read == len(added)  # on from the old offset, not from the start
    assert found(store, "relay") and found(store, "greenhouse")
    assert store.status().file_errors == []


def _codex_rollout(home: Path) -> Path:
    sid = "019e0000-0000-7000-8000-00000000c0de"
    folder = home / ".codex" / "sessions" / "2026" / "05" / "04"
    folder.mkdir(parents=True)
    path = folder / f"rollout-2026-05-04T10-00-00-{sid}.jsonl"

    def line(kind: str, payload: dict) -> str:
        stamp = "2026-05-04T10:00:00.000Z"
        return json.dumps({"timestamp": stamp, "type": kind, "payload": payload})

    def said(text: str) -> dict:
        content = [{"type": "input_text", "text": text}]
        return {"type": "message", "role": "user", "content": content}

    lines = [
        line("session_meta", {"id": sid, "cwd": "/home/dev/kiln", "timestamp": "2026-05-04"}),
        line("response_item", said("why does the kiln controller overshoot")),
        line("compacted", {"message": ""}),  # a real history holds one like this
        line("compacted", {"message": None, "replacement_history": []}),
        line("response_item", said("now tune the kiln ramp rate")),
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_codex_compaction_with_an_empty_message_is_indexed_with_the_rest(
    cli: CLI, tmp_path: Path
) -> None:
    """A `compacted` record whose message is "" raised in the middle of a real run, and
    the Gemini chats beside it were never indexed."""
    home = tmp_path / "home"
    _codex_rollout(home)
    shutil.copytree(FIXTURES / "gemini" / "home" / ".gemini", home / ".gemini")
    out = cli.run("index", "--json", "--no-embed")
    assert "Traceback" not in out.stderr
    report = json.loads(out.stdout)
    assert report["errors"] == [] and not report["interrupted"]
    counts = {s["kind"]: s for s in cli.json("sources")["sources"]}
    assert counts["codex"]["sessions"] == 1 and counts["gemini"]["sessions"] >= 3
    hits = cli.json("search", "kiln ramp rate", "--mode", "keyword")["results"]
    assert hits and hits[0]["session"]["source"] == "codex"


class Stumbling(ClaudeCodeSource):
    """Claude Code's real source, failing to describe a file named `*stumble*` and to
    walk a folder holding a `stumble` folder, while `armed`."""

    armed = True

    def describe(self, path: Path) -> SourceFile:
        if self.armed and "stumble" in path.name:
            raise KeyError("sidecar")
        return super().describe(path)

    def discover(self, root: Path, skip):  # noqa: ANN001, ANN201
        for path in super().discover(root, skip):
            yield path
            if self.armed and (root / "stumble").is_dir():
                raise ValueError("a folder it did not expect")


@pytest.fixture
def stumbling() -> Iterator[Stumbling]:
    made = SOURCES._made  # type: ignore[attr-defined]
    before = made.get("claude-code")
    made["claude-code"] = source = Stumbling()
    yield source
    if before is None:
        made.pop("claude-code", None)
    else:
        made["claude-code"] = before


def test_a_file_its_source_cannot_describe_costs_that_file(
    store: Store, projects: Path, stumbling: Stumbling
) -> None:
    folder = project_dir(projects, "/home/dev/code/app")
    Transcript(session_id="fine").prompt("tune the lighthouse lens").write(folder)
    odd = Transcript(session_id="stumble-1").prompt("the oyster farm sensor").write(folder)
    report = index(store, projects)
    assert [p for p, _ in report.errors] == [str(odd)] and "KeyError" in report.errors[0][1]
    assert found(store, "lighthouse") and not found(store, "oyster")
    assert [e["path"] for e in store.status().file_errors] == [str(odd)]
    stumbling.armed = False
    assert index(store, projects).errors == [] and found(store, "oyster")


def test_a_folder_its_source_cannot_walk_costs_that_folder_and_prunes_nothing(
    store: Store, tmp_path: Path, stumbling: Stumbling
) -> None:
    """What a failed walk did not see has not vanished: `--prune` keeps it."""
    from findsession.indexing import Root, index_roots

    good, odd = tmp_path / "good", tmp_path / "odd"
    Transcript(session_id="g").prompt("tune the lighthouse lens").write(good / "p")
    for n in range(3):
        Transcript(session_id=f"o{n}").prompt(f"the oyster{n} farm sensor").write(odd / "p")
    (odd / "stumble").mkdir()
    roots = [Root(good, "claude-code"), Root(odd, "claude-code")]
    stumbling.armed = False
    index_roots(store, roots)
    assert all(found(store, f"oyster{n}") for n in range(3))

    stumbling.armed = True
    report = index_roots(store, roots, prune=True)
    assert not report.interrupted and report.files_pruned == 0
    [(where, why)] = report.errors
    assert where == str(odd) and "ValueError" in why
    assert all(found(store, f"oyster{n}") for n in range(3))  # none pruned
    assert found(store, "lighthouse")
