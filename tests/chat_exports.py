"""The chat apps' export fixtures, zipped as each app delivers them, and counters of
what each holds written apart from findsession's readers (plain walks of the JSON, no
code of the sources), for the tests to hold the index's counts to.

Each app has two exports of one account (`fixtures/<app>/`): the newer one changed a
conversation (a turn added), lost one (deleted from the account), kept one as it was
and gained one.
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures"


@dataclass(frozen=True)
class App:
    kind: str
    older: Path
    newer: Path
    #: The file that holds the conversations, relative to an export's folder.
    document: str
    #: Session ids: changed in the newer export, deleted before it, the same in both,
    #: and new in it; and a word only each one's content holds.
    changed: str
    deleted: str
    same: str
    added: str
    changed_word: str
    deleted_word: str
    added_word: str


APPS = {
    "chatgpt": App(
        "chatgpt",
        FIXTURES / "chatgpt" / "export-2024-05",
        FIXTURES / "chatgpt" / "export-2024-07",
        "conversations.json",
        "chatgpt:6a1f0c2e-0000-4000-8000-0000000000a1",
        "chatgpt:6a1f0c2e-0000-4000-8000-0000000000b2",
        "chatgpt:6a1f0c2e-0000-4000-8000-0000000000c3",
        "chatgpt:6a1f0c2e-0000-4000-8000-0000000000d4",
        "gummy",
        "lifetimes",
        "rudder",
    ),
    "claude-ai": App(
        "claude-ai",
        FIXTURES / "claude-ai" / "data-2024-05-05-10-00-00",
        FIXTURES / "claude-ai" / "data-2024-07-01-10-00-00",
        "conversations.json",
        "claude-ai:5e7a9b1c-0000-4000-8000-0000000011a1",
        "claude-ai:5e7a9b1c-0000-4000-8000-0000000022b2",
        "claude-ai:5e7a9b1c-0000-4000-8000-0000000033c3",
        "claude-ai:5e7a9b1c-0000-4000-8000-0000000044d4",
        "gearbox",
        "Aletsch",
        "plums",
    ),
    "gemini-apps": App(
        "gemini-apps",
        FIXTURES / "gemini-apps" / "takeout-2024-05",
        FIXTURES / "gemini-apps" / "takeout-2024-07",
        "Takeout/My Activity/Gemini Apps/MyActivity.json",
        "gemini-apps:b7e3c1a9d5f20468",
        "gemini-apps:t-20240507T090000000Z",
        "gemini-apps:t-20240507T050000000Z",
        "gemini-apps:a1c9e5b3f7d20864",
        "kilo",
        "Roggensauerteig",
        "causeway",
    ),
}


def zipped(folder: Path, zip_path: Path) -> Path:
    """`folder`'s files in a zip, as the app's download holds them (paths relative to
    the folder: ChatGPT and Claude.ai at the top, Takeout under `Takeout/`)."""
    zip_path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            archive.write(path, path.relative_to(folder).as_posix())
    return zip_path


def expected(app: App, folder: Path) -> tuple[int, int]:
    """(conversations, turns) the export at `folder` holds, counted from its JSON."""
    doc = json.loads((folder / app.document).read_text(encoding="utf-8"))
    return {"chatgpt": _chatgpt, "claude-ai": _claude_ai, "gemini-apps": _gemini}[app.kind](doc)


def _chatgpt(doc: list[dict[str, Any]]) -> tuple[int, int]:
    """Each conversation's prompts on the branch its `current_node` ends: user messages
    with a string part that has text, not hidden."""
    turns = 0
    for conv in doc:
        node, mapping = conv["current_node"], conv["mapping"]
        while node is not None:
            msg = mapping[node]["message"]
            if msg and msg["author"]["role"] == "user":
                hidden = msg["metadata"].get("is_visually_hidden_from_conversation")
                parts = msg["content"].get("parts") or []
                turns += not hidden and any(isinstance(p, str) and p.strip() for p in parts)
            node = mapping[node]["parent"]
    return len(doc), turns


def _claude_ai(doc: list[dict[str, Any]]) -> tuple[int, int]:
    """Each human message with a text block (or, with no blocks, flat text)."""
    turns = 0
    for conv in doc:
        for msg in conv["chat_messages"]:
            if msg["sender"] != "human":
                continue
            texts = [b["text"] for b in msg["content"] if b["type"] == "text"]
            turns += any(t.strip() for t in texts or [msg["text"]])
    return len(doc), turns


def _gemini(doc: list[dict[str, Any]]) -> tuple[int, int]:
    """Records with an answer or a `Prompted` title are turns; a conversation is the id
    its link names, else a run of records with no id and under 30 minutes between."""
    asked = [
        r
        for r in doc
        if r["title"].startswith("Prompted ") or ("safeHtmlItem" in r and " " in r["title"])
    ]
    ids = {r["details"][0]["url"] for r in asked if r.get("details")}
    loose = sorted(r["time"] for r in asked if not r.get("details"))
    groups = sum(
        1
        for before, after in zip([None, *loose], loose, strict=False)
        if before is None or _minutes(before, after) > 30
    )
    return len(ids) + groups, len(asked)


def _minutes(a: str, b: str) -> float:
    from datetime import datetime

    def at(t: str) -> float:
        return datetime.fromisoformat(t.replace("Z", "+00:00")).timestamp()

    return (at(b) - at(a)) / 60
