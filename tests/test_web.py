"""The web page in a real headless Chromium (Debian's `chromium`, driven by Playwright)
over the real `findsession ui` and a real index of the sample corpus: search as you
type, filters, the reader (jump to the match, step between matches, subagents, the
resume command), keyboard, a phone-width window, and transcripts full of markup."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from web_page import Page

#: The `page` fixture: the real `findsession ui` over a real index.
pytest_plugins = ("web_page",)
#: A Codex session of the fixture with no title of its own (tests/test_titles_index_only.py).
CODEX_UNTITLED = "5e7c0d2a-1b34-4c56-9d78-0e1f2a3b4c5d"


def chromium() -> str | None:
    """Debian's Chromium (what `.ci/run` installs), or None."""
    for path in (os.environ.get("FINDSESSION_CHROMIUM"), "/usr/bin/chromium"):
        if path and os.path.exists(path):
            return path
    return None


playwright_api = pytest.importorskip("playwright.sync_api", reason="needs the playwright package")
pytestmark = pytest.mark.skipif(
    chromium() is None, reason="needs Chromium at /usr/bin/chromium (`apt-get install chromium`)"
)

ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PARENT = "7c1e4a52-9b3d-4f0e-8a61-2d5f9c3b7e14"
SUBAGENT = "agent-a3e9f1c07b25d4e86"


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with playwright_api.sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("profile")),
            executable_path=chromium(),
            headless=True,
            args=ARGS,
            viewport={"width": 1100, "height": 800},
        )
        yield context
        context.close()


@pytest.fixture
def tab(browser: Any, page: Page) -> Iterator[Any]:
    """A fresh tab on the page, let in by the link `findsession ui` printed."""
    t = browser.new_page()
    errors: list[str] = []
    t.on("pageerror", lambda exc: errors.append(str(exc)))
    t.goto(page.url)
    t.wait_for_url(f"http://127.0.0.1:{page.port}{page.base}")  # the link left the address bar
    yield t
    t.close()
    assert not errors, errors


def until(tab: Any, expression: str, seconds: float = 10.0) -> None:
    """Wait until `expression` is true in the page. Polled from here: Playwright's own
    wait_for_function evaluates a string in the page, which the page's CSP forbids."""
    deadline = time.monotonic() + seconds
    while not tab.evaluate(expression):
        assert time.monotonic() < deadline, f"never true: {expression}"
        time.sleep(0.05)


def drawn(tab: Any, view: str) -> None:
    """Wait until the page has drawn `view` (search, timeline, sources, reader) for the
    address it has now: the drawing before stays on screen until the new one is ready,
    and a search without a query draws a timeline too."""
    until(
        tab,
        f"document.body.dataset.view === '{view}'"
        " && !document.getElementById('main').hasAttribute('aria-busy')",
    )


def search(tab: Any, query: str) -> None:
    tab.fill("#q", query)
    tab.wait_for_selector(".results .result")


def test_search_as_you_type_marks_words_says_why_and_how_sure(tab: Any) -> None:
    search(tab, "deploy health check")
    first = tab.locator(".results .result").first
    assert first.locator(".snippet mark").count() >= 1
    assert first.locator(".why").inner_text().startswith("why: ")
    assert tab.locator(".confidence").inner_text().split(":")[0] in ("strong", "weak")
    assert "q=deploy+health+check" in tab.url


def test_a_source_filter_keeps_only_that_source(tab: Any) -> None:
    search(tab, "deploy")
    assert "claude-code" in set(tab.locator(".results .source").all_inner_texts())
    tab.select_option("#f-source", "codex")
    until(tab, "location.hash.includes('source=codex')")
    # The filtered answer replaces the list when it comes: wait for it, not for any list.
    until(
        tab,
        "document.querySelector('.empty') || [...document.querySelectorAll('.results .source')]"
        ".every(e => e.textContent === 'codex')",
    )
    assert set(tab.locator(".results .source").all_inner_texts()) <= {"codex"}
    tab.fill("#q", "orchard")
    until(
        tab,
        "document.querySelectorAll('.results .result').length > 0"
        " && location.hash.includes('q=orchard')",
    )
    assert set(tab.locator(".results .source").all_inner_texts()) == {"codex"}


def test_a_pasted_session_id_answers_with_that_session_marked_as_an_id_match(tab: Any) -> None:
    search(tab, PARENT[:8])
    first = tab.locator(".results .result").first
    assert first.get_attribute("data-session") == PARENT
    assert first.locator(".id-match").inner_text() == "id match"
    assert tab.locator(".results .id-match").count() == 1
    assert tab.locator(".confidence").inner_text().startswith("strong")


def test_open_a_session_jump_to_the_match_and_step_to_the_next(tab: Any) -> None:
    search(tab, "gunicorn preload_app HUP")
    tab.locator(".results .result .open").first.click()
    tab.wait_for_selector(".reader .turn")
    turn = re.search(r"turn=(\d+)", tab.url)
    assert turn, tab.url
    target = tab.locator(f"#turn-{turn.group(1)}")
    assert "target" in (target.get_attribute("class") or "")
    assert target.locator("mark.current").count() == 1  # the match, in view
    assert tab.locator("mark.current").is_visible()
    counter = tab.locator("#match-count")
    before = counter.inner_text()
    tab.click("#next-match")
    after = counter.inner_text()
    assert before != after and re.fullmatch(r"\d+ / \d+", after)
    tab.keyboard.press("p")
    assert counter.inner_text() == before


def test_tool_calls_are_collapsed_with_their_size_and_thinking_hidden(tab: Any) -> None:
    tab.goto(tab.url + f"#/session/{PARENT}")
    tab.wait_for_selector(".reader .turn")
    call = tab.locator("details.tool-call").first
    assert call.get_attribute("open") is None
    assert re.search(r"· [\d.]+k? chars", call.locator("summary").inner_text())
    thinking = tab.locator(".thinking").first
    assert not thinking.is_visible()
    tab.check("#show-thinking")
    assert thinking.is_visible()


def test_a_subagent_sits_under_the_call_that_started_it_linked_both_ways(tab: Any) -> None:
    tab.goto(tab.url + f"#/session/{PARENT}")
    tab.wait_for_selector(".reader .turn")
    child = tab.locator(f'#turn-1 .subagent[data-session="{SUBAGENT}"]')
    assert child.count() == 1
    # Right after the Agent call that started it.
    assert child.evaluate("n => n.previousElementSibling.classList.contains('tool-call')")
    child.locator(".sub-turns > summary").click()
    child.locator(".nested .turn").first.wait_for()
    child.locator(".subagent-link").click()
    tab.wait_for_selector("#parent-link")
    assert SUBAGENT in tab.url
    tab.click("#parent-link")
    until(tab, f"location.hash.includes('{PARENT}')")


def test_copy_the_resume_command(tab: Any, browser: Any, page: Page) -> None:
    browser.grant_permissions(
        ["clipboard-read", "clipboard-write"], origin=f"http://127.0.0.1:{page.port}"
    )
    tab.goto(tab.url + f"#/session/{PARENT}")
    tab.wait_for_selector("#copy-resume")
    line = tab.locator("#resume-line").inner_text()
    assert line == f"cd /home/dev/code/webshop && claude --resume {PARENT}"
    tab.click("#copy-resume")
    until(tab, "document.getElementById('copy-resume').textContent === 'Copied'")
    assert tab.evaluate("navigator.clipboard.readText()") == line


def test_keyboard_slash_arrows_enter_escape(tab: Any) -> None:
    tab.keyboard.press("/")
    assert tab.evaluate("document.activeElement.id") == "q"
    tab.keyboard.type("deploy")
    until(
        tab,
        "document.querySelectorAll('.results .result').length > 1"
        " && location.hash.includes('q=deploy')",
    )
    tab.keyboard.press("ArrowDown")
    tab.keyboard.press("ArrowDown")
    second = tab.locator(".results .result").nth(1)
    session = second.get_attribute("data-session")
    assert tab.evaluate("document.activeElement.closest('.result').dataset.session") == session
    tab.keyboard.press("Enter")
    tab.wait_for_selector(".reader .turn")
    assert session and session in tab.url
    tab.keyboard.press("Escape")
    tab.wait_for_selector(".results .result")
    assert tab.input_value("#q") == "deploy"


def test_a_phone_width_window_needs_no_sideways_scrolling(tab: Any) -> None:
    tab.set_viewport_size({"width": 390, "height": 844})
    wide = "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    search(tab, "deploy health check")
    assert tab.evaluate(wide) <= 0
    tab.locator(".results .result .open").first.click()
    tab.wait_for_selector(".reader .turn")
    tab.locator("details.tool-call").first.click()  # open a long command
    assert tab.evaluate(wide) <= 0
    tab.goto(tab.url.split("#")[0] + "#/sources")
    tab.wait_for_selector("table.sources")
    assert tab.evaluate(wide) <= 0


def test_markup_in_a_transcript_is_shown_as_text_and_never_runs(tab: Any, page: Page) -> None:
    search(tab, "zebrafish template")
    tab.locator(".results .result .open").first.click()
    tab.wait_for_selector(".reader .turn")
    text = tab.locator(".reader").inner_text()
    script, img = page.markup
    assert script in text and img in text
    tab.wait_for_timeout(200)  # an onerror would have fired by now
    assert tab.evaluate("typeof window.__pwned") == "undefined"
    assert tab.locator("main img, main script").count() == 0


def test_browse_the_timeline_and_the_sources(tab: Any, page: Page) -> None:
    # A title `titles --write` gave (kept in the index: Codex has no place for one).
    page.cli.env.pop("FINDSESSION_MACHINE", None)
    given = page.cli.json("titles", "--write", "--session", CODEX_UNTITLED)["sessions"]
    assert [r["status"] for r in given] == ["indexed"], given
    tab.goto(tab.url + "#/timeline")
    drawn(tab, "timeline")  # not the timeline the empty search drew before the title
    marked = tab.locator(".title-given")
    assert marked.count() == 1
    assert "kept in the index" in (marked.first.get_attribute("title") or "")
    row = tab.locator(f'li[data-session="{CODEX_UNTITLED}"]')
    assert row.locator(".title-given").count() == 1
    days = [d for d in tab.locator(".timeline .day h2").all_inner_texts() if d != "undated"]
    assert days == sorted(days, reverse=True) and all(
        re.fullmatch(r"\d{4}-\d\d-\d\d", d) for d in days
    )
    assert (
        "Fix deploy script that reported live while old build ran"
        in tab.locator(".timeline").inner_text()
    )
    tab.click("#nav-sources")
    tab.wait_for_selector("table.sources")
    rows = tab.locator("table.sources tbody th").all_inner_texts()
    assert "claude-code" in rows and "codex" in rows


@pytest.fixture(scope="module")
def crowded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Page]:
    """The page over 520 sessions, three at a time active in the same second, so the
    timeline's first page ends inside such a group."""
    from conftest import CLI
    from transcripts import Transcript, project_dir
    from web_page import served

    tmp = tmp_path_factory.mktemp("crowded")
    root = tmp / "projects"
    for i in range(520):
        start = datetime(2026, 3, 1, 12, 0, tzinfo=UTC) - timedelta(minutes=i // 3)
        t = Transcript(session_id=f"c0ffee00-0000-4000-8000-{i:012d}", start=start)
        t.prompt(f"crowded note {i}").reply("Noted.")
        t.write(project_dir(root, "/home/dev/code/app"))
    cli = CLI(tmp, tmp / "index" / "findsession.db")
    cli.env["FINDSESSION_NO_SERVICE"] = "1"
    cli.run("index", str(root), "--no-embed")
    with served(cli) as running:
        yield running


def test_the_timeline_pages_back_through_every_session(browser: Any, crowded: Page) -> None:
    t = browser.new_page()
    try:
        t.goto(crowded.url)
        t.wait_for_url(f"http://127.0.0.1:{crowded.port}{crowded.base}")
        t.goto(f"http://127.0.0.1:{crowded.port}{crowded.base}#/timeline")
        # The first address drew a timeline too: wait for the one #/timeline asked for, or
        # the click lands on a button that the second drawing throws away.
        drawn(t, "timeline")
        rows = t.locator(".timeline li[data-session]")
        assert rows.count() == 500
        assert t.locator("p.ran").inner_text().startswith("500 most recent sessions")
        t.click("button.older")
        until(t, "document.querySelectorAll('.timeline li[data-session]').length === 520")
        ids = [r.get_attribute("data-session") for r in rows.all()]
        assert len(set(ids)) == 520, "no session twice, none skipped at the page's edge"
        assert t.locator("p.ran").inner_text().startswith("520 most recent sessions")
        assert t.locator("button.older").count() == 0, "nothing older is left"
    finally:
        t.close()


KEPT = "9a9a9a9a-1111-4222-8333-000000000077"
CODEX_MAIN = "019df26e-2d00-7f29-8645-deec08007ae4"


@pytest.fixture(scope="module")
def gone(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Page]:
    """The page over a Claude Code session its agent deleted (the archive kept a copy)
    and a Codex session deleted by hand (the archive keeps no Codex transcripts)."""
    import shutil
    from pathlib import Path

    from conftest import CLI
    from transcripts import Transcript, project_dir
    from web_page import CODEX, served

    tmp = tmp_path_factory.mktemp("gone")
    cli = CLI(tmp, tmp / "index" / "findsession.db")
    cli.env["FINDSESSION_NO_SERVICE"] = "1"
    t = Transcript(session_id=KEPT, cwd=str(tmp))
    t.prompt("prune the espalier pear before spring").reply("Pruned to three tiers.")
    main = t.write(project_dir(Path(cli.env["CLAUDE_CONFIG_DIR"]) / "projects", str(tmp)))
    codex = tmp / "codex"
    shutil.copytree(CODEX, codex)
    cli.run("index", "--no-embed")
    cli.run("index", "--no-embed", "--source", "codex", str(codex))
    main.unlink()
    next(codex.rglob(f"*{CODEX_MAIN}.jsonl")).unlink()
    with served(cli) as running:
        yield running


def test_the_reader_marks_a_session_whose_transcript_is_gone(browser: Any, gone: Page) -> None:
    t = browser.new_page()
    try:
        t.goto(gone.url)
        t.wait_for_url(f"http://127.0.0.1:{gone.port}{gone.base}")
        t.goto(f"http://127.0.0.1:{gone.port}{gone.base}#/session/{KEPT}")
        t.wait_for_selector("#gone-mark")
        assert t.locator("#gone-mark").inner_text() == "transcript gone · kept in the archive"
        assert t.locator("#resume-line").inner_text() == f"findsession open {KEPT}"
        t.goto(f"http://127.0.0.1:{gone.port}{gone.base}#/session/{CODEX_MAIN}")
        until(t, "document.querySelector('#gone-mark')?.textContent.includes('no copy')")
        assert t.locator("#gone-mark").inner_text() == "transcript gone · no copy kept"
        assert "keeps no copies of codex transcripts" in t.locator(".resume.none").inner_text()
    finally:
        t.close()
