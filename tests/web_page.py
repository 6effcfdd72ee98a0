"""The web page under test: `findsession ui --no-open` as a real subprocess over a real
index of the shipped sample corpus, a Codex fixture and a transcript full of markup."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI
from transcripts import Transcript, project_dir

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "src" / "findsession" / "sample" / "claude" / "projects"
CODEX = REPO / "tests" / "fixtures" / "codex" / "home"
HOSTILE_ID = "0bad0bad-1111-4222-8333-944445555666"
#: What a transcript may hold: markup that must reach the page as text.
SCRIPT = "<script>window.__pwned=1</script>"
IMG = '<img src=x onerror="window.__pwned=1">'


@dataclass
class Page:
    #: The one-time link `findsession ui` printed.
    url: str
    port: int
    #: The page's folder, `/<prefix>/`: every path of the page is under it.
    base: str
    cli: CLI
    #: The markup the hostile transcript holds, to be found as text.
    markup: tuple[str, str] = (SCRIPT, IMG)
    _session: str | None = None

    @property
    def session(self) -> str:
        """A session of the page's, from its link (used up here: a browser in the same
        module gets in with `let_in`, not through the link)."""
        if self._session is None:
            self._session = redeem(self.url)
        return self._session

    def let_in(self, context: Any) -> None:
        """Give a Playwright browser context this page's session, as the link's cookie."""
        cookie = {"name": "findsession", "value": self.session, "domain": "127.0.0.1"}
        context.add_cookies([{**cookie, "path": self.base, "httpOnly": True, "sameSite": "Strict"}])


LINK = re.compile(r"http://127\.0\.0\.1:(\d+)(/[\w-]{22}/)\?token=[\w-]{43}")


def redeem(url: str) -> str:
    """The session a link sets in its cookie."""
    import urllib.request

    with urllib.request.urlopen(url, timeout=30) as response:
        cookie = response.headers["Set-Cookie"]
    assert cookie, "a link must set the session's cookie"
    return cookie.split(";")[0].split("=", 1)[1]


def hostile_transcripts(root: Path) -> None:
    t = Transcript(session_id=HOSTILE_ID, cwd="/home/dev/code/zoo")
    t.prompt(f"why does the zebrafish page print {SCRIPT} literally?")
    t.reply(f"The zebrafish template inserts {IMG} unescaped; escape it before rendering.")
    t.write(project_dir(root, "/home/dev/code/zoo"))


@pytest.fixture(scope="module", params=["in-process", "service"])
def page(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Page]:
    """Each module's tests run twice: the page served by `ui` itself (no service may
    answer), and by a running service, which `ui` asks for it."""
    tmp = tmp_path_factory.mktemp("web")
    cli = CLI(tmp, tmp / "index" / "findsession.db")
    hostile = tmp / "hostile" / "projects"
    hostile_transcripts(hostile)
    cli.run("index", str(SAMPLE), str(hostile))
    cli.run("index", str(CODEX), "--source", "codex")
    if request.param == "in-process":
        cli.env["FINDSESSION_NO_SERVICE"] = "1"
        with served(cli) as running:
            yield running
        return
    runtime = Path(tempfile.mkdtemp(prefix="fs-"))  # short: socket paths are limited
    cli.env["XDG_RUNTIME_DIR"] = str(runtime)
    cli.run("service", "start")
    try:
        with served(cli) as running:
            yield running
    finally:
        cli.run("service", "stop", check=False)
        shutil.rmtree(runtime, ignore_errors=True)


@contextmanager
def served(cli: CLI) -> Iterator[Page]:
    """`findsession ui --no-open` over the CLI's index, until the block ends."""
    server = subprocess.Popen(
        [sys.executable, "-m", "findsession", "ui", "--no-open"],
        env=cli.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        match = LINK.fullmatch(url)
        assert match, url
        yield Page(url, int(match.group(1)), match.group(2), cli)
    finally:
        server.terminate()
        server.wait(10)
