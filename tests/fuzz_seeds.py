"""Valid transcripts of every source, for the fuzz tests to break one field at a time.

A seed is a small tree in the source's own layout (copied from `fixtures/` or built by
the test stores), the file its source reads, and the files whose JSON may be changed:
JSON lines, a JSON document, or a SQLite store (every row of every table, a text column
holding JSON taken apart like a document). `Seed.write` puts the tree back with one
changed set of values; nothing here knows what a field means.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import zstandard
from amazon_q_store import AmazonQStore
from crush_store import CrushStore, call, result
from crush_store import text as crush_text
from cursor_store import StateDb, agent, tool, user
from devin_store import DevinStore
from devin_store import assistant as devin_assistant
from devin_store import call as devin_call
from devin_store import result as devin_result
from devin_store import user as devin_user
from forge_store import ForgeStore
from forge_store import agent_result as forge_agent_result
from forge_store import assistant as forge_assistant
from forge_store import call as forge_call
from forge_store import result as forge_result
from forge_store import system as forge_system
from forge_store import task as forge_task
from goose_store import GooseStore, tool_request, tool_response
from goose_store import text as goose_text
from kiro_store import KiroStore, prompt, reply, results, tool_use
from opencode_store import OpenCodeStore
from specstory_exports import current, oldest, thinking, write
from specstory_exports import tool_use as specstory_tool
from transcripts import Transcript
from warp_store import WarpStore
from zed_store import ZedStore, document
from zed_store import agent as zed_agent
from zed_store import result as zed_result
from zed_store import text as zed_text
from zed_store import thinking as zed_thinking
from zed_store import tool_use as zed_tool
from zed_store import user as zed_user

FIXTURES = Path(__file__).resolve().parent / "fixtures"
CODEX_MAIN = (
    "sessions/2026/05/04/rollout-2026-05-04T10-00-00-019df26e-2d00-7f29-8645-deec08007ae4.jsonl"
)


@dataclass
class Seed:
    """One source's valid input: `tree` is laid out under a folder, `target` (relative
    to it) is the file the source reads, `mutable` the files whose values may change."""

    name: str
    kind: str
    tree: Callable[[Path], None]
    target: str
    mutable: list[str]
    #: How a mutable file holds its values: "jsonl", "json", "zst" (JSON lines, zstd) or "db".
    form: dict[str, str] = field(default_factory=dict)
    #: The source may refuse a changed file with `OSError`, by design: VS Code's log with
    #: no state line yet is taken for one still being written, and read again next run.
    refuses: bool = False

    def values(self, folder: Path) -> list[Any]:
        """The mutable files' values, one entry per file, read from the laid-out tree."""
        return [_load(folder / rel, self.form.get(rel, _form(rel))) for rel in self.mutable]

    def write(self, folder: Path, values: list[Any]) -> None:
        for rel, value in zip(self.mutable, values, strict=True):
            _dump(folder / rel, self.form.get(rel, _form(rel)), value)


def _form(rel: str) -> str:
    if rel.endswith(".jsonl.zst"):
        return "zst"
    if rel.endswith(".jsonl"):
        return "jsonl"
    if rel.endswith((".db", ".vscdb", ".sqlite3", ".sqlite")):
        return "db"
    return "json"


def _load(path: Path, form: str) -> Any:
    if form == "json":
        return json.loads(path.read_text())
    if form in ("jsonl", "zst"):
        raw = path.read_bytes()
        if form == "zst":
            raw = zstandard.ZstdDecompressor().decompress(raw, max_output_size=1 << 26)
        return [_line(line) for line in raw.decode().splitlines() if line.strip()]
    return _load_db(path)


class Raw(str):
    """A line of a seed that is not JSON (a fixture's malformed line): written back as it
    is."""


def _line(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return Raw(text)


def _dump(path: Path, form: str, value: Any) -> None:
    if form == "json":
        path.write_text(json.dumps(value))
    elif form in ("jsonl", "zst"):
        raw = "".join(
            (line if isinstance(line, Raw) else json.dumps(line)) + "\n" for line in value
        ).encode()
        if form == "zst":
            raw = zstandard.ZstdCompressor().compress(raw)
        path.write_bytes(raw)
    else:
        _dump_db(path, value)


def _load_db(path: Path) -> dict[str, Any]:
    """`{"schema": [CREATE …], "rows": {table: [[value, …], …]}}`; a text value holding
    a JSON object or list is kept parsed, as `{"json": value}`."""
    conn = sqlite3.connect(path)
    try:
        shadows = full_text_shadows(conn)
        schema = [
            sql
            for (name, sql) in conn.execute(
                "SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL"
                " AND name NOT LIKE 'sqlite_%' ORDER BY CASE type WHEN 'table' THEN 0"
                " WHEN 'view' THEN 1 WHEN 'index' THEN 2 ELSE 3 END, rowid"  # a trigger
                # after its table (Warp's store has some)
            )
            if name not in shadows  # made again by their virtual table
        ]
        virtual = full_text_tables(conn)
        tables = [
            name
            for (name,) in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            )
            if name not in shadows and name not in virtual  # filled by their triggers
        ]
        rows = {
            t: [[_cell(v) for v in row] for row in conn.execute(f'SELECT * FROM "{t}"')]
            for t in tables
        }
    finally:
        conn.close()
    return {"schema": schema, "rows": rows}


def full_text_tables(conn: sqlite3.Connection) -> set[str]:
    """The store's full-text indexes (llm's `responses_fts`): virtual tables whose
    triggers keep them in step with the rows they index."""
    return {
        name
        for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE sql LIKE 'CREATE VIRTUAL TABLE%'"
        )
    }


def full_text_shadows(conn: sqlite3.Connection) -> set[str]:
    """The tables a full-text index keeps itself in (`<index>_data`, `_idx`, ...)."""
    virtual = full_text_tables(conn)
    return {
        name
        for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        if any(name.startswith(f"{v}_") for v in virtual)
    }


def _cell(value: Any) -> Any:
    if isinstance(value, str) and value[:1] in "[{":
        try:
            return {"json": json.loads(value)}
        except ValueError:
            return value
    if isinstance(value, bytes):
        return {"blob": value.hex()}
    return value


def _uncell(value: Any) -> Any:
    if isinstance(value, dict) and set(value) == {"json"}:
        return json.dumps(value["json"])
    if isinstance(value, dict) and set(value) == {"blob"} and isinstance(value["blob"], str):
        try:
            return bytes.fromhex(value["blob"])
        except ValueError:
            return value["blob"]
    if isinstance(value, dict | list):
        return json.dumps(value)  # a scalar column given an object: stored as its text
    if isinstance(value, int) and not -(2**63) <= value < 2**63:
        return str(value)
    return value


class _Broken(bytes):
    """Text that is not valid UTF-8, as its bytes."""


def _utf8_or_bytes(cell: Any) -> Any:
    if isinstance(cell, str):
        try:
            cell.encode("utf-8")
        except UnicodeEncodeError:
            return _Broken(cell.encode("utf-8", "surrogatepass"))
    return cell


def _dump_db(path: Path, value: dict[str, Any]) -> None:
    for side in ("", "-wal", "-shm", "-journal"):
        Path(f"{path}{side}").unlink(missing_ok=True)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA synchronous = OFF")  # a test's throwaway file: no fsync
    try:
        for sql in value["schema"]:
            conn.execute(sql)
        for table, rows in value["rows"].items():
            for row in rows:
                cells = [_uncell(v) for v in row]
                # Text that is not valid UTF-8 (a lone surrogate) goes in as the bytes a
                # careless writer would leave, typed as text.
                cells = [_utf8_or_bytes(c) for c in cells]
                marks = ",".join(
                    "CAST(? AS TEXT)" if isinstance(c, _Broken) else "?" for c in cells
                )
                try:
                    conn.execute(f'INSERT INTO "{table}" VALUES ({marks})', cells)
                except sqlite3.Error:
                    continue  # a value the column refuses (NOT NULL, a duplicate key)
        conn.commit()
    finally:
        conn.close()


def _copy(rel: str) -> Callable[[Path], None]:
    def lay(folder: Path) -> None:
        shutil.copytree(FIXTURES / rel, folder, dirs_exist_ok=True)

    return lay


def _claude(folder: Path) -> None:
    t = Transcript(session_id="fuzz-claude")
    t.prompt("fix the parser").reply("Done.", {"type": "thinking", "thinking": "hmm"})
    t.tool("Edit", {"file_path": "/src/a.py", "old_string": "a", "new_string": "b"}, "ok")
    t.title("fuzz").meta_line("summary", summary="a summary", leafUuid="x")
    t.write(folder / "projects" / "-home-dev-app")


def _codex_zst(folder: Path) -> None:
    _copy("codex/home")(folder)
    plain = folder / CODEX_MAIN
    Path(f"{plain}.zst").write_bytes(zstandard.ZstdCompressor().compress(plain.read_bytes()))
    plain.unlink()


def _crush(folder: Path) -> None:
    s = CrushStore(folder / ".crush" / "crush.db")
    s.session("c-1", "Rivet torque")
    s.session("c-2", "Child", parent="c-1")
    s.message("c-1", "user", [crush_text("why does the rivet table round")])
    s.message("c-1", "assistant", [crush_text("Checking."), call("k1", "view", {"path": "a"})])
    s.message("c-1", "tool", [result("k1", "view", "return int(v)")])
    s.message("c-1", "assistant", [crush_text("a summary")], summary=True)
    s.message("c-2", "user", [crush_text("subtask")])
    s.close()


def _devin(folder: Path) -> None:
    s = DevinStore(folder / "cli" / "sessions.db")
    s.session("calm-ferry", "/home/dev/ferry", "scrape the ferry timetable", head=5)
    s.node("calm-ferry", 1, None, devin_user("scrape the ferry timetable"))
    ls = devin_call("exec:0#a", "exec", command="ls")
    s.node("calm-ferry", 2, 1, devin_assistant("Fetching.", ls))
    s.node("calm-ferry", 3, 1, devin_assistant("A retry.", request="r1"))
    s.node("calm-ferry", 4, 2, devin_result("exec:0#a", "a.txt"))
    s.node("calm-ferry", 5, 4, devin_assistant("Done."), {"summarized_from": 3})
    s.state("calm-ferry", "exec:0#a", {"kind": "execute"}, {"status": "failed"})
    s.close()


def _forge(folder: Path) -> None:
    s = ForgeStore(folder / ".forge.db")
    child = "7c1d2e3f-4a5b-4c6d-9e7f-8091a2b3c4d5"
    s.save(child, "find the pin", [
        forge_system("/home/dev/lamp"), forge_task("find the pin"), forge_assistant("Pin 4."),
    ], "2026-12-07 10:00:05", "2026-12-07 10:00:20", initiator="agent")  # fmt: skip
    s.save("3b9e7a20-1c44-4d1f-8e2a-55c0f1a2b3c4", "Lamp wiring", [
        forge_system("/home/dev/lamp"),
        forge_task("wire the lamp"),
        forge_assistant("Asking.", forge_call("c1", "sage", tasks=["find the pin"]),
                        forge_call("c2", "shell", command="ls"), thinking="Look first."),
        forge_agent_result("c1", "sage", "Pin 4.", child),
        forge_result("c2", "shell", "ls: cannot access", failed=True),
        forge_assistant("Wired to pin 4."),
    ], "2026-12-07 10:00:00", "2026-12-07 10:00:30")  # fmt: skip
    s.close()


def _goose(folder: Path) -> None:
    s = GooseStore(folder / "sessions.db")
    s.session("g-1", "/home/dev/ferry", "Ferry timetable")
    s.message("g-1", "user", goose_text("scrape the ferry timetable"))
    call = tool_request("t1", "shell", command="ls")
    s.message("g-1", "assistant", goose_text("Fetching."), call)
    s.message("g-1", "user", tool_response("t1", "a.txt"))
    s.close()


def _opencode(folder: Path) -> None:
    s = OpenCodeStore(folder / "opencode.db")
    s.project("/home/dev/lamp", "prj_lamp")
    s.session("ses_1", "/home/dev/lamp", "Lamp", project="prj_lamp")
    s.session("ses_2", "/home/dev/lamp", "Child", parent="ses_1", project="prj_lamp")
    s.turn(
        "ses_1",
        "why does the lamp flicker",
        "A loose contact.",
        {"type": "reasoning", "text": "thinking"},
        {
            "type": "tool",
            "tool": "bash",
            "callID": "c1",
            "state": {"status": "completed", "input": {"command": "ls"}, "output": "a"},
        },
    )
    s.turn("ses_2", "subtask", "ok")
    s.close()


def _kiro(folder: Path) -> None:
    s = KiroStore(folder / "data.sqlite3")
    s.put("/home/dev/hive", "k-1", [
        {"user": prompt("calibrate the scale", "/home/dev/hive"),
         "assistant": tool_use("m-1", "Checking.", ("t1", "execute_bash", {"command": "ls"})),
         "request_metadata": {"stream_end_timestamp_ms": 1_780_000_500_000}},
        {"user": results(("t1", "a.txt")), "assistant": reply("m-2", "Tare it empty.")},
    ])  # fmt: skip
    s.close()


def _cody(state: str) -> Callable[[Path], None]:
    """VS Code's database holding Cody's global state as the fixture gives it."""

    def lay(folder: Path) -> None:
        db = StateDb(folder / "User" / "globalStorage" / "state.vscdb", tables=("ItemTable",))
        value = json.loads((FIXTURES / "cody" / state).read_text(encoding="utf-8"))
        db.item("sourcegraph.cody-ai", json.dumps(value, separators=(",", ":")))
        db.close()

    return lay


def _amazon_q(folder: Path) -> None:
    from test_source_amazon_q import loom, river

    s = AmazonQStore(folder / "data.sqlite3")
    s.put("/home/dev/river", river())
    s.put("/home/dev/loom", loom())
    s.close()


def _cursor_ide(folder: Path) -> None:
    db = StateDb(folder / "User" / "globalStorage" / "state.vscdb")
    ws = {"id": "ws-1", "uri": {"fsPath": "/home/dev/orchard", "scheme": "file"}}
    db.composer(
        "0b7c5e2a-1111-4c3d-9e8f-000000000001",
        [
            user("o1", "how should the irrigation work"),
            agent("o2", "Weighing it", isThought=True),
            tool("o3", "read_file", {"target_file": "src/a.py"}, "VALVES = {}"),
            agent("o4", "At dawn."),
        ],
        name="Orchard",
        workspaceIdentifier=ws,
    )
    db.composer(
        "0b7c5e2a-2222-4c3d-9e8f-000000000002",
        [user("s1", "survey"), agent("s2", "Dry.")],
        subagentInfo={"parentComposerId": "0b7c5e2a-1111-4c3d-9e8f-000000000001"},
    )
    db.close()


def _zed(folder: Path) -> None:
    """Zed's store, one thread compressed as Zed saves it and, so the fuzzing reaches
    inside the document, the same thread as plain JSON (a `data_type` Zed reads too)."""
    messages = [
        zed_user("why does the kiln overshoot", ("/home/dev/kiln/pid.toml", "gain = 1")),
        zed_agent(
            zed_thinking("windup"),
            zed_text("Checking."),
            zed_tool("t1", "edit_file", {"path": "kiln/a.rs", "edits": [
                {"old_text": "a", "new_text": "b"}]}),
            results=(zed_result("t1", "edit_file", "Edited a.rs"),),
        ),
        "Resume",
    ]  # fmt: skip
    s = ZedStore(folder / "threads" / "threads.db")
    s.save("z-1", "Kiln", messages, folders=("/home/dev/kiln",))
    doc = document("Kiln child", messages, "2026-05-04T09:00:00Z")
    s.save_raw("z-2", "Kiln child", "json", json.dumps(doc))
    s.conn.execute("UPDATE threads SET parent_id = 'z-1' WHERE id = 'z-2'")
    s.close()


def _warp(folder: Path) -> None:
    """Warp's store with the conversations of its source test (tasks, a subagent, a
    child agent, a task that does not decode)."""
    from test_source_warp import lantern_tasks

    store = WarpStore(folder / "warp.sqlite")
    store.save("w-1", lantern_tasks())
    store.save("w-2", [], parent_conversation_id="w-1")
    store.raw_task("w-2", "t-bad", b"\x0a\xff\xff")
    store.close()


_GEMINI = "home/.gemini/tmp"
_TAKEOUT = "Takeout/My Activity/Gemini Apps/MyActivity.json"
_COPILOT = "home/.copilot/session-state"
_CURSOR_AGENT = "home/.cursor/projects/home-dev-trellis/agent-transcripts"
_VSCODE = "home/.config/Code/User/workspaceStorage/6f1d2c0b9a8e7d6c5b4a39281706f5e4"
_CLINE = "User/globalStorage/saoudrizwan.claude-dev/tasks/1733000000000"
_CLINE_CLI = "sessions/1796653948700_ntm6c/1796653948700_ntm6c"
_ROO = "User/globalStorage/rooveterinaryinc.roo-cline/tasks/aaaa0001-0000-4000-8000-00000000000a"
_KIMI = "sessions/9aa9f887151e3c91e1263f701092d3f0/4c2e8a10-0001-4b5d-9e6f-7a8b9c0d1e2f"
_OPENHANDS = "8d2f6a1c4b3e4f5a9c0d1e2f3a4b5c6d"
_OPENHANDS_APP = "b7e2c41d9a0f4e3c8d1a2b3c4d5e6f70"
_OPENCODE_TREE = "storage/session/4b0ea68d7af9a6031a7ffda7ad66e0cb83315750"
_ANTIGRAVITY = "antigravity/brain/3f0a9c1e-5b2d-4e7f-8a1b-2c3d4e5f6a01/.system_generated/logs"
_IFLOW = "projects/-home-dev-orchard/session-3b1c0d9e-1111-4c2d-8e3f-0a1b2c3d4e01"
_VIBE_DOC = "session_20260301_101500_0a1b2c3d.json"
_VIBE_LOG = "session_20260402_091200_5e6f7a8b/messages.jsonl"
_VIBE_STORE = "unified/f043197e-9a3d-a9d4-a2e0-584f9c61adcf"
_VIBE_CHUNK = "chunks/183b95b26838e8d2f3449971d9e5a153c80baa275d2325a2c852a7611416eed7.json"
_VIBE_LIVE = "unified/29dcdb92-04e2-a3e0-9fec-b3fd1efa81ac"
_KIMI_CODE = "sessions/wd_orchard_b9846ae12603/session_4c998d34-a7a2-4712-9335-07cf50ec4c0d"
_KIMI_CODE_SPRING = "sessions/wd_apiary_eae80bd188c0/session_ca6ff05b-13f2-4785-87b1-a882ea6d8c92"
_KIMI_CODE_FORK = "sessions/wd_apiary_eae80bd188c0/session_a651df64-4de7-4a61-b29a-e33bfc00259e"
_GPTME = "2026-12-06-sneaking-green-penguin"
_KIRO_IDE = "kiro-ide/home/.config/Kiro/User/globalStorage/kiro.kiroagent"
_KIRO_IDE_CHAT = "L2hvbWUvZGV2L3dlYXRoZXItYnVveQ__/3f2a9c10-7b4d-4e21-9a0c-5d6e7f809a11.json"
_KIRO_SESSION = "3e9a1c7b5d2f4086/sess_4f1d2c3b-8a9e-4b7c-9d0e-1f2a3b4c5d6e"
_KIRO_IDE_RUN = (
    "1244d18175ccdf2bf18bd8f4426a21ad/414d1636299d2b9e4ce7e17fb11f63e9/"
    "af59163770ff698a9aab0a7f8b5a4b1d"
)
_CODY_AGENT = "JetBrains-globalState/cody-local-chatHistory-v2"
_CODY_EXPORT = "cody-chat-history-2025-03-22T17-12-00.json"
_GPTME_NATIVE = "2026-12-06-singing-blue-shark"
_NANOCODER = "0ab7146e-2723-4071-9898-466731f5eead.json"
_AVANTE = "projects/__home__dev__projects__demo/history/1.json"
_AVANTE_ENTRIES = "projects/__home__dev__tide_tables/history/0.json"
_CODE_PUPPY = "autosaves/lighthouse-hours.json"
_CODE_PUPPY_AGENT = "subagent_sessions/planning-agent-session-3a14b6.json"
_CODE_PUPPY_ABOUT = "subagent_sessions/planning-agent-session-3a14b6.txt"
_LETTA = "conversations/Y29udmVyc2F0aW9uOmxvY2FsLWNvbnYtMQ"
_OPEN_INTERPRETER = "write_my_todo_notes_into__December_06_2026_23-41-09.json"
_CODEBUDDY = "projects/home-dev-greeter/69c487d2-f5c8-49bc-b814-87663ad1f12d"
_QODER = "projects/-home-dev-weather-buoy/5d1e2f3a-1111-4a2b-8c3d-000000000001"
_AUGGIE = "sessions/8c4f2e1a-0b3d-4e5f-9a6b-1c2d3e4f5a01"
_TRAE = "sessions/2026/06/04/rollout-2026-06-04T09-10-00-01a2b3c4-0d1e-7f20-8a31-000000000101.jsonl"
_AGY = "antigravity-cli/brain/3f0a9c1e-5b2d-4e7f-8a1b-2c3d4e5f6a03/.system_generated/logs"

#: Every source's record parser, through its own `read`.
SEEDS = [
    Seed("claude-code", "claude-code", _claude, "projects/-home-dev-app/fuzz-claude.jsonl",
         ["projects/-home-dev-app/fuzz-claude.jsonl"]),
    Seed("codex", "codex", _copy("codex/home"), CODEX_MAIN, [CODEX_MAIN]),
    Seed("codex-zst", "codex", _codex_zst, CODEX_MAIN + ".zst", [CODEX_MAIN + ".zst"]),
    Seed("gemini-json", "gemini", _copy("gemini"),
         f"{_GEMINI}/orchard/chats/session-2025-11-03T09-15-aaaa1111.json",
         [f"{_GEMINI}/orchard/chats/session-2025-11-03T09-15-aaaa1111.json"]),
    Seed("gemini-jsonl", "gemini", _copy("gemini"),
         f"{_GEMINI}/kiln/chats/session-2026-05-01T08-30-cccc3333.jsonl",
         [f"{_GEMINI}/kiln/chats/session-2026-05-01T08-30-cccc3333.jsonl"]),
    Seed("qwen", "qwen", _copy("qwen"),
         "home/projects/-home-dev-greenhouse/chats/6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b.jsonl",
         ["home/projects/-home-dev-greenhouse/chats/6f1c2a9e-3b4d-4e5f-8a7b-9c0d1e2f3a4b.jsonl"]),
    Seed("droid", "droid", _copy("droid"),
         "sessions/-home-dev-apiary/3c9d8e7f-6a5b-4c4d-9e3f-2a1b0c9d8e7f.jsonl",
         ["sessions/-home-dev-apiary/3c9d8e7f-6a5b-4c4d-9e3f-2a1b0c9d8e7f.jsonl",
          "sessions/-home-dev-apiary/3c9d8e7f-6a5b-4c4d-9e3f-2a1b0c9d8e7f.settings.json"]),
    Seed("pi", "pi", _copy("pi"),
         "agent/sessions/--home-dev-kiln--/2026-05-04T09-00-00-000Z_0b7e4c1a-5d2f-4a8e-9c3b-6f1d2e3a4b5c.jsonl",
         ["agent/sessions/--home-dev-kiln--/2026-05-04T09-00-00-000Z_0b7e4c1a-5d2f-4a8e-9c3b-6f1d2e3a4b5c.jsonl"]),
    Seed("copilot-cli-events", "copilot-cli", _copy("copilot-cli"),
         f"{_COPILOT}/3f6c2a1e-8b4d-4c7a-9e21-5d0b7f3a1c44/events.jsonl",
         [f"{_COPILOT}/3f6c2a1e-8b4d-4c7a-9e21-5d0b7f3a1c44/events.jsonl"]),
    Seed("copilot-cli-flat", "copilot-cli", _copy("copilot-cli"),
         f"{_COPILOT}/7a1d9e02-4c3b-4f8e-a6d5-2b9c0e8f7a13.jsonl",
         [f"{_COPILOT}/7a1d9e02-4c3b-4f8e-a6d5-2b9c0e8f7a13.jsonl"]),
    Seed("cursor-agent", "cursor-agent", _copy("cursor-agent"),
         f"{_CURSOR_AGENT}/5b0e7c3d-2f41-4a9e-8c16-9d3e0a7b1f52/5b0e7c3d-2f41-4a9e-8c16-9d3e0a7b1f52.jsonl",
         [f"{_CURSOR_AGENT}/5b0e7c3d-2f41-4a9e-8c16-9d3e0a7b1f52/5b0e7c3d-2f41-4a9e-8c16-9d3e0a7b1f52.jsonl",
          "home/.cursor/chats/c705edc32ef24e839df457db3edf24fb/5b0e7c3d-2f41-4a9e-8c16-9d3e0a7b1f52/meta.json"]),
    Seed("vscode-copilot-json", "vscode-copilot", _copy("vscode-copilot"),
         f"{_VSCODE}/chatSessions/4d2b8e61-0c7a-4f39-b5e2-8a1c6d9f3e07.json",
         [f"{_VSCODE}/chatSessions/4d2b8e61-0c7a-4f39-b5e2-8a1c6d9f3e07.json",
          f"{_VSCODE}/workspace.json"]),
    Seed("vscode-copilot-log", "vscode-copilot", _copy("vscode-copilot"),
         f"{_VSCODE}/chatSessions/4d2b8e61-0c7a-4f39-b5e2-8a1c6d9f3e07.jsonl",
         [f"{_VSCODE}/chatSessions/4d2b8e61-0c7a-4f39-b5e2-8a1c6d9f3e07.jsonl"], refuses=True),
    Seed("cline", "cline", _copy("cline"), f"{_CLINE}/ui_messages.json",
         [f"{_CLINE}/ui_messages.json", f"{_CLINE}/task_metadata.json",
          f"{_CLINE}/api_conversation_history.json"]),
    Seed("cline-cli", "cline", _copy("cline_cli_3065/data"), f"{_CLINE_CLI}.messages.json",
         [f"{_CLINE_CLI}.messages.json", f"{_CLINE_CLI}.json"]),
    Seed("roo-code", "roo-code", _copy("roo-code"), f"{_ROO}/ui_messages.json",
         [f"{_ROO}/ui_messages.json", f"{_ROO}/history_item.json"]),
    Seed("amp", "amp", _copy("amp"), "threads/T-5f0c2a9e-1111-4aaa-8bbb-000000000001.json",
         ["threads/T-5f0c2a9e-1111-4aaa-8bbb-000000000001.json"]),
    Seed("opencode-tree", "opencode", _copy("opencode"),
         f"{_OPENCODE_TREE}/ses_5a1f00000001TidechartParser.json",
         [f"{_OPENCODE_TREE}/ses_5a1f00000001TidechartParser.json",
          "storage/message/ses_5a1f00000001TidechartParser/msg_5a1f00000102.json",
          "storage/part/msg_5a1f00000102/prt_5a1f00000105.json",
          "storage/part/msg_5a1f00000102/prt_5a1f00000107.json"]),
    Seed("opencode-db", "opencode", _opencode, "opencode.db", ["opencode.db"]),
    Seed("goose-db", "goose", _goose, "sessions.db", ["sessions.db"]),
    Seed("goose-legacy", "goose", _copy("goose"), "sessions/kelp-farm.jsonl",
         ["sessions/kelp-farm.jsonl"]),
    Seed("crush", "crush", _crush, ".crush/crush.db", [".crush/crush.db"]),
    Seed("devin", "devin", _devin, "cli/sessions.db", ["cli/sessions.db"]),
    Seed("forge", "forge", _forge, ".forge.db", [".forge.db"]),
    Seed("kiro-db", "kiro", _kiro, "data.sqlite3", ["data.sqlite3"]),
    Seed("amazon-q", "amazon-q", _amazon_q, "data.sqlite3", ["data.sqlite3"]),
    Seed("kiro-lines", "kiro", _copy("kiro/sessions/cli"),
         "3b8d1f22-9c4e-4a7b-8e13-6f2a0c9d5e02.jsonl",
         ["3b8d1f22-9c4e-4a7b-8e13-6f2a0c9d5e02.jsonl",
          "3b8d1f22-9c4e-4a7b-8e13-6f2a0c9d5e02.json"]),
    Seed("cursor-ide", "cursor", _cursor_ide, "User/globalStorage/state.vscdb",
         ["User/globalStorage/state.vscdb"]),
    Seed("cody", "cody", _cody("vscode-state.json"), "User/globalStorage/state.vscdb",
         ["User/globalStorage/state.vscdb"]),
    Seed("cody-2023", "cody", _cody("insiders-state-2023.json"),
         "User/globalStorage/state.vscdb", ["User/globalStorage/state.vscdb"]),
    Seed("cody-agent", "cody", _copy("cody/agent/Cody-nodejs"), _CODY_AGENT, [_CODY_AGENT]),
    Seed("cody-export", "cody", _copy("cody"), _CODY_EXPORT, [_CODY_EXPORT]),
    Seed("zed", "zed", _zed, "threads/threads.db", ["threads/threads.db"]),
    Seed("kimi", "kimi", _copy("kimi/home/.kimi"), f"{_KIMI}/wire.jsonl",
         [f"{_KIMI}/wire.jsonl", f"{_KIMI}/state.json", "kimi.json",
          f"{_KIMI}/subagents/a1b2c3d4e/meta.json"]),
    Seed("kimi-subagent", "kimi", _copy("kimi/home/.kimi"),
         f"{_KIMI}/subagents/a1b2c3d4e/wire.jsonl",
         [f"{_KIMI}/subagents/a1b2c3d4e/wire.jsonl", f"{_KIMI}/subagents/a1b2c3d4e/meta.json"]),
    Seed("kimi-code", "kimi-code", _copy("kimi-code/home/.kimi-code"),
         f"{_KIMI_CODE}/agents/main/wire.jsonl",
         [f"{_KIMI_CODE}/agents/main/wire.jsonl", f"{_KIMI_CODE}/state.json", "workspaces.json"]),
    Seed("kimi-code-btw", "kimi-code", _copy("kimi-code/home/.kimi-code"),
         f"{_KIMI_CODE_SPRING}/agents/agent-0/wire.jsonl",
         [f"{_KIMI_CODE_SPRING}/agents/agent-0/wire.jsonl", f"{_KIMI_CODE_SPRING}/state.json"]),
    Seed("kimi-code-fork", "kimi-code", _copy("kimi-code/home/.kimi-code"),
         f"{_KIMI_CODE_FORK}/agents/main/wire.jsonl",
         [f"{_KIMI_CODE_FORK}/agents/main/wire.jsonl", f"{_KIMI_CODE_FORK}/state.json"]),
    Seed("openhands", "openhands", _copy("openhands/conversations"),
         f"{_OPENHANDS}/base_state.json",
         [f"{_OPENHANDS}/base_state.json",
          f"{_OPENHANDS}/events/event-00001-00000000-0000-0000-0000-000000001001.json",
          f"{_OPENHANDS}/events/event-00002-00000000-0000-0000-0000-000000001002.json",
          f"{_OPENHANDS}/events/event-00003-00000000-0000-0000-0000-000000001003.json",
          f"{_OPENHANDS}/events/event-00004-00000000-0000-0000-0000-000000001004.json",
          f"{_OPENHANDS}/events/event-00013-00000000-0000-0000-0000-00000000100d.json",
          f"{_OPENHANDS}/events/event-00014-00000000-0000-0000-0000-00000000100e.json",
          f"{_OPENHANDS}/events/event-00015-00000000-0000-0000-0000-00000000100f.json",
          f"{_OPENHANDS}/events/event-00016-00000000-0000-0000-0000-000000001010.json",
          ]),
    Seed("openhands-app", "openhands", _copy("openhands/app/sessions"),
         f"{_OPENHANDS_APP}/metadata.json",
         [f"{_OPENHANDS_APP}/metadata.json", f"{_OPENHANDS_APP}/events/2.json",
          f"{_OPENHANDS_APP}/events/7.json", f"{_OPENHANDS_APP}/events/8.json",
          f"{_OPENHANDS_APP}/events/13.json"]),
    Seed("junie", "junie", _copy("junie"), "sessions/session-260601-093000-ab12/events.jsonl",
         ["sessions/session-260601-093000-ab12/events.jsonl", "sessions/index.jsonl"]),
    Seed("antigravity", "antigravity", _copy("antigravity/home/.gemini"),
         f"{_ANTIGRAVITY}/transcript.jsonl", [f"{_ANTIGRAVITY}/transcript.jsonl"]),
    Seed("antigravity-cli", "antigravity", _copy("antigravity/home/.gemini"),
         f"{_AGY}/transcript_full.jsonl", [f"{_AGY}/transcript_full.jsonl"]),
    Seed("warp", "warp", _warp, "warp.sqlite", ["warp.sqlite"]),
    Seed("llm", "llm", _copy("llm/home/.config/io.datasette.llm"), "logs.db", ["logs.db"]),
    Seed("llm-0.13", "llm", _copy("llm/0.13"), "logs.db", ["logs.db"]),
    Seed("hermes", "hermes", _copy("hermes/home/.hermes"), "state.db", ["state.db"]),
    Seed("hermes-0.13", "hermes", _copy("hermes/0.13"), "state.db", ["state.db"]),
    Seed("grok-cli", "grok-cli", _copy("grok-cli/.grok"), "grok.db", ["grok.db"]),
    Seed("codebuddy", "codebuddy", _copy("codebuddy/home/.codebuddy"),
         f"{_CODEBUDDY}.jsonl", [f"{_CODEBUDDY}.jsonl"]),
    Seed("codebuddy-subagent", "codebuddy", _copy("codebuddy/home/.codebuddy"),
         f"{_CODEBUDDY}/subagents/agent-4e3a1a38.jsonl",
         [f"{_CODEBUDDY}/subagents/agent-4e3a1a38.jsonl"]),
    Seed("ra-aid", "ra-aid", _copy("ra_aid/lighthouse"), ".ra-aid/pk.db", [".ra-aid/pk.db"]),
    Seed("qoder", "qoder", _copy("qoder/home/.qoder"), f"{_QODER}.jsonl", [f"{_QODER}.jsonl"]),
    Seed("qoder-subagent", "qoder", _copy("qoder/home/.qoder"),
         f"{_QODER}/subagents/agent-a7c3e91.jsonl", [f"{_QODER}/subagents/agent-a7c3e91.jsonl"]),
    Seed("iflow", "iflow", _copy("iflow/home/.iflow"), f"{_IFLOW}.jsonl", [f"{_IFLOW}.jsonl"]),
    Seed("auggie", "auggie", _copy("auggie/home/.augment"), f"{_AUGGIE}.json",
         [f"{_AUGGIE}.json"]),
    Seed("trae-cli", "trae-cli", _copy("trae-cli/home/.trae/cli"), _TRAE, [_TRAE]),
    Seed("vibe-document", "vibe", _copy("vibe/home/.vibe/logs/session"), _VIBE_DOC, [_VIBE_DOC]),
    Seed("vibe-folder", "vibe", _copy("vibe/home/.vibe/logs/session"), _VIBE_LOG,
         [_VIBE_LOG, _VIBE_LOG.replace("messages.jsonl", "meta.json")]),
    Seed("vibe-store", "vibe", _copy("vibe/home/.vibe/logs/session"), f"{_VIBE_STORE}/CURRENT",
         [f"{_VIBE_STORE}/CURRENT", f"{_VIBE_STORE}/generations/0000000000000051/manifest.json",
          f"{_VIBE_STORE}/{_VIBE_CHUNK}", f"{_VIBE_STORE}/meta.json"],
         form={f"{_VIBE_STORE}/CURRENT": "json"}),
    Seed("vibe-store-journal", "vibe", _copy("vibe/home/.vibe/logs/session"),
         f"{_VIBE_LIVE}/CURRENT",
         [f"{_VIBE_LIVE}/journal/0000000000000001.jsonl",
          f"{_VIBE_LIVE}/generations/0000000000000001/runtime-state.json"]),
    Seed("gptme", "gptme", _copy("gptme/home/.local/share/gptme/logs"),
         f"{_GPTME}/conversation.jsonl", [f"{_GPTME}/conversation.jsonl"]),
    Seed("gptme-native", "gptme", _copy("gptme/home/.local/share/gptme/logs"),
         f"{_GPTME_NATIVE}/conversation.jsonl", [f"{_GPTME_NATIVE}/conversation.jsonl"]),
    Seed("nanocoder", "nanocoder", _copy("nanocoder/home/.local/share/nanocoder/sessions"),
         _NANOCODER, [_NANOCODER]),
    Seed("avante", "avante", _copy("avante/home/.local/state/nvim/avante"), _AVANTE, [_AVANTE]),
    Seed("avante-entries", "avante", _copy("avante/home/.local/state/nvim/avante"),
         _AVANTE_ENTRIES, [_AVANTE_ENTRIES]),
    Seed("code-puppy", "code-puppy", _copy("code-puppy/home/.code_puppy"), _CODE_PUPPY,
         [_CODE_PUPPY, "autosaves/lighthouse-hours_meta.json"]),
    Seed("code-puppy-subagent", "code-puppy", _copy("code-puppy/home/.code_puppy"),
         _CODE_PUPPY_AGENT, [_CODE_PUPPY_AGENT, _CODE_PUPPY_ABOUT, _CODE_PUPPY],
         form={_CODE_PUPPY_ABOUT: "json"}),
    Seed("letta", "letta", _copy("letta/home/.letta/lc-local-backend"),
         f"{_LETTA}/messages.jsonl", [f"{_LETTA}/messages.jsonl", f"{_LETTA}/conversation.json"]),
    Seed("open-interpreter", "open-interpreter",
         _copy("open_interpreter/home/.config/open-interpreter/conversations"),
         _OPEN_INTERPRETER, [_OPEN_INTERPRETER]),
    Seed("continue", "continue", _copy("continue"),
         "sessions/7b1e4f20-1c2d-4e3f-8a9b-0c1d2e3f4a01.json",
         ["sessions/7b1e4f20-1c2d-4e3f-8a9b-0c1d2e3f4a01.json", "sessions/sessions.json"]),
    Seed("kiro-ide", "kiro-ide", _copy(_KIRO_IDE),
         f"workspace-sessions/{_KIRO_IDE_CHAT}",
         [f"workspace-sessions/{_KIRO_IDE_CHAT}", _KIRO_IDE_RUN,
          "1244d18175ccdf2bf18bd8f4426a21ad/f62de366d0006e17ea00a01f6624aabf"],
         form={_KIRO_IDE_RUN: "json"}),
    Seed("kiro-ide-sessions", "kiro-ide", _copy("kiro-sessions/home/.kiro/sessions"),
         f"{_KIRO_SESSION}/messages.jsonl",
         [f"{_KIRO_SESSION}/messages.jsonl", f"{_KIRO_SESSION}/session.json"]),
    Seed("chatgpt", "chatgpt", _copy("chatgpt/export-2024-05"), "conversations.json",
         ["conversations.json"]),
    Seed("claude-ai", "claude-ai", _copy("claude-ai/data-2024-05-05-10-00-00"),
         "conversations.json", ["conversations.json"]),
    Seed("gemini-apps", "gemini-apps", _copy("gemini-apps/takeout-2024-05"), _TAKEOUT,
         [_TAKEOUT]),
]  # fmt: skip

def _specstory(folder: Path) -> None:
    turns = [
        ("how often should the kettle descale", [
            "Let me look at the firmware.",
            specstory_tool("read", "Read file", "firmware/descale.c", "```c\nint n;\n```"),
            thinking("counting boils"),
            "## What the counter says\n\nEvery forty boils.",
        ]),
        ("make it thirty", ["Changed."]),
    ]  # fmt: skip
    write(folder, "2025-02-19_09-30-kettle.md", oldest("Kettle", "2/19/2025, 9:30:45 AM", turns))
    timed = [("2025-12-02 12:49Z", prompt_, parts) for prompt_, parts in turns]
    sid = "7d2e4c1a-1111-4f5e-9a8b-000000000001"
    text = current(sid, "Barometer", "2025-12-02 12:49Z", timed)
    write(folder, "2025-12-02_12-49Z-barometer.md", text)


def _opencode_first(folder: Path) -> None:
    """The first OpenCode's per-project store: Crush's schema, in `.opencode/`."""
    s = CrushStore(folder / ".opencode" / "opencode.db")
    s.session("f-1", "Lathe chuck")
    s.message("f-1", "user", [crush_text("why does the lathe chuck chatter")])
    s.message("f-1", "assistant", [crush_text("A worn jaw."), call("k1", "view", {"path": "a"})])
    s.message("f-1", "tool", [result("k1", "view", "jaw = 3")])
    s.close()


SEEDS.append(
    Seed("opencode-first", "opencode", _opencode_first, ".opencode/opencode.db",
         [".opencode/opencode.db"])
)  # fmt: skip


@dataclass
class TextSeed:
    """A format that is text, not JSON: its seed is mutated as bytes."""

    name: str
    kind: str
    tree: Callable[[Path], None]
    target: str
    #: The file read, when the target mutated is one read beside it (cecli's inputs).
    beside: str | None = None

    @property
    def read(self) -> str:
        return self.beside or self.target


_SPECSTORY = ".specstory/history"

TEXT_SEEDS = [
    TextSeed("aider", "aider", _copy("aider"), "weather-station/.aider.chat.history.md"),
    TextSeed("cecli", "cecli", _copy("cecli"), "rain-gauge/.cecli/chat.history"),
    TextSeed("cecli-inputs", "cecli", _copy("cecli"), "rain-gauge/.cecli/input.history",
             "rain-gauge/.cecli/chat.history"),
    TextSeed("cursor-agent-text", "cursor-agent", _copy("cursor-agent"),
             f"{_CURSOR_AGENT}/9c2f4e1a-7b35-4d8c-a061-3e5f2b9d0c18.txt"),
    TextSeed("markdown", "markdown", _copy("notes"), "docs/guide.md"),
    TextSeed("journal", "journal", _copy("notes"), "journal/2026-03-14.md"),
    TextSeed("memory", "memory", _copy("notes"), "memory/MEMORY.md"),
    TextSeed("specstory-first", "specstory", _specstory,
             f"{_SPECSTORY}/2025-02-19_09-30-kettle.md"),
    TextSeed("specstory-current", "specstory", _specstory,
             f"{_SPECSTORY}/2025-12-02_12-49Z-barometer.md"),
    TextSeed("cody-jetbrains", "cody", _copy("cody/jetbrains-project"),
             ".idea/cody_history.xml"),
]  # fmt: skip
