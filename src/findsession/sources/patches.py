"""The text a change adds, read out of the forms agents write changes in: Codex's
`apply_patch` envelope, unified diffs, SEARCH/REPLACE blocks (Aider, Cline, Roo Code) and
shell heredocs (`cat > file <<'EOF'`).

Each reader takes the text as the index stored it (redacted, possibly cut at the per-call
cap) and never fails: a block cut short gives what it holds so far.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

_PATCH_HEAD = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+?)\s*$")
_PATCH_MOVE = re.compile(r"^\*\*\* Move to: (.+?)\s*$")
_DIFF_OLD = re.compile(r"^--- (?:a/)?(.+?)(?:\t.*)?\s*$")
_DIFF_NEW = re.compile(r"^\+\+\+ (?:b/)?(.+?)(?:\t.*)?\s*$")
#: Aider writes `<<<<<<< SEARCH`; Cline since 3.x `------- SEARCH` / `+++++++ REPLACE`;
#: gptme's `patch` `<<<<<<< ORIGINAL` / `>>>>>>> UPDATED`.
_SEARCH = re.compile(r"^\s*(?:<{5,9}|-{5,9}) (?:SEARCH>?|ORIGINAL)\s*$")
_DIVIDER = re.compile(r"^\s*={5,9}\s*$")
_REPLACE = re.compile(r"^\s*(?:>{5,9}|\+{5,9}) (?:REPLACE|UPDATED)\s*$")
#: Roo Code's `apply_diff` notes where a block starts, before a `-------` line.
_ROO_MARK = re.compile(r"^\s*:(start|end)_line:\s*\d+\s*$|^\s*-{5,9}\s*$")
_HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1")
#: A command run elsewhere: the file it writes is another machine's.
_REMOTE = re.compile(r"\b(ssh|scp|docker\s+exec|podman\s+exec|kubectl\s+exec)\b")
_REDIRECT = re.compile(r"(?:^|[\s;&|])(?:>>?|tee\s+(?:-a\s+)?)\s*([^\s;&|<>]+)")


@dataclass(frozen=True, slots=True)
class Change:
    """One file a patch or command changed: the lines it added and removed."""

    path: str
    op: str
    added: str
    removed: str = ""


def is_patch(text: str) -> bool:
    """Whether `text` holds an `apply_patch` envelope or a unified diff."""
    return "*** Begin Patch" in text or bool(
        re.search(r"^--- .+\n\+\+\+ ", text, re.MULTILINE)
    )


def patch_changes(text: str) -> list[Change]:
    """Each file an `apply_patch` envelope or a unified diff changes, in order."""
    if "*** Begin Patch" in text:
        return _envelope(text[text.index("*** Begin Patch") :])
    return _unified(text)


def _envelope(text: str) -> list[Change]:
    out: list[Change] = []
    path = op = None
    added: list[str] = []
    removed: list[str] = []

    def close() -> None:
        if path:
            out.append(Change(path, op or "patch", "\n".join(added), "\n".join(removed)))

    for line in text.splitlines():
        head = _PATCH_HEAD.match(line)
        if head:
            close()
            kind, path = head.group(1), head.group(2)
            op = {"Add": "create", "Delete": "delete"}.get(kind, "patch")
            added, removed = [], []
        elif (move := _PATCH_MOVE.match(line)) and path:
            path = move.group(1)
        elif line.startswith("*** End Patch"):
            break
        elif path and line.startswith("+"):
            added.append(line[1:])
        elif path and line.startswith("-"):
            removed.append(line[1:])
    close()
    return out


def _unified(text: str) -> list[Change]:
    out: list[Change] = []
    path: str | None = None
    old: str | None = None
    added: list[str] = []
    removed: list[str] = []

    def close() -> None:
        if path:
            op = "create" if old in (None, "/dev/null") else "patch"
            out.append(Change(path, op, "\n".join(added), "\n".join(removed)))

    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("--- ") and i + 1 < len(lines) and _DIFF_NEW.match(lines[i + 1]):
            close()
            match = _DIFF_OLD.match(line)
            old = match.group(1) if match else None
            path, added, removed = None, [], []
            continue
        if path is None and (new := _DIFF_NEW.match(line)) and old is not None:
            path = new.group(1)
            if path == "/dev/null":  # a deleted file: named by its old path
                out.append(Change(old, "delete", ""))
                path = None
            continue
        if path and line.startswith("+"):
            added.append(line[1:])
        elif path and line.startswith("-"):
            removed.append(line[1:])
    close()
    return out


def search_replace(text: str) -> tuple[str, str] | None:
    """The REPLACE sides and the SEARCH sides of every block in `text`, each joined in
    order; None when `text` holds no block."""
    added: list[str] = []
    removed: list[str] = []
    side: list[str] | None = None
    found = False
    for line in text.splitlines():
        if _SEARCH.match(line):
            side, found = removed, True
        elif side is removed and _DIVIDER.match(line):
            side = added
        elif _REPLACE.match(line):
            side = None
        elif side is removed and _ROO_MARK.match(line):
            continue
        elif side is not None:
            side.append(line)
    return ("\n".join(added), "\n".join(removed)) if found else None


def heredoc_writes(command: str) -> list[Change]:
    """The files a shell command writes from a heredoc (`cat > f <<'EOF'`, `cat <<EOF >
    f`, `tee f <<EOF`), each with the heredoc's body; `apply_patch <<'EOF'` is a patch."""
    out: list[Change] = []
    lines = command.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        doc = _HEREDOC.search(line)
        if not doc:
            i += 1
            continue
        word = doc.group(2)
        end = next((j for j in range(i + 1, len(lines)) if lines[j].strip() == word), len(lines))
        body = "\n".join(lines[i + 1 : end])
        if _REMOTE.search(line[: doc.start()]):
            pass  # written on another machine: no file of this one
        elif re.search(r"\bapply_patch\b", line[: doc.start()]) or body.startswith("*** Begin"):
            out += patch_changes(body)
        else:
            target = _REDIRECT.search(line.replace(doc.group(0), " "))
            if target and _writes_with(line):
                path = _unquoted(target.group(1))
                if path and not path.startswith(("&", "/dev/")):
                    out.append(Change(path, "shell", body))
        i = end + 1
    return out


def _writes_with(line: str) -> bool:
    """A heredoc fed to a command that copies it to a file, not to an interpreter."""
    return bool(re.search(r"\b(cat|tee)\b", line))


def _unquoted(word: str) -> str:
    try:
        parts = shlex.split(word)
    except ValueError:
        return word.strip("'\"")
    return parts[0] if len(parts) == 1 else word
