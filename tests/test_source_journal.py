"""Journals: folders of dated notes, one unit per entry, each dated by its entry.

The date is what `--after`/`--before` compare, so it must come from the note (front
matter, file name, first heading), never from when the file was last saved.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import CLI

from findsession.sources.notes_dates import find_date

FIXTURES = Path(__file__).parent / "fixtures" / "notes"


@pytest.fixture
def journal(tmp_path: Path, cli: CLI) -> Path:
    folder = tmp_path / "journal"
    shutil.copytree(FIXTURES / "journal", folder)
    cli.json("index", "--no-embed", "--source", "journal", str(folder))
    return folder


def days(cli: CLI, *args: str) -> list[str]:
    hits = cli.json("search", *args)["results"]
    return sorted(h["match"]["timestamp"][:10] for h in hits)


def test_an_entry_is_dated_by_its_file_name_front_matter_or_first_heading(
    cli: CLI, journal: Path
) -> None:
    [hit] = cli.json("search", "heat pump schedule")["results"]
    assert hit["session"]["source"] == "journal" and hit["session"]["id"].startswith("jr-")
    assert hit["match"]["kind"] == "doc" and hit["match"]["timestamp"] == "2026-03-14T00:00:00Z"
    assert hit["session"]["title"] == "Saturday"
    assert days(cli, "flaky checkout timezone") == ["2026-03-20"]  # 2026-03-20-standup.md
    assert days(cli, "release train changelog") == ["2026-02-12"]  # `# 12 February 2026`


def test_after_and_before_filter_by_the_entry_date(cli: CLI, journal: Path) -> None:
    queries = ("heat pump schedule", "flaky checkout timezone", "release train changelog")

    def found(*window: str) -> list[str]:
        return sorted(day for q in queries for day in days(cli, q, *window))

    assert found() == ["2026-02-12", "2026-03-14", "2026-03-20"]
    assert found("--after", "2026-03-01") == ["2026-03-14", "2026-03-20"]
    assert found("--before", "2026-03-15") == ["2026-02-12", "2026-03-14"]
    assert found("--after", "2026-03-14", "--before", "2026-03-15") == ["2026-03-14"]


def test_a_log_with_several_dated_headings_is_one_entry_per_date(cli: CLI, journal: Path) -> None:
    hits = cli.json("search", "broad beans", "--session", "jr-")["results"]
    [log] = [h for h in hits if h["session"]["title"] == "Garden log"]
    view = cli.json("read", log["session"]["id"])
    assert view["total_turns"] == 3
    assert [t["timestamp"][:10] for t in view["turns"]] == [
        "2026-04-02",
        "2026-04-03",
        "2026-04-09",
    ]
    # A `###` under a dated heading stays in its entry.
    assert "fleece blew off" in view["turns"][1]["messages"][0]["text"]
    [frost] = cli.json("search", "frost fleece", "--after", "2026-04-03", "--before", "2026-04-04")[
        "results"
    ]
    assert frost["match"]["turn"] == 2


def test_the_front_matter_tags_of_an_entry_are_searchable(cli: CLI, journal: Path) -> None:
    assert days(cli, "work", "--source", "journal") == ["2026-03-20"]


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("2026-03-14-standup", "2026-03-14"),
        ("2026_03_14", "2026-03-14"),
        ("Saturday, 14 March 2026", "2026-03-14"),
        ("March 14th, 2026", "2026-03-14"),
        ("14 Sept 2026", "2026-09-14"),
        ("Notes 2026-02-30 then 2026-03-01", "2026-03-01"),  # no 30 February
        ("Sprint 12 retro", None),
    ],
)
def test_dates_people_write_in_names_and_headings(text: str, day: str | None) -> None:
    found = find_date(text)
    assert (found[:10] if found else None) == day
