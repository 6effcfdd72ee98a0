"""The reader offers the session as a Markdown and an HTML download: the same file
`findsession export` writes, behind the page's session, clicked in the real Chromium."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from test_web_security import fetch, token

if TYPE_CHECKING:
    from web_page import Page

pytest_plugins = ("web_page",)
PARENT = "7c1e4a52-9b3d-4f0e-8a61-2d5f9c3b7e14"
#: The sample session whose tool output held a key the index redacted.
WITH_SECRET = "e6b24d90-8f17-4c3e-b6a8-5d9f2c0e7a41"
SECRET = b"sk-test-FAKE9d2XqL7mVt4Rb8Nw1Kc6Hy3Jp0Zs"


def test_the_download_is_the_commands_file_and_needs_the_token(page: Page) -> None:
    path = f"/api/session/{PARENT}/export?format=md"
    status, _, body = fetch(page, path)
    assert status == 403 and b"deploy" not in body
    status, headers, body = fetch(page, path, token(page))
    assert status == 200
    assert headers["content-disposition"] == f'attachment; filename="session-{PARENT}.md"'
    assert body.decode() == page.cli.run("export", PARENT).stdout
    status, headers, body = fetch(page, path.replace("=md", "=html"), token(page))
    assert status == 200 and headers["content-type"].startswith("text/html")
    assert body.decode() == page.cli.run("export", PARENT, "--format", "html").stdout
    assert fetch(page, path.replace("=md", "=pdf"), token(page))[0] == 400
    # The page offers the index's text only: a raw export is the command line's.
    status, _, body = fetch(page, f"/api/session/{WITH_SECRET}/export?raw=1", token(page))
    assert status == 200 and b"[REDACTED:" in body and SECRET not in body


playwright_api = pytest.importorskip("playwright.sync_api", reason="needs the playwright package")


def _chromium() -> str | None:
    for path in (os.environ.get("FINDSESSION_CHROMIUM"), "/usr/bin/chromium"):
        if path and os.path.exists(path):
            return path
    return None


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with playwright_api.sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("profile")),
            executable_path=_chromium(),
            headless=True,
            accept_downloads=True,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"],
        )
        yield context
        context.close()


@pytest.mark.skipif(_chromium() is None, reason="needs Chromium at /usr/bin/chromium")
@pytest.mark.parametrize("fmt", ["md", "html"])
def test_the_reader_links_download_the_export(
    browser: Any, page: Page, fmt: str, tmp_path: Path
) -> None:
    page.let_in(browser)  # the module's link went to the download above
    tab = browser.new_page()
    tab.goto(f"http://127.0.0.1:{page.port}{page.base}#/session/{PARENT}")
    tab.wait_for_selector(f"#export-{fmt}")
    with tab.expect_download() as download:
        tab.click(f"#export-{fmt}")
    saved = tmp_path / download.value.suggested_filename
    download.value.save_as(saved)
    assert saved.name == f"session-{PARENT}.{fmt}"
    args = ("export", PARENT) + (("--format", "html") if fmt == "html" else ())
    assert saved.read_text() == page.cli.run(*args).stdout
    tab.close()
