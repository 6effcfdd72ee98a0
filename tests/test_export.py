"""`findsession export`: a session as one Markdown or HTML file, through the real CLI over
a real index of the sample corpus and the Codex, Gemini and Aider fixtures; the HTML
opened in the real Chromium (no script runs, nothing is fetched, it reads on a phone).
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import AIDER_SESSION, CLI, FIXTURES, SAMPLE
from markdown_it import MarkdownIt
from transcripts import Transcript, project_dir

#: The sample's deploy session: four turns, an Explore subagent started by an Agent call.
DEPLOY = "7c1e4a52-9b3d-4f0e-8a61-2d5f9c3b7e14"
SUBAGENT = "agent-a3e9f1c07b25d4e86"
#: A sample session whose tool output held a key (a fake one) the index redacted.
WITH_SECRET = "e6b24d90-8f17-4c3e-b6a8-5d9f2c0e7a41"
SECRET = "sk-test-FAKE9d2XqL7mVt4Rb8Nw1Kc6Hy3Jp0Zs"
HOSTILE = "0bad0bad-2222-4333-8444-955556666777"
SCRIPT = "<script>window.__pwned=1</script>"
IMG = '<img src="http://127.0.0.1:9/x.png" onerror="window.__pwned=2">'
STYLE = '<link rel="stylesheet" href="http://127.0.0.1:9/x.css">'
#: A session whose every message tries to get markup past a Markdown renderer.
PLANTED = "0bad0bad-3333-4444-8555-966667777888"
PLANTED_TEXTS = [
    f"open the page {SCRIPT} and <iframe src=http://127.0.0.1:9/frame></iframe>",
    f"<div>\n{IMG}\n</div>\n\nThe `Vec<String>` type, and ![pixel](http://127.0.0.1:9/p.png)",
    "```html\n<b>kept as code</b>\n```\n\n[x]: http://127.0.0.1:9/ref.png\n\n![ref][x]",
    "- a list left open",  # the next reply's indented text is this item's paragraph
    f"    {IMG}",
    "an escaped \\<img src=http://127.0.0.1:9/bs.png> and a backtick \\`<i>x</i>`",
    "```\na fence left open",  # it swallows the fold below, whose fence then closes it
]
#: One session of each other agent the issue names, and how many turns it has.
OTHERS = {
    "019df26e-2d00-7f29-8645-deec08007ae4": "codex",
    "aaaa1111-0000-4000-8000-000000000001": "gemini",
    AIDER_SESSION: "aider",
}


@pytest.fixture(scope="module")
def cli(tmp_path_factory: pytest.TempPathFactory) -> CLI:
    tmp = tmp_path_factory.mktemp("export")
    cli = CLI(tmp, tmp / "index" / "findsession.db")
    cli.env["FINDSESSION_NO_SERVICE"] = "1"
    hostile = tmp / "hostile" / "projects"
    t = Transcript(session_id=HOSTILE, cwd="/home/dev/code/zoo")
    t.prompt(f"why does the page print {SCRIPT} and {STYLE} literally?")
    t.reply(f"The template inserts {IMG} unescaped.")
    t.tool("Bash", {"command": f"grep -rn '{SCRIPT}' templates"}, f"templates/a.html:3:{IMG}")
    t.reply("Escape it before rendering ```` and </details> too.")
    t.write(project_dir(hostile, "/home/dev/code/zoo"))
    planted = Transcript(session_id=PLANTED, cwd="/home/dev/code/zoo")
    planted.prompt(PLANTED_TEXTS[0])
    for text in PLANTED_TEXTS[1:]:
        planted.reply(text)
    planted.tool("Bash", {"command": "cat page.html"}, f"{SCRIPT}\n{IMG}")
    planted.reply(f"after the output: {STYLE}")
    planted.write(project_dir(hostile, "/home/dev/code/zoo"))
    cli.run("index", "--no-embed", str(SAMPLE), str(hostile))
    cli.run("index", "--no-embed", "--source", "codex", str(FIXTURES / "codex" / "home"))
    cli.run("index", "--no-embed", "--source", "gemini", str(FIXTURES / "gemini" / "home"))
    cli.run("index", "--no-embed", "--source", "aider", str(FIXTURES / "aider"))
    return cli


def _read(cli: CLI, session: str) -> dict[str, Any]:
    return cli.json("read", session, "--tools")


def test_markdown_holds_every_turn_its_tools_folded_and_the_subagent_under_its_call(
    cli: CLI,
) -> None:
    md = cli.run("export", DEPLOY).stdout
    read = _read(cli, DEPLOY)
    assert md.startswith("# Fix deploy script that reported live while old build ran\n")
    assert "- **project:** /home/dev/code/webshop" in md
    assert "2026-05-14 10:18 UTC" in md
    # Each turn, numbered as `read` numbers it, with its prompt quoted and its replies.
    headings = re.findall(r"^## Turn (\d+)", md, re.M)
    assert headings == [str(t["turn"]) for t in read["turns"]] == ["1", "2", "3", "4"]
    for turn in read["turns"]:
        for m in turn["messages"]:
            if m["kind"] == "prompt":
                assert "\n".join(f"> {line}".rstrip() for line in m["text"].splitlines()) in md
            elif m["kind"] == "reply":
                assert m["text"].strip() in md
            else:  # folded, with its size: the index's text, whole
                assert f"· {len(m['text'])} chars</summary>" in md or "k chars</summary>" in md
    folds = md.count("<details><summary>tool call: ")
    calls = sum(m["kind"] == "tool_call" for t in read["turns"] for m in t["messages"])
    assert folds == calls + 1  # the subagent's own Bash call too
    # The subagent's turns sit right under the Agent call that started it, not at the end.
    agent_call = md.index("<details><summary>tool call: Agent")
    child = md.index("<details><summary>subagent: Explore: Map deploy and health-check path")
    assert agent_call < child < md.index("## Turn 2")
    assert f"Session `{SUBAGENT}`" in md
    assert md.count("<details>") == md.count("</details>")


@pytest.mark.parametrize("session", OTHERS, ids=list(OTHERS.values()))
@pytest.mark.parametrize("fmt", ["md", "html"])
def test_codex_gemini_and_aider_sessions_export_whole(cli: CLI, session: str, fmt: str) -> None:
    text = cli.run("export", session, "--format", fmt).stdout
    read = _read(cli, session)
    assert read["session"]["source"] == OTHERS[session]
    assert read["total_turns"] >= 2
    prompts = [m["text"] for t in read["turns"] for m in t["messages"] if m["kind"] == "prompt"]
    assert len(prompts) == read["total_turns"]
    for m in (m for t in read["turns"] for m in t["messages"]):
        if m["kind"] in ("prompt", "reply"):
            first_line = m["text"].strip().splitlines()[0]
            shown = first_line if fmt == "md" else _escaped(first_line)
            assert shown in text, (m["kind"], first_line)
    if fmt == "html":
        assert len(re.findall(r'<section class="turn" id="turn-\d+">', text)) == len(prompts)


def _escaped(text: str) -> str:
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&#x27;")
    )


def test_raw_needs_saying_twice_and_is_written_for_its_owner_only(cli: CLI, tmp_path: Path) -> None:
    redacted = cli.run("export", WITH_SECRET).stdout
    assert SECRET not in redacted and "[REDACTED:openai-key]" in redacted
    once = cli.run("export", WITH_SECRET, "--raw", check=False, stdin=subprocess.DEVNULL)
    assert once.returncode == 1 and once.stdout == ""
    assert "give --raw twice" in once.stderr
    out = tmp_path / "raw.md"
    cli.run("export", WITH_SECRET, "--raw", "--raw", "-o", str(out))
    raw = out.read_text()
    assert SECRET in raw and "[REDACTED:" not in raw and "RAW EXPORT" in raw
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    html_out = tmp_path / "plain.html"
    cli.run("export", WITH_SECRET, "-o", str(html_out))  # the format from the extension
    assert html_out.read_text().startswith("<!doctype html>")
    assert SECRET not in html_out.read_text()


def test_an_unknown_session_or_folder_is_one_line_and_no_file(cli: CLI, tmp_path: Path) -> None:
    missing = cli.run("export", "nosuchsession", check=False)
    assert missing.returncode == 1 and "no indexed session" in missing.stderr
    nowhere = cli.run("export", DEPLOY, "-o", str(tmp_path / "no" / "x.md"), check=False)
    assert nowhere.returncode == 1 and "does not exist" in nowhere.stderr
    assert not (tmp_path / "no").exists()


def test_html_holds_markup_only_as_text(cli: CLI) -> None:
    page = cli.run("export", HOSTILE, "--format", "html").stdout
    assert "<script" not in page.replace("&lt;script", "")
    assert "<img" not in page and "<link" not in page
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in page
    assert "default-src &#x27;none&#x27;" in page or "default-src 'none'" in page


def _rendered(cli: CLI, session: str) -> tuple[str, list[Any]]:
    """The Markdown export as a CommonMark renderer with HTML on turns it into a page,
    and every token it parsed."""
    md = cli.run("export", session, "--format", "md").stdout
    renderer = MarkdownIt("commonmark", {"html": True})
    tokens = renderer.parse(md)
    flat = [*tokens, *(child for t in tokens for child in t.children or [])]
    return renderer.render(md), flat


def test_the_markdown_holds_no_live_markup_for_a_renderer_with_html_on(cli: CLI) -> None:
    for session in (PLANTED, HOSTILE):
        page, tokens = _rendered(cli, session)
        assert not [t for t in tokens if t.type in ("html_inline", "image")], page
        html = [t.content.strip() for t in tokens if t.type == "html_block"]
        assert all(re.fullmatch(r"<details><summary>[^<>]*</summary>|</details>", h)
                   for h in html), html  # fmt: skip
        for tag in ("<script", "<img", "<iframe", "<link", "<div", "<i>"):
            assert tag not in page, (tag, page)
    page, _ = _rendered(cli, PLANTED)
    # Code stays code, as written: a renderer shows its markup as text.
    assert "<code>Vec&lt;String&gt;</code>" in page
    assert "&lt;b&gt;kept as code&lt;/b&gt;" in page and "kept as code" in page
    # And the prose still reads: the markup shows as the text it was.
    assert "open the page &lt;script&gt;window.__pwned=1&lt;/script&gt;" in page


# --- in the real Chromium -------------------------------------------------------------

playwright_api = pytest.importorskip("playwright.sync_api", reason="needs the playwright package")


def _chromium() -> str | None:
    for path in (os.environ.get("FINDSESSION_CHROMIUM"), "/usr/bin/chromium"):
        if path and os.path.exists(path):
            return path
    return None


needs_chromium = pytest.mark.skipif(
    _chromium() is None, reason="needs Chromium at /usr/bin/chromium (`apt-get install chromium`)"
)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with playwright_api.sync_playwright() as p:
        launched = p.chromium.launch(
            executable_path=_chromium(),
            headless=True,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"],
        )
        yield launched
        launched.close()


def _open(browser: Any, path: Path, width: int) -> tuple[Any, list[str], list[str]]:
    """The file in a fresh page; every request it made and every console message."""
    page = browser.new_page(viewport={"width": width, "height": 800})
    requests: list[str] = []
    console: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.on("console", lambda m: console.append(m.text))
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    return page, requests, console


@needs_chromium
def test_the_html_runs_nothing_fetches_nothing_and_shows_the_markup_as_text(
    cli: CLI, browser: Any, tmp_path: Path
) -> None:
    path = tmp_path / "hostile.html"
    cli.run("export", HOSTILE, "-o", str(path))
    page, requests, _ = _open(browser, path, 1100)
    assert requests == [path.as_uri()]  # no image, stylesheet or font was asked for
    assert page.evaluate("window.__pwned === undefined")
    assert page.evaluate("document.scripts.length") == 0
    assert page.evaluate("document.images.length") == 0
    body = page.inner_text("body")
    assert SCRIPT in body and "literally" in body
    # The tool call and its output are folded, with their size, and open on a click.
    summaries = page.locator("details > summary").all_inner_texts()
    assert [s.split(" · ")[0] for s in summaries] == ["tool call: Bash", "output"]
    assert page.locator("details pre").first.is_visible() is False
    page.locator("details > summary").first.click()
    assert page.locator("details pre").first.is_visible()
    page.close()


@needs_chromium
def test_the_html_reads_on_a_phone_and_prints(cli: CLI, browser: Any, tmp_path: Path) -> None:
    path = tmp_path / "deploy.html"
    cli.run("export", DEPLOY, "-o", str(path))
    page, requests, _ = _open(browser, path, 390)
    assert requests == [path.as_uri()]
    # Nothing wider than the phone: long paths and commands wrap instead of scrolling.
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.locator("section.turn > h2").count() >= 4
    child = page.locator("details.subagent")
    assert child.count() == 1 and "Explore" in child.locator("> summary").inner_text()
    pdf = page.pdf(format="A4")
    assert pdf.startswith(b"%PDF") and pdf.count(b"/Type /Page") >= 2
    page.close()


@needs_chromium
def test_the_markdown_rendered_with_html_on_runs_nothing_fetches_nothing(
    cli: CLI, browser: Any, tmp_path: Path
) -> None:
    path = tmp_path / "planted.html"
    path.write_text(_rendered(cli, PLANTED)[0], encoding="utf-8")
    page, requests, _ = _open(browser, path, 1100)
    assert requests == [path.as_uri()]
    assert page.evaluate("window.__pwned === undefined")
    assert page.evaluate("document.scripts.length + document.images.length") == 0
    assert SCRIPT in page.inner_text("body")
    page.close()
