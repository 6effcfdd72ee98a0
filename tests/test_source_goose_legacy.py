"""Goose's older sessions (up to 1.9), one `.jsonl` per session, through the real CLI:
read on from a byte offset, titled by their metadata line, resumed by name, and indexed
once when Goose has imported them into `sessions.db` and left the files in place.

The fixture (`fixtures/goose/sessions`) is written from the documented format: a session
with a tool call answered in the next user message, a block of a kind not known here and
a message the person never saw; and a named session with the oldest, shortest metadata.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI
from goose_store import GooseStore, text

from findsession.sources.goose import file_id

FIXTURE = Path(__file__).parent / "fixtures" / "goose" / "sessions"
TIDES, KELP = "20250214_093000", "kelp-farm"


@pytest.fixture
def place(cli: CLI, tmp_path: Path) -> Path:
    """The fixture sessions in Goose's standard folder under the CLI's home."""
    for name in ("XDG_DATA_HOME", "GOOSE_PATH_ROOT"):
        cli.env.pop(name, None)
    folder = tmp_path / "home" / ".local" / "share" / "goose" / "sessions"
    shutil.copytree(FIXTURE, folder)
    return folder


def sid(place: Path, name: str) -> str:
    """The id a session has whether it is read from its file or from the database."""
    return f"{file_id(place / 'sessions.db')}:{name}"


def hits(cli: CLI, query: str) -> list[dict[str, Any]]:
    return cli.json("search", "--mode", "keyword", "--source", "goose", query)["results"]


def found(cli: CLI, query: str) -> list[str]:
    return [h["session"]["id"] for h in hits(cli, query)]


def index(cli: CLI) -> dict[str, Any]:
    return cli.json("index", "--no-embed")


def test_an_older_session_file_gives_its_title_folder_and_turns(cli: CLI, place: Path) -> None:
    report = index(cli)
    assert report["files_read"] == 2 and report["errors"] == []
    [problem] = report["problems"]
    assert (problem["line"], problem["reason"]) == (5, "unknown content block")
    hit = hits(cli, "tide tables harbour master")[0]
    session = hit["session"]
    assert session["id"] == sid(place, TIDES) and session["path"] == str(place / f"{TIDES}.jsonl")
    assert session["title"] == "Tide table parser for harbour charts"
    assert session["cwd"] == "/home/dev/tide tables"
    assert found(cli, "Saltmarsh Quay") == [sid(place, TIDES)]  # the tool's output
    assert found(cli, "xyzzy compaction") == []  # not shown to the person
    messages = cli.json("read", sid(place, TIDES), "--tools")["turns"][0]["messages"]
    assert [(m["kind"], m["tool"]) for m in messages] == [
        ("prompt", None),
        ("reply", None),
        ("tool_call", "developer__shell"),
        ("tool_output", "developer__shell"),
        ("reply", None),
    ]
    raw = cli.json("read", sid(place, TIDES), "--raw")
    assert raw["turns"] == cli.json("read", sid(place, TIDES))["turns"]
    assert hit["resume"]["command"] == ["goose", "session", "--resume", "--name", TIDES]
    assert hit["resume"]["cwd"] == "/home/dev/tide tables"


def test_a_grown_file_is_read_on_from_where_it_stopped(cli: CLI, place: Path) -> None:
    index(cli)
    added = [
        {"role": "user", "created": 1739526000, "content": [text("Add the spring tide flags")]},
        {
            "role": "assistant",
            "created": 1739526030,
            "content": [text("Spring tides are flagged.")],
        },
    ]
    with (place / f"{TIDES}.jsonl").open("a") as fh:
        fh.writelines(json.dumps(m) + "\n" for m in added)
    report = index(cli)
    assert report["files_read"] == 1 and report["lines_read"] == 2
    assert found(cli, "spring tide flags") == [sid(place, TIDES)]
    session = cli.json("read", sid(place, TIDES))
    assert session["total_turns"] == 2
    assert session["session"]["cwd"] == "/home/dev/tide tables"  # from line 1, not re-read


def _import_kelp(place: Path) -> GooseStore:
    """What Goose 1.10 does on its first start: the database made, the `.jsonl` sessions
    imported under their file names, the files left where they were."""
    store = GooseStore(place / "sessions.db")
    store.session(KELP, "/home/dev/kelp", "Kelp farm buoy telemetry")
    store.message(KELP, "user", text("Why do the kelp farm buoys drop their telemetry at dusk?"))
    store.message(KELP, "assistant", text("The buoys switch to the solar-saver radio at dusk."))
    return store


def test_a_session_goose_imported_is_indexed_once_from_its_database(cli: CLI, place: Path) -> None:
    index(cli)  # Goose 1.9: the files alone
    assert found(cli, "kelp buoys telemetry") == [sid(place, KELP)]
    store = _import_kelp(place)
    store.message(KELP, "user", text("And the tide gauge on buoy seven?"))  # goes on in 1.10
    index(cli)
    [hit] = hits(cli, "kelp buoys telemetry dusk")
    assert hit["session"]["id"] == sid(place, KELP)
    assert hit["session"]["path"] == str(store.path)
    assert hit["resume"]["command"] == ["goose", "session", "--resume", "--session-id", KELP]
    assert cli.json("read", sid(place, KELP))["total_turns"] == 2
    old = place / f"{KELP}.jsonl"
    old.write_text(old.read_text().replace("dusk", "dawn"))  # edited: read again from the top
    assert index(cli)["files_read"] == 1
    assert found(cli, "kelp buoys telemetry") == [sid(place, KELP)]
    assert found(cli, "dawn") == [] and cli.json("read", sid(place, KELP))["total_turns"] == 2
    assert found(cli, "Saltmarsh Quay") == [sid(place, TIDES)]  # never imported: kept
    listed = {s["kind"]: s for s in cli.json("sources")["sources"]}["goose"]
    assert listed["sessions"] == 2
    store.close()


def test_a_file_and_its_imported_copy_found_together_make_one_session(
    cli: CLI, place: Path
) -> None:
    """Whichever is read first: the files before the database (their names sort first),
    or the database before a file copied back in later."""
    store = _import_kelp(place)
    report = index(cli)
    assert report["errors"] == []
    assert found(cli, "kelp buoys telemetry") == [sid(place, KELP)]
    assert cli.json("read", sid(place, KELP))["session"]["path"] == str(store.path)
    kept = place.parent / "kept.jsonl"
    (place / f"{KELP}.jsonl").rename(kept)
    cli.run("index", "--no-embed", "--prune")
    kept.rename(place / f"{KELP}.jsonl")
    assert index(cli)["files_read"] == 1
    assert found(cli, "kelp buoys telemetry") == [sid(place, KELP)]
    store.close()
