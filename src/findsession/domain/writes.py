"""What a session wrote to files: each tool call that created, edited or patched one.

Agents record a file write as a tool call (Claude Code's `Edit`, Codex's `apply_patch`,
Gemini's `write_file`, an Aider edit block, ...). A source says which of its calls write
and what they wrote (`sources.file_writes`); the indexer keeps one row per file written
(`findsession blame` answers from them, `handoff` lists the files a session changed).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class FileWrite:
    """One file one tool call wrote, as the index holds the call (redacted, capped)."""

    #: The path as the call named it: absolute, or relative to `cwd` (else the session's).
    path: str
    #: `create` (the whole file), `edit` (text replaced), `patch` (a diff's added lines),
    #: `delete`, or `shell` (a command that wrote it: a heredoc, a redirect).
    op: str
    #: The text written: the new side only (a file's content, a replacement, a patch's
    #: added lines); '' for a delete.
    text: str
    #: The text it replaced, when the call says (an edit's old side, a patch's removed
    #: lines): shown beside the change, never matched.
    removed: str = ""
    #: The stored call was cut at the index's per-call cap: `text` may stop early.
    truncated: bool = False
    #: The tool as the agent named it (`Edit`, `apply_patch`, `write_file`).
    tool: str = ""
    #: A directory the call itself ran in (Codex's `workdir`, a command's `cd DIR &&`).
    cwd: str | None = None
