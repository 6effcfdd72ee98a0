"""What was typed, from the input history beside a chat history, that the chat history
lost: cecli's prompts after a question answered at the keyboard.

cecli 1.10 stops writing its chat history for the rest of a run once a question it asked
(an agent's "Allow execution of this command?") was answered at the keyboard
(cecli/io.py `append_chat_history` waits for an acknowledgement that never comes), but
prompt_toolkit still appends every input to `.cecli/input.history`: blocks of
`# <local time>` then one `+line` per line typed. Such an input of a run that its chat
history does not hold as a `####` block is a prompt of that run: the run whose header
time is the latest at or before the input's (both local times of one machine). Inputs
before the first header are left out: their run's log is gone, and no run read holds
them. An answer to a question (`y`, `no`, `all`, `skip`, `don't`) is no prompt: the
question and its answer are a `>` note. Aider itself logs every input it takes before
acting on it (aider/io.py `get_input` calls `user_input`), so its input history holds
nothing more than such answers and the `/run` lines it adds itself: it is not read.
"""

from __future__ import annotations

import zlib
from bisect import bisect_left
from collections import deque
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from findsession.domain import Message, MessageKind, MetaEvent, MetaKind, Problem
from findsession.sources.aider_records import PROMPT_CAP, TITLE_HOLD
from findsession.sources.aider_sent import Said, asking
from findsession.sources.cursor import Record
from findsession.sources.jsonl import cap, cut_point
from findsession.sources.opening import open_regular

#: An input history larger than this is not read (one problem says so): nothing typed
#: by hand comes near it.
MAX_INPUT_BYTES = 32 * 1024 * 1024
#: The answers a question of cecli's takes (cecli/io.py `confirm_ask`): any start of
#: one is taken, and logged as a note with the question.
_ANSWERS = ("yes", "no", "skip", "all", "tweak", "don't")


@dataclass(frozen=True)
class Typed:
    """One input: its local time, its text, and the digest it is compared by."""

    at: datetime
    text: str
    said: bytes


@dataclass(frozen=True)
class Inputs:
    """An input history as read: its inputs (answers left out), its size and checksum."""

    typed: list[Typed]
    size: int
    crc: int
    data: bytes

    def stamp(self) -> dict[str, int]:
        """What a cursor's state keeps of it (a state keeps only text and numbers)."""
        return {"inputs_size": self.size, "inputs_crc": self.crc}

    def grew_from(self, state: dict[str, object]) -> bool:
        """Whether this history is the one `state` keeps the stamp of, with lines added."""
        size, crc = state.get("inputs_size"), state.get("inputs_crc")
        if not isinstance(size, int) or size > self.size:
            return False
        return zlib.crc32(self.data[:size]) == crc


def stamp_in(state: dict[str, object] | None) -> dict[str, object]:
    """The stamp of the input history a cursor's state kept, if any (empty: none)."""
    return {k: v for k, v in (state or {}).items() if k in ("inputs_size", "inputs_crc")}


def read_inputs(path: Path, problems: list[Problem]) -> Inputs | None:
    """The input history at `path`, or None where there is none; a history too large or
    unreadable is one problem and no inputs, and a block with no time it can read is
    left out (one problem counts them)."""
    try:
        with open_regular(str(path)) as fh:  # a FIFO named so must not block the run
            data = fh.read(MAX_INPUT_BYTES + 1)
    except FileNotFoundError:
        return None
    except OSError as exc:
        problems.append(Problem(0, "input history unreadable", f"{path.name}: {exc}"))
        return None
    if len(data) > MAX_INPUT_BYTES:
        problems.append(
            Problem(0, "input history too large", f"{path.name}: over {MAX_INPUT_BYTES:,} bytes")
        )
        return None
    typed, unread = _entries(data.decode("utf-8", "replace"))
    if unread:
        problems.append(
            Problem(0, "input history: inputs with no time", f"{path.name}: {unread} left out")
        )
    return Inputs(typed, len(data), zlib.crc32(data), data)


def _entries(text: str) -> tuple[list[Typed], int]:
    """Each `# <time>` block's text (prompt_toolkit's `FileHistory`), answers left out;
    and how many blocks had no time that could be read."""
    blocks: list[tuple[datetime | None, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("+"):
            if blocks:
                blocks[-1][1].append(line[1:])
        elif line.startswith("#"):
            blocks.append((_time(line[1:].strip()), []))
    typed, unread = [], 0
    for at, lines in blocks:
        body = "\n".join(lines)
        if not body.strip() or _answer(body):
            continue
        if at is None:
            unread += 1
            continue
        typed.append(Typed(at, body, said_of(lines)))
    return typed, unread


def _time(text: str) -> datetime | None:
    """The time prompt_toolkit writes (local, no zone); one with a zone is not its."""
    try:
        at = datetime.fromisoformat(text)
    except ValueError:
        return None
    return at if at.tzinfo is None else None


def _answer(body: str) -> bool:
    word = body.strip().lower()
    return "\n" not in word and any(a.startswith(word) for a in _ANSWERS)


def said_of(lines: list[str]) -> bytes:
    """The digest an input is compared by: its lines as a `####` block's are taken
    (`Said`), so a block aider logged of it has the same."""
    said = Said()
    for one in lines:
        said.add(one)
    return said.digest.digest()


@dataclass
class Run:
    """A run of a chat history as read: its header's local time and line, where its
    records begin in the reading, and the digests of its `####` blocks with the index
    of the record each begins at."""

    key: str | None
    start: datetime | None
    header_line: int
    first: int
    blocks: list[tuple[int, bytes]]


def merged(records: list[Record], runs: list[Run], inputs: Inputs, cwd: str) -> list[Record]:
    """`records` with each run's inputs that none of its `####` blocks holds put in as
    prompts, in time order: after the last block that holds an earlier input of the
    run, before the next one (a run cecli stopped logging: at its end)."""
    if not runs or not inputs.typed:
        return records
    typed = sorted(inputs.typed, key=lambda t: t.at)
    times = [t.at for t in typed]
    # Each run's inputs end at the next run's start that has a time.
    laters: list[datetime | None] = []
    later = None
    for run in reversed(runs):
        laters.append(later)
        later = run.start if run.start is not None else later
    laters.reverse()
    out = list(records[: runs[0].first])
    for i, (run, later) in enumerate(zip(runs, laters, strict=True)):
        end = runs[i + 1].first if i + 1 < len(runs) else len(records)
        mine: list[Typed] = []
        if run.start is not None:
            upto = len(typed) if later is None else bisect_left(times, later)
            mine = typed[bisect_left(times, run.start) : upto]
        out += _with_inputs(records[run.first : end], run, mine, cwd)
    return out


def _with_inputs(segment: list[Record], run: Run, mine: list[Typed], cwd: str) -> list[Record]:
    if not mine:
        return segment
    held: dict[bytes, deque[int]] = {}
    for n, (_, said) in enumerate(run.blocks):
        held.setdefault(said, deque()).append(n)
    starts = [first - run.first for first, _ in run.blocks]
    # Each input not held goes before block `after + 1`: the segment's index it is put at.
    after, places = -1, []
    for typed in mine:
        if held.get(typed.said):
            after = max(after, held[typed.said].popleft())
        else:
            places.append((starts[after + 1] if after + 1 < len(starts) else len(segment), typed))
    out: list[Record] = []
    line, index = run.header_line, 0
    named = any(isinstance(r, MetaEvent) and r.kind is MetaKind.LAST_PROMPT for r in segment)
    for at, typed in places:
        for rec in segment[index:at]:
            out.append(rec)
            line = max(line, rec.line)
        index = max(index, at)
        if (found := _prompt(typed, line, run.key, cwd)) is None:
            continue
        out.append(found)
        if not named and (name := asking(found.text)):
            # As the chat history's first prompt that asks something would: it names
            # the run better than the `/add` or `/agent` logged before it.
            named = True
            name = name[: cut_point(name, TITLE_HOLD)]
            out.append(MetaEvent(MetaKind.LAST_PROMPT, name, run.header_line, session_key=run.key))
    out += segment[index:]
    return out


def _prompt(typed: Typed, line: int, key: str | None, cwd: str) -> Message | None:
    """The input as a prompt at `line`, timed as typed (a local time, read in this
    machine's zone as the header's is)."""
    try:
        moment = typed.at.astimezone(UTC)
    except (ValueError, OverflowError, OSError):
        return None
    ts = moment.replace(tzinfo=None).isoformat(timespec="seconds") + "Z"
    text = "\n".join(t.rstrip() for t in typed.text.splitlines()).strip()
    return Message(
        MessageKind.PROMPT, cap(text, PROMPT_CAP), line=line, timestamp=ts, cwd=cwd,
        session_key=key,
    )  # fmt: skip
