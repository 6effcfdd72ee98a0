"""Qwen Code's first layout: chats in `~/.qwen/tmp/<SHA-256 of the project>/chats/`.

Before its per-project JSON-lines chats, Qwen Code kept each chat as Gemini CLI did (it
began as a fork): `session-<time>-<id8>.json`, one JSON object whose `messages` are
`user` and `qwen` (Gemini's `gemini`) messages, each prompt sent with a
`<system-reminder>` the CLI put before what was typed, and a subagent's chat written
beside its session's under the same `sessionId`. The chats are built here in that shape,
with synthetic text.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from conftest import CLI

from findsession.domain import MessageKind, Root
from findsession.indexing import index_roots
from findsession.storage.sqlite import Store

SID = "5e0c7a31-2b4d-4c6e-9f80-1a2b3c4d5e6f"
PROJECT = "/home/dev/orchard"
REMINDER = (
    "<system-reminder>You have powerful specialized agents at your disposal, available "
    "agent types are: pruning-planner. PROACTIVELY use the task tool to delegate user's "
    "task to appropriate agent when user's task matches agent capabilities.</system-reminder>"
)


def message(n: int, kind: str, text: str) -> dict[str, object]:
    msg: dict[str, object] = {
        "id": f"b0000000-0000-4000-8000-{n:012d}",
        "timestamp": f"2025-11-06T09:{n:02d}:00.000Z",
        "type": kind,
        "content": text,
    }
    if kind == "qwen":
        msg |= {"thoughts": [], "tokens": {"input": 10, "output": 5}, "model": "coder-model"}
    return msg


def write_chat(chats: Path, name: str, messages: list[dict[str, object]]) -> Path:
    chats.mkdir(parents=True, exist_ok=True)
    path = chats / name
    doc = {
        "sessionId": SID,
        "projectHash": hashlib.sha256(PROJECT.encode()).hexdigest(),
        "startTime": messages[0]["timestamp"],
        "lastUpdated": messages[-1]["timestamp"],
        "messages": messages,
    }
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False), encoding="utf-8")
    return path


def legacy_home(tmp_path: Path) -> Path:
    home = tmp_path / "qwen"
    chats = home / "tmp" / hashlib.sha256(PROJECT.encode()).hexdigest() / "chats"
    write_chat(
        chats,
        "session-2025-11-06T09-38-5e0c7a31.json",
        [
            message(1, "user", REMINDER + "which apple trees need pruning before the frost?"),
            message(2, "qwen", "I'll look at the orchard map first."),
            message(3, "qwen", "Rows four and seven carry last year's dead wood."),
            message(4, "user", REMINDER + "draw up a pruning rota for those rows"),
            message(5, "qwen", "The rota puts row four on Monday and row seven on Tuesday."),
        ],
    )
    # The task tool's subagent: its own chat, beside the session's, under its id.
    write_chat(
        chats,
        "session-2025-11-06T09-41-5e0c7a31.json",
        [
            message(6, "user", "As a pruning planner, list the tools each row needs"),
            message(7, "qwen", "Row four needs loppers; row seven needs a pole saw."),
        ],
    )
    return home


def test_a_first_layout_chat_is_found_and_read_without_the_reminder(
    cli: CLI, tmp_path: Path
) -> None:
    cli.env["QWEN_HOME"] = str(legacy_home(tmp_path))  # the standard place, no root named
    cli.run("index", "--no-embed")
    hits = cli.json("search", "pruning rota for those rows")["results"]
    top = hits[0]["session"]
    assert top["id"] == SID and top["source"] == "qwen"
    assert top["title"] == "which apple trees need pruning before the frost?"
    read = cli.json("read", SID)
    texts = [[m["text"] for m in t["messages"]] for t in read["turns"]]
    assert [t[0] for t in texts] == [
        "which apple trees need pruning before the frost?",
        "draw up a pruning rota for those rows",
    ]
    assert "Rows four and seven carry last year's dead wood." in texts[0]
    assert "The rota puts row four on Monday and row seven on Tuesday." in texts[1]
    assert not any("system-reminder" in t for turn in texts for t in turn)


def test_a_subagent_chat_under_the_same_id_is_linked_to_its_session(
    store: Store, tmp_path: Path
) -> None:
    home = legacy_home(tmp_path)
    index_roots(store, [Root(home / "tmp", "qwen")])
    main = store.get_session(SID)
    assert main is not None and main.source == "qwen" and not main.is_subagent
    children = store.subagents_of(SID)
    assert len(children) == 1 and children[0].is_subagent
    kinds = [(m.kind, m.text) for m in store.session_messages(children[0].id)]
    assert (MessageKind.PROMPT, "As a pruning planner, list the tools each row needs") in kinds


def test_a_first_layout_chat_is_not_resumed(cli: CLI, tmp_path: Path) -> None:
    cli.run("index", "--no-embed", "--source", "qwen", str(legacy_home(tmp_path)))
    opened = cli.run("open", SID, "--print", check=False)
    assert "qwen --resume" not in opened.stdout
    assert "first layout" in opened.stdout + opened.stderr
