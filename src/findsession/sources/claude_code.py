"""Claude Code transcripts: where they are, and the `Source` that reads them.

This module and `claude_code_records` are the only code that knows Claude Code's format.
This one finds transcript files under a root (main sessions and subagents in all three
layouts), tells a file's place in the layout, and reads its lines into records (mapped
in `claude_code_records`), or reads a line back for `read --raw`. Its files are
append-only JSON lines, read on from the JSON-lines cursor.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from findsession.domain import COMPACTION_AGENT, Message, MessageKind, Resume, Session
from findsession.sources.base import Skip, Source, SourceFile
from findsession.sources.claude_code_records import parse_record
from findsession.sources.cursor import Cursor, Reading
from findsession.sources.jsonl import objects_at, read_appended
from findsession.sources.opening import open_regular
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import option, resume_in_cwd
from findsession.sources.walking import walk

KIND = SourceKind.CLAUDE_CODE
#: The file name's start of the agent that compacts a session (`agent-acompact-<id>`).
_COMPACTION_STEM = "agent-acompact-"
#: The agent that guesses what the person will type next, shown greyed in the input box
#: (`agent-aprompt_suggestion-<id>`, 2.1.x): Claude Code's "[SUGGESTION MODE: …]"
#: instructions and a guess such as "run the tests", neither typed nor a reply. Its files
#: are read past and hold no session, as an `away_summary` is left out: 187 of one
#: person's 1,101 subagent files, found first for any question about a conversation.
_SUGGESTION_STEM = "agent-aprompt_suggestion-"
_SUGGESTION = "prompt_suggestion"


class ClaudeCodeSource(Source):
    """Claude Code's `~/.claude/projects/**/*.jsonl`."""

    kind = KIND
    #: 2: a prompt queued while the agent worked (a `queued_command` attachment) is read;
    #: a teammate's message to the lead of an agent team is no prompt. 3: in the transcript
    #: of a teammate in a pane of its own (a main transcript) the lead's message is its prompt;
    #: what the harness wrote (`promptSource: "system"`, an auto-continuation) is no prompt.
    #: 4: a compaction agent (`agent-acompact-*`) says so (`agent_type`), and the
    #: instructions Claude Code gives it are no prompt; a prompt-suggestion agent's file
    #: holds no session. 5: a fork's copy of another session's history is not its own
    #: (`/branch`'s `forkedFrom` records; a `--fork-session` file read after the others),
    #: so a session a fork was read before gets its turns back. 6: a `--fork-session`
    #: file that begins with the title lines it carries over (2.1.332) is a fork too.
    #: 7: a session named before its first prompt, which begins as such a fork does, is
    #: not one (2.1.337): read after a fork of it, it had lost its turns to the fork.
    reads = 7

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        return discover(root, skip)

    def describe(self, path: Path) -> SourceFile:
        return describe(path)

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        if sf.agent_type == _SUGGESTION:
            return read_appended(fh, cursor, lambda line, obj: ())
        return read_appended(fh, cursor, lambda line, obj: parse_record(obj, line, sf.is_subagent))

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """The record `/rename` appends, byte for byte as Claude Code writes it (compact
        JSON, text unescaped); the last one in a file is the title its picker shows.
        Subagents have no place in the picker and get none."""
        if sf.is_subagent:
            return None
        record = {"type": "custom-title", "customTitle": title, "sessionId": sf.session_id}
        return (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode()

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        in_subagent = describe(path).is_subagent
        texts: dict[tuple[int, int], str] = {}
        with open_regular(str(path)) as fh:
            for number, obj in objects_at(fh, lines):
                for part, rec in enumerate(parse_record(obj, number, in_subagent)):
                    if isinstance(rec, Message):
                        texts[(number, part)] = rec.text
        return texts

    def resume(self, session: Session) -> Resume:
        """`claude --resume <id>`, in the session's directory: Claude Code looks the
        session up among the transcripts of the project it is started in."""
        return resume_in_cwd(session, "claude", *option("--resume", session.id))


def discover(root: Path, skip: Skip | None = None) -> Iterator[Path]:
    """Yield every transcript under `root`, main sessions before their subagents.

    Symlinked folders are not followed (a link loop under a root must not hang the
    walk); `tool-results/` folders hold outputs, not transcripts. A folder that cannot be
    read goes to `skip`.
    """
    if root.is_file():
        if root.suffix == ".jsonl":
            yield root
        return

    for base, dirs, files in walk(root, skip):
        dirs[:] = [d for d in dirs if d != "tool-results"]
        for name in files:
            if name.endswith(".jsonl"):
                yield base / name


def describe(path: Path) -> SourceFile:
    """Classify one file by its place in the layout; records fill in the rest."""
    stem = path.name[: -len(".jsonl")]
    if path.parent.name == "subagents":
        meta = _read_agent_meta(path.with_name(stem + ".meta.json"))
        return SourceFile(
            path=path,
            source=KIND,
            session_id=stem,
            is_subagent=True,
            parent_id=path.parent.parent.name,
            agent_type=meta.get("agentType") or _internal_agent(stem),
            agent_description=meta.get("description"),
        )
    if stem.startswith("agent-"):
        # 2.0.x wrote subagents flat beside the sessions; the parent is named by the
        # records' sessionId, which the indexer reads.
        return SourceFile(
            path=path,
            source=KIND,
            session_id=stem,
            is_subagent=True,
            agent_type=_internal_agent(stem),
        )
    return SourceFile(path=path, source=KIND, session_id=stem, copies_history=_forked(path))


#: How a transcript `--fork-session` began starts: the state of the session it resumed
#: (its `mode`), written before the history it copies; a new session begins otherwise
#: (a queued prompt, its permission mode, a snapshot, the prompt itself). 2.1.332 writes
#: the resumed session's title lines first when it has one (`custom-title`, then
#: `agent-name`), as a session named before its first prompt begins too (2.1.337).
_FORK_HEAD = re.compile(rb'\{"type": ?"mode",')
_TITLE_LINE = re.compile(rb'\{"type": ?"(?:custom-title|agent-name|ai-title)",')
#: How far into a file its head is looked for: the title lines are short.
_HEAD_BYTES = 8192
#: How far into a file its first typed prompts are looked for (past the long lines of
#: the harness and of tool results), and how a line that may hold one is told cheaply.
_COPY_BYTES = 16 << 20
_USER_LINE = re.compile(rb'"type": ?"user"')


def _forked(path: Path) -> bool:
    """Whether the file is a `--fork-session` copy of another session's history (2.1.x:
    it keeps the copied records' uuids and marks them nowhere else)."""
    try:
        with open_regular(str(path)) as fh:
            head = fh.read(_HEAD_BYTES)
            titled = False
            for line in head.split(b"\n"):
                if _FORK_HEAD.match(line):
                    return not titled or _copied_under_one_prompt(fh)
                if not _TITLE_LINE.match(line):
                    return False
                titled = True
    except OSError:
        return False
    return False


def _copied_under_one_prompt(fh: IO[bytes]) -> bool:
    """Whether the file's first two typed prompts name the same prompt (`promptId`): a
    fork stamps every user record it copies with the id of the prompt it was made for,
    where in a session's own records each typed prompt has an id of its own (its tool
    results share it). A file that shows neither (fewer than two typed prompts near its
    start, versions without the field) is taken for the fork its head says it is."""
    fh.seek(0)
    seen: list[str] = []
    read = 0
    for number, line in enumerate(fh):
        read += len(line)
        if read > _COPY_BYTES:
            break
        if not _USER_LINE.search(line):
            continue
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if not isinstance(record, dict) or record.get("type") != "user":
            continue
        prompt = record.get("promptId")
        typed = any(
            isinstance(m, Message) and m.kind == MessageKind.PROMPT
            for m in parse_record(record, number, False)
        )
        if typed and isinstance(prompt, str):
            seen.append(prompt)
            if len(seen) == 2:
                return seen[0] == seen[1]
    return True


def _internal_agent(stem: str) -> str | None:
    """The kind of an agent Claude Code runs for itself, read from its file's name (no
    `.meta.json` is written for one): `agent-acompact-*` is the compaction agent, which
    restates its parent; `agent-aprompt_suggestion-*` guesses the person's next prompt."""
    if stem.startswith(_COMPACTION_STEM):
        return COMPACTION_AGENT
    return _SUGGESTION if stem.startswith(_SUGGESTION_STEM) else None


def _read_agent_meta(path: Path) -> dict[str, str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, ValueError, RecursionError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(v, str)}
