"""Secrets never reach the index: not its stored text, keyword index, vectors or titles."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import CLI
from transcripts import Transcript, project_dir

from findsession.redact import redact

SECRETS = {
    "openai-key": "sk-proj-Q7m2Xv9LpR4tY8wK1nB6cZ3dF5gH0jS2",
    "anthropic-key": "sk-ant-api03-Zk8Wq2Lm5Nx7Rv1Tb4Yc9Hd3Fg6Js0Pa",
    "aws-access-key": "AKIAQ3EGUJ5KTR7ZWXYP",
    "github-token": "ghp_R8sT2vW5yZ1aB4cD7eF0gH3iJ6kL9mN2oP5q",
    "slack-token": "xoxb-2841735409-8Hq3Jm5Kp7Lr",
    "stripe-key": "sk_live_4eC39HqLyjWDarjtT1zdp7dc",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJmaW5kc2Vzc2lvbiJ9.Qk4mZ8pR2tV6xY0aC3eG5iK7",
    "url-password": "Hunter2Falcon9",
    "secret-assignment": "p4ss-W0rd-Zebra-77",
    "private-key": "MIIEowIBAAKCAQEAx8vZ3kq",
}


@pytest.mark.parametrize(
    "text",
    [
        "the password reset flow sends a token by mail",
        "commit 3f9a2c17e0d1c2b3a4f5e6d7c8b9a0f1e2d3c4b5 fixed the key rotation",
        "tokenizer: unicode61 porter",
        "password: ${DB_PASSWORD}",
        "api_key = os.environ['OPENAI_API_KEY']",
        "def get_token(self): return self.token_cache.lookup(name)",
        "session 7c1e4a52-9b3d-4f0e-8a61-2d5f9c3b7e14 and task-runner sk-abc",
    ],
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert redact(text) == (text, {})


def test_no_secret_reaches_any_byte_of_the_index(cli: CLI, tmp_path: Path) -> None:
    root = Path(cli.env["CLAUDE_CONFIG_DIR"]) / "projects"
    t = Transcript(session_id="5ec2e7aa-0000-4000-8000-000000000001", cwd="/home/dev/app")
    t.prompt(f"my key is {SECRETS['openai-key']} and {SECRETS['anthropic-key']}, why 401?")
    t.reply(f"Use the token {SECRETS['github-token']} only in CI, not {SECRETS['slack-token']}.")
    t.tool(
        "Bash",
        {"command": f"psql postgres://admin:{SECRETS['url-password']}@db.internal/app"},
        f"AWS_ACCESS_KEY_ID={SECRETS['aws-access-key']}\n"
        f"DB_PASSWORD={SECRETS['secret-assignment']}\n-----BEGIN RSA PRIVATE KEY-----\n"
        f"{SECRETS['private-key']}\n-----END RSA PRIVATE KEY-----",
    )
    t.prompt(f"stripe says {SECRETS['stripe-key']} and the session is {SECRETS['jwt']}")
    t.reply("Rotate all of them now.")
    t.title(f"debug 401 with {SECRETS['stripe-key']}")
    transcript = t.write(project_dir(root, "/home/dev/app"))
    report = cli.json("index")
    assert sum(report["redacted"].values()) >= len(SECRETS)

    db = Path(cli.env["FINDSESSION_DB"])
    stored = b"".join(p.read_bytes() for p in db.parent.iterdir() if p.name.startswith(db.name))
    for kind, secret in SECRETS.items():
        assert secret.encode() not in stored, f"{kind} reached the index"
        assert secret.encode() in transcript.read_bytes()  # the transcript is untouched
    for secret in SECRETS.values():
        results = cli.json("search", secret)["results"]
        assert all(secret not in r["match"]["snippet"] for r in results)
    status = cli.json("status")
    assert status["redacted"]["github-token"] == 1 and status["redacted"]["private-key"] == 1
    shown = cli.run("read", "5ec2e7aa", "--tools").stdout
    assert "[REDACTED:openai-key]" in shown and SECRETS["openai-key"] not in shown
    assert "Rotate all of them now." in shown  # the rest of the text is intact
    raw = cli.run("read", "5ec2e7aa", "--tools", "--raw").stdout
    assert SECRETS["openai-key"] in raw and SECRETS["github-token"] in raw  # when asked
    assert "[REDACTED:" not in raw.split("turn 1", 1)[1]  # the header keeps the indexed title


def test_private_spans_and_private_sessions_stay_out(cli: CLI) -> None:
    root = Path(cli.env["CLAUDE_CONFIG_DIR"]) / "projects"
    folder = project_dir(root, "/home/dev/app")
    open_session = Transcript(session_id="0be10000-0000-4000-8000-000000000001")
    open_session.prompt(
        "deploy the invoicing service with <private>the Zanzibar Holdings contract"
        " terms</private> applied"
    ).reply("Deployed.")
    open_session.write(folder)
    hidden = Transcript(session_id="51de0000-0000-4000-8000-000000000002")
    hidden.prompt("first, how do I profile the importer?").reply("Use py-spy.")
    path = hidden.write(folder)
    agent = Transcript(
        session_id="51de0000-0000-4000-8000-000000000002", agent_id="a1b2c3d4e5f60718"
    )
    agent.prompt("profile the importer for the parent").reply("Hot loop in parse_row.")
    agent.write(folder / hidden.session_id / "subagents", "agent-a1b2c3d4e5f60718.jsonl")
    cli.run("index")
    assert cli.json("status")["sessions"] == 3  # before the marker: all indexed

    hidden.prompt("findsession:private now about the quarterly layoffs list").reply("Noted.")
    hidden.append_to(path)
    cli.run("index")
    hidden.prompt("more about the layoffs and severance").reply("Understood.")
    hidden.append_to(path)
    cli.run("index")

    db = Path(cli.env["FINDSESSION_DB"])
    stored = b"".join(p.read_bytes() for p in db.parent.iterdir() if p.name.startswith(db.name))
    for word in (b"Zanzibar", b"layoffs", b"severance", b"profile the importer", b"parse_row"):
        assert word not in stored, word
    status = cli.json("status")
    assert status["sessions"] == 1 and status["redacted"]["private-span"] == 1
    hits = cli.json("search", "deploy invoicing")["results"]
    assert hits[0]["session"]["id"].startswith("0be1")
    assert "[private]" in cli.run("read", "0be1").stdout
    assert cli.run("read", "51de", check=False).returncode == 1


def test_forget_deletes_for_good_and_reclaims_space(cli: CLI) -> None:
    root = Path(cli.env["CLAUDE_CONFIG_DIR"]) / "projects"
    for n, cwd in enumerate(["/home/dev/acme", "/home/dev/acme/api", "/home/dev/other"]):
        t = Transcript(session_id=f"f0{n}00000-0000-4000-8000-00000000000{n}", cwd=cwd)
        for turn in range(30):
            t.prompt(f"quokka{n} budget question {turn}").reply("figures " * 200)
        t.write(project_dir(root, cwd))
    cli.run("index")
    db = Path(cli.env["FINDSESSION_DB"])
    out = cli.json("forget", "f0200000")
    assert out["forgotten"] == ["f0200000-0000-4000-8000-000000000002"]
    assert out["bytes_after"] < out["bytes_before"]
    forgotten = cli.run("forget", "--project", "/home/dev/acme").stderr
    assert "forgot 2 sessions" in forgotten
    cli.run("index")  # the transcripts are still there: nothing comes back
    assert cli.json("status")["sessions"] == 0
    stored = b"".join(p.read_bytes() for p in db.parent.iterdir() if p.name.startswith(db.name))
    assert b"quokka" not in stored
    assert cli.run("forget", "nope", check=False).returncode == 1


def test_projects_excluded_in_the_config_are_not_indexed(cli: CLI, tmp_path: Path) -> None:
    root = Path(cli.env["CLAUDE_CONFIG_DIR"]) / "projects"
    for n, cwd in enumerate(["/home/dev/clients/acme/api", "/home/dev/own"]):
        t = Transcript(session_id=f"e{n}000000-0000-4000-8000-00000000000{n}", cwd=cwd)
        t.prompt(f"wombat question in {cwd}").reply("answer")
        t.write(project_dir(root, cwd))
    cli.run("index", "--no-embed")
    assert cli.json("status")["sessions"] == 2
    Path(cli.env["FINDSESSION_CONFIG"]).write_text('[privacy]\nexclude = ["/home/dev/clients"]\n')
    for path in root.rglob("*.jsonl"):  # touched, so the next run reads them again
        path.write_bytes(path.read_bytes() + b"\n")
    cli.run("index", "--no-embed")
    hits = cli.json("search", "wombat", "--mode", "keyword")["results"]
    assert [h["session"]["cwd"] for h in hits] == ["/home/dev/own"]
