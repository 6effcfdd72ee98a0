"""The real CLI on a PostgreSQL index: the config names the server, and index, search,
read and status answer from it as they do from the SQLite file.

The sample corpus is indexed twice, into an SQLite file and into a fresh database on a
real server with pgvector, each with the bundled model's vectors; the same known-item
queries must find the same session first on both.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path

import pytest
from conftest import CLI
from test_mcp import call, connect
from test_service import status, wait_for

#: Known-item queries over the sample corpus, and the session each one is about.
QUERIES = {
    "the deploy that lied about being live": "7c1e4a52-9b3d-4f0e-8a61-2d5f9c3b7e14",
    "flaky test from a timezone bug": "5e0a9c73-1f4b-4d86-b2e9-8c7d3a615f08",
    "borrow checker error in the QIF parser": "c3f81b07-6e2d-4a9c-9d54-1b7e0a3f8c25",
    "sticky header hides the anchor target": "4a7c3e88-2d91-4f6b-a0c5-7e3b9f1d2a66",
    "gzip and cache headers for static assets": "18d5f3a6-0c4e-4b7d-a93f-e2c86b1d5f09",
}


@pytest.fixture
def pg_cli(tmp_path: Path, pg_url: str) -> CLI:
    """The CLI with a config whose `[storage] url` names a fresh database on the server."""
    home = tmp_path / "pg"
    home.mkdir()
    cli = CLI(home, home / "local.db")
    (home / "config.toml").write_text(f'[storage]\nurl = "{pg_url}"\n', encoding="utf-8")
    return cli


def test_the_cli_indexes_searches_and_reads_a_postgresql_index(pg_cli: CLI, cli: CLI) -> None:
    for each in (pg_cli, cli):
        assert "indexing the sample corpus" in each.run("index").stderr
    status = pg_cli.json("status")
    assert status["db_path"].startswith("postgresql://") and status["sessions"] >= 8
    assert status["vector_chunks"] > 0, "the embedding run stored vectors on the server"
    assert not (pg_cli.env["FINDSESSION_DB"] and Path(pg_cli.env["FINDSESSION_DB"]).exists())
    for query, wanted in QUERIES.items():
        on_server = pg_cli.json("search", query)
        on_file = cli.json("search", query)
        assert on_server["strategy"] == on_file["strategy"] == "hybrid", query
        tops = [d["results"][0]["session"]["id"] for d in (on_server, on_file)]
        assert tops == [wanted, wanted], query
    read = pg_cli.run("read", QUERIES["the deploy that lied about being live"][:8]).stdout
    assert "healthz" in read


def test_a_config_naming_postgresql_without_a_url_says_what_to_add(tmp_path: Path) -> None:
    cli = CLI(tmp_path, tmp_path / "local.db")
    (tmp_path / "config.toml").write_text('[storage]\nbackend = "postgresql"\n', "utf-8")
    proc = cli.run("status", check=False)
    assert proc.returncode != 0 and "[storage] url" in proc.stderr


def test_the_mcp_server_and_the_service_answer_from_the_server(pg_cli: CLI) -> None:
    """`[storage] url` makes every interface answer from PostgreSQL, not only the CLI:
    an agent's MCP search and a search the resident service answers."""
    pg_cli.run("index")
    with Path(pg_cli.env["FINDSESSION_CONFIG"]).open("a", encoding="utf-8") as config:
        config.write("[mcp]\nall_projects = true\n")  # no sample session is in its folder
    query, wanted = (
        "the deploy that lied about being live",
        QUERIES["the deploy that lied about being live"],
    )

    async def agent() -> None:
        async with connect(pg_cli, Path(pg_cli.env["FINDSESSION_CONFIG"]).parent) as client:
            error, data = await call(client, "search_conversation", query=query, directory="/")
            assert not error, data
            assert data["results"][0]["session"]["id"] == wanted

    asyncio.run(agent())

    pg_cli.env["XDG_RUNTIME_DIR"] = tempfile.mkdtemp(prefix="fs-")
    pg_cli.run("service", "start")
    try:
        wait_for(lambda: status(pg_cli).get("caught_up"))
        served = json.loads(pg_cli.run("search", query, "--json").stdout)
        assert served["results"][0]["session"]["id"] == wanted
        assert status(pg_cli)["answered"] >= 1, "the search did not go through the service"
    finally:
        pg_cli.run("service", "stop", check=False)
