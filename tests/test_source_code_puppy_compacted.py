"""A Code Puppy session compacted after it was indexed: what the index read before the
compaction stays (found by search, counted, shown by `read` before the summary), while
a rewrite that is not a compaction (another conversation saved under the same name, the
end of the conversation rewritten) replaces what it replaced.

Every version was written by the real Code Puppy 0.0.946 (`code-puppy -r NAME -p`, one
prompt a run) against a scripted model on localhost, its model's context cut to 12,000
tokens, `compaction_threshold` 0.5 and `protected_token_count` 1000 so that a short
session compacts, each copied from `autosaves/` after its run (`compacted/`). keeper-log
(`compaction_strategy` summarization): a `create_file`, a `grep` that failed, a question
(`-1`, `-2`); a long `create_file` whose run compacted (`-3`: a summary, the first
prompt, what the run added; the run's own prompt summarised before it was saved); a
`replace_in_file` (`-4`); two runs that compacted again (`-5`, `-6`); two more prompts
(`-7`, `-8`). fog-bell (`compaction_strategy` truncation): the same prompts, its
history cut without a summary to the first prompt and the last messages (`-3`, `-5`).
bell-tower (its model's context whole): three prompts (`-1` to `-3`), `/compact` typed
in its interactive mode, driven through a pseudo-terminal (`-4`), a prompt (`-5`),
`/truncate 3` typed and a prompt (`-6`).
The home folder was renamed to `/home/dev`, and each request's system prompt
(`instructions`) cut to its first two lines.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from conftest import CLI
from read_counts import indexed
from test_source_code_puppy import counted_messages, hits
from test_source_nanocoder_compacted import said

from findsession.domain import Root
from findsession.indexing.run import index_roots
from findsession.sources import code_puppy
from findsession.sources.json_doc import read_document
from findsession.storage.sqlite import Store

FIXTURE = Path(__file__).parent / "fixtures" / "code-puppy" / "compacted"
KEEPER = "keeper-log"
FOG = "fog-bell"
BELL = "bell-tower"
FIRST = "Write the keeper rota for the next weeks as rota.md"
#: The prompt before the first compaction that its summary replaced.
ASKED = "Who rings the bell in week 1?"
TOKEN = "ghp_R8sT2vW5yZ1aB4cD7eF0gH3iJ6kL9mN2oP5q"


@pytest.fixture
def autosaves(cli: CLI, tmp_path: Path) -> Path:
    folder = tmp_path / "home" / ".code_puppy" / "autosaves"
    folder.mkdir(parents=True)
    return folder


def version(name: str) -> list[dict[str, Any]]:
    return json.loads((FIXTURE / f"{name}.json").read_text())["messages"]


def saved(autosaves: Path, sid: str, name: str, text: bytes | None = None) -> Path:
    """The session file as Code Puppy saved it at `name`, or `text` (renamed into place,
    as Code Puppy writes it)."""
    path = autosaves / f"{sid}.json"
    staged = autosaves / f".{sid}.json.tmp"
    staged.write_bytes((FIXTURE / f"{name}.json").read_bytes() if text is None else text)
    staged.replace(path)
    return path


def every(*versions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages a person had across saved versions of one session, found without
    findsession: each message any version held, once, where it first appeared (a
    compaction drops what it summarised or cut and keeps the first prompt and the last
    messages, which are those of the version before)."""
    whole: list[dict[str, Any]] = []
    for messages in versions:
        whole += [m for m in messages if m not in whole]
    return whole


def expected(messages: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """`said` of messages read without findsession."""
    shown = []
    for msg in messages:
        for part in msg["parts"]:
            body = part.get("content")
            if part["part_kind"] == "user-prompt":
                shown.append(("prompt", body.strip()))
            elif part["part_kind"] == "text" and body.strip():
                shown.append(("reply", body.strip()))
    return shown


def test_the_prompts_read_before_a_compaction_are_still_found_and_counted(
    cli: CLI, autosaves: Path
) -> None:
    saved(autosaves, KEEPER, f"{KEEPER}-2")
    cli.json("index", "--no-embed")
    saved(autosaves, KEEPER, f"{KEEPER}-3")
    report = cli.json("index", "--no-embed")
    assert (report["files_read"], report["problems"]) == (1, [])
    whole = every(version(f"{KEEPER}-2"), version(f"{KEEPER}-3"))
    assert indexed(cli, KEEPER) == counted_messages(whole)
    assert indexed(cli, KEEPER)["prompts"] == [FIRST, ASKED]
    assert [h["session"]["id"] for h in hits(cli, "bell in week", "--speaker", "user")] == [KEEPER]


def test_what_was_read_before_three_compactions_stays_in_order(cli: CLI, autosaves: Path) -> None:
    names = [f"{KEEPER}-{n}" for n in range(1, 9)]
    for name in names:
        saved(autosaves, KEEPER, name)
        report = cli.json("index", "--no-embed")
        assert (report["files_read"], report["problems"]) == (1, []), name
    whole = every(*map(version, names))
    assert indexed(cli, KEEPER) == counted_messages(whole)
    assert indexed(cli, KEEPER)["prompts"] == [
        FIRST,  # kept by every compaction, read once
        ASKED,
        "Add the fog bell rule to the top of rota.md",  # between the first two compactions
        "Note the oil order for the lamp",
        "Which keeper has week 3?",
    ]
    assert indexed(cli, KEEPER)["failed"] == 2  # the grep before the first compaction, an ls
    assert said(cli, KEEPER) == expected(whole)
    for words in ("bell in week", "fog bell rule", "oil order"):
        assert [h["session"]["id"] for h in hits(cli, words, "--speaker", "user")] == [KEEPER]
    assert cli.json("index", "--no-embed")["files_read"] == 0


def test_what_a_truncation_cut_stays(cli: CLI, autosaves: Path) -> None:
    """`compaction_strategy = truncation` (and `/truncate N`) cut the history to the first
    prompt and the last messages, with no summary: what was read before the cut stays."""
    names = [f"{FOG}-{n}" for n in range(1, 7)]
    for name in names:
        saved(autosaves, FOG, name)
        cli.json("index", "--no-embed")
    whole = every(*map(version, names))
    assert indexed(cli, FOG) == counted_messages(whole)
    assert indexed(cli, FOG)["prompts"] == [
        FIRST,
        ASKED,
        "Add the fog bell rule to the top of rota.md",
        "Write a monthly shutter check",
    ]
    assert said(cli, FOG) == expected(whole)


def test_a_compact_and_a_truncate_typed_keep_what_they_dropped_and_read_what_they_kept_once(
    cli: CLI, autosaves: Path
) -> None:
    """`/compact` keeps the summary, the first prompt and the last reply, which the index
    read before; `/truncate 3` the first prompt and the last call, its result and the
    reply, read before too: each read once, in its place."""
    names = [f"{BELL}-{n}" for n in range(1, 7)]
    for name in names:
        saved(autosaves, BELL, name)
        cli.json("index", "--no-embed")
    whole = every(*map(version, names))
    assert indexed(cli, BELL) == counted_messages(whole)
    assert len(indexed(cli, BELL)["prompts"]) == 5
    assert said(cli, BELL) == expected(whole)


def test_versions_read_only_now_and_then_keep_all_that_was_read(cli: CLI, autosaves: Path) -> None:
    """The index read the second version, then the sixth, then the eighth: the messages
    of the fourth, which a later summary replaced, were never read; all read stays."""
    for name in ("2", "6", "8"):
        saved(autosaves, KEEPER, f"{KEEPER}-{name}")
        cli.json("index", "--no-embed")
    whole = every(version(f"{KEEPER}-2"), version(f"{KEEPER}-6"), version(f"{KEEPER}-8"))
    assert indexed(cli, KEEPER) == counted_messages(whole)
    assert said(cli, KEEPER) == expected(whole)


def test_a_session_first_read_after_its_compaction_is_its_summary_and_what_followed(
    cli: CLI, autosaves: Path
) -> None:
    saved(autosaves, KEEPER, f"{KEEPER}-3")
    cli.json("index", "--no-embed")
    assert indexed(cli, KEEPER) == counted_messages(version(f"{KEEPER}-3"))
    for n in (4, 5):
        saved(autosaves, KEEPER, f"{KEEPER}-{n}")
        cli.json("index", "--no-embed")
    whole = every(version(f"{KEEPER}-3"), version(f"{KEEPER}-4"), version(f"{KEEPER}-5"))
    assert indexed(cli, KEEPER)["prompts"] == [FIRST, "Add the fog bell rule to the top of rota.md"]
    assert said(cli, KEEPER) == expected(whole)


def test_a_rewrite_that_is_no_compaction_replaces_what_it_replaced(
    cli: CLI, autosaves: Path
) -> None:
    """The end of the conversation saved shorter (Code Puppy repairs an interrupted tool
    call by rewriting the messages after it; the fourth version saved as the third
    stands for it) replaces the messages it no longer holds, and what came before the
    compaction stays. Another conversation saved under the same name (`/dump_context
    NAME` over an older NAME) replaces all."""
    for n in (2, 3, 4, 3):
        saved(autosaves, KEEPER, f"{KEEPER}-{n}")
        cli.json("index", "--no-embed")
    assert said(cli, KEEPER) == expected(every(version(f"{KEEPER}-2"), version(f"{KEEPER}-3")))
    assert indexed(cli, KEEPER)["prompts"] == [FIRST, ASKED]
    saved(autosaves, KEEPER, f"{FOG}-3")
    cli.json("index", "--no-embed")
    assert said(cli, KEEPER) == expected(version(f"{FOG}-3"))
    assert indexed(cli, KEEPER) == counted_messages(version(f"{FOG}-3"))


def test_read_raw_reads_the_current_document_back_and_keeps_the_rest_as_stored(
    cli: CLI, autosaves: Path
) -> None:
    """A secret planted in the second prompt and in the last reply: the file no longer
    holds the first after the compaction (its stored, redacted text stands); the last is
    read back from the file."""
    two = (FIXTURE / f"{KEEPER}-2.json").read_text()
    three = (FIXTURE / f"{KEEPER}-3.json").read_text()
    end = "each with when the lamp was lit, trimmed and put out, and the wind."
    assert two.count(ASKED) == 1 and three.count(end) == 1
    saved(autosaves, KEEPER, "", two.replace(ASKED, f"{ASKED} {TOKEN}").encode())
    cli.json("index", "--no-embed")
    saved(autosaves, KEEPER, "", three.replace(end, f"{end} {TOKEN}").encode())
    cli.json("index", "--no-embed")
    stored = said(cli, KEEPER)
    raw = [(m["kind"], m["text"]) for t in cli.json("read", KEEPER, "--raw")["turns"]
           for m in t["messages"] if m["kind"] in ("prompt", "reply")]  # fmt: skip
    at = next(i for i, (kind, text) in enumerate(stored) if text.startswith(ASKED))
    assert TOKEN not in str(stored) and "[REDACTED" in stored[at][1]
    assert raw[at][1] == stored[at][1]  # the file no longer holds it
    assert raw[-1][1].endswith(f"{end} {TOKEN}")
    assert raw[:at] == stored[:at] and raw[at + 1 : -1] == stored[at + 1 : -1]


def test_an_index_an_older_release_made_reads_the_sessions_again_once(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An index made by a release that read a session whole at every change holds no
    record of where the session's messages stood: its sessions are read again once after
    the upgrade (what it holds is what each file held: nothing is lost by it), so a
    compaction after it keeps what came before."""
    autosaves = tmp_path / "autosaves"
    autosaves.mkdir()
    saved(autosaves, KEEPER, f"{KEEPER}-2")
    with monkeypatch.context() as older:
        older.setattr(
            code_puppy.CodePuppySource,
            "read",
            lambda self, sf, fh, cursor: read_document(
                fh, cursor, lambda doc, problems: code_puppy._records(sf, doc, problems,
                                                                      code_puppy.Context())
            ),
        )  # fmt: skip
        index_roots(store, [Root(autosaves, "code-puppy")])
    with store.transaction():
        store.set_setting("reading.code-puppy", "4.1")
    report = index_roots(store, [Root(autosaves, "code-puppy")])
    assert (report.read_anew, report.files_read) == (["code-puppy"], 1)
    saved(autosaves, KEEPER, f"{KEEPER}-3")
    index_roots(store, [Root(autosaves, "code-puppy")])
    prompts = [m.text for m in store.session_messages(KEEPER) if m.kind.value == "prompt"]
    assert prompts == [FIRST, ASKED]


def test_the_fixtures_are_the_versions_they_claim() -> None:
    """Each compacted version is what Code Puppy made of the one before: a summary, the
    first prompt, and what its run added (keeper-log), or the first prompt and the last
    messages (fog-bell); the rest add to the version before."""
    keeper = [version(f"{KEEPER}-{n}") for n in range(1, 9)]
    fog = [version(f"{FOG}-{n}") for n in range(1, 7)]
    for n, (before, after) in enumerate(itertools.pairwise(keeper), 2):
        head = after[0]["parts"][0]
        if n in (3, 5, 6):
            assert head["part_kind"] == "system-prompt" and head["content"].startswith(
                "Summary of previous conversation:"
            )
            assert after[1] == keeper[0][0] and not [m for m in after[2:] if m in before], n
        else:
            assert after[: len(before)] == before, n
    for n, (before, after) in enumerate(itertools.pairwise(fog), 2):
        if n in (3, 5):
            assert after[0] == fog[0][0] and after[1] not in before, n
            assert all(p["part_kind"] != "system-prompt" for m in after for p in m["parts"])
        else:
            assert after[: len(before)] == before, n
    bell = [version(f"{BELL}-{n}") for n in range(1, 7)]
    assert bell[3][1:] == [bell[0][0], bell[2][-1]] and bell[3][0] not in bell[2]
    assert bell[5][:4] == [bell[0][0], *bell[4][-3:]] and bell[4][0] not in bell[5]
    # The prompts of the runs that compacted were summarised before their run was saved.
    for lost in ("Start a lamp log", "storm shutters written", "monthly shutter check"):
        assert not any(lost in json.dumps(v) for v in keeper), lost
