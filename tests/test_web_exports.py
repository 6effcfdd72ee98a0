"""The chat apps' exports in the web page (a real headless Chromium over the real
`findsession ui`): their sessions found beside each other and filtered by source, and
read in the reader with their code as it was written and the files given named."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from chat_exports import APPS, zipped
from conftest import CLI
from test_web import ARGS, chromium, playwright_api, until
from web_page import Page, served

pytestmark = pytest.mark.skipif(
    chromium() is None, reason="needs Chromium at /usr/bin/chromium (`apt-get install chromium`)"
)
SOURDOUGH = "chatgpt:6a1f0c2e-0000-4000-8000-0000000000a1"
BEEHIVE = "gemini-apps:b7e3c1a9d5f20468"


@pytest.fixture(scope="module")
def exports_page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Page]:
    tmp = tmp_path_factory.mktemp("web-exports")
    cli = CLI(tmp, tmp / "index" / "findsession.db")
    cli.env["FINDSESSION_NO_SERVICE"] = "1"
    for kind, app in APPS.items():
        cli.run(
            "index", "--no-embed", "--source", kind, str(zipped(app.older, tmp / f"{kind}.zip"))
        )
    with served(cli) as running:
        yield running


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
def tab(browser: Any, exports_page: Page) -> Iterator[Any]:
    t = browser.new_page()
    errors: list[str] = []
    t.on("pageerror", lambda exc: errors.append(str(exc)))
    t.goto(exports_page.url)
    t.wait_for_url(f"http://127.0.0.1:{exports_page.port}{exports_page.base}")
    yield t
    t.close()
    assert not errors, errors


def test_the_apps_rank_together_and_the_source_filter_keeps_one(tab: Any) -> None:
    tab.fill("#q", "sensor")  # the lighthouse's (Claude.ai) and the beehive's (Gemini)
    tab.wait_for_selector(".results .result")
    until(tab, "document.querySelectorAll('.results .source').length >= 2")
    assert set(tab.locator(".results .source").all_inner_texts()) == {"claude-ai", "gemini-apps"}
    tab.select_option("#f-source", "gemini-apps")
    until(
        tab,
        "[...document.querySelectorAll('.results .source')]"
        ".every(e => e.textContent === 'gemini-apps')",
    )
    assert set(tab.locator(".results .source").all_inner_texts()) == {"gemini-apps"}


def test_the_reader_shows_a_conversation_with_its_code_and_files(tab: Any) -> None:
    tab.goto(tab.url + f"#/session/{SOURDOUGH}")
    tab.wait_for_selector(".reader .turn")
    text = tab.locator(".reader").inner_text()
    assert tab.locator(".reader-head .model").inner_text() == "o3"
    assert "How do I keep my sourdough starter at 80 percent hydration" in text
    assert "def hydration(flour, water):\n    return water / flour" in text
    call = tab.locator("details.tool-call").first
    assert "attachment" in call.locator("summary").inner_text()
    call.locator("summary").click()
    assert "hydration-log.csv" in call.inner_text()
    tab.goto(tab.url.split("#")[0] + f"#/session/{BEEHIVE}")
    until(
        tab,
        "document.querySelector('.reader') && document.querySelector('.reader')"
        ".innerText.includes('time.sleep(3600)')",
    )


def test_the_sources_view_lists_each_export(tab: Any, exports_page: Page) -> None:
    tab.goto(tab.url + "#/sources")
    until(tab, "document.body.innerText.includes('gemini-apps')")
    body = tab.locator("body").inner_text()
    for kind in APPS:
        assert kind in body
