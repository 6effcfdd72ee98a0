"""A Nanocoder session compacted after it was indexed: what the index read before the
compaction stays (found by search, shown by `read` before what the summary leads),
while a rewrite that is not a compaction (a prompt Nanocoder took back) replaces what
it replaced.

Every version was written by the real Nanocoder 1.30.0 in its terminal app, driven
through a pseudo-terminal against a scripted model on localhost, each copied from its
sessions folder as the session went on (`compacted/`): beacon (a `write_file`, a
command that failed, a `string_replace`; `-1`), then a prompt sent and taken back with
Escape before the model answered (`-1-draft` while it waited, `-1-recalled` after),
`/compact` and a prompt (`-2`), a `string_replace`, `/compact` again and a prompt
(`-3`); buoy (a `write_file`, a `read_file` and a long reply, then a `string_replace`;
`-1`), `/compact --mechanical` and a prompt (`-2`). Only the home folder was renamed
to `/home/dev`; where a test plants a secret, it says so.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI
from read_counts import indexed
from test_source_nanocoder import SESSIONS, counted_messages, hits

from findsession.domain import Root
from findsession.indexing.run import index_roots
from findsession.sources import nanocoder
from findsession.sources.json_doc import read_document
from findsession.sources.nanocoder_records import document_records
from findsession.storage.sqlite import Store

FIXTURE = Path(__file__).parent / "fixtures" / "nanocoder" / "compacted"
BEACON = "fd56d97a-77f8-42bc-84d4-18a6bc2589e2"
BUOY = "a2f4964c-ff18-4429-a994-546fb98771c4"
#: The person's prompts before the first `/compact`, which its summary replaced.
BEFORE = ["Write the beacon keeper rota as rota.md", "Add the night watch to rota.md"]
TOKEN = "ghp_R8sT2vW5yZ1aB4cD7eF0gH3iJ6kL9mN2oP5q"


@pytest.fixture
def sessions(cli: CLI, tmp_path: Path) -> Path:
    folder = tmp_path / "home" / SESSIONS
    folder.mkdir(parents=True)
    return folder


def version(name: str) -> list[dict[str, Any]]:
    return json.loads((FIXTURE / f"{name}.json").read_text())["messages"]


def saved(sessions: Path, sid: str, name: str, text: bytes | None = None) -> Path:
    """The session file as Nanocoder saved it at `name`, or `text` (renamed into place,
    as Nanocoder writes it)."""
    path = sessions / f"{sid}.json"
    staged = sessions / f"{sid}.json.tmp"
    staged.write_bytes((FIXTURE / f"{name}.json").read_bytes() if text is None else text)
    staged.replace(path)
    return path


def planted(name: str, after: str) -> bytes:
    """The version `name` with `TOKEN` planted after the words `after`."""
    text = (FIXTURE / f"{name}.json").read_text()
    assert text.count(after) == 1
    return text.replace(after, f"{after} {TOKEN}").encode()


def carried(*versions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages a person had across saved versions of one session, found without
    findsession: a version that opens with a summary other than the one before it
    replaced what came before the messages it kept after its summary, which are the
    last of the version before; those before them are what the summary replaced."""
    before: list[dict[str, Any]] = []
    current: list[dict[str, Any]] = []
    for messages in versions:
        first = messages[0]["content"] if messages else ""
        new = first.startswith("<conversation-summary>") and current and messages[0] != current[0]
        if new:
            start = next(
                p
                for p in range(len(current) + 1)
                if current[p:] == messages[1 : 1 + len(current) - p]
            )
            before += current[:start]
        current = messages
    return before + current


def said(cli: CLI, sid: str) -> list[tuple[str, str]]:
    """What `read` shows of a session, in order: each prompt's and reply's kind and text."""
    turns = cli.json("read", sid, "--tools")["turns"]
    return [(m["kind"], m["text"]) for t in turns for m in t["messages"]
            if m["kind"] in ("prompt", "reply")]  # fmt: skip


def expected(messages: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """`said` of messages read without findsession."""
    shown = []
    for msg in messages:
        body = (msg.get("content") or "").strip()
        if msg["role"] == "user" and not body.startswith("<conversation-summary>"):
            shown.append(("prompt", body))
        elif msg["role"] == "assistant" and body:
            shown.append(("reply", body))
    return shown


def test_what_was_read_before_two_compactions_stays_in_order(cli: CLI, sessions: Path) -> None:
    for name in ("beacon-1", "beacon-2", "beacon-3"):
        saved(sessions, BEACON, name)
        report = cli.json("index", "--no-embed")
        assert (report["files_read"], report["problems"]) == (1, []), name
    whole = carried(version("beacon-1"), version("beacon-2"), version("beacon-3"))
    assert indexed(cli, BEACON) == counted_messages(whole)
    assert indexed(cli, BEACON)["prompts"] == [
        *BEFORE,
        "Who keeps the night watch?",  # between the two compactions
        "Which keeper works on Sunday now?",
    ]
    assert said(cli, BEACON) == expected(whole)
    for words in ("beacon keeper rota", "night watch to rota", "keeps the night watch"):
        assert [h["session"]["id"] for h in hits(cli, words, "--speaker", "user")] == [BEACON]
    # The failed `grep` before the first compaction, and the title of the last save.
    assert indexed(cli, BEACON)["failed"] == 1
    assert cli.json("read", BEACON)["session"]["title"] == "Which keeper works on Sunday now?"
    assert cli.json("index", "--no-embed")["files_read"] == 0


def test_a_compaction_whose_summary_covers_messages_never_read_keeps_all_read(
    cli: CLI, sessions: Path
) -> None:
    """The index read the first version, then only the third: the messages of the
    second, which the second summary replaced, were never read; the first's all stay."""
    saved(sessions, BEACON, "beacon-1")
    cli.json("index", "--no-embed")
    saved(sessions, BEACON, "beacon-3")
    cli.json("index", "--no-embed")
    whole = carried(version("beacon-1"), version("beacon-3"))
    assert indexed(cli, BEACON) == counted_messages(whole)
    assert indexed(cli, BEACON)["prompts"] == [*BEFORE, "Which keeper works on Sunday now?"]
    assert said(cli, BEACON) == expected(whole)


def test_a_summary_that_keeps_more_messages_than_the_cursor_remembers_repeats_none(
    cli: CLI, sessions: Path
) -> None:
    """A summary keeps the last messages back to the call whose results they are: after
    a reply that made 70 calls at once, that is 71 messages, more than the digests the
    cursor keeps. They are read once, in their place. The two versions are beacon's,
    the calls and results added in the shape of Nanocoder's own (not written by it)."""
    first = version("beacon-1")
    calls = [
        {"id": f"call_{n:08d}", "function": {"name": "read_file",
                                             "arguments": {"path": f"logs/night-{n}.md"}}}
        for n in range(70)
    ]  # fmt: skip
    first.append({"role": "assistant", "content": "Reading every night log.", "tool_calls": calls})
    first += [
        {"role": "tool", "content": f"Night {n}: the lamp burned until dawn, keeper Oskar.",
         "tool_call_id": c["id"], "name": "read_file"}
        for n, c in enumerate(calls)
    ]  # fmt: skip
    second = [version("beacon-2")[0], *first[-71:], *version("beacon-2")[-2:]]
    document = json.loads((FIXTURE / "beacon-1.json").read_text())
    for messages in (first, second):
        saved(sessions, BEACON, "", json.dumps({**document, "messages": messages}).encode())
        cli.json("index", "--no-embed")
    whole = carried(first, second)
    assert indexed(cli, BEACON) == counted_messages(whole)
    assert said(cli, BEACON) == expected(whole)


def test_a_session_first_read_after_its_compaction_is_its_summary_and_what_followed(
    cli: CLI, sessions: Path
) -> None:
    saved(sessions, BEACON, "beacon-2")
    cli.json("index", "--no-embed")
    assert indexed(cli, BEACON) == counted_messages(version("beacon-2"))
    saved(sessions, BEACON, "beacon-3")
    cli.json("index", "--no-embed")
    whole = carried(version("beacon-2"), version("beacon-3"))
    assert indexed(cli, BEACON)["prompts"] == [
        "Who keeps the night watch?",
        "Which keeper works on Sunday now?",
    ]
    assert said(cli, BEACON) == expected(whole)


def test_a_prompt_nanocoder_took_back_leaves_the_index_with_it(cli: CLI, sessions: Path) -> None:
    """Escape before the model answered takes the prompt back out of the session (not a
    compaction): the next save drops it, and so does the index; what follows is read on."""
    saved(sessions, BEACON, "beacon-1-draft")
    cli.json("index", "--no-embed")
    assert indexed(cli, BEACON)["prompts"] == [*BEFORE, "Draft I will take back"]
    saved(sessions, BEACON, "beacon-1-recalled")
    cli.json("index", "--no-embed")
    assert indexed(cli, BEACON) == counted_messages(version("beacon-1-recalled"))
    assert hits(cli, "draft take back") == []
    saved(sessions, BEACON, "beacon-2")
    cli.json("index", "--no-embed")
    whole = carried(version("beacon-1-recalled"), version("beacon-2"))
    assert indexed(cli, BEACON)["prompts"] == [*BEFORE, "Who keeps the night watch?"]
    assert said(cli, BEACON) == expected(whole)


def test_a_restore_or_another_conversation_replaces_what_the_file_held(
    cli: CLI, sessions: Path
) -> None:
    """`/compact --restore` saves the messages from before the last compaction again
    (an earlier version saved again stands for them): they replace the summary and what
    followed it, and what came before them stays. A document of another conversation
    (an editor's `/clear` over ACP starts the same session again; the buoy's messages
    stand for it) replaces all."""
    for name in ("beacon-1", "beacon-2", "beacon-3", "beacon-2"):
        saved(sessions, BEACON, name)
        cli.json("index", "--no-embed")
    assert said(cli, BEACON) == expected(carried(version("beacon-1"), version("beacon-2")))
    saved(sessions, BEACON, "beacon-1-recalled")
    cli.json("index", "--no-embed")
    assert said(cli, BEACON) == expected(version("beacon-1-recalled"))
    for name in ("buoy-1", "buoy-2", "buoy-1"):  # a mechanical compaction restored
        saved(sessions, BUOY, name)
        cli.json("index", "--no-embed")
    assert said(cli, BUOY) == expected(version("buoy-1"))
    assert indexed(cli, BEACON) == counted_messages(version("beacon-1-recalled"))
    saved(sessions, BEACON, "buoy-1")
    cli.json("index", "--no-embed")
    assert said(cli, BEACON) == expected(version("buoy-1"))


def test_a_mechanical_compaction_keeps_the_text_it_shortened(cli: CLI, sessions: Path) -> None:
    """`/compact --mechanical` (and the fallback when a model's summary fails) shortens
    the messages in place: a tool's result becomes `Tool: NAME\\nResult: …`, a long reply
    its first sentences. The index keeps what it read of them before."""
    before, after = version("buoy-1"), version("buoy-2")
    assert after[4]["content"] == "Tool: read_file\nResult: # Buoy inspections"
    assert len(after[5]["content"]) < len(before[5]["content"])
    saved(sessions, BUOY, "buoy-1")
    cli.json("index", "--no-embed")
    saved(sessions, BUOY, "buoy-2")
    cli.json("index", "--no-embed")
    whole = before + after[len(before) :]
    assert indexed(cli, BUOY) == counted_messages(whole)
    assert said(cli, BUOY) == expected(whole)
    turns = cli.json("read", BUOY, "--tools")["turns"]
    outputs = [m["text"] for t in turns for m in t["messages"] if m["kind"] == "tool_output"]
    assert outputs[:2] == [before[2]["content"], before[4]["content"].strip()]


def test_read_raw_reads_the_current_document_back_and_keeps_the_rest_as_stored(
    cli: CLI, sessions: Path
) -> None:
    """A secret planted in the first prompt and in the last reply: the file no longer
    holds the first after the compaction (its stored, redacted text stands); the last
    is read back from the file, and from the archive's copy once the file is gone."""
    saved(sessions, BEACON, "beacon-1", planted("beacon-1", "as rota.md"))
    cli.json("index", "--no-embed")
    path = saved(sessions, BEACON, "beacon-2", planted("beacon-2", "every night."))
    cli.json("index", "--no-embed")
    for gone in (False, True):
        if gone:
            path.unlink()
        stored = said(cli, BEACON)
        raw = [(m["kind"], m["text"]) for t in cli.json("read", BEACON, "--raw")["turns"]
               for m in t["messages"] if m["kind"] in ("prompt", "reply")]  # fmt: skip
        assert TOKEN not in str(stored) and "[REDACTED" in stored[0][1]
        assert raw[0][1] == stored[0][1]  # the file no longer holds it
        assert raw[-1][1].endswith(f"every night. {TOKEN}"), gone
        assert raw[1:-1] == stored[1:-1]


def test_a_forgotten_session_stays_forgotten_through_a_compaction(cli: CLI, sessions: Path) -> None:
    saved(sessions, BEACON, "beacon-1")
    saved(sessions, BUOY, "buoy-1")
    cli.json("index", "--no-embed")
    cli.run("forget", BEACON)
    saved(sessions, BEACON, "beacon-2")
    assert cli.json("index", "--no-embed")["files_read"] == 1
    assert hits(cli, "night watch") == []
    assert [h["session"]["id"] for h in hits(cli, "buoy")] == [BUOY]


def test_an_index_an_older_release_made_reads_the_sessions_again_once(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An index made by a release that read a session whole at every change (reading
    `4.1`) holds no record of where the session's messages stood: its sessions are read
    again once after the upgrade, so a compaction after it keeps what came before."""
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    saved(sessions, BEACON, "beacon-1")
    with monkeypatch.context() as older:
        older.setattr(
            nanocoder.NanocoderSource,
            "read",
            lambda self, sf, fh, cursor: read_document(fh, cursor, document_records),
        )
        index_roots(store, [Root(sessions, "nanocoder")])
    with store.transaction():
        store.set_setting("reading.nanocoder", "4.1")
    report = index_roots(store, [Root(sessions, "nanocoder")])
    assert (report.read_anew, report.files_read) == (["nanocoder"], 1)
    saved(sessions, BEACON, "beacon-2")
    index_roots(store, [Root(sessions, "nanocoder")])
    prompts = [m.text for m in store.session_messages(BEACON) if m.kind.value == "prompt"]
    assert prompts == [*BEFORE, "Who keeps the night watch?"]


def test_the_fixtures_are_the_versions_they_claim() -> None:
    """Each later version is what Nanocoder made of the one before: the same messages
    and more, or a summary followed by the last of them."""
    one, draft = version("beacon-1"), version("beacon-1-draft")
    assert (
        draft[:-1] == one == version("beacon-1-recalled")
        and draft[-1]["content"] == "Draft I will take back"
    )
    two, three = version("beacon-2"), version("beacon-3")
    assert two[1:4] == one[-3:] and three[0]["content"].startswith("<conversation-summary>")
    assert two[0] != three[0] and two[-2:] != three[1:3]  # the second summary kept none of -2
