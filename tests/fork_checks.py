"""What the fork tests ask the index: a session's typed prompts, the sessions a word is
found in, and an index built by reading files in a given order (a fork before the
session it copied, or after)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import CLI


def prompts(cli: CLI, sid: str) -> list[str]:
    """The session's prompts, in order, as the index reads them back."""
    turns = cli.json("read", sid)["turns"]
    return [m["text"] for t in turns for m in t["messages"] if m["kind"] == "prompt"]


def sessions(cli: CLI, source: str, query: str, field: str | None = None) -> list[str]:
    """The sessions a keyword search of one source finds, best first; with `field`, only
    those whose best match is in it."""
    found = cli.json("search", "--mode", "keyword", "--source", source, query)["results"]
    return [h["session"]["id"] for h in found if field is None or h["match"]["field"] == field]


def index_in_order(cli: CLI, source: str, files: list[Path]) -> dict[str, Any]:
    """An index run over these files of one source, named in this order."""
    return cli.json("index", "--no-embed", "--source", source, *map(str, files))


def assert_found_where_typed(
    cli: CLI, source: str, where: dict[str, list[str]], words: tuple[str, ...], field: str | None
) -> None:
    """Each session's prompts are those typed in it, in order, and each word is found in
    the sessions it was typed in and no other."""
    for sid, typed in where.items():
        assert prompts(cli, sid) == typed, sid
    for word in words:
        home_of = {sid for sid, typed in where.items() if any(word in t for t in typed)}
        assert set(sessions(cli, source, word, field)) == home_of, word
