"""The `findsession` command as people run it: a real subprocess, a real database."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import apsw
import pytest
from conftest import CLI
from transcripts import Transcript, project_dir

from findsession.storage.sqlite.migrations import SCHEMA_VERSION


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return write_corpus(tmp_path / "home" / ".claude" / "projects")


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory, model_cache: Path) -> CLI:
    """The corpus indexed once (with vectors), for the tests that only search and read it."""
    tmp_path = tmp_path_factory.mktemp("indexed")
    cli = CLI(tmp_path, tmp_path / "index" / "findsession.db")
    write_corpus(tmp_path / "home" / ".claude" / "projects")
    cli.run("index")
    return cli


def write_corpus(root: Path) -> Path:
    t = Transcript(session_id="5ac30ab5-1111-4222-8333-944445555666", cwd="/home/dev/code")
    t.prompt("i have another syncthing conflict, can you look at it and fix.")
    t.reply("The conflict file is notes.sync-conflict-20260611.md; I merged both versions.")
    t.tool("Bash", {"command": "git log -1"}, "commit 3f9c2ab77e0d1c2b3a4f5e6d7c8b9a0f1e2d3c4b")
    t.prompt("thanks, now delete the conflict copy").reply("Deleted.")
    t.title("syncthing-conflict-fix")
    t.write(project_dir(root, "/home/dev/code"))
    u = Transcript(session_id="9d0e1f2a-0000-4000-8000-000000000001", cwd="/home/dev/web")
    u.prompt("the deploy says it is live but the site still serves the old build")
    u.reply("The deploy script never checks the health endpoint's build hash.")
    u.raw("{not json")
    u.write(project_dir(root, "/home/dev/web"))
    return root


def test_index_then_search_prints_grouped_results(cli: CLI, corpus: Path) -> None:
    index = cli.run("index")  # default root: $CLAUDE_CONFIG_DIR/projects
    assert re.search(
        r"2 of 2 files read .* index holds 2 sessions, 3 turns; 1 lines skipped "
        r"\(1 malformed JSON\)",
        index.stderr,
    )

    out = cli.run("syncthing conflict")
    lines = out.stdout.splitlines()
    assert re.fullmatch(
        r"\[1\] 2026-06-11  claude-code  syncthing-conflict-fix  score \d\.\d\d", lines[0]
    )
    assert "syncthing conflict" in lines[1]
    assert lines[2].strip().startswith("/home/dev/code  ·  ")
    assert lines[2].strip().endswith("5ac30ab5-1111-4222-8333-944445555666.jsonl  ·  turn 1")
    assert "hybrid search · 1 session" in out.stderr
    assert cli.run("search", "syncthing", "conflict").stdout == out.stdout


def test_search_json_schema(indexed: CLI) -> None:
    cli = indexed
    data = cli.json("search", "deploy build hash")
    assert data["schema"] == "findsession.search/1"
    assert data["strategy"] == "hybrid" and data["index_empty"] is False
    hit = data["results"][0]
    assert hit["rank"] == 1 and hit["score"] > 0
    assert hit["session"]["id"] == "9d0e1f2a-0000-4000-8000-000000000001"
    assert hit["session"]["cwd"] == "/home/dev/web"
    assert hit["match"]["kind"] == "turn" and hit["match"]["turn"] == 1
    start, end = hit["match"]["highlights"][0]
    assert hit["match"]["snippet"][start:end].lower() in {"deploy", "build", "hash"}
    assert hit["explain"]["keyword_rank"] == 1


@pytest.mark.parametrize(
    "query", ['a-b "c" NOT (d*', "AND", '"', "NEAR(", "*", "col:umn", "'; DROP TABLE units;--"]
)
def test_hostile_queries_never_error(indexed: CLI, query: str) -> None:
    cli = indexed
    proc = cli.run("search", "--", query)
    assert "Traceback" not in proc.stderr
    assert cli.json("search", "--", query)["strategy"] == "hybrid"


def test_raw_fts_syntax_passes_through_and_errors_are_explained(indexed: CLI) -> None:
    cli = indexed
    data = cli.json("search", "--raw", "syncth*")
    assert data["results"][0]["session"]["title"] == "syncthing-conflict-fix"
    bad = cli.run("search", "--raw", "(d*", check=False)
    assert "FTS5 rejected the query" in bad.stderr and "Traceback" not in bad.stderr


def test_exact_token_inside_tool_output_is_found(indexed: CLI) -> None:
    cli = indexed
    data = cli.json("search", "3f9c2ab77e0d1c2b3a4f5e6d7c8b9a0f1e2d3c4b")
    assert data["results"][0]["session"]["title"] == "syncthing-conflict-fix"
    assert data["results"][0]["match"]["field"] == "tools"


def test_read_a_turn_with_context_and_tools(indexed: CLI) -> None:
    cli = indexed
    out = cli.run("read", "5ac30ab5", "--turn", "1", "--context", "1", "--tools").stdout
    assert "syncthing-conflict-fix" in out
    assert "> i have another syncthing conflict" in out
    assert "> thanks, now delete the conflict copy" in out
    assert "Bash" in out and "commit 3f9c2ab" in out
    plain = cli.run("read", "5ac30ab5", "--turn", "2").stdout
    assert "delete the conflict copy" in plain and "syncthing conflict, can" not in plain
    data = cli.json("read", "5ac30ab5", "--turn", "2")
    assert data["total_turns"] == 2 and [t["turn"] for t in data["turns"]] == [2]

    missing = cli.run("read", "nope", check=False)
    assert missing.returncode == 1 and "no indexed session has the id 'nope'" in missing.stderr
    out_of_range = cli.run("read", "5ac30ab5", "--turn", "9", check=False)
    assert out_of_range.returncode == 1 and "has turns 1–2" in out_of_range.stderr


def test_status_reports_counts_and_skipped_lines(cli: CLI, corpus: Path) -> None:
    cli.run("index")
    out = cli.run("status").stdout
    assert f"schema {SCHEMA_VERSION}" in out and "2 ok" in out and "1 malformed JSON" in out
    data = cli.json("status")
    assert data["sessions"] == 2 and data["turns"] == 3 and data["skipped_lines"] == 1
    assert data["recent_problems"][0]["line"] == 3
    verbose = cli.run("index", "-v", "--prune").stderr
    assert "0 of 2 files read" in verbose


def test_index_verbose_lists_skipped_lines(cli: CLI, corpus: Path, tmp_path: Path) -> None:
    out = cli.run("index", "-v", "--db", str(tmp_path / "other.db")).stderr
    assert re.search(
        r"skipped .*9d0e1f2a-0000-4000-8000-000000000001\.jsonl:3: malformed JSON", out
    )


def test_db_before_the_command_is_the_database_used(cli: CLI, corpus: Path, tmp_path: Path) -> None:
    chosen = tmp_path / "chosen.db"
    cli.run("--db", str(chosen), "index", "--no-embed")
    assert chosen.exists()
    assert cli.json("status", "--db", str(chosen))["sessions"] == 2
    assert cli.json("status")["sessions"] == 0  # FINDSESSION_DB's database was not touched
    hits = cli.run("--db", str(chosen), "syncthing", "--mode", "keyword").stdout
    assert "syncthing-conflict-fix" in hits


def test_first_run_without_transcripts_indexes_the_sample_corpus(cli: CLI) -> None:
    out = cli.run("index")
    assert "indexing the sample corpus" in out.stderr
    data = cli.json("search", "the deploy that lied about being live")
    top = data["results"][0]["session"]
    assert top["id"] == "7c1e4a52-9b3d-4f0e-8a61-2d5f9c3b7e14", "the README's example query"
    assert "deploy" in top["title"].lower()


def test_explain_shows_each_lists_rank_and_the_matched_terms(cli: CLI, corpus: Path) -> None:
    cli.run("index")
    out = cli.run("deploy health check", "--explain").stdout
    why = [line.strip() for line in out.splitlines() if line.strip().startswith("why:")]
    score = re.fullmatch(
        r"why: best keyword match, holding most query words \(kept first\)"
        r" · keyword #1 \(bm25 -?[\d.]+; matched checks, deploy, health\)"
        r" · vector #1 \(cosine 0\.\d{3}\) · score (\d\.\d\d) = ranks (\d\.\d\d)"
        r" \+ keyword (\d\.\d\d) \+ meaning (\d\.\d\d) \+ a second turn (\d\.\d\d)",
        why[0],
    )
    assert score, why[0]
    total, *parts = (float(g) for g in score.groups())
    assert abs(total - sum(parts)) <= 0.02, "the parts shown add up to the score shown"
    data = cli.json("search", "deploy health check")["results"][0]["explain"]
    assert data["keyword_rank"] == 1 and data["vector_rank"] == 1 and data["cosine"] > 0.3
    assert "deploy" in data["matched_terms"] and data["pinned"] == "keyword-winner"


def test_empty_index_says_how_to_fill_it(cli: CLI) -> None:
    proc = cli.run("search", "anything", check=False)
    assert proc.returncode == 1 and "run `findsession index` first" in proc.stderr


def test_config_file_adds_roots(cli: CLI, corpus: Path, tmp_path: Path) -> None:
    extra = tmp_path / "backup"
    Transcript(session_id="from-backup").prompt("kubernetes ingress timeouts").reply("ok").write(
        project_dir(extra, "/home/dev/k8s")
    )
    Path(cli.env["FINDSESSION_CONFIG"]).write_text(f'roots = ["{extra}"]\n')
    cli.run("index")
    assert cli.json("search", "ingress")["results"][0]["session"]["id"] == "from-backup"
    Path(cli.env["FINDSESSION_CONFIG"]).write_text("roots = [")
    broken = cli.run("index", check=False)
    assert broken.returncode == 1 and "cannot read the config file" in broken.stderr


def test_database_from_a_newer_version_is_refused_not_damaged(cli: CLI, db_path: Path) -> None:
    db_path.parent.mkdir(parents=True)
    conn = apsw.Connection(str(db_path))
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    proc = cli.run("status", check=False)
    assert proc.returncode == 1 and "written by a newer findsession" in proc.stderr
    conn = apsw.Connection(str(db_path))
    assert conn.execute("PRAGMA user_version").fetchone()[0] == 99


def test_a_corrupt_index_is_named_and_rebuild_recovers(cli: CLI, corpus: Path) -> None:
    cli.run("index", "--no-embed")
    db = Path(cli.env["FINDSESSION_DB"])
    db.write_bytes(b"this is not sqlite at all" * 100)
    broken = cli.run("index", "--no-embed", check=False)
    assert broken.returncode == 1 and "--rebuild" in broken.stderr
    assert "Traceback" not in broken.stderr
    rebuilt = cli.run("index", "--no-embed", "--rebuild")
    assert "set the old index aside" in rebuilt.stderr
    assert cli.json("status")["sessions"] == 2
    assert list(db.parent.glob(f"{db.name}.broken-*"))  # kept, not deleted


@pytest.mark.parametrize("ref", ["../../etc/passwd", "/etc/passwd", "~/.ssh/id_rsa", "%", "_"])
def test_read_takes_session_ids_never_paths(cli: CLI, corpus: Path, ref: str) -> None:
    cli.run("index", "--no-embed")
    proc = cli.run("read", ref, "--raw", check=False)
    assert proc.returncode == 1 and "no indexed session" in proc.stderr
    assert "root:" not in proc.stdout


def test_damage_found_while_searching_is_one_line_not_a_traceback(
    cli: CLI, corpus: Path, db_path: Path
) -> None:
    """A file damaged after it was opened fine (a bad disk block, a copy cut short) shows
    up mid-search; SQLite's error is mapped at the storage boundary like one at open."""
    cli.run("index", "--no-embed")
    clean = db_path.read_bytes()
    pages = len(clean) // 4096
    damaged_seen = 0
    for first in range(pages - 2, 0, -max(1, pages // 8)):  # windows of pages, from the end
        data = bytearray(clean)
        data[first * 4096 : (first + 2) * 4096] = b"\x5a" * 8192
        db_path.write_bytes(bytes(data))
        for leftover in db_path.parent.glob(db_path.name + "-*"):
            leftover.unlink()
        proc = cli.run("search", "syncthing conflict", check=False)
        assert "Traceback" not in proc.stderr, proc.stderr
        if proc.returncode:
            assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
            assert "findsession index --rebuild" in proc.stderr, proc.stderr
            damaged_seen += 1
    assert damaged_seen, "no damaged page was ever read: the test damaged nothing it uses"


def loaded(argv: list[str], heavy: list[str], env: dict[str, str] | None = None) -> tuple[str, str]:
    """Run the CLI's `main(argv)` in a new process: what it printed, and which of the
    `heavy` modules it had imported by the end (sorted, as a list's text)."""
    probe = (
        "import sys\n"
        "from findsession.cli import main\n"
        "try:\n"
        f"    main({argv!r})\n"
        "except SystemExit as exc:\n"
        "    assert exc.code in (0, None), exc.code\n"
        f"print(sorted(m for m in {heavy!r} if m in sys.modules), file=sys.stderr)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
        env=env,
    )
    return proc.stdout, proc.stderr.strip().splitlines()[-1]


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["search", "--help"]])
def test_help_and_version_answer_without_loading_the_search_machinery(argv: list[str]) -> None:
    """`findsession --help` is what people type first and scripts call to probe: it must
    answer from the grammar alone, not after importing numpy, onnxruntime, SQLite or the
    MCP server (which once made `--version` take 0.3 s of a 0.02 s answer)."""
    heavy = ["numpy", "onnxruntime", "sentencepiece", "tokenizers", "apsw", "mcp", "rich"]
    out, modules = loaded(argv, heavy)
    assert "findsession" in out
    assert modules == "[]"


@pytest.mark.parametrize(
    "argv",
    [
        ["read", "5ac30ab5", "--tools"],
        ["status"],
        ["search", "--mode", "keyword", "syncthing"],
        ["sources"],
    ],
)
def test_commands_that_need_no_vector_start_without_the_vector_machinery(
    indexed: CLI, argv: list[str]
) -> None:
    """Scripts and agents run `read`, `status` and keyword searches by the dozen, each a
    new process: none may import numpy or the model (a tenth of a second each, a third of
    such a command's time), nor the HTTP client a model summary needs."""
    heavy = ["numpy", "onnxruntime", "sentencepiece", "tokenizers", "http.client", "mcp"]
    out, modules = loaded(argv, heavy, {**indexed.env, "FINDSESSION_NO_SERVICE": "1"})
    assert out.strip()
    assert modules == "[]", modules


def test_an_index_run_imports_only_the_sources_it_reads(cli: CLI, corpus: Path) -> None:
    """An index run with no folder named looks at every source's standard places, but
    only Claude Code's exist here: it must not import the other sources' parsers to
    learn where they would be (a third of a cold `index`'s imports), neither on a first
    run nor on the next, when the index knows the corpus's projects and asks the sources
    that keep a store inside a project."""
    others = ["codex", "warp", "hermes", "aider", "gemini", "cursor_ide", "zed", "vibe"]
    heavy = [f"findsession.sources.{name}" for name in ["claude_code", *others]]
    env = {**cli.env, "FINDSESSION_NO_SERVICE": "1"}
    for run in ("first", "next"):
        _, modules = loaded(["index", "--no-embed"], heavy, env)
        assert modules == "['findsession.sources.claude_code']", (run, modules)
    assert "syncthing" in cli.run("search", "--mode", "keyword", "syncthing").stdout
