"""A project whose one file was written by five sessions of four agents, in their real
on-disk formats: Claude Code (created it), Codex (`apply_patch`, a line of it), Gemini CLI
(`replace`), Aider (an edit block), and Claude Code again in the project's old folder
(moved since); plus a line written by hand, a failed edit (Claude Code's and Aider's),
and a file of the same name in another project. `blame` must tell them apart."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from transcripts import Transcript, project_dir

CREATED = "aaaa0001-0000-4000-8000-00000000000a"
PATCHED = "019e0000-0000-7000-8000-00000000000b"
REPLACED = "cccc0003-0000-4000-8000-00000000000c"
MOVED = "eeee0005-0000-4000-8000-00000000000e"
ELSEWHERE = "ffff0006-0000-4000-8000-00000000000f"
OLD_ROOT = "/old/disk/shop"

FIRST = '''"""Prices for the shop."""

def total(items, rate):
    subtotal = sum(i.price for i in items)
    return subtotal * (1 + rate)
'''
#: The file as it reads now, line by line (numbered from 1).
NOW = [
    '"""Prices for the shop."""',  # 1: created
    "",
    "def total(items, rate):",  # 3: created
    "    subtotal = sum(i.price for i in items)",  # 4: created, then again in the old folder
    "    return round(subtotal * (1 + rate), 2)",  # 5: Codex's patch
    "",
    "def discount(total, code):",  # 7: Gemini
    '    return total * 0.9 if code == "SPRING" else total',  # 8: Gemini
    "",
    "def shipping(weight):",  # 10: Aider
    "    return 4.5 if weight < 2 else 9.0",  # 11: Aider
    "# checked by hand on 2026-06-01",  # 12: nobody's
]


def build(tmp: Path) -> dict[str, Path]:
    """Write the project and every agent's transcripts; the roots to index, by source."""
    project = tmp / "code" / "shop"
    (project / "app").mkdir(parents=True)
    (project / "app" / "pricing.py").write_text("\n".join(NOW) + "\n")
    other = tmp / "code" / "other"
    (other / "app").mkdir(parents=True)
    claude = tmp / "claude" / "projects"
    _claude(claude, project, other)
    codex = tmp / "codex-home"
    _codex(codex, project)
    gemini = tmp / "gemini-home"
    _gemini(gemini, project)
    _aider(project)
    return {"project": project, "other": other, "claude-code": claude, "codex": codex,
            "gemini": gemini, "aider": project}  # fmt: skip


def _claude(root: Path, project: Path, other: Path) -> None:
    pricing = str(project / "app" / "pricing.py")
    t = Transcript(CREATED, cwd=str(project), start=datetime(2026, 6, 1, 9, 0, tzinfo=UTC))
    t.prompt("write a pricing module with a total(items, rate) function")
    t.tool("Write", {"file_path": pricing, "content": FIRST}, "File created successfully.")
    t.tool("Edit", {"file_path": pricing, "old_string": "rate)", "new_string": "FAILED EDIT"},
           "String to replace not found in file.", is_error=True)  # fmt: skip
    t.reply("Created app/pricing.py.")
    t.write(project_dir(root, str(project)))
    m = Transcript(MOVED, cwd=OLD_ROOT, start=datetime(2026, 6, 5, 9, 0, tzinfo=UTC))
    m.prompt("sum the subtotal with a generator, not a list")
    m.tool("Edit", {"file_path": f"{OLD_ROOT}/app/pricing.py",
                    "old_string": "    subtotal = sum([i.price for i in items])",
                    "new_string": "    subtotal = sum(i.price for i in items)"},
           "The file has been updated.")  # fmt: skip
    m.reply("Done.")
    m.write(project_dir(root, OLD_ROOT))
    e = Transcript(ELSEWHERE, cwd=str(other), start=datetime(2026, 6, 6, 9, 0, tzinfo=UTC))
    e.prompt("another shop's pricing")
    e.tool("Write", {"file_path": str(other / "app" / "pricing.py"), "content": FIRST}, "ok")
    e.reply("Written.")
    e.write(project_dir(root, str(other)))


def _codex(home: Path, project: Path) -> None:
    folder = home / "sessions" / "2026" / "06" / "02"
    folder.mkdir(parents=True)
    patch = (
        "*** Begin Patch\n*** Update File: app/pricing.py\n@@ def total(items, rate):\n"
        "     subtotal = sum(i.price for i in items)\n-    return subtotal * (1 + rate)\n"
        "+    return round(subtotal * (1 + rate), 2)\n*** End Patch\n"
    )
    stamp = "2026-06-02T10:00:0{}.000Z"
    lines = [
        {"type": "session_meta", "payload": {"id": PATCHED, "timestamp": stamp.format(0),
                                             "cwd": str(project), "cli_version": "0.128.0",
                                             "source": "cli", "originator": "codex_cli_rs"}},
        {"type": "response_item", "payload": {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "round the total to cents"}]}},
        {"type": "event_msg", "payload": {"type": "user_message",
                                          "message": "round the total to cents"}},
        {"type": "response_item", "payload": {"type": "custom_tool_call", "status": "completed",
                                              "call_id": "call_p1", "name": "apply_patch",
                                              "input": patch}},
        {"type": "response_item", "payload": {"type": "custom_tool_call_output",
                                              "call_id": "call_p1",
                                              "output": "Success. Updated the following files:"
                                                        "\nM app/pricing.py\n"}},
        {"type": "response_item", "payload": {"type": "message", "role": "assistant",
                                              "content": [{"type": "output_text",
                                                           "text": "Rounded to cents."}]}},
    ]  # fmt: skip
    text = "\n".join(
        json.dumps({"timestamp": stamp.format(n), **line}) for n, line in enumerate(lines)
    )
    (folder / f"rollout-2026-06-02T10-00-00-{PATCHED}.jsonl").write_text(text + "\n")


def _gemini(home: Path, project: Path) -> None:
    slug = home / ".gemini" / "tmp" / "shop"
    (slug / "chats").mkdir(parents=True)
    (slug / ".project_root").write_text(str(project))
    chat = {
        "sessionId": REPLACED,
        "projectHash": "0" * 64,
        "startTime": "2026-06-03T10:00:00.000Z",
        "lastUpdated": "2026-06-03T10:01:00.000Z",
        "messages": [
            {"id": "u1", "timestamp": "2026-06-03T10:00:00.000Z", "type": "user",
             "content": [{"text": "add a SPRING discount code"}]},
            {"id": "g1", "timestamp": "2026-06-03T10:00:30.000Z", "type": "gemini",
             "content": "Added discount().", "toolCalls": [
                {"id": "replace-1", "name": "replace", "status": "success",
                 "timestamp": "2026-06-03T10:00:20.000Z",
                 "args": {"file_path": str(project / "app" / "pricing.py"),
                          "instruction": "append a discount function",
                          "old_string": "    return round(subtotal * (1 + rate), 2)\n",
                          "new_string": "    return round(subtotal * (1 + rate), 2)\n\n"
                                        "def discount(total, code):\n"
                                        '    return total * 0.9 if code == "SPRING" else'
                                        " total\n"},
                 "result": [{"functionResponse": {"id": "replace-1", "name": "replace",
                                                  "response": {"output": "Replaced 1."}}}]}]},
        ],
    }  # fmt: skip
    (slug / "chats" / "session-2026-06-03T10-00-cccc0003.json").write_text(json.dumps(chat))


def _aider(project: Path) -> None:
    (project / ".aider.chat.history.md").write_text(
        "\n# aider chat started at 2026-06-04 10:00:00\n\n"
        "> /usr/local/bin/aider --model sonnet  \n> Aider v0.82.0  \n\n"
        "#### add a shipping(weight) price: 4.50 under 2 kg, else 9  \n\n"
        "I'll add it after discount().\n\n"
        "app/pricing.py\n```python\n<<<<<<< SEARCH\n"
        '    return total * 0.9 if code == "SPRING" else total\n'
        "=======\n"
        '    return total * 0.9 if code == "SPRING" else total\n\n'
        "def shipping(weight):\n"
        "    return 4.5 if weight < 2 else 9.0\n"
        ">>>>>>> REPLACE\n```\n\n"
        "> Applied edit to app/pricing.py  \n\n"
        "#### and free shipping over 50  \n\n"
        "app/pricing.py\n```python\n<<<<<<< SEARCH\n"
        "def shipping(weight, total):\n=======\nFREE_OVER = 50\n\n"
        "def shipping(weight, total):\n>>>>>>> REPLACE\n```\n\n"
        "> Tokens: 2.1k sent, 90 received.  \n"
        "> # 1 SEARCH/REPLACE block failed to match!\n\n"
        "## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in"
        " app/pricing.py\n<<<<<<< SEARCH\n"
        "def shipping(weight, total):\n=======\nFREE_OVER = 50\n\n"
        "def shipping(weight, total):\n>>>>>>> REPLACE\n\n"
        "The SEARCH section must exactly match an existing block of lines.\n"
    )
