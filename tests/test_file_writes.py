"""Which tool calls write a file, and what they wrote: each agent's writing tools as the
index stores them, and counts on real transcripts checked by an independent reader."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from pathlib import Path

import pytest
from conftest import SHARED

from findsession.domain import Message, MessageKind
from findsession.indexing import Root, index_roots
from findsession.sources.codex_items import tool_call as codex_call
from findsession.sources.file_writes import file_writes
from findsession.sources.jsonl import cap
from findsession.sources.tool_args import args_text, files
from findsession.storage.sqlite import Store


def call(tool: str, args: dict | str, limit: int = 2000) -> Message:
    """A tool call as most sources store one: its arguments as `key: value` lines, capped."""
    text = cap(args_text(args, limit), limit) if isinstance(args, dict) else cap(args, limit)
    return Message(MessageKind.TOOL_CALL, text, line=1, tool_name=tool, files=files(args))


def one(message: Message, source: str = "claude-code") -> tuple[str, str, str, str, bool]:
    (w,) = file_writes(message, source)
    return w.path, w.op, w.text, w.removed, w.truncated


def test_claude_codes_write_edit_multiedit_and_notebook() -> None:
    yaml = "name: app\npath: not-an-argument\ncontent: nor this\n"
    assert one(call("Write", {"file_path": "/p/app.yml", "content": yaml})) == (
        "/p/app.yml", "create", yaml, "", False
    )
    edit = {"file_path": "/p/a.py", "old_string": "x = 1\n", "new_string": "x = 2\ny = 3",
            "replace_all": True}  # fmt: skip
    assert one(call("Edit", edit)) == ("/p/a.py", "edit", "x = 2\ny = 3", "x = 1\n", False)
    multi = {"file_path": "/p/a.py", "edits": [
        {"old_string": "a", "new_string": "alpha()\n"}, {"old_string": "b", "new_string": "beta"}
    ]}  # fmt: skip
    assert one(call("MultiEdit", multi))[2] == "alpha()\n\nbeta"
    nb = {"notebook_path": "/p/n.ipynb", "new_source": "print(1)", "cell_id": "c1"}
    assert one(call("NotebookEdit", nb))[:3] == ("/p/n.ipynb", "edit", "print(1)")
    assert file_writes(call("Read", {"file_path": "/p/a.py"}), "claude-code") == []


def test_a_call_cut_at_the_cap_is_still_a_write_its_text_marked_incomplete() -> None:
    long_old = "old line\n" * 400  # the new side falls past the 2,000-character cap
    path, op, text, removed, truncated = one(
        call("Edit", {"file_path": "/p/b.py", "old_string": long_old, "new_string": "new"})
    )
    assert (path, op, text, truncated) == ("/p/b.py", "edit", "", True)
    assert removed.startswith("old line\nold line")
    body = "\n".join(f"line {n}" for n in range(500))
    _, _, text, _, truncated = one(call("write_file", {"file_path": "/p/c.txt", "content": body}))
    assert truncated and body.startswith(text) and 1500 < len(text) < 2000


def test_codex_apply_patch_as_a_tool_and_inside_a_shell_command() -> None:
    patch = (
        "*** Begin Patch\n*** Add File: docs/new.md\n+# New\n+text\n"
        "*** Update File: src/app.rs\n@@ fn main\n-    old();\n+    new();\n"
        "*** Update File: src/lib.rs\n*** Move to: src/core.rs\n+pub mod x;\n"
        "*** Delete File: src/gone.rs\n*** End Patch\n"
    )
    tool = Message(MessageKind.TOOL_CALL, patch, line=1, tool_name="apply_patch")
    got = [(w.path, w.op, w.text, w.removed) for w in file_writes(tool, "codex")]
    assert got == [
        ("docs/new.md", "create", "# New\ntext", ""),
        ("src/app.rs", "patch", "    new();", "    old();"),
        ("src/core.rs", "patch", "pub mod x;", ""),
        ("src/gone.rs", "delete", "", ""),
    ]
    args = {"command": ["bash", "-lc", f"apply_patch <<'EOF'\n{patch}EOF"],
            "workdir": "/home/dev/orchard"}  # fmt: skip
    payload = {"name": "shell", "arguments": json.dumps(args), "call_id": "call_1"}
    writes = file_writes(codex_call("function_call", payload, {"line": 1}), "codex")
    assert [w.path for w in writes] == ["docs/new.md", "src/app.rs", "src/core.rs", "src/gone.rs"]
    assert {w.cwd for w in writes} == {"/home/dev/orchard"}
    command = "cd /srv/app && cat > conf/a.ini <<'EOF'\n[a]\nb=1\nEOF"
    heredoc = call("exec_command", {"cmd": command})
    (w,) = file_writes(heredoc, "codex")
    assert (w.path, w.op, w.text, w.cwd) == ("conf/a.ini", "shell", "[a]\nb=1", "/srv/app")
    remote = call("Bash", {"command": "ssh host \"cat > /etc/x.conf <<'EOF'\nx\nEOF\""})
    assert file_writes(remote, "claude-code") == []  # another machine's file
    assert file_writes(call("Bash", {"command": "python - <<'EOF'\nprint(1)\nEOF"}), "x") == []


def test_gemini_copilot_kiro_goose_amp_cursor_vscode_opencode() -> None:
    cases = [
        ("write_file", {"file_path": "/g/a.md", "content": "hi"}, "create", "hi"),
        ("replace", {"file_path": "/g/a.md", "instruction": "fix", "old_string": "hi",
                     "new_string": "hello"}, "edit", "hello"),  # fmt: skip
        ("create", {"path": "/c/x.rs", "file_text": "fn x() {}"}, "create", "fn x() {}"),
        ("edit", {"path": "/c/x.rs", "old_str": "x", "new_str": "y"}, "edit", "y"),
        ("fs_write", {"command": "create", "path": "/k/a", "file_text": "k"}, "create", "k"),
        ("fs_write", {"command": "str_replace", "path": "/k/a", "old_str": "k", "new_str": "K",
                      "summary": "cap it"}, "edit", "K"),  # fmt: skip
        ("developer__text_editor", {"command": "write", "path": "/go/a", "file_text": "g"},
         "create", "g"),  # fmt: skip
        ("edit_file", {"path": "/amp/a", "old_str": "1", "new_str": "2"}, "edit", "2"),
        ("edit_file", {"target_file": "/cur/a", "instructions": "i", "code_edit": "c"},
         "edit", "c"),  # fmt: skip
        ("replace_string_in_file", {"filePath": "/v/a", "oldString": "o", "newString": "n"},
         "edit", "n"),  # fmt: skip
        ("insert_edit_into_file", {"explanation": "e", "filePath": "/v/b", "code": "z"},
         "edit", "z"),  # fmt: skip
        ("write", {"filePath": "/o/a.ts", "content": "let a"}, "create", "let a"),
        ("edit", {"filePath": "/o/a.ts", "oldString": "a", "newString": "b"}, "edit", "b"),
    ]
    for tool, args, op, text in cases:
        w = file_writes(call(tool, args), "any")
        assert [(x.op, x.text) for x in w] == [(op, text)], (tool, args)
    assert file_writes(call("fs_write", {"command": "view", "path": "/k/a"}), "kiro") == []
    assert file_writes(call("mcp__github__create_file", {"path": "a", "content": "b"}), "x") == []


def test_kiro_ides_later_fs_write_str_replace_and_delete_file() -> None:
    """Kiro IDE's later layout's tools, as a real session's derivation shows them: its
    `fs_write` has no `command`, the whole file in `text` (a line in it that reads as an
    argument stays in it)."""
    yaml = "name: tides\nowner: not-an-argument\n"
    assert one(call("fs_write", {"path": "/k/t.yml", "text": yaml}), "kiro-ide") == (
        "/k/t.yml", "create", yaml, "", False
    )
    assert file_writes(call("fs_write", {"path": "/k/t.yml", "text": yaml}), "kiro") == []
    edit = {"path": "/k/t.py", "oldStr": "HW", "newStr": "HIGH", "replace_all": False}
    assert one(call("str_replace", edit), "kiro-ide") == ("/k/t.py", "edit", "HIGH", "HW", False)
    gone = {"targetFile": "/k/old.py", "explanation": "as asked"}
    assert one(call("delete_file", gone), "kiro-ide") == ("/k/old.py", "delete", "", "", False)


def test_auggies_numbered_edits_saved_files_and_removed_files() -> None:
    yaml = "name: kiln\npath: not-an-argument\nnew_str: nor this\n"
    edit = {"command": "str_replace", "path": "src/pid.c",
            "old_str_1": "a();", "new_str_1": yaml, "old_str_start_line_number_1": 3,
            "old_str_end_line_number_1": 3,
            "old_str_2": "b();", "new_str_2": "beta();"}  # fmt: skip
    writes = file_writes(call("str-replace-editor", edit), "auggie")
    assert [(w.path, w.op, w.text, w.removed) for w in writes] == [
        ("src/pid.c", "edit", yaml, "a();"),
        ("src/pid.c", "edit", "beta();", "b();"),
    ]
    inserted = {"command": "insert", "path": "a.h", "insert_line_1": 4, "new_str_1": "#define X 1"}
    assert one(call("str-replace-editor", inserted)) == ("a.h", "edit", "#define X 1", "", False)
    saved = {"path": "t.c", "file_content": "int t;\n", "add_last_line_newline": True}
    assert one(call("save-file", saved)) == ("t.c", "create", "int t;\n", "", False)
    gone = file_writes(call("remove-files", {"file_paths": ["old.c", "older.c"]}), "auggie")
    assert [(w.path, w.op) for w in gone] == [("old.c", "delete"), ("older.c", "delete")]
    heredoc = {"command": "cat > notes.txt <<'EOF'\nramp\nEOF", "wait": True, "cwd": "/k"}
    assert [w.path for w in file_writes(call("launch-process", heredoc), "auggie")] == ["notes.txt"]
    assert file_writes(call("view", {"path": "src/pid.c", "type": "file"}), "auggie") == []


def test_cline_and_roo_search_replace_blocks_and_aiders_edit_blocks() -> None:
    cline = "\n------- SEARCH\nold one\n=======\nnew one\n+++++++ REPLACE\n"
    w = call("editedExistingFile", {"path": "src/a.rs", "content": cline,
                                    "operationIsLocatedInWorkspace": True})  # fmt: skip
    assert one(w, "cline")[:4] == ("src/a.rs", "edit", "new one", "old one")
    roo = "<<<<<<< SEARCH\n:start_line:3\n-------\nold\n=======\nnew\n>>>>>>> REPLACE"
    assert one(call("appliedDiff", {"path": "b.py", "diff": roo}), "roo-code")[2:4] == (
        "new", "old"
    )
    aider = "station/a.py\n```python\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n```"
    edit = Message(MessageKind.TOOL_CALL, aider, line=9, tool_name="edit", files=("station/a.py",))
    assert one(edit, "aider") == ("station/a.py", "edit", "x = 2", "x = 1", False)
    udiff = "```diff\n--- station/b.py\n+++ station/b.py\n@@ @@\n-a\n+b\n```"
    edit = Message(MessageKind.TOOL_CALL, udiff, line=9, tool_name="edit", files=("station/b.py",))
    assert one(edit, "aider")[:3] == ("station/b.py", "patch", "b")


def test_avantes_write_to_file_and_replace_in_file() -> None:
    """avante.nvim names its written text `the_content` and its blocks `the_diff`."""
    write = call("write_to_file", {"path": "tides.py", "the_content": "print('tides')"})
    assert one(write, "avante")[:3] == ("tides.py", "create", "print('tides')")
    blocks = "------- SEARCH\nlow = 1\n=======\nlow = 2\n+++++++ REPLACE"
    replace = call("replace_in_file", {"path": "tides.py", "the_diff": blocks})
    assert one(replace, "avante")[:4] == ("tides.py", "edit", "low = 2", "low = 1")


# --- real transcripts ------------------------------------------------------------------

CORPUS = SHARED / "corpus"
REAL = SHARED / "realfiles"
_WRITERS = ("Edit", "Write", "MultiEdit", "NotebookEdit")


def _writes(tmp_path: Path, roots: list[Root]) -> Counter:
    with Store.open(tmp_path / "index.db") as store:
        index_roots(store, roots)
        found: Counter = Counter()
        for sid, source in store.query("SELECT id, source FROM sessions"):
            for message in store.session_messages(sid):
                for w in file_writes(message, source):
                    found[(w.tool, w.path)] += 1
        return found


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"the shared corpus is not at {CORPUS}")
def test_every_claude_code_write_of_the_real_corpus_is_found_with_its_file(tmp_path: Path) -> None:
    expected: Counter = Counter()
    seen: set[str] = set()
    for path in CORPUS.rglob("*.jsonl"):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            message = record.get("message") if isinstance(record, dict) else None
            content = message.get("content") if isinstance(message, dict) else None
            for block in content if isinstance(content, list) else []:
                if not isinstance(block, dict) or block.get("type") != "tool_use":
                    continue
                if block.get("name") in _WRITERS and block.get("id") not in seen:
                    seen.add(block["id"])
                    args = block.get("input") or {}
                    target = args.get("file_path") or args.get("notebook_path")
                    expected[(block["name"], target)] += 1
    found = _writes(tmp_path, [Root(CORPUS, "claude-code")])
    ours = Counter({key: n for key, n in found.items() if key[0] in _WRITERS})
    assert sum(expected.values()) == 498  # 306 Edit, 189 Write, 3 MultiEdit
    assert ours == expected


@pytest.mark.skipif(not REAL.is_dir(), reason=f"the real files are not at {REAL}")
def test_crush_opencode_and_cline_real_stores_writes(tmp_path: Path) -> None:
    for folder in sorted(REAL.glob("crush/*")):
        db = sqlite3.connect(f"file:{folder / '.crush' / 'crush.db'}?mode=ro", uri=True)
        expected: Counter = Counter()
        for (parts,) in db.execute("SELECT parts FROM messages"):
            for part in json.loads(parts):
                data = part.get("data") or {}
                writes = data.get("name") in ("write", "edit", "multiedit")
                if part.get("type") == "tool_call" and writes:
                    expected[(data["name"], json.loads(data["input"])["file_path"])] += 1
        db.close()
        assert _writes(tmp_path / folder.name, [Root(folder, "crush")]) == expected
        assert sum(expected.values()) in (11, 14)
    ui = json.loads((REAL / "cline" / "corexray_sample" / "ui_messages.json").read_text())
    tools = [json.loads(m["text"]) for m in ui if m.get("say") == "tool" or m.get("ask") == "tool"]
    writers = ("editedExistingFile", "newFileCreated")
    expected = Counter((t["tool"], t["path"]) for t in tools if t["tool"] in writers)
    found = _writes(tmp_path / "cline", [Root(REAL / "cline" / "corexray_sample", "cline")])
    assert found == expected and sum(expected.values()) == 33
    found = _writes(tmp_path / "opencode", [Root(REAL / "opencode" / "suhd550", "opencode")])
    assert sum(found.values()) == 5 and {tool for tool, _ in found} == {"write"}
