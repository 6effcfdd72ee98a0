"""A pasted session id finds its session: whole or a prefix, of every source's id shape,
in the CLI, over MCP and on the page.

People copy an id from a list, a resume command or their agent (`7c1e4a52`, a UUID, a
Codex rollout's id) and search for it; ranked by words it found some other session and
said "nothing close". The rule (findsession.search.ids): a whole id always matches; a
prefix of six characters or more holding a digit matches; a prefix several sessions
share lists them all and ranks none first; an ordinary word stays a word.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import CLI, FIXTURES
from test_mcp import call, connect
from transcripts import Transcript, project_dir

from findsession import Findsession, Root, SearchOptions
from findsession.domain import Level

CLAUDE = "7c1e4a52-9b3d-4f0e-8a61-2d5f9c3b7e14"
#: Two sessions whose ids share their first eight characters.
TWIN_A = "5a5a5a51-0000-4000-8000-00000000000a"
TWIN_B = "5a5a5a51-0000-4000-8000-00000000000b"
#: Ids that begin with ordinary words; another session says those words.
WORDY = "deadbeef-cafe-4add-8ed0-000000000001"
ADDED = "added0ff-0000-4000-8000-000000000002"
SAYS_WORDS = "0badf00d-0000-4000-8000-000000000003"

#: One session of each id shape the fixtures hold: source -> (root, kind, id).
SHAPES = {
    "codex": ("codex/home", "019df26e-2d00-7f29-8645-deec08007ae4"),
    "gemini": ("gemini/home", "aaaa1111-0000-4000-8000-000000000001"),
    "amp": ("amp/threads", "T-5f0c2a9e-2222-4aaa-8bbb-000000000002"),
    "cline": ("cline", "1733100000000"),
    "copilot-cli": ("copilot-cli/home", "7a1d9e02-4c3b-4f8e-a6d5-2b9c0e8f7a13"),
    "qwen": ("qwen/home", "6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b"),
    # The two below hold a digest of where their files are: found by their own part.
    "aider": ("aider", ":20240306-080041"),
    "goose": ("goose/sessions", ":kelp-farm"),
}


def _claude_sessions(root: Path) -> None:
    def one(sid: str, prompt: str, reply: str, cwd: str = "/home/dev/app") -> None:
        t = Transcript(session_id=sid, cwd=cwd)
        t.prompt(prompt).reply(reply)
        t.write(project_dir(root, cwd))

    one(CLAUDE, "the sprinkler valve log rotates too early", "Rotation now waits for 10 MB.")
    one(TWIN_A, "rename the billing export columns", "Renamed to snake_case.")
    one(TWIN_B, "billing export misses the currency", "Added the currency column.")
    one(WORDY, "tune the kiln controller", "The PID gains were halved.")
    one(ADDED, "the greenhouse fan schedule", "Fans now follow sunset.")
    one(
        SAYS_WORDS,
        "why does the firmware print deadbeef at boot and which cafe wifi added the delay",
        "deadbeef is the watchdog's marker; the cafe network added 2 s of DHCP.",
        cwd="/home/dev/firmware",
    )


@pytest.fixture
def fs(tmp_path: Path) -> Iterator[Findsession]:
    """Sessions of every id shape in one index (keyword search: ids need no model)."""
    claude = tmp_path / "claude" / "projects"
    _claude_sessions(claude)
    roots = [Root(claude, "claude-code")]
    for kind, (folder, _) in SHAPES.items():
        copy = tmp_path / kind / Path(folder).name  # some sources know their folder's name
        shutil.copytree(FIXTURES / folder, copy)
        roots.append(Root(copy, kind))
    with Findsession.open(tmp_path / "index.db") as opened:
        opened.index(roots)
        yield opened


def _id_of(fs: Findsession, kind: str) -> str:
    if kind == "claude-code":
        return CLAUDE
    wanted = SHAPES[kind][1]
    every = fs.sessions(limit=100)
    return next(s.id for s in every if s.source == kind and s.id.endswith(wanted))


def _search(fs: Findsession, query: str, **options: object) -> tuple[list[str], object]:
    response = fs.search(query, SearchOptions(mode="keyword", top=5, **options))
    return [h.session.id for h in response.hits], response


@pytest.mark.parametrize("kind", ["claude-code", *SHAPES])
def test_each_sources_whole_id_and_its_prefix_find_that_session_first(
    fs: Findsession, kind: str
) -> None:
    sid = _id_of(fs, kind)
    # A prefix: all but its end (two Amp threads share `T-5f0c2a9e-`).
    for query, how in ((sid, "exact"), (sid[:-4], "prefix"), (f"  `{sid}`  ", "exact")):
        ids, response = _search(fs, query)
        assert ids[0] == sid, (query, ids)
        assert response.hits[0].pinned == "id"
        assert response.id_match is not None and response.id_match.kind == how
        assert response.confidence is not None and response.confidence.level is Level.STRONG
        assert len(ids) == len(set(ids))  # not shown twice when its words matched too


def test_a_subagent_named_after_its_parent_does_not_make_the_prefix_ambiguous(
    fs: Findsession,
) -> None:
    # Qwen's subagent is `<parent id>:explore-7f3c`: every prefix of the parent is its too.
    ids, response = _search(fs, "6f1c2a9e")
    assert ids[0] == SHAPES["qwen"][1] and response.id_match.kind == "prefix"


def test_a_prefix_two_sessions_share_lists_both_and_puts_neither_first(fs: Findsession) -> None:
    ids, response = _search(fs, "5a5a5a51")
    assert response.id_match is not None and response.id_match.kind == "ambiguous"
    assert {s.id for s in response.id_match.sessions} == {TWIN_A, TWIN_B}
    assert all(h.pinned != "id" for h in response.hits)
    assert response.confidence is None or response.confidence.level is not Level.STRONG
    assert any("5a5a5a51" in note and "2 sessions" in note for note in response.notes)
    # One more character decides.
    ids, response = _search(fs, TWIN_B[:-1] + "b")
    assert ids[0] == TWIN_B and response.id_match.kind == "exact"


@pytest.mark.parametrize("word", ["deadbeef", "added", "cafe"])
def test_an_id_that_begins_with_an_ordinary_word_leaves_the_word_a_word(
    fs: Findsession, word: str
) -> None:
    ids, response = _search(fs, word)
    assert response.id_match is None
    assert ids[0] == SAYS_WORDS, ids
    # The whole id still names its session.
    ids, response = _search(fs, WORDY if word != "added" else ADDED)
    assert ids[0] == (WORDY if word != "added" else ADDED) and response.id_match.kind == "exact"


def test_the_filters_still_apply_and_a_sentence_is_never_an_id(fs: Findsession) -> None:
    for query in (CLAUDE, CLAUDE[:8]):
        _, response = _search(fs, query, source="codex")
        assert response.id_match is None
        assert all(h.session.id != CLAUDE for h in response.hits)
    _, response = _search(fs, f"{CLAUDE[:8]} valve log")
    assert response.id_match is None
    # Inside one session the question is where, not which.
    _, response = _search(fs, CLAUDE[:8], session=CLAUDE)
    assert response.id_match is None


@pytest.fixture
def indexed(cli: CLI) -> CLI:
    _claude_sessions(Path(cli.env["CLAUDE_CONFIG_DIR"]) / "projects")
    cli.run("index", "--no-embed")
    return cli


def test_the_cli_marks_the_id_match_and_lists_a_shared_prefix(indexed: CLI) -> None:
    found = indexed.json("search", CLAUDE[:8])
    first = found["results"][0]
    assert first["session"]["id"] == CLAUDE and first["explain"]["pinned"] == "id"
    assert found["id_match"]["kind"] == "prefix"
    assert [s["id"] for s in found["id_match"]["sessions"]] == [CLAUDE]
    assert found["confidence"]["level"] == "strong"
    shown = indexed.run("search", CLAUDE[:8], "--explain").stdout
    assert "[1]" in shown and "id match" in shown.splitlines()[0]
    assert "the query is its id" in shown
    both = indexed.run("search", "5a5a5a51")
    assert TWIN_A in both.stdout and TWIN_B in both.stdout
    assert "begins the ids of 2 sessions" in both.stdout
    assert "id match" not in both.stdout
    found = indexed.json("search", "deadbeef")
    assert found["id_match"] is None and found["results"][0]["session"]["id"] == SAYS_WORDS


def test_mcp_search_answers_an_id_with_its_session(indexed: CLI, tmp_path: Path) -> None:
    """Over MCP as on the command line; a server bounded to another project learns
    nothing of a session outside it from its id."""

    async def bounded() -> None:
        async with connect(indexed, tmp_path) as client:
            error, found = await call(client, "search_conversation", query=CLAUDE[:8])
            assert not error, found
            assert found["id_match"] is None
            assert CLAUDE not in {r["session"]["id"] for r in found["results"]}

    asyncio.run(bounded())
    Path(indexed.env["FINDSESSION_CONFIG"]).write_text("[mcp]\nall_projects = true\n")

    async def every_project() -> None:
        async with connect(indexed, tmp_path) as client:
            error, found = await call(client, "search_conversation", query=CLAUDE[:8])
            assert not error, found
            assert found["results"][0]["session"]["id"] == CLAUDE
            assert found["results"][0]["explain"]["pinned"] == "id"
            assert found["id_match"]["kind"] == "prefix"
            error, found = await call(client, "search_conversation", query="5a5a5a51")
            assert found["id_match"]["kind"] == "ambiguous"
            assert {s["id"] for s in found["id_match"]["sessions"]} == {TWIN_A, TWIN_B}

    asyncio.run(every_project())


def test_read_takes_a_parents_prefix_that_its_named_subagent_shares(fs: Findsession) -> None:
    """`read` resolves ids as search does: Qwen's subagent `<parent>:explore-7f3c` does not
    make the parent's prefix ambiguous, and the subagent is still read by its whole id."""
    parent = SHAPES["qwen"][1]
    assert fs.read(parent[:8]).session.id == parent
    assert fs.read(f"{parent}:explore-7f3c").session.id == f"{parent}:explore-7f3c"
