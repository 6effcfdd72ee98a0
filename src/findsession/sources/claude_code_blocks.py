"""The text of a message block in the shape Claude's API gives it (and the sources that
write that shape: Claude Code, Droid, Pi, Copilot CLI, the chat apps' exports): a tool's
result as text, a call's input as its values, the files a call names; and the caps on
what any of them stores.
"""

from __future__ import annotations

from typing import Any

from findsession.sources.jsonl import cap
from findsession.sources.tool_args import args_text, files

# Stored text is capped at parse time: search needs the start of a huge output, not all
# of it, and a 700 KB tool result must not cost 700 KB of index.
PROMPT_CAP = 100_000
THINKING_CAP = 8_000
TOOL_INPUT_CAP = 2_000
TOOL_OUTPUT_CAP = 4_000

_FILE_KEYS = ("file_path", "notebook_path", "path", "filePath")


def block_type(block: Any) -> str | None:
    return block.get("type") if isinstance(block, dict) else None


def capped(text: str, limit: int) -> str:
    return cap(text, limit)


def result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if block_type(block) == "text" and isinstance(block.get("text"), str):
                parts.append(block["text"])
            elif block_type(block) in ("image", "document"):
                parts.append(f"[{block['type']}]")
        return "\n".join(parts)
    return ""


def input_text(tool_input: Any) -> str:
    """A tool input for reading and keyword search: the values, not JSON noise."""
    return args_text(tool_input, TOOL_INPUT_CAP)


def input_files(tool_input: Any) -> tuple[str, ...]:
    """The files a Claude-shaped call names (its tools' own argument names)."""
    return files(tool_input, _FILE_KEYS)
