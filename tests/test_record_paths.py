"""A value read from a record never becomes a path unchecked.

Stores that name files by the ids their records hold (OpenCode's tree: a session's
messages in `message/<session id>/`; a Cursor chat's workspace folder) are read with
ids that cannot name one folder: `..`, a separator leading to another session's
folder, a NUL, a lone surrogate no file system can spell. Each gives the file's own
records, never another session's and never an exception.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from findsession.domain import Message, MessageKind
from findsession.sources import SOURCES
from findsession.sources.cursor_ide_records import workspace_id
from findsession.sources.names import entry_name

FIXTURE = Path(__file__).parent / "fixtures" / "opencode" / "storage"
PROJECT = "4b0ea68d7af9a6031a7ffda7ad66e0cb83315750"
TIDES = "ses_5a1f00000001TidechartParser"
CHILD = "ses_5a1f00000002ChildSession"

HOSTILE = ["\ud800", "..", ".", f"../message/{CHILD}", f"..\\{CHILD}", "a\0b", "x" * 300, ""]


@pytest.mark.parametrize("value", HOSTILE, ids=repr)
def test_an_id_that_cannot_name_one_folder_is_not_a_name(value: str) -> None:
    assert entry_name(value) is None
    assert workspace_id({"workspaceIdentifier": {"id": value}}) is None


def test_real_ids_are_names() -> None:
    assert entry_name(TIDES) == TIDES
    assert entry_name("ses_ünïcode-名前") == "ses_ünïcode-名前"
    assert entry_name(12) is None


@pytest.mark.parametrize("value", HOSTILE, ids=repr)
def test_an_opencode_tree_session_with_a_hostile_id_reads_its_own_messages(
    tmp_path: Path, value: str
) -> None:
    storage = tmp_path / "storage"
    shutil.copytree(FIXTURE, storage)
    session = storage / "session" / PROJECT / f"{TIDES}.json"
    doc = json.loads(session.read_text())
    doc["id"] = value
    session.write_text(json.dumps(doc))
    source = SOURCES["opencode"]
    with open(session, "rb") as fh:
        reading = source.read(source.describe(session), fh, None)
    prompts = [r.text for r in reading.records if isinstance(r, Message)
               and r.kind is MessageKind.PROMPT]  # fmt: skip
    # Its own prompt, from the folder its file is named by; never the child's.
    assert prompts == ["Parse the harbour tide chart CSV into high and low water times"]
