"""The command-line reference and the README's table of commands, held to the parser: a
command added, renamed or given another option is seen in both, or this fails."""

from __future__ import annotations

import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tools"))

from cli_reference import DOC, reference  # noqa: E402  (tools/cli_reference.py)

from findsession.cli.table import COMMANDS  # noqa: E402


def test_the_reference_is_every_commands_help_as_the_parser_prints_it() -> None:
    assert DOC.read_text(encoding="utf-8") == reference(), (
        "docs/cli.md is out of date: run `python tools/cli_reference.py`"
    )


def test_the_readme_table_names_exactly_the_parsers_commands() -> None:
    """Each row's first cell names its commands in backticks, each as `findsession
    COMMAND …` (a quoted query is a search); `stop` after `findsession service start` is
    an action of that command, not another."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    table = text[text.index("| command | what it does |") :].split("\n\n", 1)[0]
    named: set[str] = set()
    for row in table.splitlines()[2:]:
        first_cell = row.split(" | ", 1)[0]
        for span in re.findall(r"`findsession ([^`]+)`", first_cell):
            word = span.split()[0]
            named.add("search" if word.startswith('"') else word)
    assert named == {c.name for c in COMMANDS}


def test_a_new_command_would_be_caught() -> None:
    """The table check reads what it should: a command the README lacks is missed."""
    names = {c.name for c in COMMANDS}
    assert {"search", "serve", "ui", "service", "blame"} <= names
    assert "findsession blame" in DOC.read_text(encoding="utf-8")
