"""Keyword search ranks what people typed above noise, and filters inside retrieval."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from conftest import index
from transcripts import Transcript, project_dir

from findsession.search.engine import SearchOptions, search
from findsession.search.filters import BadOption, parse_when
from findsession.storage.sqlite import Store


def kw(**kwargs: object) -> SearchOptions:
    return SearchOptions(mode="keyword", **kwargs)  # type: ignore[arg-type]


def test_typed_prompt_outranks_a_huge_tool_output(store: Store, projects: Path) -> None:
    folder = project_dir(projects, "/home/dev/code/app")
    noisy = Transcript(session_id="noisy")
    noisy.prompt("run the full test suite")
    noisy.tool("Bash", {"command": "pytest"}, ("tokenizer tokenizer warning " * 30_000))  # 700 KB
    noisy.reply("All green.")
    noisy.write(folder)
    typed = Transcript(session_id="typed")
    typed.prompt("the tokenizer splits emoji wrong").reply("It uses bytes, not graphemes.")
    typed.write(folder)
    index(store, projects)
    hits = search(store, "tokenizer", kw()).hits
    assert [h.session.id for h in hits] == ["typed", "noisy"]
    assert hits[1].matched_field == "tools"


def test_results_are_grouped_one_per_session(store: Store, projects: Path) -> None:
    folder = project_dir(projects, "/home/dev/code/app")
    t = Transcript(session_id="many")
    for i in range(30):
        t.prompt(f"redis timeout again, attempt {i}").reply("Raised the redis timeout.")
    t.write(folder)
    Transcript(session_id="other").prompt("redis cluster setup").reply("ok").write(folder)
    index(store, projects)
    hits = search(store, "redis", kw()).hits
    assert sorted(h.session.id for h in hits) == ["many", "other"]
    assert [h.rank for h in hits] == [1, 2]
    assert hits[0].score > hits[1].score


def test_filters_apply_inside_retrieval(store: Store, projects: Path) -> None:
    for i in range(40):  # many sessions that match better than the one we want
        t = Transcript(
            session_id=f"web{i}", cwd="/home/dev/web", start=datetime(2026, 3, 1, tzinfo=UTC)
        )
        t.prompt("docker docker docker compose").reply("docker is up")
        t.write(project_dir(projects, "/home/dev/web"))
    api = Transcript(session_id="api", cwd="/home/dev/api", start=datetime(2026, 6, 1, tzinfo=UTC))
    api.prompt("the docker image is huge").reply("Use a slim base image; docker layers add up.")
    api.prompt("and the healthcheck?").reply("Add HEALTHCHECK to the Dockerfile.")
    api.write(project_dir(projects, "/home/dev/api"))
    sub = Transcript(
        session_id="api-sub",
        cwd="/home/dev/api/services/auth",
        start=datetime(2026, 6, 2, tzinfo=UTC),
    )
    sub.prompt("docker for the auth service").reply("done").write(
        project_dir(projects, "/home/dev/api/services/auth")
    )
    index(store, projects)

    top1 = search(store, "docker", kw(top=1, project="/home/dev/api")).hits
    assert [h.session.id for h in top1] == ["api"] or [h.session.id for h in top1] == ["api-sub"]
    project = {h.session.id for h in search(store, "docker", kw(project="/home/dev/api")).hits}
    assert project == {"api", "api-sub"}
    assert {h.session.id for h in search(store, "docker", kw(project="/home/dev/ap")).hits} == set()
    assert [h.session.id for h in search(store, "docker", kw(session="api-s")).hits] == ["api-sub"]
    after = search(store, "docker", kw(after="2026-05-01")).hits
    assert {h.session.id for h in after} == {"api", "api-sub"}
    before = search(store, "docker", kw(before="2026-05-01", top=100)).hits
    assert len(before) == 40 and all(h.session.id.startswith("web") for h in before)
    user = search(store, "layers", kw(speaker="user")).hits
    assistant = search(store, "layers", kw(speaker="assistant")).hits
    assert user == [] and [h.session.id for h in assistant] == ["api"]
    fingerprints = search(store, "healthcheck", kw(kind="session")).hits
    assert [h.unit_kind for h in fingerprints] == ["session"]


def test_bad_options_have_clear_messages() -> None:
    with pytest.raises(BadOption, match="cannot read the date"):
        SearchOptions(after="last tuesday").validated()
    with pytest.raises(BadOption, match="at least 1"):
        SearchOptions(top=0).validated()
    now = datetime(2026, 6, 15, 12, 0, tzinfo=UTC)
    assert parse_when("7d", now) == "2026-06-08T12:00:00Z"
    assert parse_when("2w", now) == "2026-06-01T12:00:00Z"
    assert parse_when("2026-06-01") == "2026-06-01T00:00:00Z"


def test_stopwords_do_not_drown_the_query(store: Store, projects: Path) -> None:
    folder = project_dir(projects, "/home/dev/code/app")
    for i in range(20):
        Transcript(session_id=f"chat{i}").prompt("what is the plan for the day").reply(
            "the plan is the usual"
        ).write(folder)
    Transcript(session_id="target").prompt("the deploy that lied about being live").reply(
        "the health check now compares build hashes"
    ).write(folder)
    index(store, projects)
    hits = search(store, "what was the deploy that lied", kw()).hits
    assert hits[0].session.id == "target"


def test_a_word_most_units_contain_does_not_drown_the_rare_one(
    store: Store, projects: Path
) -> None:
    folder = project_dir(projects, "/home/dev/code/app")
    for i in range(260):  # 5,200 units that all say "test"
        t = Transcript(session_id=f"common{i:03d}")
        for turn in range(20):
            t.prompt(f"run the test suite again, round {turn}").reply("test suite passed")
        t.write(folder)
    rare = Transcript(session_id="rare")
    rare.prompt("the zeppelin test is flaky").reply("It waits for the clock.")
    rare.write(folder)
    index(store, projects)
    hits = search(store, "zeppelin test", kw()).hits
    assert [h.session.id for h in hits] == ["rare"]  # "test" no longer matches on its own
    assert "zeppelin" in hits[0].matched_terms
    assert len(search(store, "test", kw(top=20)).hits) == 20  # alone, it still searches
