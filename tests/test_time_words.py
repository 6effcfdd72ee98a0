"""Time words in a query ("last week", "in March", "上周") as a soft date preference."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from conftest import CLI
from transcripts import Transcript, project_dir

from findsession.search.when import time_window, without_time_words

NOW = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)  # a Tuesday


@pytest.mark.parametrize(
    ("query", "first", "last", "rest"),
    [
        ("the docker fix last week", "2026-11-23", "2026-11-29", "the docker fix"),
        ("that chat in March about sync", "2026-03-01", "2026-03-31", "that chat about sync"),
        ("in may 2025 we moved the vault", "2025-05-01", "2025-05-31", "we moved the vault"),
        ("yesterday's flaky test", "2026-11-30", "2026-11-30", "'s flaky test"),
        ("two weeks ago the migration broke", "2026-11-10", "2026-11-23", "the migration broke"),
        ("上周修复部署的那次", "2026-11-23", "2026-11-29", "修复部署的那次"),
        ("三天前的数据库迁移", "2026-11-27", "2026-11-28", "的数据库迁移"),
    ],
)
def test_time_words_name_a_window_and_leave_the_topic(
    query: str, first: str, last: str, rest: str
) -> None:
    window = time_window(query, NOW)
    assert window is not None and window.describe() == f"{first} – {last}"
    assert without_time_words(query, window) == rest


@pytest.mark.parametrize(
    "query",
    ["what did we decide about caching", "the config file in the repo", "may I see the logs"],
)
def test_queries_without_time_words_name_no_window(query: str) -> None:
    assert time_window(query, NOW) is None


def test_a_query_of_time_words_alone_keeps_its_text() -> None:
    window = time_window("yesterday", NOW)
    assert without_time_words("yesterday", window) == "yesterday"


@pytest.fixture
def three_times(cli: CLI) -> CLI:
    """The same fix done three times: eight days, two months and a year ago."""
    root = Path(cli.env["CLAUDE_CONFIG_DIR"]) / "projects"
    now = datetime.now(UTC)
    for name, days in (("recent", 8), ("spring", 60), ("old", 365)):
        t = Transcript(session_id=name, cwd="/home/dev/app", start=now - timedelta(days=days))
        t.prompt("the docker image build is slow again, the layer cache misses every time")
        t.reply("The COPY of the whole tree came before installing dependencies; reordered.")
        t.write(project_dir(root, "/home/dev/app"))
    cli.run("index")
    return cli


def ranked(cli: CLI, *args: str) -> list[str]:
    return [r["session"]["id"] for r in cli.json("search", *args)["results"]]


def test_a_time_word_ranks_the_session_from_then_first(three_times: CLI) -> None:
    query = "docker layer cache misses"
    assert ranked(three_times, f"{query} a year ago")[0] == "old"
    assert ranked(three_times, f"{query} two months ago")[0] == "spring"
    assert ranked(three_times, f"上周 {query}")[0] == "recent"
    shown = three_times.run("search", f"the {query} from a year ago")
    assert "read 'a year ago' as" in shown.stderr and "sessions active then rank higher" in (
        shown.stderr
    )
    # A preference, not a filter: the others are still listed.
    assert set(ranked(three_times, f"{query} a year ago")) == {"recent", "spring", "old"}


def test_hard_date_filters_take_over_from_time_words(three_times: CLI) -> None:
    since = (datetime.now(UTC) - timedelta(days=30)).strftime("%Y-%m-%d")
    data = three_times.json("search", "docker layer cache misses a year ago", "--after", since)
    assert [r["session"]["id"] for r in data["results"]] == ["recent"]
    assert not any("rank higher" in note for note in data["notes"])
