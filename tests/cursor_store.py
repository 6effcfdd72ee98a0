"""Cursor IDE (and Windsurf) `state.vscdb` databases for the tests, built with the stdlib
from the documented format: the two key-value tables every VS Code fork keeps
(`ItemTable`, `cursorDiskKV`, each `key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB`), in
WAL mode as the editor runs them. A `StateDb` stays open like the editor's own
connection, so its commits wait in `-wal` until it closes.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

T0 = 1_767_000_000_000  # ms: 2025-12-29


class StateDb:
    """The editor's connection to one `state.vscdb`."""

    def __init__(
        self,
        path: Path,
        journal: str = "wal",
        tables: tuple[str, ...] = ("ItemTable", "cursorDiskKV"),
    ) -> None:
        """`tables`: VS Code's own databases have only `ItemTable`."""
        path.parent.mkdir(parents=True, exist_ok=True)
        self.conn = sqlite3.connect(path, isolation_level=None)
        self.conn.execute(f"PRAGMA journal_mode = {journal}")
        self.conn.execute("PRAGMA wal_autocheckpoint = 0")  # commits stay in -wal
        for table in tables:
            self.conn.execute(
                f"CREATE TABLE IF NOT EXISTS {table} (key TEXT UNIQUE ON CONFLICT REPLACE,"
                " value BLOB)"
            )

    def put(self, key: str, value: Any, table: str = "cursorDiskKV") -> None:
        text = value if isinstance(value, str) else json.dumps(value)
        self.conn.execute(f"INSERT INTO {table} (key, value) VALUES (?, ?)", (key, text))

    def item(self, key: str, value: Any) -> None:
        self.put(key, value, "ItemTable")

    def composer(self, cid: str, bubbles: list[dict[str, Any]], **fields: Any) -> None:
        """A current-layout composer: its bubbles as rows, their order in its headers."""
        for bubble in bubbles:
            self.put(f"bubbleId:{cid}:{bubble['bubbleId']}", bubble)
        headers = [{"bubbleId": b["bubbleId"], "type": b["type"]} for b in bubbles]
        self.put(
            f"composerData:{cid}",
            {
                "_v": 10,
                "composerId": cid,
                "createdAt": T0,
                "lastUpdatedAt": T0 + 60_000 * len(bubbles),
                "unifiedMode": "agent",
                "isArchived": False,
                **fields,
                "fullConversationHeadersOnly": headers,
            },
        )

    def add_bubble(self, cid: str, bubble: dict[str, Any]) -> None:
        """What the editor does when a message is sent: the bubble's row, then the
        composer rewritten with the bubble in its headers and a later update time."""
        data = self.value(f"composerData:{cid}")
        self.put(f"bubbleId:{cid}:{bubble['bubbleId']}", bubble)
        data["fullConversationHeadersOnly"].append(
            {"bubbleId": bubble["bubbleId"], "type": bubble["type"]}
        )
        data["lastUpdatedAt"] += 60_000
        self.put(f"composerData:{cid}", data)

    def value(self, key: str) -> Any:
        row = self.conn.execute("SELECT value FROM cursorDiskKV WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0])

    def close(self) -> None:
        self.conn.close()


def user(bid: str, text: str, **extra: Any) -> dict[str, Any]:
    return {"_v": 3, "bubbleId": bid, "type": 1, "text": text, **extra}


def agent(bid: str, text: str = "", **extra: Any) -> dict[str, Any]:
    return {"_v": 3, "bubbleId": bid, "type": 2, "text": text, **extra}


def tool(bid: str, name: str, args: dict[str, Any], result: str, **extra: Any) -> dict[str, Any]:
    """An agent bubble that called a tool (`toolFormerData`, the arguments as JSON text)."""
    data = {
        "tool": 5,
        "name": name,
        "toolCallId": f"toolu_{bid}",
        "status": "completed",
        "rawArgs": json.dumps(args),
        "result": result,
        **extra,
    }
    return agent(bid, toolFormerData=data)


def workspace(storage: Path, folder: str) -> Path:
    """A workspace's storage folder with the `workspace.json` that names its folder."""
    storage.mkdir(parents=True, exist_ok=True)
    (storage / "workspace.json").write_text(json.dumps({"folder": f"file://{folder}"}))
    return storage
