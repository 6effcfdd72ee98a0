"""Every source in one ranked list: a Claude Code session, a Codex session and a doc
section answer the same question together, and every filter works across them.

People paste the same prompt into two agents and write the decision into a note; the
question "where was that?" does not say which tool holds the answer.
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest
from conftest import CLI
from test_mcp import call, connect
from transcripts import Transcript, project_dir

FIXTURES = Path(__file__).parent / "fixtures"
CODEX_ID = "019df26e-2d00-7f29-8645-deec08007ae4"  # the drip scheduler rollout
QUERY = "drip scheduler skips the orchard on Tuesdays"


@pytest.fixture
def everywhere(cli: CLI, tmp_path: Path) -> CLI:
    """One home with a Claude Code session, Codex's rollouts and a folder of notes, all
    about the same orchard irrigation bug, each in its own tool's standard place."""
    claude = Path(cli.env["CLAUDE_CONFIG_DIR"]) / "projects"
    t = Transcript(session_id="claude-orchard", cwd="/home/dev/orchard")
    t.prompt("the drip scheduler skipped the orchard again on Tuesday, can you look?")
    t.reply("The Tuesday window in the drip scheduler is computed from a Sunday-based week.")
    t.write(project_dir(claude, "/home/dev/orchard"))
    other = Transcript(session_id="claude-kitchen", cwd="/home/dev/kitchen")
    other.prompt("the oven timer app crashes on start").reply("A null timer list crashes it.")
    other.write(project_dir(claude, "/home/dev/kitchen"))
    codex_home = tmp_path / "codex"
    shutil.copytree(FIXTURES / "codex" / "home", codex_home)
    cli.env["CODEX_HOME"] = str(codex_home)
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "garden.md").write_text(
        "# Garden\n\n## Irrigation\n\nThe drip scheduler waters the orchard on Tuesdays"
        " and Fridays; when it skips a Tuesday, check the weekday offset first.\n\n"
        "## Compost\n\nTurn the pile every second week.\n",
        encoding="utf-8",
    )
    Path(cli.env["FINDSESSION_CONFIG"]).write_text(
        f'[sources.markdown]\nroots = ["{notes.as_posix()}"]\n', encoding="utf-8"
    )
    cli.run("index")
    return cli


def _sources(hits: list[dict]) -> list[str]:
    return [h["session"]["source"] for h in hits]


def test_one_query_ranks_sessions_of_every_tool_and_a_doc_section_together(
    everywhere: CLI,
) -> None:
    found = everywhere.json("search", QUERY, "--top", "10")
    assert found["strategy"] == "hybrid"
    hits = found["results"]
    assert {"claude-code", "codex", "markdown"} <= set(_sources(hits[:3])), _sources(hits)
    codex = next(h for h in hits if h["session"]["source"] == "codex")
    assert codex["session"]["id"] == CODEX_ID and codex["session"]["cwd"] == "/home/dev/orchard"
    doc = next(h for h in hits if h["session"]["source"] == "markdown")
    assert doc["match"]["kind"] == "doc" and doc["match"]["turn"] == 1
    assert "claude-kitchen" not in {h["session"]["id"] for h in hits[:3]}
    # What a person sees: each hit names its source, a doc hit points at its section.
    shown = everywhere.run("search", QUERY).stdout
    assert "codex" in shown and "markdown" in shown and "section 1" in shown


def test_every_filter_works_across_sources(everywhere: CLI) -> None:
    def ids(*flags: str) -> list[str]:
        return [
            f"{h['session']['source']}:{h['match']['kind']}"
            for h in everywhere.json("search", QUERY, "--top", "10", *flags)["results"]
        ]

    assert set(ids("--source", "codex")) == {"codex:turn"}
    assert {s.split(":")[0] for s in ids("--source", "markdown,claude-code")} <= {
        "markdown",
        "claude-code",
    }
    assert set(ids("--kind", "doc")) == {"markdown:doc"}
    in_orchard = {s.split(":")[0] for s in ids("--project", "/home/dev/orchard")}
    assert in_orchard == {"claude-code", "codex"}  # the notes folder is its own project
    assert "codex:turn" not in ids("--before", "2026-01-01")  # the rollout is from May 2026
    assert all(s.startswith("codex") for s in ids("--session", CODEX_ID[:13]))
    users = everywhere.json("search", "Tuesday", "--speaker", "user", "--source", "codex")
    assert users["results"] and users["results"][0]["match"]["field"] == "prompt"


def test_an_agent_searches_and_reads_every_source(everywhere: CLI, tmp_path: Path) -> None:
    # The person opened the server to every project (its own would hold none of these).
    config = tmp_path / "open.toml"
    config.write_text(Path(everywhere.env["FINDSESSION_CONFIG"]).read_text() + "[mcp]\n"
                      "all_projects = true\n")  # fmt: skip
    opened = {"CODEX_HOME": everywhere.env["CODEX_HOME"], "FINDSESSION_CONFIG": str(config)}

    async def go() -> None:
        async with connect(everywhere, tmp_path, **opened) as client:
            error, found = await call(
                client, "search_conversation", query=QUERY, directory="/", top=10
            )
            assert not error and {"codex", "markdown"} <= set(_sources(found["results"]))
            error, only = await call(
                client, "search_conversation", query=QUERY, directory="/", source="markdown"
            )
            assert not error and set(_sources(only["results"])) == {"markdown"}
            codex = next(h for h in found["results"] if h["session"]["source"] == "codex")
            error, read = await call(
                client, "read_conversation", sessionId=codex["session"]["id"], turn=1
            )
            assert not error and "drip scheduler" in read["turns"][0]["messages"][0]["text"]
            error, listed = await call(client, "list_sessions", directory="/home/dev/orchard")
            assert not error and CODEX_ID in {s["id"] for s in listed["sessions"]}

    asyncio.run(go())


def test_naming_the_agent_favours_its_sessions(everywhere: CLI) -> None:
    """ "The Claude chat where..." and "the Codex chat where..." are how people tell two
    sessions about the same bug apart; neither filters the other agent out."""
    for agent, source in (("Claude", "claude-code"), ("Codex", "codex")):
        hits = everywhere.json("search", f"the {agent} chat where the drip scheduler skipped")
        assert hits["results"][0]["session"]["source"] == source, (agent, hits["results"][:2])
        assert len({h["session"]["source"] for h in hits["results"]}) > 1  # a nudge only
