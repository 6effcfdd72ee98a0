"""Offline titles: a session's most distinctive terms against a real index, as a slug.

Each test indexes real transcript files into a real SQLite index and asks for the
offline title the way `findsession titles` does, so rarity comes from the index's own
keyword vocabulary, and secrets go through the indexer's own redaction first.
"""

from __future__ import annotations

import re
from pathlib import Path

from conftest import index
from transcripts import Transcript, project_dir

from findsession.storage.sqlite import Store
from findsession.titles.propose import Material, candidates, slug, task_of, words
from findsession.titles.settings import TitleSettings
from findsession.titles.titler import Titler

SLUG = re.compile(r"^[^\W_]+(?:-[^\W_]+){1,4}$")
CWD = "/home/dev/code/shop"


def session(projects: Path, sid: str, *prompts: str, files: tuple[str, ...] = ()) -> None:
    t = Transcript(session_id=sid, cwd=CWD)
    for n, prompt in enumerate(prompts):
        t.prompt(prompt)
        if n == 0:
            for name in files:
                t.tool("Edit", {"file_path": name, "old_string": "a", "new_string": "b"}, "ok")
        t.reply("Done: the change is in and the tests pass.")
    t.write(project_dir(projects, CWD))


def propose(store: Store, sid: str) -> str | None:
    found = Titler(store, TitleSettings()).propose(store.get_session(sid))
    return found.title if found else None


def background(projects: Path, n: int = 8) -> None:
    """Sessions that all talk about the server and the deploy: words that name none."""
    for i in range(n):
        session(
            projects,
            f"bg{i:02d}0000-0000-4000-8000-000000000000",
            f"the server deploy step {i} needs a retry when the server is slow to answer",
        )


def test_rare_terms_name_the_session_and_common_ones_do_not(store: Store, projects: Path) -> None:
    background(projects)
    session(
        projects,
        "5ac30ab5-0000-4000-8000-000000000001",
        "the server shows a syncthing conflict copy of todo.md again, please fix the conflict",
        "why does syncthing create conflicts on the server?",
    )
    index(store, projects)
    title = propose(store, "5ac30ab5-0000-4000-8000-000000000001")
    assert title is not None and SLUG.match(title)
    words_of = title.split("-")
    assert words_of[:2] == ["syncthing", "conflict"]  # in the order they were typed
    assert words_of[-1] == "fix"  # the task the first prompt names goes last
    assert "server" not in words_of and "conflicts" not in words_of


def test_every_title_is_a_short_lowercase_slug(store: Store, projects: Path) -> None:
    background(projects, 4)
    prompts = [
        "Migrate the PostgreSQL Ledger tables to the new Partition scheme before Friday",
        "Why is the CSV importer dropping rows with Ünïcödé names? Debugging needed",
        "Rename every occurrence of fetchUserProfile to loadAccountProfile in the React app",
        "write unit tests for the rate limiter token bucket refill logic",
    ]
    for n, prompt in enumerate(prompts):
        session(projects, f"cc{n:02d}0000-0000-4000-8000-000000000000", prompt)
    index(store, projects)
    titles = [propose(store, f"cc{n:02d}0000-0000-4000-8000-000000000000") for n in range(4)]
    for title in titles:
        assert title is not None and SLUG.match(title) and len(title) <= 60, title
        assert title == title.lower()
    assert titles[0].endswith("-migration") and "ledger" in titles[0]
    assert titles[1].endswith("-debug")
    assert titles[2].endswith("-rename")


def test_no_secret_hash_or_link_reaches_a_title(store: Store, projects: Path) -> None:
    background(projects, 4)
    sid = "5ec0e700-0000-4000-8000-000000000001"
    session(
        projects,
        sid,
        "the billing webhook fails: token"
        " sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-abcdEFGH"
        " key AKIAIOSFODNN7EXAMPLE commit 3f9c2ab7e1d04c58 run"
        " 7c1e4a52-9b3d-4f0e-8a61-2d5f9c3b7e14 see https://hooks.example.com/T0/B1/xyzzytoken",
    )
    index(store, projects)
    title = propose(store, sid)
    assert title is not None and SLUG.match(title)
    for part in ("sk", "ant", "api03", "akia", "3f9c2ab7", "7c1e4a52", "xyzzytoken", "redacted"):
        assert part not in title.split("-"), title
    assert "billing" in title and "webhook" in title


def test_files_touched_name_a_session_whose_prompt_says_little(
    store: Store, projects: Path
) -> None:
    background(projects, 4)
    sid = "f11e0000-0000-4000-8000-000000000001"
    session(
        projects,
        sid,
        "can you have a look at this?",
        files=("/home/dev/code/shop/billing/invoice_rounding.py", "/home/dev/code/shop/index.ts"),
    )
    index(store, projects)
    title = propose(store, sid)
    assert title is not None and {"invoice", "rounding"} <= set(title.split("-"))
    assert "index" not in title.split("-")


def test_a_session_with_nothing_distinctive_gets_no_title(store: Store, projects: Path) -> None:
    sid = "0000a11c-0000-4000-8000-000000000001"
    session(projects, sid, "hi, can you help?")
    index(store, projects)
    assert propose(store, sid) is None


def test_cjk_words_stay_whole(store: Store, projects: Path) -> None:
    background(projects, 4)
    sid = "c1c10000-0000-4000-8000-000000000001"
    session(projects, sid, "修复 同步冲突 的问题, syncthing 又 出错 了")
    index(store, projects)
    title = propose(store, sid)
    assert title is not None and "同步冲突" in title.split("-") and SLUG.match(title)


def test_the_pure_core_weighs_first_prompts_and_merges_plural_forms() -> None:
    found = candidates(
        Material(["Fix the flaky scheduler conflicts", "the scheduler conflict again"], [])
    )
    assert found["conflicts"].weight == 3 + 2  # one term, first typed as "conflicts"
    assert "conflict" not in found and "the" not in found and "fix" not in found
    assert task_of("Please stop fixing the wrong thing; refactor it") == "fix"
    assert words("invoice /srv/app/x.py https://a.example/b?token=1 [REDACTED:aws] 9b3d") == [
        "invoice"
    ]
    assert slug("Syncthing: Conflict__Fix!! now, please, ok, then") == (
        "syncthing-conflict-fix-now-please"
    )
