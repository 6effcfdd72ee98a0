"""Google Antigravity: where its conversations' transcripts are, and the `Source` that
reads them.

Antigravity (the editor, and its CLI `agy`) keeps each conversation's working folder in
`~/.gemini/<app>/brain/<conversation id>/` on every system: `antigravity` for the editor
(and its Agent Manager), `antigravity-ide` for its later builds, `antigravity-cli` for the
CLI. The conversation itself is `conversations/<id>.db`, whose steps are protocol buffers
with no published schema; but each brain folder also holds
`.system_generated/logs/transcript.jsonl`, every step as JSON text, appended as the
conversation goes on (`antigravity_records`), and in later builds
`transcript_full.jsonl` beside it, the same steps with nothing cut short. The full one is
read where it exists, else the other; builds of spring 2026 wrote the same steps (cut
short like `transcript.jsonl`) to `overview.txt` instead, read where neither is. The
Markdown artifacts beside them (`task.md`, `implementation_plan.md`, `walkthrough.md`)
are written by the agent's `write_to_file` calls, which the transcript holds, so they are
not read again. Antigravity is closed
source: this layout is what people found on their machines and published.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from findsession.domain import Resume, Session
from findsession.sources.antigravity_records import PENDING_CAP, Steps, step_records
from findsession.sources.base import Skip, Source, SourceFile, texts_by_line
from findsession.sources.cursor import Cursor, Reading, Record
from findsession.sources.jsonl import ReadStats, iter_objects, read_with_state
from findsession.sources.opening import open_regular
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import no_resume, option, resume_in_cwd
from findsession.sources.walking import walk

KIND = SourceKind.ANTIGRAVITY
FULL = "transcript_full.jsonl"
COMPACT = "transcript.jsonl"
#: What builds of spring 2026 wrote instead of a transcript: the same steps, cut short.
OVERVIEW = "overview.txt"
#: A conversation's logs, the one read first where several are.
LOGS = (FULL, COMPACT, OVERVIEW)
SYSTEM = ".system_generated"
CLI_APP = "antigravity-cli"
_NO_RESUME = (
    "The Antigravity editor has no command that opens a conversation by its id: open the "
    "folder in Antigravity and pick the conversation from the Agent Manager's history."
)


class AntigravitySource(Source):
    """Antigravity's `brain/<conversation>/.system_generated/logs/transcript*.jsonl`."""

    kind = KIND
    #: 2: an error step that answers no call keeps its `error` text (it gave nothing); a
    #: background command's result, in a system message, is its call's output.
    reads = 2

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        """Each conversation's transcript under `root` (a brain folder, one conversation's
        folder, or a transcript): the full one where it exists. Only the way to the
        transcripts is walked, not the artifacts and task logs beside them."""
        if root.is_file():
            if root.name in LOGS:
                yield root
            return
        for folder, dirs, names in walk(root, skip):
            if folder.name == "logs" and folder.parent.name == SYSTEM:
                chosen = next((name for name in LOGS if name in names), None)
                if chosen:
                    yield folder / chosen
                dirs[:] = []
            elif folder.name == SYSTEM:
                dirs[:] = [d for d in dirs if d == "logs"]
            elif SYSTEM in dirs:
                dirs[:] = [SYSTEM]

    def describe(self, path: Path) -> SourceFile:
        conversation = path.parent.parent.parent
        lesser = LOGS[LOGS.index(path.name) + 1 :] if path.name in LOGS else ()
        return SourceFile(
            path=path,
            source=KIND,
            session_id=conversation.name,
            supersedes=tuple(p for name in lesser if (p := path.with_name(name)).exists()),
        )

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        """The steps added since `cursor`; the calls still waiting for their output
        carry over in the cursor's state."""
        return read_with_state(fh, cursor, step_records, Steps, _restored, _state)[0]

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        """Each wanted message as the transcript holds it now, numbered as `read` did."""
        steps = Steps()
        records: list[Record] = []
        with open_regular(str(path)) as fh:
            for number, obj in iter_objects(fh, 0, 0, ReadStats(0, 0)):
                records += step_records(number, obj, steps)
                if number >= max(lines, default=0):
                    break
        return texts_by_line(records, lines)

    def resume(self, session: Session) -> Resume:
        """`agy --conversation <id>` for a conversation of the CLI, which goes back into
        one by its id from any folder (run in the session's, where it worked); the
        editor has no such command."""
        if session.file_path is None or CLI_APP not in Path(session.file_path).parts:
            return no_resume(_NO_RESUME)
        return resume_in_cwd(session, "agy", *option("--conversation", session.id))

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: Antigravity keeps a conversation's title in its own store, not in the
        transcript it writes for people to read."""
        return None


def _state(steps: Steps) -> dict[str, str | int] | None:
    """The calls waiting for their output, and the commands running in the background
    (their ids and tool names, a task's id: nothing of what was said, as the index keeps
    a cursor unredacted; the folder is in the messages)."""
    state: dict[str, str | int] = {}
    if steps.pending:
        state["pending"] = json.dumps(steps.pending[-PENDING_CAP:])
    if steps.tasks:
        kept = list(steps.tasks.items())[-PENDING_CAP:]
        state["tasks"] = json.dumps([[task, *call] for task, call in kept])
    return state or None


def _restored(cursor: Cursor | None) -> Steps:
    """The calls the last read left waiting for their output, and its background
    commands not yet finished."""
    state = cursor.state if cursor is not None and cursor.state else {}
    steps = Steps()
    for item in _kept(state, "pending", 2):
        steps.pending.append((item[0], item[1]))
    for item in _kept(state, "tasks", 3):
        steps.tasks[item[0]] = (item[1], item[2])
    return steps


def _kept(state: dict[str, str | int], key: str, width: int) -> list[list[str]]:
    """A list of lists of `width` strings the cursor keeps under `key`; anything else in
    it is left out."""
    try:
        kept = json.loads(str(state.get(key, "[]")))
    except (ValueError, RecursionError):
        return []
    return [
        item
        for item in (kept if isinstance(kept, list) else [])
        if isinstance(item, list) and len(item) == width and all(isinstance(v, str) for v in item)
    ]
