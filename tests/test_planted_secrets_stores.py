"""The agents that keep a database, with secrets planted in every text of it, leave no
trace in the index: `test_planted_secrets_sources` for the stores.

Each store is built in its agent's standard place by the builder its own source test
uses, then every text value of every table (JSON documents inside and out, paths,
branch names, argv lists, titles, folders) gets the secrets as that test plants them,
through SQLite itself. The real CLI indexes it; no 10-character piece of any secret may
be in the index's bytes, its WAL, or any value or keyword-index term.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import zstandard
from conftest import CLI
from fuzz_seeds import full_text_shadows, full_text_tables
from test_planted_secrets_sources import _plant, leaks

Build = Callable[[CLI, Path], list[Path]]
#: The magic number a zstd frame starts with (Zed compresses each thread).
_ZSTD = b"\x28\xb5\x2f\xfd"


def _opencode(cli: CLI, home: Path) -> list[Path]:
    from opencode_store import OpenCodeStore
    from test_source_opencode import fill

    cli.env.pop("XDG_DATA_HOME", None)
    db = OpenCodeStore(home / ".local" / "share" / "opencode" / "opencode.db")
    fill(db)
    db.close()
    return [db.path]


def _goose(cli: CLI, home: Path) -> list[Path]:
    from goose_store import GooseStore, text, thinking, tool_request, tool_response

    for name in ("XDG_DATA_HOME", "GOOSE_PATH_ROOT"):
        cli.env.pop(name, None)
    path = home / ".local" / "share" / "goose" / "sessions" / "sessions.db"
    store = GooseStore(path)
    store.session("20260601_1", "/home/dev/ferry times", "Harbour ferry timetable scraper")
    store.message("20260601_1", "user", text("Scrape the harbour ferry timetable into a feed"))
    store.message(
        "20260601_1",
        "assistant",
        thinking("The timetable is an HTML table with one row per sailing."),
        tool_request("call_1", "developer__shell", command="make scrape", path="/srv/scrape.py"),
    )
    store.message("20260601_1", "user", tool_response("call_1", "Kelp Island departs 07:15"))
    store.message("20260601_1", "assistant", text("The feed lists every sailing of the harbour."))
    store.close()
    return [path]


def _crush(cli: CLI, home: Path) -> list[Path]:
    from crush_store import CrushStore
    from test_source_crush import build

    for name in ("XDG_DATA_HOME", "CRUSH_GLOBAL_DATA"):
        cli.env.pop(name, None)
    project = home / "code" / "rivet"
    store = CrushStore(project / ".crush" / "crush.db")
    build(store)
    store.close()
    listing = home / ".local" / "share" / "crush" / "projects.json"
    listing.parent.mkdir(parents=True)
    entry = {"path": str(project), "data_dir": str(project / ".crush"), "last_accessed": "x"}
    listing.write_text(json.dumps({"projects": [entry]}))
    return [project / ".crush" / "crush.db"]


def _kiro(cli: CLI, home: Path) -> list[Path]:
    from kiro_store import KiroStore, prompt, reply, tool_use
    from test_source_kiro import FIXTURE

    cli.env.pop("XDG_DATA_HOME", None)
    shutil.copytree(FIXTURE, home / ".kiro" / "sessions" / "cli")
    db = KiroStore(home / ".local" / "share" / "kiro-cli" / "data.sqlite3")
    db.put(
        "/home/dev/orchard",
        "7f0c1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b",
        [
            {
                "user": prompt("How should the orchard irrigation skip rainy days?", "/home/dev"),
                "assistant": tool_use(
                    "m-1", "Checking the feed.", ("tu-1", "execute_bash", {"command": "curl x"})
                ),
            },
            {"user": prompt("and the pear rows?", "/home/dev"), "assistant": reply("m-2", "Ok.")},
        ],
    )
    db.close()
    return [db.path]


def _amazon_q(cli: CLI, home: Path) -> list[Path]:
    from amazon_q_store import AmazonQStore
    from test_source_amazon_q import loom, river, slate

    cli.env.pop("XDG_DATA_HOME", None)
    db = AmazonQStore(home / ".local" / "share" / "amazon-q" / "data.sqlite3")
    for key, value in (("/home/dev/river", river()), ("/home/dev/loom", loom()),
                       ("/home/dev/slate", slate())):  # fmt: skip
        db.put(key, value)
    db.close()
    return [db.path]


def _cursor(cli: CLI, home: Path) -> list[Path]:
    from test_source_cursor_ide import build

    cli.env["XDG_CONFIG_HOME"] = str(home / ".config")
    places = build(home)
    return [places.editor_db, places.workspace_db]


def _zed(cli: CLI, home: Path) -> list[Path]:
    from test_source_zed import PROJECT
    from zed_store import ZedStore, agent, result, text, thinking, tool_use, user

    for name in ("XDG_DATA_HOME", "FLATPAK_XDG_DATA_HOME"):
        cli.env.pop(name, None)
    store = ZedStore(home / ".local" / "share" / "zed" / "threads" / "threads.db")
    attached = ("/home/dev/kiln/notes/firing log.md", "The firing log of the kiln")
    store.save("z-1", "Kiln ramp controller", [
        user("Why does the kiln overshoot its ramp?", attached),
        agent(
            thinking("The integral term winds up during the ramp."),
            text("Reading the controller first."),
            tool_use("t1", "write_file", {"path": "kiln/src/pid.rs", "content": "fn step() {}"}),
            results=(result("t1", "write_file", "Created the file pid.rs"),),
        ),
    ], folders=(PROJECT,))  # fmt: skip
    store.save("z-2", "Probe check", [user("Which probe type is it?"), agent(text("Type K."))],
               parent="z-1")  # fmt: skip
    store.close()
    return [store.path]


def _warp(cli: CLI, home: Path) -> list[Path]:
    from test_source_warp import build

    cli.env.pop("XDG_STATE_HOME", None)
    return [build(home)]


def _llm(cli: CLI, home: Path) -> list[Path]:
    from test_source_llm import FIXTURES

    for name in ("LLM_USER_PATH", "XDG_CONFIG_HOME"):
        cli.env.pop(name, None)
    folder = home / ".config" / "io.datasette.llm"
    shutil.copytree(FIXTURES / "home" / ".config" / "io.datasette.llm", folder)
    return [folder / "logs.db"]


def _hermes(cli: CLI, home: Path) -> list[Path]:
    from test_source_hermes import FIXTURES

    cli.env.pop("HERMES_HOME", None)
    shutil.copytree(FIXTURES / "home" / ".hermes", home / ".hermes")
    return [home / ".hermes" / "state.db", home / ".hermes" / "profiles" / "work" / "state.db"]


def _devin(cli: CLI, home: Path) -> list[Path]:
    from test_source_devin import build

    cli.env.pop("XDG_DATA_HOME", None)
    return [build(home / ".local" / "share" / "devin")]


def _grok_cli(cli: CLI, home: Path) -> list[Path]:
    from test_source_grok_cli import FIXTURE

    shutil.copytree(FIXTURE / ".grok", home / ".grok")
    return [home / ".grok" / "grok.db"]


def _forge(cli: CLI, home: Path) -> list[Path]:
    from test_source_forge import build

    cli.env.pop("FORGE_CONFIG", None)
    return [build(home)]


def _ra_aid(cli: CLI, home: Path) -> list[Path]:
    from test_source_ra_aid import FIXTURE

    shutil.copytree(FIXTURE / ".ra-aid", home / ".ra-aid")  # run in the home folder
    return [home / ".ra-aid" / "pk.db"]


STORES: dict[str, Build] = {
    "opencode": _opencode,
    "goose": _goose,
    "crush": _crush,
    "kiro": _kiro,
    "amazon-q": _amazon_q,
    "cursor": _cursor,
    "zed": _zed,
    "warp": _warp,
    "llm": _llm,
    "hermes": _hermes,
    "ra-aid": _ra_aid,
    "devin": _devin,
    "grok-cli": _grok_cli,
    "forge": _forge,
}


def _plant_db(path: Path) -> int:
    """Plant secrets in every text value of every table; how many values changed."""
    changed = 0
    conn = sqlite3.connect(path)
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        # A full-text index and its shadow tables (llm's `responses_fts`) hold no text
        # of their own that a reader takes: their tables' triggers keep them in step.
        left = full_text_tables(conn) | full_text_shadows(conn)
        tables = [t for t in tables if t not in left]
        for table in tables:
            columns = [r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')]
            for row in conn.execute(f'SELECT rowid, * FROM "{table}"').fetchall():
                for column, value in zip(columns, row[1:], strict=True):
                    planted = _planted_value(value)
                    if planted is not None:
                        conn.execute(
                            f'UPDATE "{table}" SET "{column}" = ? WHERE rowid = ?',
                            (planted, row[0]),
                        )
                        changed += 1
        conn.commit()
    finally:
        conn.close()
    return changed


def _planted_value(value: Any) -> str | bytes | None:
    """The value with secrets planted (JSON planted inside, a zstd blob decompressed and
    planted inside), or None if unchanged."""
    if isinstance(value, bytes) and value.startswith(_ZSTD):
        inner = _planted_value(zstandard.ZstdDecompressor().decompressobj().decompress(value))
        return zstandard.ZstdCompressor().compress(inner) if isinstance(inner, bytes) else None
    if isinstance(value, bytes) and value[:1] == b"\x0a" and (wire := _wire(value)):
        return _planted_wire(wire)  # a protocol buffer (Warp's tasks): planted inside
    if isinstance(value, bytes):
        try:
            text = value.decode("utf-8")
        except UnicodeDecodeError:
            return None
        planted = _planted_value(text)
        return planted.encode() if isinstance(planted, str) else None
    if not isinstance(value, str):
        return None
    try:
        doc = json.loads(value)
    except ValueError:
        doc = None
    new = json.dumps(_plant(doc)) if isinstance(doc, dict | list) else _plant(value)
    return new if new != value else None


def _wire(blob: bytes) -> Any:
    from findsession.sources.protobuf_wire import Wire, WireError

    try:
        return Wire.parse(blob)
    except WireError:
        return None


def _planted_wire(wire: Any) -> bytes:
    """A protocol buffer again, each string in it (nested messages walked) planted: a
    value that parses as a message and opens like one is a message, else clean text is
    a string."""
    out = b""
    for number, kind, value in wire.fields:
        out += _varint(number << 3 | kind)
        if kind == 0:
            out += _varint(value)
        elif kind in (1, 5):
            out += value.to_bytes(8 if kind == 1 else 4, "little")
        else:
            nested = _wire(value) if value[:1] and value[0] & 7 == 2 and value[0] < 0x48 else None
            if nested is not None:
                inner = _planted_wire(nested)
            else:
                try:
                    inner = _plant(value.decode("utf-8")).encode("utf-8", "surrogatepass")
                except UnicodeDecodeError:
                    inner = value
            out += _varint(len(inner)) + inner
    return out


def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


@pytest.mark.parametrize("kind", sorted(STORES))
def test_no_secret_planted_in_any_store_leaves_a_trace(cli: CLI, tmp_path: Path, kind: str) -> None:
    home = tmp_path / "home"
    stores = STORES[kind](cli, home)
    assert sum(_plant_db(db) for db in stores) > 0, f"nothing to plant in {kind}'s store"
    report = cli.json("index", "--no-embed", "--source", kind)
    assert report["sessions_total"] > 0, report
    assert sum(report["redacted"].values()) > 0, report["redacted"]
    assert not leaks(Path(cli.env["FINDSESSION_DB"])), kind
