"""Codex CLI rollouts: where they are, what a file is, and the `Source` that reads them.

This module, `codex_records` (a line → records; `codex_items` its tool calls and outputs,
`codex_prompts` what was typed, `codex_replay` a parent's history replayed), `codex_zst`
(compressed rollouts), `codex_titles` (thread names kept beside the rollouts) and
`codex_review` (a `/review` subagent's parent) are the only code that knows Codex's
format. A rollout is
`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl` or the same name under
`archived_sessions/`; old ones may be compressed to `.jsonl.zst`, and where both exist
the plain file is the live copy (the other is not read, it would only repeat it). A
plain rollout is append-only and read on from the JSON-lines cursor; a compressed one is
read whole when its bytes change.

The session id is the first `session_meta`'s; a spawned subagent names its parent there
(`source.subagent.thread_spawn.parent_thread_id`), or, in a rollout that replays another
thread, the replayed `session_meta` names it; a guardian names the session it reviews in
the transcript it is given; a `/review` subagent names none, and is linked by time to
the session that entered review mode as it began (`codex_review`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import IO

from findsession.domain import MetaEvent, MetaKind, Resume, Session
from findsession.sources.base import Skip, Source, SourceFile
from findsession.sources.codex_head import head, head_metas
from findsession.sources.codex_records import ParseState, RolloutParser
from findsession.sources.codex_review import review_parent
from findsession.sources.codex_titles import title_of
from findsession.sources.codex_zst import decompressed, is_compressed, read_compressed
from findsession.sources.cursor import Cursor, Reading
from findsession.sources.jsonl import read_appended, text_or_none, texts_at
from findsession.sources.opening import open_regular
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import positional, resume_in_cwd
from findsession.sources.walking import walk

KIND = SourceKind.CODEX
#: Lines of a guardian's start searched for the session it reviews (its first prompt).
_GUARDIAN_LINES = 12
_REVIEWED = re.compile(rb"Reviewed Codex session id: ([0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12})")
_UUID_TAIL = re.compile(r"([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$", re.I)


class CodexSource(Source):
    """Codex CLI's `$CODEX_HOME/sessions` and `archived_sessions` rollouts."""

    kind = KIND
    #: 2: a tool search (`tool_search_call`) and the tools it found are read.
    #: 3: Codex Desktop's attached files are cut from the prompt; words sent while a
    #: task runs steer it; a guardian is linked to the session it reviewed.
    #: 4: a `/review` subagent is linked to the session that entered review mode as it
    #: began (`codex_review`).
    #: 5: 0.17x's typed prompts (`item_completed` `UserMessage`, no `user_message`) are
    #: read; a command's output that says it exited other than 0 is failed; another
    #: agent's `agent_message` is read as what came back from it; a compaction's own
    #: answer (`compaction_output`) is no reply.
    reads = 5

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        return discover(root, skip)

    def describe(self, path: Path) -> SourceFile:
        return describe(path)

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        if is_compressed(sf.path.name):
            state, inner = _unpack(cursor)
            # A slice after the first goes on in the mode the one before ended in.
            restart = state is not None and state.replaying  # as a plain rollout does
            parser = RolloutParser(sf.session_id, None if restart else state)
            reading = read_compressed(fh, None if restart else inner, parser.parse)
            if reading.cursor.state:  # read on from it: the parser's mode with it
                reading.cursor = _pack(reading.cursor, parser.state)
        else:
            state, inner = _unpack(cursor)
            # A read that stopped inside a parent's replay starts again from the top.
            resume = inner if state is not None and not state.replaying else None
            parser = RolloutParser(sf.session_id, state if resume else None)
            reading = read_appended(fh, resume, parser.parse)
            if resume is not None and (reading.fresh or parser.mode_changed):
                # Rewritten, or it holds events after all: its prompts were misread.
                parser = RolloutParser(sf.session_id)
                reading = read_appended(fh, None, parser.parse)
            if not reading.binary:
                reading.cursor = _pack(reading.cursor, parser.state)
        if reading.unchanged or reading.binary:
            return reading
        reading.records = parser.finish(reading.records)
        title = title_of(sf.path, sf.session_id)
        if title:
            # Line 0: not a line of the rollout, and any name the rollout records wins.
            reading.records.append(MetaEvent(MetaKind.AI_TITLE, title, 0))
        return reading

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: current Codex builds keep thread names in their own database, which is
        Codex's to write, and `session_index.jsonl` is no longer read by them."""
        return None

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        parser = RolloutParser(describe(path).session_id)
        with open_regular(str(path)) as fh, _lines_of(path, fh) as data:
            return texts_at(data, lines, parser.parse)

    def resume(self, session: Session) -> Resume:
        """`codex resume <id>`, in the session's directory: Codex runs a resumed
        session in the directory it is started in."""
        return resume_in_cwd(session, "codex", "resume", *positional(session.id))


def is_rollout(name: str) -> bool:
    return name.startswith("rollout-") and name.endswith((".jsonl", ".jsonl.zst"))


def discover(root: Path, skip: Skip | None = None) -> Iterator[Path]:
    """Every rollout under `root`, a `.zst` only where no plain twin sits beside it.

    A Codex home is read through its two session folders only (its other folders hold
    logs, caches and plugins); any other folder is walked whole. A file named as a root
    is read whatever its name. Symlinked folders are not followed.
    """
    if root.is_file():
        if root.name.endswith((".jsonl", ".jsonl.zst")):
            yield root
        return

    tops = [root / n for n in ("sessions", "archived_sessions") if (root / n).is_dir()]
    for top in tops or [root]:
        for folder, _dirs, files in walk(top, skip):
            names = set(files)
            for name in files:
                if is_rollout(name) and not (is_compressed(name) and name[:-4] in names):
                    yield folder / name


def describe(path: Path) -> SourceFile:
    """The session a rollout holds and, for a subagent, its parent and role.

    A file that cannot be opened or decoded is described by its name; reading it will
    say what is wrong.
    """
    metas = head_metas(path)
    own = metas[0] if metas else {}
    sid = text_or_none(own.get("id")) or _id_from_name(path)
    parent: str | None = None
    agent_type: str | None = None
    description: str | None = None
    spawned = False
    source = own.get("source")
    subagent = source.get("subagent") if isinstance(source, dict) else None
    if isinstance(subagent, dict):
        spawned = True
        spawn = subagent.get("thread_spawn")
        if isinstance(spawn, dict):
            parent = text_or_none(spawn.get("parent_thread_id"))
            agent_type = text_or_none(spawn.get("agent_role"))
            task = text_or_none(spawn.get("agent_path"))
            # A multi_agent_v2 subagent (its task's path `/root/<task name>`) has no
            # role, and no prompt to be titled by: its task name describes it.
            description = task.rsplit("/", 1)[-1] if task and task != "/" else None
        agent_type = (
            agent_type
            or text_or_none(own.get("agent_role"))
            or text_or_none(subagent.get("other"))
        )
        if parent is None and agent_type == "guardian":
            parent = _reviewed(path)
    elif isinstance(subagent, str) and subagent:
        spawned, agent_type = True, subagent
        if subagent == "review":
            parent = review_parent(path, own)
    replayed = next(
        (i for m in metas[1:] if (i := text_or_none(m.get("id"))) not in (None, sid)), None
    )
    # A fork the person made is a session of its own; a replay in any other rollout is
    # its parent's history.
    if (
        parent is None
        and isinstance(replayed, str)
        and replayed
        and (spawned or not own.get("forked_from_id"))
    ):
        parent, spawned = replayed, True
    return SourceFile(
        path=path,
        source=KIND,
        session_id=sid,
        is_subagent=spawned,
        parent_id=parent,
        agent_type=agent_type,
        agent_description=description,
    )


def _id_from_name(path: Path) -> str:
    stem = path.name.removesuffix(".zst").removesuffix(".jsonl")
    match = _UUID_TAIL.search(stem)
    return match.group(1) if match else stem


def _reviewed(path: Path) -> str | None:
    """The session a guardian assessed: Codex Desktop's guardian (an approval reviewer)
    names no parent in its `session_meta`, but the transcript it is handed ends with the
    reviewed session's id."""
    found = _REVIEWED.search(head(path, _GUARDIAN_LINES))
    return found.group(1).decode() if found else None


@contextmanager
def _lines_of(path: Path, fh: IO[bytes]) -> Iterator[IO[bytes]]:
    """The rollout's JSON lines as a seekable file: the file itself, or decompressed."""
    if is_compressed(path.name):
        with decompressed(fh) as (data, _stopped):
            yield data
    else:
        yield fh


_MODE = ("events", "replaying", "running", "prompted", "by_items")


def _pack(cursor: Cursor, state: ParseState) -> Cursor:
    """The cursor with the parser's mode kept in its state, beside what the reader keeps
    there (a compressed rollout's `at`)."""
    mode = {name: getattr(state, name) for name in _MODE}
    kept = {**(cursor.state or {}), **mode}
    return replace(cursor, state=kept)


def _unpack(cursor: Cursor | None) -> tuple[ParseState | None, Cursor | None]:
    """The parser state kept in a cursor, and the reader's cursor without it."""
    if cursor is None or cursor.state is None:
        return None, cursor
    kept = cursor.state
    state = ParseState(**{name: bool(kept.get(name)) for name in _MODE})
    rest = {k: v for k, v in kept.items() if k not in _MODE}
    return state, replace(cursor, state=rest or None)
