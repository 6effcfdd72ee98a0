"""Real Gemini CLI homes (`../shared/realfiles/*/.gemini`), indexed as they lie, against
counts a few lines of JSON reading below make from the files themselves.

These homes were committed to public repositories by the people who used the CLI (see
`realfiles/SOURCES.md`); a clone of findsession does not have them, so the tests skip.
The counter here knows the format, not the parser: a chat file is one session; a
`user` message's text parts are a typed prompt unless the CLI wrote them; a `gemini`
message with visible text is a reply; each recorded tool call is one call.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import SHARED

from findsession.indexing import Root, index_roots
from findsession.storage.sqlite import Store

HOMES = sorted(p for p in (SHARED / "realfiles").glob("*/.gemini") if (p / "tmp").is_dir())
pytestmark = pytest.mark.skipif(
    not any(any(h.glob("tmp/*/chats")) for h in HOMES),
    reason=f"no real Gemini CLI home under {SHARED / 'realfiles'} (only developers have them)",
)

#: What the CLI sends as the user: retries, injected context, a compressed history, a
#: backgrounded command's output, a subagent's last-chance nudge.
HARNESS = re.compile(
    r"^(?:System: )?Please continue\.$|^<session_context>|^<hook_context>"
    r"|^Background execution update:|<state_snapshot>|You have one final chance to complete"
)
WRAPPED = re.compile(
    r"^User (?:steering update|hints):\s*<user_input>\s*(.*?)\s*</user_input>", re.S
)


def messages(path: Path) -> list[dict[str, Any]]:
    """The messages a chat file holds now (a JSONL log replayed: `$rewindTo`, `$set`)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        return [m for m in json.loads(text).get("messages", []) if isinstance(m, dict)]
    live: dict[str, dict[str, Any]] = {}
    for line in text.splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if not isinstance(rec, dict):
            continue
        if isinstance(rec.get("$rewindTo"), str):
            ids = list(live)
            cut = ids.index(rec["$rewindTo"]) if rec["$rewindTo"] in live else 0
            for gone in ids[cut:]:
                del live[gone]
        elif isinstance(rec.get("id"), str):
            live[rec["id"]] = rec
        elif isinstance((rec.get("$set") or {}).get("messages"), list):
            fresh = [m for m in rec["$set"]["messages"] if isinstance(m, dict) and "id" in m]
            for m in fresh:
                live.pop(m["id"], None)
            live.update((m["id"], m) for m in fresh)
    return list(live.values())


def parts(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"text": content}]
    return [p if isinstance(p, dict) else {"text": p} for p in content or [] if p]


def count(path: Path) -> tuple[Counter[str], list[str]]:
    """Prompts, replies and tool calls of one chat file, and the typed text of each hint
    sent during a run (the wrapper's inside)."""
    counts: Counter[str] = Counter()
    hints = []
    for msg in messages(path):
        ps = parts(msg.get("content"))
        text = "".join(p["text"] for p in ps if isinstance(p.get("text"), str)).strip()
        if msg.get("type") == "user" and text and not HARNESS.search(text):
            counts["prompt"] += 1
            wrapped = WRAPPED.match(text)
            if wrapped and any("functionResponse" in p for p in ps):
                hints.append(re.sub(r"^- ", "", wrapped.group(1), flags=re.M))
        if msg.get("type") == "gemini":
            shown = "".join(p["text"] for p in ps if p.get("thought") is not True and "text" in p)
            counts["reply"] += bool(shown.strip())
            calls = [c for c in msg.get("toolCalls") or [] if isinstance(c, dict)]
            ids = {c.get("id") for c in calls}
            extra = [
                p for p in ps if "functionCall" in p and p["functionCall"].get("id") not in ids
            ]
            counts["tool_call"] += len(calls) + len(extra)
    return counts, hints


def chat_files(home: Path) -> list[Path]:
    """The chat files a person's sessions are in: not the background memory agent's,
    not a `.json` whose `.jsonl` twin took it over."""
    found = []
    for path in sorted((home / "tmp").glob("*/chats/**/*.json*")):
        if any(part.startswith("skill-extraction-") for part in path.parts):
            continue
        if path.suffix == ".json" and path.with_suffix(".jsonl").exists():
            continue
        if path.stem.endswith("-skill-ex"):
            continue
        found.append(path)
    return found


@pytest.mark.parametrize("home", HOMES, ids=[h.parent.name for h in HOMES])
def test_a_real_home_gives_each_chats_prompts_replies_and_calls(home: Path, tmp_path: Path) -> None:
    files = chat_files(home)
    with Store.open(tmp_path / "index.db") as store:
        report = index_roots(store, [Root(home / "tmp", "gemini")])
        assert report.errors == []
        held = {p for (p,) in store.query("SELECT file_path FROM sessions")}
        assert held == {str(p) for p in files}
        for path in files:
            expected, hints = count(path)
            rows = store.query(
                "SELECT kind, count(*) FROM messages WHERE file_path = ? "
                "AND kind IN ('prompt', 'reply', 'tool_call') GROUP BY kind",
                (str(path),),
            )
            assert Counter(dict(rows)) == +expected, path
            prompts = [t for (t,) in store.query(
                "SELECT text FROM messages WHERE file_path = ? AND kind = 'prompt'", (str(path),)
            )]  # fmt: skip
            for typed in hints:
                assert any(typed in p or "[REDACTED" in p for p in prompts), (path, typed)
        # One project, one spelling: no two folders the index holds differ only in case.
        folders = {c for (c,) in store.query("SELECT DISTINCT cwd FROM sessions") if c}
        assert len({c.casefold() for c in folders}) == len(folders), folders
