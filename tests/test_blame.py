"""`findsession blame`: from a file back to the sessions that wrote it, through the real
CLI and MCP server over one file written by Claude Code, Codex, Gemini CLI and Aider
sessions in their real formats (tests/blame_corpus.py), the sample corpus, and an index
made before blame existed."""

from __future__ import annotations

import asyncio
import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import apsw
import pytest
from blame_corpus import CREATED, ELSEWHERE, MOVED, OLD_ROOT, PATCHED, REPLACED, build
from conftest import CLI
from test_mcp import call, connect

from findsession.storage.sqlite.schema_v13 import RENAMED

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "src" / "findsession" / "sample" / "claude" / "projects"
AIDER_PREFIX = "aider-"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[CLI, dict[str, Path]]:
    tmp = tmp_path_factory.mktemp("blame")
    cli = CLI(tmp, tmp / "index" / "findsession.db")
    cli.env["FINDSESSION_NO_SERVICE"] = "1"
    roots = build(tmp)
    for source in ("claude-code", "codex", "gemini", "aider"):
        cli.run("index", "--no-embed", "--source", source, str(roots[source]))
    cli.run("index", "--no-embed", str(SAMPLE))
    return cli, roots


def _blame(cli: CLI, *args: str, **kwargs: Any) -> dict[str, Any]:
    return json.loads(cli.run("blame", "--json", *args, **kwargs).stdout)


def _sid(writer: dict[str, Any]) -> str:
    sid = writer["session"]["id"]
    return AIDER_PREFIX if sid.startswith(AIDER_PREFIX) else sid


def test_each_line_names_the_session_that_wrote_it_last(
    corpus: tuple[CLI, dict[str, Path]],
) -> None:
    cli, roots = corpus
    pricing = roots["project"] / "app" / "pricing.py"
    got = _blame(cli, f"{pricing}:3-12")
    assert got["schema"] == "findsession.blame/1" and (got["first"], got["last"]) == (3, 12)
    writers = got["writers"]
    by_line = {
        line["line"]: (None if line["writer"] is None else _sid(writers[line["writer"] - 1]))
        for line in got["lines"]
        if not line["neutral"]
    }
    assert by_line == {
        3: CREATED,
        4: MOVED,  # written first by CREATED, last in the project's old folder
        5: PATCHED,  # the line the second session (Codex) wrote
        7: REPLACED,
        8: REPLACED,  # Aider's block repeats it as its anchor: not Aider's line
        10: AIDER_PREFIX,
        11: AIDER_PREFIX,
        12: None,  # written by hand
    }
    assert [line["line"] for line in got["lines"] if line["neutral"]] == [6, 9]
    assert {_sid(w) for w in writers if w["last"]} == {CREATED, MOVED, PATCHED, REPLACED,
                                                      AIDER_PREFIX}  # fmt: skip
    # Those holding lines of the range come first, most recent first.
    assert [w["holds"] > 0 for w in writers] == sorted((w["holds"] > 0 for w in writers),
                                                       reverse=True)  # fmt: skip
    text = cli.run("blame", f"{pricing}:12").stdout
    assert "no indexed session wrote this line" in text


def test_the_history_of_a_file_newest_first_as_each_session_saw_it(
    corpus: tuple[CLI, dict[str, Path]],
) -> None:
    cli, roots = corpus
    pricing = roots["project"] / "app" / "pricing.py"
    got = _blame(cli, str(pricing))
    assert [_sid(w) for w in got["writers"]] == [MOVED, AIDER_PREFIX, REPLACED, PATCHED, CREATED]
    assert got["total"] == 5 and got["lines"] == []
    by = {_sid(w): w for w in got["writers"]}
    assert by[MOVED]["match"] == "moved" and by[MOVED]["path"] == f"{OLD_ROOT}/app/pricing.py"
    assert by[PATCHED]["path"] == "app/pricing.py" and by[PATCHED]["match"] == "exact"
    assert by[AIDER_PREFIX]["path"] == "app/pricing.py"
    assert by[PATCHED]["prompt"] == "round the total to cents"
    assert by[PATCHED]["added"] == ["    return round(subtotal * (1 + rate), 2)"]
    assert by[PATCHED]["removed"] == ["    return subtotal * (1 + rate)"]
    assert (by[CREATED]["tool"], by[CREATED]["op"]) == ("Write", "create")
    assert by[REPLACED]["session"]["source"] == "gemini"
    # The failed edit wrote nothing; the other project's file of the same name is not this.
    assert all("FAILED EDIT" not in "".join(w["added"]) for w in got["writers"])
    assert all("FREE_OVER = 50" not in w["added"] for w in got["writers"])  # aider's failed
    assert ELSEWHERE not in by
    narrowed = _blame(cli, str(pricing), "--project", str(roots["project"]))
    assert [_sid(w) for w in narrowed["writers"]] == [AIDER_PREFIX, REPLACED, PATCHED, CREATED]


def test_a_path_relative_to_where_it_is_typed(corpus: tuple[CLI, dict[str, Path]]) -> None:
    cli, roots = corpus
    got = _blame(cli, "app/pricing.py:5", cwd=roots["project"])
    assert got["path"] == str(roots["project"] / "app" / "pricing.py")
    (line,) = got["lines"]
    assert _sid(got["writers"][line["writer"] - 1]) == PATCHED


def test_the_sample_corpus_and_what_no_session_wrote(
    corpus: tuple[CLI, dict[str, Path]], tmp_path: Path
) -> None:
    cli, roots = corpus
    got = _blame(cli, "/home/dev/code/webshop/scripts/deploy.sh")
    assert {w["session"]["id"][:8] for w in got["writers"]} == {"7c1e4a52"}
    assert got["total"] == 2 and all(w["turn"] == 3 for w in got["writers"])
    untouched = tmp_path / "notes.txt"
    untouched.write_text("mine\n")
    out = cli.run("blame", str(untouched)).stdout
    assert "no indexed session wrote this file" in out
    # A file no session wrote is not read for its lines (test_agent_reach.py).
    for unread in (untouched, tmp_path / "nope.py"):
        got = cli.run("blame", f"{unread}:3")
        assert "no indexed session wrote this file" in got.stdout and "not read" in got.stderr
    pricing = roots["project"] / "app" / "pricing.py"
    short = cli.run("blame", f"{pricing}:99", check=False)
    assert short.returncode == 1 and "has 12 lines, not line 99" in short.stderr
    bad = cli.run("blame", f"{untouched}:5-2", check=False)
    assert bad.returncode == 1 and "range runs forward" in bad.stderr


def test_an_index_made_before_blame_learns_its_files_and_forgets_them_with_a_session(
    corpus: tuple[CLI, dict[str, Path]], tmp_path: Path
) -> None:
    cli, roots = corpus
    copy = tmp_path / "old.db"
    shutil.copy(cli.env["FINDSESSION_DB"], copy)
    # As an index of schema 11 was: no index of files written, the columns step 13
    # renamed under their old names (by the SQLite that wrote its FTS5 tables), and the
    # redaction counts per file, as before step 14.
    db = apsw.Connection(str(copy))
    db.execute(
        "DROP TRIGGER sessions_file_writes_ad; DROP TABLE file_writes;"
        " DROP TABLE file_writes_backlog; PRAGMA user_version = 11;"
        " DROP TRIGGER redactions_session_ad; DROP TABLE redactions;"
        " CREATE TABLE redactions (file_path TEXT NOT NULL, kind TEXT NOT NULL,"
        " n INTEGER NOT NULL, PRIMARY KEY (file_path, kind));"
        + "".join(f'ALTER TABLE {t} RENAME COLUMN {new} TO "{old}";' for t, old, new in RENAMED)
    )
    db.close()
    old = CLI(tmp_path, copy)
    old.env["FINDSESSION_NO_SERVICE"] = "1"
    pricing = roots["project"] / "app" / "pricing.py"
    got = _blame(old, str(pricing))
    assert [_sid(w) for w in got["writers"]] == [MOVED, AIDER_PREFIX, REPLACED, PATCHED, CREATED]
    db = sqlite3.connect(copy)
    assert db.execute("SELECT count(*) FROM file_writes_backlog").fetchone() == (0,)
    db.close()
    old.run("forget", PATCHED)
    got = _blame(old, f"{pricing}:5")
    assert PATCHED not in [_sid(w) for w in got["writers"]]
    db = sqlite3.connect(copy)
    assert db.execute(
        "SELECT count(*) FROM file_writes WHERE session_id = ?", (PATCHED,)
    ).fetchone() == (0,)
    db.close()


def test_the_mcp_tool_reads_a_path_in_the_agents_project(
    corpus: tuple[CLI, dict[str, Path]],
) -> None:
    cli, roots = corpus
    project = roots["project"]

    async def go() -> None:
        async with connect(cli, project) as client:
            error, answer = await call(
                client, "sessions_for_file", path="app/pricing.py", fromLine=5
            )
            assert not error, answer
            (line,) = answer["lines"]
            assert _sid(answer["writers"][line["writer"] - 1]) == PATCHED
            assert answer["evidence_budget"]["used"] == len(answer["writers"])
            error, message = await call(client, "sessions_for_file", path="x.py", toLine=3)
            assert error and "fromLine" in message

    asyncio.run(go())
    records = [r for r in cli.json("audit")["records"] if r["tool"] == "sessions_for_file"]
    assert records[0]["filters"]["path"] == str(project / "app" / "pricing.py")
