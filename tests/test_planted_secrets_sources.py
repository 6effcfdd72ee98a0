"""Every agent's format, with secrets planted in each of its text fields, leaves no trace.

`test_planted_secrets` plants each kind of secret in each field of a Claude Code
transcript. Every other format has its own parser, its own fields and its own caps, and
a parser that forgot to hand one field through the indexer's redaction would store it
as it is. Here each format's fixture is copied, every string in it that reads as text
(it holds a space: prompts, replies, tool input and output, titles, descriptions; not
ids, roles or types, which would change what the record is) gets every kind of secret
appended, and the real CLI indexes the copy. Then no 10-character piece of any secret
may be in the index's bytes, its WAL, or any value or keyword-index term.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI
from test_planted_secrets import _stored
from test_redaction import _GITHUB_FG, LEAKED_KINDS, SECRETS, Haystack, pieces

FIXTURES = Path(__file__).parent / "fixtures"
#: Each format's fixture folder, indexed as a root of its source.
FORMATS = {
    "codex": "codex/home",
    "gemini": "gemini/home/.gemini",
    "qwen": "qwen/home",
    "droid": "droid/sessions",
    "pi": "pi/agent/sessions",
    "copilot-cli": "copilot-cli/home/.copilot",
    "cursor-agent": "cursor-agent/home/.cursor",
    "vscode-copilot": "vscode-copilot/home/.config/Code/User",
    "cline": "cline/User",
    "roo-code": "roo-code/User",
    "amp": "amp/threads",
    "continue": "continue/sessions",
    "kiro-ide": "kiro-ide/home/.config/Kiro/User/globalStorage/kiro.kiroagent",
    "kiro-ide@sessions": "kiro-sessions/home/.kiro/sessions",  # its later layout
    "kimi": "kimi/home/.kimi",
    "kimi-code": "kimi-code/home/.kimi-code",
    "openhands": "openhands",  # the CLI's conversations and the app's sessions
    "junie": "junie/sessions",
    "antigravity": "antigravity/home/.gemini",
    "iflow": "iflow/home/.iflow/projects",
    "qoder": "qoder/home/.qoder/projects",
    "auggie": "auggie/home/.augment/sessions",
    "trae-cli": "trae-cli/home/.trae/cli",
    "vibe": "vibe/home/.vibe/logs/session",
    "gptme": "gptme/home/.local/share/gptme/logs",
    "codebuddy": "codebuddy/home/.codebuddy/projects",
    "nanocoder": "nanocoder/home/.local/share/nanocoder/sessions",
    "avante": "avante/home/.local/state/nvim/avante",
    "letta": "letta/home/.letta/lc-local-backend",
    "code-puppy": "code-puppy/home/.code_puppy",
    "open-interpreter": "open_interpreter/home/.config/open-interpreter/conversations",
    # Cody's export, found in the folder (its stores: test_source_cody.py builds them).
    "cody": "cody",
    # The older layouts of agents that now keep a database (the stores have their own
    # planted-secret tests, with the database built by the test).
    "opencode": "opencode",
    "goose": "goose/sessions",
    "kiro": "kiro/sessions/cli",
    # The chat apps' exports, unpacked (tests/test_chat_exports_secrets.py plants in the
    # names of the files uploaded, and reads the zips).
    "chatgpt": "chatgpt/export-2024-05",
    "claude-ai": "claude-ai/data-2024-05-05-10-00-00",
    "gemini-apps": "gemini-apps/takeout-2024-05",
}
#: Every kind at once, one per line, as someone pasting a config would.
PLANTED = "\n".join(text for _, text, _ in LEAKED_KINDS)
#: Tokens that can stand in a path or a branch name (no blank, no slash).
IN_NAMES = (_GITHUB_FG, SECRETS["openai-key"], SECRETS["aws-access-key"])
#: A folder named after a token, put under every path.
FOLDER = "token-" + "-".join(IN_NAMES)
#: A branch named after one.
BRANCH = f"fix/{_GITHUB_FG}"
#: The names agents give a session's git branch.
BRANCH_KEYS = ("branch", "gitBranch", "git_branch", "selected_branch")
#: Lists of file names, where no argv is planted.
NAME_LISTS = ("attachedFiles",)
#: A password on a command written as an argv list, added to every list of strings.
ARGV = ["mysql", "-uroot", "-pS3cretMysql9", "--password", "Pg5ecretVal9"]


def _plant(value: Any, key: str = "") -> Any:
    """`value` with secrets in every field that can hold them: the kinds appended to
    every string that reads as text (a string holding a JSON document, like Cline's
    `text` fields, or a JSON string, like Antigravity's arguments, gets them inside
    it), a folder named after a token under every path
    (a `file://` URI too: an editor names an attached file so),
    a branch named after one, and a password on the command line of every argv list."""
    if isinstance(value, dict):
        return {k: _plant(v, k) for k, v in value.items()}
    if isinstance(value, list):
        planted = [_plant(v, key) for v in value]
        # Takeout's list of the files given with a prompt is names, not an argv
        # (test_chat_exports_secrets.py plants tokens in the names themselves).
        if value and all(isinstance(v, str) for v in value) and key not in NAME_LISTS:
            planted += ARGV
        return planted
    if not isinstance(value, str):
        return value
    if value.startswith('"'):  # a value held as JSON text (Antigravity's arguments)
        try:
            inner = json.loads(value)
        except ValueError:
            inner = None
        if isinstance(inner, str):
            return json.dumps(_plant(inner, key))
    if key in BRANCH_KEYS:
        return BRANCH
    if " " not in value and value.startswith(("/", "~/", "file:///")) and len(value) > 8:
        return f"{value.rstrip('/')}/{FOLDER}"
    if " " in value:
        try:
            inner = json.loads(value)
        except ValueError:
            return f"{value}\n{PLANTED}"
        if isinstance(inner, dict | list):
            return json.dumps(_plant(inner))
        return f"{value}\n{PLANTED}"
    return value


def _plant_file(path: Path) -> bool:
    """Plant secrets in a JSON or JSON-lines file in place; False for any other file."""
    raw = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".json":
        try:
            doc = json.loads(raw)
        except ValueError:
            return False
        path.write_text(json.dumps(_plant(doc)), encoding="utf-8")
        return True
    if path.suffix == ".jsonl":
        lines = []
        for line in raw.splitlines():
            try:
                lines.append(json.dumps(_plant(json.loads(line))))
            except ValueError:
                lines.append(line)  # a malformed line stays malformed
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return True
    return False


@pytest.mark.parametrize("name", sorted(FORMATS))
def test_no_secret_planted_in_any_format_leaves_a_trace(
    cli: CLI, tmp_path: Path, name: str
) -> None:
    """`name` is the source's kind, and after an `@` which of its layouts."""
    kind = name.split("@")[0]
    root = tmp_path / "planted" / name
    shutil.copytree(FIXTURES / FORMATS[name], root)
    planted = [p for p in sorted(root.rglob("*")) if p.is_file() and _plant_file(p)]
    assert planted, f"no JSON file to plant in under {FORMATS[name]}"

    report = cli.json("index", "--no-embed", "--source", kind, str(root))
    assert report["sessions_total"] > 0, report
    assert sum(report["redacted"].values()) >= len(LEAKED_KINDS), report["redacted"]

    assert not leaks(Path(cli.env["FINDSESSION_DB"])), kind


def leaks(db: Path) -> list[str]:
    """Each planted secret of which a 10-character piece is anywhere in the index."""
    raw, values = _stored(db)
    raw, text = Haystack(raw.lower()), Haystack("\n".join(values).lower())
    found_all = []
    planted = [*((n, s) for n, _, ss in LEAKED_KINDS for s in ss), ("argv", "S3cretMysql9")]
    planted += [("argv", "Pg5ecretVal9"), *(("in a name", t) for t in IN_NAMES)]
    for name, secret in planted:
        found = sorted(p for p in pieces(secret) if p.lower().encode() in raw)
        found += sorted(p for p in pieces(secret) if p.lower() in text)
        if found:
            found_all.append(f"{name}: {found[0]!r}")
    if found_all:
        print(f"{len(found_all)} secrets leak: " + "; ".join(found_all))
    return found_all


#: Aider's chat history format, which its fork cecli writes too: Markdown, not JSON.
HISTORIES = {
    "aider": ("aider", "weather-station/.aider.chat.history.md"),
    "cecli": ("cecli", "rain-gauge/.cecli/chat.history"),
}


@pytest.mark.parametrize("kind", sorted(HISTORIES))
def test_no_secret_planted_in_a_chat_history_leaves_a_trace(
    cli: CLI, tmp_path: Path, kind: str
) -> None:
    """Secrets typed (`####` lines), answered (the reply) and printed (`>` notes)."""
    folder, history = HISTORIES[kind]
    root = tmp_path / "planted" / kind
    shutil.copytree(FIXTURES / folder, root)
    lines = PLANTED.splitlines()
    with (root / history).open("a", encoding="utf-8") as fh:
        fh.write("\n" + "".join(f"#### {line}  \n" for line in lines))
        fh.write(f"\n{PLANTED}\n\n" + "".join(f"> {line}  \n" for line in lines))

    report = cli.json("index", "--no-embed", "--source", kind, str(root))
    assert report["sessions_total"] > 0, report
    assert sum(report["redacted"].values()) >= len(LEAKED_KINDS), report["redacted"]

    assert not leaks(Path(cli.env["FINDSESSION_DB"])), kind


def test_no_secret_planted_in_cecli_s_input_history_leaves_a_trace(
    cli: CLI, tmp_path: Path
) -> None:
    """Secrets typed in a prompt only `.cecli/input.history` holds (cecli stopped logging
    the run): read as a prompt, redacted as one."""
    root = tmp_path / "planted" / "cecli"
    shutil.copytree(FIXTURES / "cecli", root)
    typed = "".join(f"+{line}\n" for line in PLANTED.splitlines())
    inputs = root / "rain-gauge" / ".cecli" / "input.history"
    with inputs.open("a", encoding="utf-8") as fh:
        fh.write(f"\n# 2026-12-07 07:02:00.000001\n+the plan typed at the keyboard\n{typed}")

    report = cli.json("index", "--no-embed", "--source", "cecli", str(root))
    assert sum(report["redacted"].values()) >= len(LEAKED_KINDS), report["redacted"]
    db = Path(cli.env["FINDSESSION_DB"])
    assert "the plan typed at the keyboard" in "\n".join(_stored(db)[1])
    assert not leaks(db)
