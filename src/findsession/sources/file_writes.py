"""Which tool calls write a file, and what they wrote, for every agent that records one.

A tool call reaches the index as `key: value` lines (`tool_args.args_text` and each
source's own renderer), redacted and cut at the per-call cap. This module reads the file
and the written text back out of that text, by the tool's name: Claude Code's `Write`,
`Edit`, `MultiEdit` and `NotebookEdit`; Codex's `apply_patch` (and a patch or heredoc
inside a shell command); Gemini's and Qwen's `write_file` and `replace`; Aider's edit
blocks; Cline's and Roo Code's `newFileCreated`, `editedExistingFile`, `appliedDiff`,
`insertContent`, `searchAndReplace` (and their API names `write_to_file`,
`replace_in_file`, `apply_diff`); Cline CLI's `editor` (and a heredoc in its
`run_commands`); Copilot CLI's `create` and `edit`; OpenCode's, Crush's
and Pi's `write`, `edit`, `multiedit` and `patch`; Kiro's `fs_write`; Goose's and
Sourcegraph Cody's `text_editor`; Amp's `create_file` and `edit_file`; Cursor's
`edit_file` and `search_replace`; VS Code Copilot's `create_file`, `replace_string_in_file` and
`insert_edit_into_file`; Continue's `create_new_file`, `single_find_and_replace`,
`multi_edit` and `edit_existing_file`; Kimi CLI's `WriteFile` and `StrReplaceFile`;
OpenHands' `file_editor` by its command;
Zed's `write_file`, and `edit_file` and `streaming_edit_file` with their list of edits;
Antigravity's `write_to_file`, `replace_file_content` and `multi_replace_file_content`
(and a heredoc in its `run_command`); Warp's `apply_file_diffs` (and a heredoc in its
`run_shell_command`); Auggie's `save-file`, `str-replace-editor` (its numbered
`old_str_N`/`new_str_N` pairs, or `insert_line_N` with `new_str_N`), `remove-files` and
`apply_patch` (and a heredoc in its `launch-process`); Mistral Vibe's `write_file`,
`edit`, and `search_replace` (SEARCH/REPLACE blocks, or a list of edits, in its
`content`); gptme's `save`, `append` and `patch` (its ORIGINAL/UPDATED blocks); Hermes
Agent's `write_file` and `patch` (a find-and-replace, or a V4A patch as Codex writes it)
and a heredoc in its `terminal`; Nanocoder's `write_file`, `string_replace`, `diff_edit`
(SEARCH/REPLACE blocks) and `file_op`'s `delete` (and a heredoc in its `execute_bash`);
Open Interpreter's heredocs in its `shell` blocks (`bash`, `sh`, `zsh`...); Letta Code's
`Write`, `Edit` and `MultiEdit` (Claude Code's names and arguments) and a heredoc in its
`Bash`; Kimi Code CLI's `Write` (its `mode: append` an edit that adds its `content`) and
`Edit`; Code Puppy's `create_file`, `replace_in_file` (its list of `replacements`),
`delete_snippet` (the text it removes) and `delete_file`;
RA.Aid's `put_complete_file_contents` (its store keeps the path, not the text) and
`file_str_replace`; Kiro IDE's later `fs_write` (`path` and `text`), `str_replace`
(`oldStr`, `newStr`) and `delete_file` (`targetFile`); Devin CLI's `write` and `edit`
(Claude Code's arguments) and a heredoc in its `exec`; Grok CLI's `write_file` and
`edit_file` and a heredoc in its `bash`; avante.nvim's `write_to_file` (`the_content`),
`str_replace` and `replace_in_file` (SEARCH/REPLACE blocks in `the_diff`); Forge's
`write`, `patch`, `multi_patch` and `remove`, and a heredoc in its `shell`.
A call of another name writes nothing here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

from findsession.domain import FileWrite, Message, MessageKind
from findsession.sources.patches import (
    heredoc_writes,
    is_patch,
    patch_changes,
    search_replace,
)

#: The marker `jsonl.cap` leaves where it cut a text.
_CUT = re.compile(r"\n\[… [\d,]+ more characters not indexed\]\Z")
_KEY = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*): ?(.*)$")
PATH_KEYS = ("file_path", "filePath", "filepath", "path", "target_file", "targetFile",
             "notebook_path", "absolute_path", "file", "filename",
             "relative_workspace_path")  # fmt: skip
_CONTENT = ("content", "contents", "file_text", "fileText", "CodeContent", "file_content",
            "complete_file_contents", "the_content")  # fmt: skip
_NEW = ("new_string", "new_str", "newString", "newText", "new_text", "newStr")
_OLD = ("old_string", "old_str", "oldString", "oldText", "old_text", "oldStr")
_PATCH_KEYS = ("input", "patch", "patchText", "patch_text", "diff")
#: Scalar arguments that may follow the written text in a call's rendering.
_TRAILING = frozenset(("replace_all", "replaceAll", "expected_replacements", "insert_line",
                       "lineNumber", "line_number", "operationIsLocatedInWorkspace",
                       "startLineNumbers", "isProtected", "isOutsideWorkspace", "summary",
                       "explanation", "cell_id", "cell_type", "edit_mode",
                       "add_last_line_newline", "overwrite"))  # fmt: skip
#: The tools that run a shell command (their writes are heredocs; `handoff` lists them).
SHELL_TOOLS = frozenset(("bash", "shell", "local_shell", "exec_command", "run_shell_command",
                         "execute_command", "shell_command", "run_in_terminal",
                         "run_terminal_cmd", "run_terminal_command", "terminal", "powershell",
                         "container.exec", "run_command", "launch-process",
                         "execute_bash", "exec", "run_commands"))  # fmt: skip

#: Tool (lower case) -> (op, keys holding the new text, keys holding the old text).
_SIMPLE: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    **dict.fromkeys(
        (
            "write",
            "write_file",
            "create",
            "create_file",
            "write_to_file",
            "newfilecreated",
            "create_new_file",
            "writefile",
            "save-file",
            "put_complete_file_contents",
        ),  # fmt: skip
        ("create", _CONTENT, ()),
    ),
    **dict.fromkeys(
        (
            "edit",
            "replace",
            "str_replace",
            "search_replace",
            "replace_string_in_file",
            "edit_file",
            "single_find_and_replace",
            "string_replace",
            "file_str_replace",
        ),  # fmt: skip
        ("edit", (*_NEW, "code_edit"), _OLD),
    ),
    **dict.fromkeys(
        ("searchandreplace", "search_and_replace"), ("edit", ("replace",), ("search",))
    ),
    **dict.fromkeys(("insertcontent", "insert_content"), ("edit", ("content",), ())),
    "insert_edit_into_file": ("edit", ("code",), ()),
    "edit_existing_file": ("edit", ("changes",), ()),
    "replace_file_content": ("edit", ("ReplacementContent",), ("TargetContent",)),
    "notebookedit": ("edit", ("new_source",), ()),
}
#: Mistral Vibe's `search_replace` (`file_path`, `content`) writes SEARCH/REPLACE blocks
#: (1.x) or a list of `{old_str, new_str}` (3.x) where Cursor's of the same name has
#: `old_string` and `new_string`.
_BLOCKS_IN_CONTENT = re.compile(r"^content: ?<{5,7} ?SEARCH", re.MULTILINE)
#: Tools whose text is SEARCH/REPLACE blocks, a diff, or (older builds) the new content.
_BLOCKS = frozenset(("editedexistingfile", "replace_in_file", "apply_diff", "applieddiff",
                     "diff_edit"))  # fmt: skip
_MULTI = frozenset(("multiedit", "multi_replace_string_in_file", "multi_edit",
                    "multi_replace_file_content"))  # fmt: skip
#: gptme's writing tools: `save` and `append` (`path`, `content`) and `patch` (`path`,
#: and `patch`, its `<<<<<<< ORIGINAL` / `>>>>>>> UPDATED` blocks).
_GPTME = frozenset(("save", "append", "patch"))
#: The languages of Open Interpreter's code blocks that it runs in its shell (`Shell`'s
#: aliases; `bash`, `shell` and `powershell` are shell tools already).
_OPEN_INTERPRETER_SHELLS = frozenset(("sh", "zsh"))
#: Warp's `apply_file_diffs` reaches the index as an envelope (`warp_tools`).
_PATCH = frozenset(("apply_patch", "patch", "applypatch", "apply_file_diffs"))
_DELETE = frozenset(("delete_file", "deletefile", "filedeleted", "delete"))
#: Forge's writing tools under the names of the same kind here: `patch` (`file_path`,
#: `old_string`, `new_string`), `multi_patch` (`file_path`, `edits`), `remove` (`path`);
#: its `write` (`file_path`, `content`) is a `write` already.
_FORGE = {"patch": "edit", "multi_patch": "multiedit", "remove": "delete"}
#: Tools that take a `command` saying what they do (Anthropic's text editor, Kiro, Goose).
_COMMANDED = frozenset(("fs_write", "text_editor", "str_replace_editor",
                        "str_replace_based_edit_tool", "file_editor"))  # fmt: skip
_MULTI_NEW = re.compile(
    r'"(?:new_string|newString|new_str|new_text|newText|ReplacementContent)"\s*:\s*'
    r'"((?:[^"\\]|\\.)*)'
)
_MULTI_OLD = re.compile(
    r'"(?:old_string|oldString|old_str|old_text|oldText|TargetContent)"\s*:\s*"((?:[^"\\]|\\.)*)'
)
#: Tools that take a list of `edits`: Zed's (`{old_text, new_text}`; the streaming one in
#: `write` mode the whole `content` instead) and Pi's `edit` (`{oldText, newText}`; its
#: older single `oldText`/`newText` is read as a simple edit).
_EDITS = frozenset(("edit_file", "streaming_edit_file", "edit"))
#: Auggie's `str-replace-editor`: the keys its arguments may hold, each starting a field.
_AUGGIE_KEY = re.compile(
    r"^(command|path|instructions?_reminder|(?:old_str|new_str|insert_line"
    r"|old_str_start_line_number|old_str_end_line_number)(?:_\d+)?): ?(.*)$"
)
_AUGGIE_PAIR = re.compile(r"^(old_str|new_str)(?:_(\d+))?$")
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
#: Kimi Code's `Write` mode, when the call gave it after the content.
_KIMI_CODE_MODE = re.compile(r"\nmode: (append|overwrite)\Z")
#: Kimi CLI's `StrReplaceFile`: one `edit` `{old, new}` or a list of them.
_KIMI_NEW = re.compile(r'"new"\s*:\s*"((?:[^"\\]|\\.)*)')
_KIMI_OLD = re.compile(r'"old"\s*:\s*"((?:[^"\\]|\\.)*)')


#: The sources written in Aider's chat history format: Aider and its fork cecli.
AIDER_FORMAT = ("aider", "cecli")


def file_writes(message: Message, source: str) -> list[FileWrite]:
    """The files a tool call wrote, in order; [] for a call that writes none (or any
    other message)."""
    if message.kind is not MessageKind.TOOL_CALL or not message.tool_name:
        return []
    text, truncated = uncut(message.text)
    tool = message.tool_name
    name = _normal(tool)
    if source in AIDER_FORMAT and name == "edit":
        return _aider(message, text, truncated)
    if source == "gptme" and name in _GPTME:
        return _gptme(message, name, text, truncated)
    if source == "open-interpreter" and name in _OPEN_INTERPRETER_SHELLS:
        name = "shell"  # a code block's language, each run by its shell
    if source == "kimi-code" and name == "write":
        return _kimi_code_write(message, text, truncated)
    if source == "code-puppy" and name in ("replace_in_file", "delete_snippet"):
        return _code_puppy_edit(message, name, text, truncated)
    if source == "kiro-ide" and name == "fs_write" and not text.startswith("command:"):
        return _kiro_write(message, text, truncated)
    if source == "hermes" and name == "patch" and not is_patch(text):
        name = "edit"  # its `mode: replace`: `path`, `old_string`, `new_string`
    if source == "forge":
        name = _FORGE.get(name, name)
    if name in SHELL_TOOLS:
        changes = heredoc_writes(text)
        if not changes and "*** Begin Patch" in text:  # `["apply_patch", "*** Begin…"]`
            changes = patch_changes(text)
        return _from_changes(changes, tool, truncated, _workdir(text))
    if name in _PATCH:
        body = _value(text, _PATCH_KEYS, name) if not is_patch(text[:200]) else text
        return _from_changes(patch_changes(body or text), tool, truncated, _workdir(text))
    if name == "remove-files":
        listed = _fields(text, name).get("file_paths") or ""
        paths = [p for p in _json_strings(_STRING, listed) if p and "\n" not in p and len(p) < 1024]
        return [FileWrite(p, "delete", "", tool=tool, truncated=truncated) for p in paths]
    if name == "str-replace-editor":
        return _auggie_edits(message, text, truncated)
    if name == "search_replace" and _BLOCKS_IN_CONTENT.search(text):
        name = "replace_in_file"  # Mistral Vibe's: its `content` is SEARCH/REPLACE blocks
    fields = _fields(text, name)
    path = _path(message, fields)
    if path is None:
        return []
    if name in _DELETE:
        return [FileWrite(path, "delete", "", tool=tool, truncated=truncated)]
    if name == "editor" and source == "cline":
        return _cline_editor(message, text, truncated)
    if name == "file_op":  # Nanocoder's: its `operation` is delete, move, copy or mkdir
        if (fields.get("operation") or "").strip() != "delete":
            return []
        return [FileWrite(path, "delete", "", tool=tool, truncated=truncated)]
    if name in _COMMANDED:
        return _commanded(path, fields, tool, truncated)
    if name == "strreplacefile":
        edits = fields.get("edit") or ""
        new = "\n".join(_json_strings(_KIMI_NEW, edits))
        old = "\n".join(_json_strings(_KIMI_OLD, edits))
        return [FileWrite(path, "edit", new, old, truncated, tool)] if new or truncated else []
    listed = name == "search_replace" and fields.get("content", "").lstrip().startswith("[")
    if name in _MULTI or (name in _EDITS and "edits" in fields) or listed:
        edits = fields.get("edits") or fields.get("replacements") or ""
        edits = edits or fields.get("ReplacementChunks") or fields.get("content") or ""
        new = "\n".join(_json_strings(_MULTI_NEW, edits))
        old = "\n".join(_json_strings(_MULTI_OLD, edits))
        return [FileWrite(path, "edit", new, old, truncated, tool)]
    if name in _BLOCKS:
        body = _first(fields, ("diff", "the_diff", "content", *_NEW)) or ""
        blocks = search_replace(body)
        if blocks is not None:
            return [FileWrite(path, "edit", blocks[0], blocks[1], truncated, tool)]
        if is_patch(body):
            return _from_changes(patch_changes(body), tool, truncated, None, path)
        return [FileWrite(path, "edit", body, "", truncated, tool)]
    if name == "streaming_edit_file" and "content" in fields:
        return [FileWrite(path, "create", fields["content"], "", truncated, tool)]
    if name in _SIMPLE:
        op, new_keys, old_keys = _SIMPLE[name]
        new = _first(fields, new_keys)
        if new is None and source == "ra-aid" and op == "create":
            truncated = True  # RA.Aid's store keeps the path it wrote, never the text
        if new is None and not truncated:
            return []
        # A call cut before its new text still wrote the file: kept, its text unknown.
        return [FileWrite(path, op, new or "", _first(fields, old_keys) or "", truncated, tool)]
    return []


def uncut(text: str) -> tuple[str, bool]:
    """`text` without the cap's marker, and whether it had one."""
    match = _CUT.search(text)
    return (text[: match.start()], True) if match else (text, False)


def _normal(tool: str) -> str:
    name = tool.strip().lower()
    return name.removeprefix("developer__")


def _fields(text: str, name: str, written: tuple[str, ...] = ()) -> dict[str, str]:
    """A call's `key: value` lines back as a dict. A value runs over the lines after it
    until the next `key: `; once the written text has begun only the keys that may
    follow it (this tool's old or new text, a trailing flag) end it, so a YAML file
    holding `path: x` stays one value. `written`: the keys of the tool's written text,
    where its name alone does not say."""
    spec = _SIMPLE.get(name)
    texts = set(written or (spec[1] if spec else ())) or {
        *_CONTENT, *_NEW, "code_edit", "diff", "edits", "replacements", "input", "patch",
        "patchText"}  # fmt: skip
    olds = set(spec[2]) if spec else set(_OLD)
    out: dict[str, str] = {}
    key: str | None = None
    lines: list[str] = []
    in_text = False
    for line in text.split("\n"):
        match = _KEY.match(line)
        found = match.group(1) if match else None
        if (
            found is not None
            and found not in out
            and found != key
            and (not in_text or found in _TRAILING or found in olds | texts)
        ):
            if key is not None:
                out[key] = "\n".join(lines)
            key, lines = found, [match.group(2)]  # type: ignore[union-attr]
            in_text = in_text or found in texts
        elif key is not None:
            lines.append(line)
    if key is not None:
        out[key] = "\n".join(lines)
    return out


def _path(message: Message, fields: dict[str, str]) -> str | None:
    if message.files:
        return message.files[0]
    value = _first(fields, PATH_KEYS)
    value = value.strip() if value else ""
    return value if value and "\n" not in value and len(value) < 1024 else None


def _first(fields: dict[str, str], keys: Iterable[str]) -> str | None:
    return next((fields[k] for k in keys if k in fields), None)


def _value(text: str, keys: tuple[str, ...], name: str) -> str | None:
    return _first(_fields(text, name), keys)


def _commanded(path: str, fields: dict[str, str], tool: str, truncated: bool) -> list[FileWrite]:
    command = (fields.get("command") or "").strip().lower()
    if command in ("create", "write"):
        new = _first(fields, _CONTENT)
        return [FileWrite(path, "create", new, "", truncated, tool)] if new is not None else []
    if command in ("str_replace", "insert", "append"):
        new = _first(fields, (*_NEW, *_CONTENT))
        old = _first(fields, _OLD) or ""
        return [FileWrite(path, "edit", new, old, truncated, tool)] if new is not None else []
    return []  # view, undo_edit, …: nothing written


def _cline_editor(message: Message, text: str, truncated: bool) -> list[FileWrite]:
    """Cline CLI's `editor`: `new_text` replaces `old_text`, or goes in at `insert_line`,
    or (neither given) is the file it creates."""
    fields = _fields(text, "editor", ("new_text",))
    path = _path(message, fields)
    new = fields.get("new_text")
    if path is None or (new is None and not truncated):
        return []
    op = "edit" if "old_text" in fields or "insert_line" in fields else "create"
    old = fields.get("old_text") or ""
    return [FileWrite(path, op, new or "", old, truncated, message.tool_name or "editor")]


def _kiro_write(message: Message, text: str, truncated: bool) -> list[FileWrite]:
    """Kiro's later `fs_write`: the file's `path` and its whole `text`, no `command`."""
    fields = _fields(text, "fs_write", ("text",))
    path = _path(message, fields)
    new = fields.get("text")
    if path is None or (new is None and not truncated):
        return []
    return [FileWrite(path, "create", new or "", "", truncated, message.tool_name or "")]


def _auggie_edits(message: Message, text: str, truncated: bool) -> list[FileWrite]:
    """Each replacement (or insertion) of an Auggie edit, in its numbered order, as
    Auggie itself reads the call: an unnumbered pair first."""
    fields: dict[str, str] = {}
    key: str | None = None
    numbered = False  # then an unnumbered pair cannot follow: `new_str:` is text
    for line in text.split("\n"):
        match = _AUGGIE_KEY.match(line)
        found = match.group(1) if match else None
        if found and found not in fields and not (numbered and found in ("old_str", "new_str")):
            key, fields[found] = found, match.group(2)  # type: ignore[union-attr]
            numbered = numbered or found[-1].isdigit()
        elif key is not None:
            fields[key] += "\n" + line
    path = _path(message, fields)
    pairs: dict[int, dict[str, str]] = {}
    for name, value in fields.items():
        pair = _AUGGIE_PAIR.match(name)
        if pair:
            pairs.setdefault(int(pair.group(2) or 0), {})[pair.group(1)] = value
    if path is None:
        return []
    return [
        FileWrite(
            path,
            "edit",
            pair.get("new_str", ""),
            pair.get("old_str", ""),
            truncated,
            message.tool_name or "",
        )  # fmt: skip
        for _, pair in sorted(pairs.items())
        if "new_str" in pair or truncated
    ]


def _aider(message: Message, text: str, truncated: bool) -> list[FileWrite]:
    blocks = search_replace(text)
    if blocks is not None and message.files:
        return [FileWrite(message.files[0], "edit", blocks[0], blocks[1], truncated, "edit")]
    if is_patch(text):
        return _from_changes(patch_changes(text), "edit", truncated, None)
    return []


def _gptme(message: Message, name: str, text: str, truncated: bool) -> list[FileWrite]:
    fields = _fields(text, name)
    path = _path(message, fields)
    if path is None:
        return []
    if name == "patch":
        blocks = search_replace(fields.get("patch") or "")
        if blocks is None:
            return [FileWrite(path, "edit", "", "", truncated, name)] if truncated else []
        return [FileWrite(path, "edit", blocks[0], blocks[1], truncated, name)]
    content = fields.get("content")
    if content is None and not truncated:
        return []
    op = "create" if name == "save" else "edit"
    return [FileWrite(path, op, content or "", "", truncated, name)]


def _code_puppy_edit(message: Message, name: str, text: str, truncated: bool) -> list[FileWrite]:
    """Code Puppy's `replace_in_file` (`file_path`, `replacements`: a list of `{old_str,
    new_str}`) and `delete_snippet` (`file_path`, `snippet`: the text it removes)."""
    fields = _fields(text, "multi_edit" if name == "replace_in_file" else name)
    path = _path(message, fields)
    if path is None:
        return []
    if name == "delete_snippet":
        return [FileWrite(path, "edit", "", fields.get("snippet") or "", truncated, name)]
    edits = fields.get("replacements") or ""
    new = "\n".join(_json_strings(_MULTI_NEW, edits))
    old = "\n".join(_json_strings(_MULTI_OLD, edits))
    return [FileWrite(path, "edit", new, old, truncated, name)] if new or old or truncated else []


def _kimi_code_write(message: Message, text: str, truncated: bool) -> list[FileWrite]:
    """Kimi Code's `Write` (`path`, `content`, `mode`): `append` adds `content` to the
    end of the file, an edit; `overwrite` (the default) writes the file whole. The mode
    may follow the content, where it would read as the content's last line."""
    fields = _fields(text, "write")
    path = _path(message, fields)
    content = fields.get("content")
    if path is None or (content is None and not truncated):
        return []
    mode = (fields.get("mode") or "").strip()
    trailing = _KIMI_CODE_MODE.search(content or "")
    if trailing:
        mode, content = trailing.group(1), (content or "")[: trailing.start()]
    op = "edit" if mode == "append" else "create"
    return [FileWrite(path, op, content or "", "", truncated, message.tool_name or "Write")]


def _from_changes(
    changes: Iterable, tool: str, truncated: bool, cwd: str | None, path: str | None = None
) -> list[FileWrite]:
    return [
        FileWrite(path or c.path, c.op, c.added, c.removed, truncated, tool, cwd)
        for c in changes
        if c.path
    ]


def _workdir(text: str) -> str | None:
    """The directory a command ran in: Codex's `workdir:` argument, or a leading `cd DIR
    &&` (where the files it names are relative to)."""
    match = re.search(r"^(?:workdir|Cwd): (\S.*)$", text, re.MULTILINE)
    if match:
        return match.group(1).strip()
    match = re.search(r"(?:^|^\w+: |\s-l?c\s+['\"]?)cd\s+([^\s;&|]+)\s*&&", text, re.MULTILINE)
    return match.group(1).strip("'\"") if match else None


def _json_strings(pattern: re.Pattern[str], text: str) -> list[str]:
    """Every string `pattern` finds in JSON text, decoded (one cut short at the cap is
    decoded as far as it goes)."""
    out = []
    for raw in pattern.findall(text):
        try:
            out.append(json.loads(f'"{raw}"'))
        except ValueError:
            out.append(raw.rstrip("\\").replace('\\"', '"').replace("\\n", "\n"))
    return out
