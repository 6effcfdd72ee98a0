"""Gemini CLI's A2A server (the agent mode of Gemini Code Assist, in Cloud Shell among
others) records its chats in the CLI's layout, `chats/session-<time>-a2a-serv.jsonl`,
every one under the same `sessionId`, `a2a-server`, with its header line repeated before
each `$set` of the whole history. Each file is a conversation of its own. The chats are
built here in that shape, with synthetic text.
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import CLI

from findsession.storage.sqlite import Store

HEAD = {"sessionId": "a2a-server", "projectHash": "ab" * 32, "kind": "main"}


def a2a_chat(chats: Path, start: str, turns: list[tuple[str, str]]) -> str:
    """A chat as the A2A server writes it; its file's stem."""
    stem = f"session-{start[:10]}T{start[11:13]}-{start[14:16]}-a2a-serv"
    head = {**HEAD, "startTime": start, "lastUpdated": start}
    context = "<session_context>\nThis is the Gemini CLI.\n</session_context>"
    messages = [{"id": f"c-{stem}", "timestamp": start, "type": "user", "content": context}]
    lines: list[object] = [head, {"$set": {"messages": list(messages)}}]
    for n, (prompt, reply) in enumerate(turns):
        for kind, text in (("user", [{"text": prompt}]), ("gemini", reply)):
            messages.append(
                {"id": f"{kind}-{n}-{stem}", "timestamp": start, "type": kind, "content": text}
            )
            lines += [head, {"$set": {"messages": list(messages)}}]
    chats.mkdir(parents=True, exist_ok=True)
    (chats / f"{stem}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    return stem


def test_each_a2a_chat_is_a_session_of_its_own(cli: CLI, store: Store) -> None:
    tmp = Path(cli.env["HOME"]) / ".gemini" / "tmp"
    journal = tmp / "journal"
    journal.mkdir(parents=True)
    (journal / ".project_root").write_text("/home/dev/journal")
    first = a2a_chat(
        journal / "chats",
        "2026-09-02T06:10:00.000Z",
        [
            ("write an entry about the harbour walk", "The harbour entry is written."),
            ("add the weather to it", "Added: a windy morning."),
        ],
    )
    second = a2a_chat(
        journal / "chats",
        "2026-09-02T07:58:00.000Z",
        [("summarise last week's entries about bread baking", "You baked rye twice.")],
    )
    third = a2a_chat(
        tmp / "shell" / "chats",
        "2026-09-02T08:51:00.000Z",
        [("list the buckets of the project", "There are three buckets.")],
    )
    cli.run("index", "--no-embed")
    sessions = {sid: store.get_session(sid) for sid in (first, second, third)}
    assert all(s is not None and not s.is_subagent for s in sessions.values())
    assert store.get_session("a2a-server") is None
    assert sessions[second].title == "summarise last week's entries about bread baking"
    read = cli.json("read", first)
    assert [t["messages"][0]["text"] for t in read["turns"]] == [
        "write an entry about the harbour walk",
        "add the weather to it",
    ]
    opened = cli.run("open", second, "--print", check=False)
    assert "--resume" not in opened.stdout
