"""Titles from a model the person runs, against a stand-in server on a real socket.

The stand-in speaks Ollama's `/api/chat` and OpenAI's `/v1/chat/completions` as the real
servers do (tests/chat_server.py); the config file, the CLI, the index and the
transcripts are the real thing. What a user must be able to count on: the model's title
and one-line summary are used when they are usable, the model reads only redacted text,
and any failure leaves the offline title in place with one note.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from chat_server import ChatServer
from conftest import CLI
from transcripts import Transcript, project_dir

from findsession.titles.model import clean_answer

NOTES = "5ac30ab5-0000-4000-8000-000000000001"
DEPLOY = "7c1e4a52-0000-4000-8000-000000000002"
KEY = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-abcdEFGH"


@pytest.fixture
def server() -> Iterator[ChatServer]:
    s = ChatServer()
    yield s
    s.close()


@pytest.fixture
def corpus(cli: CLI, tmp_path: Path) -> Path:
    root = tmp_path / "home" / ".claude" / "projects"
    t = Transcript(session_id=NOTES, cwd="/home/dev/notes")
    t.prompt(f"syncthing made a conflict copy of todo.md again; my key {KEY} is in it, fix it")
    t.reply("Merged the copy and removed it.")
    u = Transcript(session_id=DEPLOY, cwd="/home/dev/code/webshop")
    u.prompt("the webshop deploy script says live but shop1 serves the old build")
    u.reply("The health check followed the old symlink.")
    paths = [t.write(project_dir(root, t.cwd)), u.write(project_dir(root, u.cwd))]
    then = time.time() - 7200
    for path in paths:
        os.utime(path, (then, then))
    cli.run("index", "--no-embed")
    return paths[0]


def configure(tmp_path: Path, body: str) -> None:
    (tmp_path / "config.toml").write_text(
        f'[machine]\nname = "desk"\n[titles]\nwriter = "desk"\n{body}\n'
    )


def by_id(report: dict) -> dict[str, dict]:
    return {r["session"]["id"]: r for r in report["sessions"]}


def test_ollama_names_the_session_from_redacted_text(
    cli: CLI, tmp_path: Path, corpus: Path, server: ChatServer
) -> None:
    configure(tmp_path, f'provider = "ollama"\nurl = "{server.url}"\nmodel = "{server.model}"')
    report = cli.json("titles")
    assert report["by"] == "ollama:qwen2.5:3b"
    notes = by_id(report)[NOTES]
    assert (notes["title"], notes["by"]) == ("syncthing-conflict-fix", "ollama:qwen2.5:3b")
    assert notes["summary"] == "Merge a Syncthing conflict copy of the todo list."
    bodies = server.sent("/api/chat")
    assert len(bodies) == 2 and all(b["stream"] is False for b in bodies)
    assert [m["role"] for m in bodies[0]["messages"]] == ["system", "user"]
    asked = " ".join(m["content"] for b in bodies for m in b["messages"])
    assert "syncthing made a conflict copy" in asked and "shop1" in asked
    assert KEY not in asked and "[REDACTED:" in asked  # the model reads what the index holds


def test_an_openai_compatible_server_gets_its_key_and_the_line_written_is_the_models(
    cli: CLI, tmp_path: Path, corpus: Path, server: ChatServer
) -> None:
    cli.env["TITLES_KEY"] = "local-secret"
    configure(
        tmp_path,
        f'provider = "openai"\nurl = "{server.url}"\nmodel = "{server.model}"\n'
        'api_key_env = "TITLES_KEY"',
    )
    server.reply = lambda messages: (
        "<think>The person fixes sync trouble.</think>\n"
        '**Title:** "Syncthing Conflict Fix"\n**Summary:** Resolve the todo.md conflict copy.'
    )
    before = corpus.read_bytes()
    notes = by_id(cli.json("titles", "--write", "--session", NOTES))[NOTES]
    assert (notes["status"], notes["title"]) == ("written", "syncthing-conflict-fix")
    assert notes["summary"] == "Resolve the todo.md conflict copy."
    assert corpus.read_bytes() == before + (
        b'{"type":"custom-title","customTitle":"syncthing-conflict-fix","sessionId":"'
        + NOTES.encode()
        + b'"}\n'
    )
    ((path, body, headers),) = server.requests
    assert path == "/v1/chat/completions" and body["model"] == server.model
    assert headers["Authorization"] == "Bearer local-secret"


def test_a_model_that_fails_leaves_the_offline_title_and_is_asked_once(
    cli: CLI, tmp_path: Path, corpus: Path, server: ChatServer
) -> None:
    configure(tmp_path, f'provider = "ollama"\nurl = "{server.url}"\nmodel = "llama-absent"')
    offline = by_id(cli.json("titles", "--session", NOTES))
    proc = cli.run("titles", "--json")
    report = json.loads(proc.stdout)
    assert all(r["by"] == "offline" and r["title"] for r in report["sessions"])
    assert by_id(report)[NOTES]["title"] == offline[NOTES]["title"]
    assert len(server.requests) == 2  # once for --session, once for the whole run
    (note,) = report["notes"]
    assert "the title model failed" in note and "not found" in note and "offline" in note
    assert "note: the title model failed" in proc.stderr


def test_an_answer_without_a_title_falls_back_for_that_session(
    cli: CLI, tmp_path: Path, corpus: Path, server: ChatServer
) -> None:
    configure(tmp_path, f'provider = "ollama"\nurl = "{server.url}"\nmodel = "{server.model}"')
    server.reply = lambda messages: "```\n\n```"
    report = cli.json("titles")
    assert [r["by"] for r in report["sessions"]] == ["offline", "offline"]
    assert len(server.requests) == 2  # an unusable answer does not stop the model
    assert report["notes"] == [
        "the title model gave 2 answers with no usable title; those sessions have offline titles"
    ]


def test_a_model_title_holding_a_secret_is_not_used(
    cli: CLI, tmp_path: Path, corpus: Path, server: ChatServer
) -> None:
    configure(tmp_path, f'provider = "ollama"\nurl = "{server.url}"\nmodel = "{server.model}"')
    server.reply = lambda messages: f"TITLE: {KEY}\nSUMMARY: uses {KEY}"
    for result in cli.json("titles")["sessions"]:
        assert result["by"] == "offline" and "api03" not in result["title"]
        assert result["summary"] is None


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ('provider = "gpt"', "unknown [titles] provider 'gpt'"),
        ('provider = "ollama"', "needs `model`"),
        ('provider = "openai"\nmodel = "m"', "needs `url`"),
        ("quiet_minutes = -5", "quiet_minutes must be a number of minutes"),
        ("writers = 'desk'", "unknown key 'writers' in [titles]"),
    ],
)
def test_a_bad_titles_table_is_named_in_one_line(
    cli: CLI, tmp_path: Path, body: str, says: str
) -> None:
    (tmp_path / "config.toml").write_text(f"[titles]\n{body}\n")
    proc = cli.run("titles", check=False)
    assert proc.returncode == 1 and says in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_answers_are_cleaned_to_one_slug_and_one_line() -> None:
    assert clean_answer("TITLE: Fix  the Deploy Script!\nSUMMARY:  Two\tspaces\x1b[2J here ") == (
        "fix-the-deploy-script",
        "Two spaces [2J here",
    )
    assert clean_answer("Here you go:\nDeploy health check") == ("deploy-health-check", None)
    assert clean_answer("title: one two three four five six seven")[0] == (
        "one-two-three-four-five"
    )
    long = clean_answer("TITLE: x-y\nSUMMARY: " + "word " * 60)[1]
    assert long is not None and len(long) == 160 and long.endswith("…")
