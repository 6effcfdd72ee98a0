"""A secret in the name of a file given to a chat app (an uploaded `.env`, a screenshot
named after a token) leaves no trace: every place each app's export names such a file
is planted with tokens, the export is zipped as downloaded, and the real CLI indexes
it. The text fields of the same exports are planted in test_planted_secrets_sources.py.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from chat_exports import APPS, zipped
from conftest import CLI
from test_planted_secrets_sources import IN_NAMES, leaks

NAMES = [f"deploy-{token}.env" for token in IN_NAMES]


def _chatgpt(doc: list[dict[str, Any]]) -> None:
    for conv in doc:
        for node in conv["mapping"].values():
            msg = node["message"]
            if msg and msg["author"]["role"] == "user":
                msg["metadata"]["attachments"] = [{"id": "f", "name": n, "size": 1} for n in NAMES]


def _claude_ai(doc: list[dict[str, Any]]) -> None:
    for conv in doc:
        for msg in conv["chat_messages"]:
            msg["attachments"] = [
                {"file_name": n, "file_size": 1, "file_type": "txt", "extracted_content": "x y"}
                for n in NAMES
            ]
            msg["files"] = [{"file_name": n, "file_uuid": "u"} for n in NAMES]


def _gemini(doc: list[dict[str, Any]]) -> None:
    for record in doc:
        record["attachedFiles"] = list(NAMES)
        record["imageFile"] = NAMES[0].replace(".env", ".png")


PLANT = {"chatgpt": _chatgpt, "claude-ai": _claude_ai, "gemini-apps": _gemini}


@pytest.mark.parametrize("kind", sorted(PLANT))
def test_no_secret_in_a_file_name_leaves_a_trace(cli: CLI, tmp_path: Path, kind: str) -> None:
    app = APPS[kind]
    unpacked = tmp_path / "export"
    shutil.copytree(app.older, unpacked)
    document = unpacked / app.document
    doc = json.loads(document.read_text(encoding="utf-8"))
    PLANT[kind](doc)
    document.write_text(json.dumps(doc), encoding="utf-8")
    export = zipped(unpacked, tmp_path / "download" / "export.zip")
    report = cli.json("index", "--no-embed", "--source", kind, str(export))
    assert report["sessions_total"] > 0 and sum(report["redacted"].values()) >= len(NAMES)
    assert not leaks(Path(cli.env["FINDSESSION_DB"])), kind
    # The name is still there, its secret replaced: the file can be found by it.
    hits = cli.json("search", "--mode", "keyword", "--source", kind, "deploy env")["results"]
    assert hits, kind
