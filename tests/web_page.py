"""The web page under test: `findsession ui --no-open` as a real subprocess over a real
index of the shipped sample corpus, a Codex fixture and a transcript full of markup."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

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
    url: str
    port: int
    token: str
    cli: CLI
    #: The markup the hostile transcript holds, to be found as text.
    markup: tuple[str, str] = (SCRIPT, IMG)


def hostile_transcripts(root: Path) -> None:
    t = Transcript(session_id=HOSTILE_ID, cwd="/home/dev/code/zoo")
    t.prompt(f"why does the zebrafish page print {SCRIPT} literally?")
    t.reply(f"The zebrafish template inserts {IMG} unescaped; escape it before rendering.")
    t.write(project_dir(root, "/home/dev/code/zoo"))


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Page]:
    tmp = tmp_path_factory.mktemp("web")
    cli = CLI(tmp, tmp / "index" / "findsession.db")
    cli.env["FINDSESSION_NO_SERVICE"] = "1"
    hostile = tmp / "hostile" / "projects"
    hostile_transcripts(hostile)
    cli.run("index", str(SAMPLE), str(hostile))
    cli.run("index", str(CODEX), "--source", "codex")
    with served(cli) as running:
        yield running


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
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/\?token=[\w-]{43}", url), url
        parts = urlsplit(url)
        yield Page(url, int(parts.port or 0), parts.query.split("=", 1)[1], cli)
    finally:
        server.terminate()
        server.wait(10)
