"""A message Letta Code appends again under its id: the index holds the later copy, as
Letta Code shows it, whether both copies are read in one run or the later one is
appended after the earlier was indexed.

The storage folder was written by the real Letta Code 0.32.18 (`letta --backend local
--new-agent -p ...`, then `--conv local-conv-1 -p ...`) against a scripted
OpenAI-compatible model on localhost: a `Bash` call, then a reply the model began
("notes.txt has 3 li") before its stream failed with a retryable server error. Letta
Code kept the cut reply (`stopReason: error`) and retried the turn; its retry carries no
new message (the call's result is already stored), so the full reply went on the same
assistant message, appended again as `ui-msg-4`. `letta messages list --include-errors`
shows only the full reply. A second prompt follows. Only `messages.jsonl`,
`conversation.json` and `manifest.json` are kept, and the folders were renamed to
`/home/dev/...`.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI
from read_counts import indexed, read_in_two_parts

from findsession.domain import MessageKind, Root
from findsession.indexing.run import index_roots
from findsession.sources import jsonl, letta_records
from findsession.storage.sqlite import Store

FIXTURE = Path(__file__).parent / "fixtures" / "letta" / "retried" / "lc-local-backend"
KEY = "Y29udmVyc2F0aW9uOmxvY2FsLWNvbnYtMQ"  # conversation:local-conv-1
CUT = "notes.txt has 3 li"
FULL = "notes.txt has 3 lines: alpha, beta and gamma."


@pytest.fixture
def transcript(cli: CLI, tmp_path: Path) -> Path:
    place = tmp_path / "home" / ".letta" / "lc-local-backend"
    shutil.copytree(FIXTURE, place)
    return place / "conversations" / KEY / "messages.jsonl"


def shown(path: Path) -> dict[str, Any]:
    """What Letta Code shows of the transcript, read without findsession: each message
    id once, its last copy (`setLatestLocalMessage`), in either format; the person's
    text blocks (not the `<system-reminder>`s), assistant texts, `toolCall` blocks and
    `toolResult`s."""
    latest: dict[str, dict[str, Any]] = {}
    for line in path.read_text().splitlines():
        entry = json.loads(line)
        msg = entry.get("message") if "type" in entry else entry  # the older format: alone
        if msg:
            latest.pop(msg["id"], None)
            latest[msg["id"]] = msg
    prompts, replies, calls, results = [], [], 0, 0
    for msg in latest.values():
        blocks = msg["content"]
        texts = [b["text"] for b in blocks if b["type"] == "text"]
        if msg["role"] == "user":
            prompts.append("\n".join(t for t in texts if not t.startswith("<system-reminder>")))
        elif msg["role"] == "assistant":
            replies += texts
            calls += sum(b["type"] == "toolCall" for b in blocks)
        else:
            results += 1
    return {"prompts": [p.strip() for p in prompts], "replies": replies, "calls": calls,
            "results": results}  # fmt: skip


def replies(cli: CLI) -> list[str]:
    sid = cli.json("search", "--mode", "keyword", "--source", "letta", "notes.txt")["results"]
    turns = cli.json("read", sid[0]["session"]["id"], "--tools")["turns"]
    return [m["text"] for t in turns for m in t["messages"] if m["kind"] == "reply"]


def test_the_fixture_holds_both_copies(transcript: Path) -> None:
    ids = [json.loads(x).get("message", {}).get("id") for x in transcript.read_text().splitlines()]
    assert ids.count("ui-msg-4") == 2
    assert shown(transcript) == {
        "prompts": ["Count the lines in notes.txt", "Which line comes first in notes.txt?"],
        "replies": ["I'll count them.", FULL, "The first line of notes.txt is alpha."],
        "calls": 1,
        "results": 1,
    }


def test_read_in_one_run_the_later_copy_replaces_the_earlier(cli: CLI, transcript: Path) -> None:
    assert cli.json("index", "--no-embed")["problems"] == []
    want = shown(transcript)
    sid = cli.json("search", "--mode", "keyword", "--source", "letta", "alpha")["results"]
    got = indexed(cli, sid[0]["session"]["id"])
    assert got["prompts"] == want["prompts"]
    assert (got["calls"], got["results"]) == (want["calls"], want["results"])
    assert replies(cli) == want["replies"]


def test_the_later_copy_appended_after_the_earlier_was_indexed(cli: CLI, transcript: Path) -> None:
    read_in_two_parts(cli, transcript, lambda line: '"stopReason":"error"' in line)
    assert replies(cli) == shown(transcript)["replies"]
    assert CUT not in "\n".join(replies(cli)).replace(FULL, "")


def test_the_cut_reply_is_indexed_until_its_later_copy_comes(cli: CLI, transcript: Path) -> None:
    lines = transcript.read_text().splitlines(keepends=True)
    transcript.write_text("".join(lines[:5]))
    cli.json("index", "--no-embed")
    assert replies(cli) == ["I'll count them.", CUT]


def test_read_on_from_the_cursor_once_the_later_copy_is_read(cli: CLI, transcript: Path) -> None:
    """The read that finds a copy indexed before reads the file again from the top; the
    next run reads on from where that one stopped, the message ids it kept in hand."""
    lines = transcript.read_text().splitlines(keepends=True)
    parts = ("".join(lines[:5]), lines[5], "".join(lines[6:]))
    transcript.write_text(parts[0])
    cli.json("index", "--no-embed")
    for n, part in enumerate(parts[1:], 1):
        with transcript.open("a") as fh:
            fh.write(part)
        report = cli.json("index", "--no-embed")
        read = len("".join(parts[: n + 1]).encode()) if n == 1 else len(part.encode())
        assert (report["files_read"], report["bytes_read"]) == (1, read), n
    assert replies(cli) == shown(transcript)["replies"]


def test_the_older_format_keeps_the_later_copy_too(cli: CLI, transcript: Path) -> None:
    """`pi-ai-message-jsonl`, each message alone on its line, which Letta Code read the
    same way (made here from the real transcript)."""
    entries = [json.loads(x) for x in transcript.read_text().splitlines()]
    transcript.write_text("".join(json.dumps(e["message"]) + "\n" for e in entries[1:]))
    cli.json("index", "--no-embed")
    assert replies(cli) == shown(transcript)["replies"]


def test_copies_in_two_slices_of_one_read(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file read a slice at a time (`jsonl.SLICE_BYTES`) whose later copy falls in a
    slice after its earlier one: read again whole, once, and not again on the next run."""
    monkeypatch.setattr(jsonl, "SLICE_BYTES", 2_000)
    storage = tmp_path / "lc-local-backend"
    shutil.copytree(FIXTURE, storage)
    report = index_roots(store, [Root(storage, "letta")])
    assert (report.files_read, report.cut, report.errors) == (1, [], [])
    [session] = store.sessions_with_prefix("letta")
    said = [m.text for m in store.session_messages(session.id) if m.kind is MessageKind.REPLY]
    assert said == shown(storage / "conversations" / KEY / "messages.jsonl")["replies"]
    assert index_roots(store, [Root(storage, "letta")]).files_read == 0


def test_an_index_that_holds_both_copies_is_read_again_once(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An index made by a release that kept both copies (its reading `4.1`) reads
    Letta Code's files again after the upgrade, unchanged as they are."""
    storage = tmp_path / "lc-local-backend"
    shutil.copytree(FIXTURE, storage)
    with monkeypatch.context() as older:
        older.setattr(letta_records.Copies, "kept", lambda self, records: records)
        index_roots(store, [Root(storage, "letta")])
    with store.transaction():
        store.set_setting("reading.letta", "4.1")
    [session] = store.sessions_with_prefix("letta")
    assert CUT in [m.text for m in store.session_messages(session.id)]
    report = index_roots(store, [Root(storage, "letta")])
    assert (report.read_anew, report.files_read) == (["letta"], 1)
    said = [m.text for m in store.session_messages(session.id) if m.kind is MessageKind.REPLY]
    assert said == shown(storage / "conversations" / KEY / "messages.jsonl")["replies"]
