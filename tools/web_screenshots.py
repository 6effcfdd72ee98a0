"""Screenshots of the web page for the docs: `docs/ui-search.png`, `docs/ui-reader.png`.

Indexes the shipped sample corpus into a temporary index, serves it with
`findsession ui --no-open`, and photographs the search and reader views in the
system's Chromium (Debian's `chromium`) through Playwright.

    .venv/bin/python tools/web_screenshots.py [--chromium /usr/bin/chromium]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

REPO = Path(__file__).resolve().parents[1]
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--out", type=Path, default=REPO / "docs")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "FINDSESSION_DB": f"{tmp}/index.db",
            "FINDSESSION_CONFIG": f"{tmp}/config.toml",
            "FINDSESSION_NO_SERVICE": "1",
            "HOME": f"{tmp}/home",
        }
        run = [sys.executable, "-m", "findsession"]
        subprocess.run([*run, "index"], env=env, check=True, capture_output=True)
        server = subprocess.Popen(
            [*run, "ui", "--no-open"], env=env, stdout=subprocess.PIPE, text=True
        )
        try:
            url = server.stdout.readline().strip() if server.stdout else ""
            shoot(url, args.chromium, args.out, tmp)
        finally:
            server.terminate()
            server.wait(10)
    return 0


def shoot(url: str, chromium: str, out: Path, tmp: str) -> None:
    with sync_playwright() as p:
        browser = p.chromium.launch_persistent_context(
            f"{tmp}/profile",
            executable_path=chromium,
            headless=True,
            args=ARGS,
            viewport={"width": 1100, "height": 760},
            color_scheme="light",
        )
        page = browser.new_page()
        page.goto(url)
        page.fill("#q", "warm up")  # the first search loads the model; show a warm one
        page.wait_for_selector(".results .result")
        page.fill("#q", "the deploy that lied about being live")
        while "lied" not in page.evaluate("location.hash"):  # polled: the CSP forbids eval
            page.wait_for_timeout(50)
        page.wait_for_selector(".results .result")
        page.screenshot(path=str(out / "ui-search.png"))
        page.click(".results .result .open >> nth=0")
        page.wait_for_selector(".reader .turn")
        page.wait_for_timeout(300)
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=str(out / "ui-reader.png"))
        browser.close()


if __name__ == "__main__":
    raise SystemExit(main())
