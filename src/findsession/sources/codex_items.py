"""Codex rollout items that are not conversation text: tool calls (function, custom
tool, local shell, web search, tool search) and their outputs, rendered for reading and
keyword search with the same parse-time caps as Claude Code's."""

from __future__ import annotations

import json
import re
from contextlib import suppress
from typing import Any

from findsession.domain import Message, MessageKind
from findsession.sources.claude_code_records import TOOL_INPUT_CAP, TOOL_OUTPUT_CAP
from findsession.sources.jsonl import cap, clean_text, text_or_none
from findsession.sources.tool_args import args_text
from findsession.sources.tool_args import files as arg_files

_PATCH_FILE = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$", re.MULTILINE)
_FILE_KEYS = ("path", "file_path", "filePath")


def tool_call(kind: str, payload: dict[str, Any], common: dict[str, Any]) -> Message:
    """A function, custom-tool, local-shell or web-search call, its input as values and
    the files it names (patch headers included) for the hit's file list."""
    files: tuple[str, ...] = ()
    if kind == "local_shell_call":
        name, value = "local_shell", payload.get("action")
    elif kind == "web_search_call":
        action = payload.get("action")
        action = action if isinstance(action, dict) else {}
        name, value = "web_search", {k: action[k] for k in ("query", "url") if k in action}
    elif kind == "tool_search_call":
        # Codex looking up its deferred tools (0.14x): the arguments are an object.
        name, value = "tool_search", payload.get("arguments")
    else:
        name = text_or_none(payload.get("name")) or "tool"
        value = payload.get("arguments" if kind == "function_call" else "input")
        if isinstance(value, str) and value.lstrip().startswith("{"):
            with suppress(ValueError, RecursionError):
                value = json.loads(value)
    if isinstance(value, str):
        text = value
        files = tuple(dict.fromkeys(m.strip() for m in _PATCH_FILE.findall(value[:100_000])))
    else:
        # A local shell's `command` is an argv: it reads as the line that ran.
        text = args_text(value, TOOL_INPUT_CAP, join_lists=True)
        files = arg_files(value, _FILE_KEYS)
    return Message(
        MessageKind.TOOL_CALL,
        cap(text, TOOL_INPUT_CAP),
        tool_name=name,
        tool_id=text_or_none(payload.get("call_id")),
        files=tuple(f[:1024] for f in files[:50]),
        **common,
    )


def tool_output(payload: dict[str, Any], common: dict[str, Any]) -> Message:
    """A function's or custom tool's output, capped, failed when its exit code says so."""
    text, failed = output_text(payload.get("output"))
    return Message(
        MessageKind.TOOL_OUTPUT,
        cap(text, TOOL_OUTPUT_CAP),
        tool_id=text_or_none(payload.get("call_id")),
        is_error=failed,
        **common,
    )


def tools_found(payload: dict[str, Any], common: dict[str, Any]) -> Message:
    """A tool search's answer: the names of the tools it found (a namespace's as
    `namespace.tool`), the schemas left out."""
    names: list[str] = []
    for tool in payload.get("tools") or ():
        if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
            continue
        inner = tool.get("tools")
        if isinstance(inner, list):
            names += [f"{tool['name']}.{t['name']}" for t in inner
                      if isinstance(t, dict) and isinstance(t.get("name"), str)]  # fmt: skip
        else:
            names.append(tool["name"])
    return Message(
        MessageKind.TOOL_OUTPUT,
        cap(clean_text("\n".join(names)), TOOL_OUTPUT_CAP),
        tool_id=text_or_none(payload.get("call_id")),
        **common,
    )


def agent_said(payload: dict[str, Any], common: dict[str, Any]) -> list[Message]:
    """Another agent's message to this one (`agent_message`, multi-agent v2): what came
    back from it, read as a tool's output is. Its text is a header (`Message Type:`,
    `Task name:`, `Sender:`) and the payload after `Payload:`; only plain text is read, so
    a task whose payload is `encrypted_content` (what a lead gives a subagent) gives none."""
    content = payload.get("content")
    plain = texts([b for b in content if block_type(b) == "input_text"]) if isinstance(
        content, list) else ""  # fmt: skip
    head, mark, said = plain.partition("Payload:")
    text = said.strip() if mark and head.startswith("Message Type:") else plain
    if not text:
        return []
    return [Message(MessageKind.TOOL_OUTPUT, cap(text, TOOL_OUTPUT_CAP), **common)]


def output_text(output: Any) -> tuple[str, bool]:
    """A tool's output and whether it failed. Older builds wrapped it in a JSON string
    `{"output": ..., "metadata": {"exit_code": ...}}`; newer ones may give content items."""
    if isinstance(output, str) and output.startswith("{"):
        try:
            decoded = json.loads(output)
        except (ValueError, RecursionError):
            decoded = None
        if isinstance(decoded, dict) and isinstance(decoded.get("output"), str):
            meta = decoded.get("metadata")
            code = meta.get("exit_code") if isinstance(meta, dict) else None
            return decoded["output"], isinstance(code, int) and code != 0
    if isinstance(output, dict):
        failed = output.get("success") is False
        return output_text(output.get("content"))[0], failed
    if isinstance(output, list):
        return texts(output) or "", False
    if not isinstance(output, str):
        return "", False
    return output, _exited_badly(output)


#: The exit code in the header Codex writes above a command's output (`Exit code: N` for
#: `shell_command` and `apply_patch`, `Process exited with code N` for `exec_command`).
_EXIT_CODE = re.compile(r"^(?:Exit code:|Process exited with code) (-?\d+)$", re.M)
_OUTPUT_MARK = "\nOutput:"


def _exited_badly(text: str) -> bool:
    """Whether the header above a command's output (the lines before `Output:`) gives an
    exit code other than 0; text without that header is not looked into."""
    head, mark, _ = text.partition(_OUTPUT_MARK)
    found = _EXIT_CODE.search(head) if mark and len(head) < 500 else None
    return found is not None and int(found.group(1)) != 0


def texts(blocks: Any) -> str:
    """The text of a list of content blocks (`input_text`, `summary_text`, …), joined."""
    if not isinstance(blocks, list):
        return ""
    parts = [b["text"] for b in blocks if isinstance(b, dict) and isinstance(b.get("text"), str)]
    return "\n".join(p.strip() for p in parts if p.strip())


def block_type(block: Any) -> str | None:
    """The `type` of a content block, if it is one."""
    return block.get("type") if isinstance(block, dict) else None
