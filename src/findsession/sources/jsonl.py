"""Read a JSON-lines file from a byte offset, surviving whatever real files contain.

Transcripts are written while we read them, edited by sanitisers and copied between
machines, so every line is suspect: it is read as bytes, decoded on its own with invalid
UTF-8 replaced, and skipped with a reason when it is not a JSON object. A last line with
no newline may still be being written: it is used if it already parses, but the offset
is left before it so the next run reads it again once it is complete.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from findsession.model import Problem

#: Lines longer than this are skipped: nothing a person reads is that long, and holding
#: it would cost memory for no search value.
MAX_LINE_BYTES = 64 * 1024 * 1024
_CHUNK = 1024 * 1024


@dataclass
class ReadStats:
    """Where reading stopped and what it cost; the indexer stores the cursor."""

    end_offset: int
    end_line: int
    bytes_read: int = 0
    lines_read: int = 0
    pending_tail: bool = False
    problems: list[Problem] = field(default_factory=list)


def clean_text(value: str) -> str:
    """Replace lone surrogates (legal in JSON escapes, illegal in UTF-8) so SQLite takes it."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return value.encode("utf-8", "replace").decode("utf-8")
    return value


#: How far past a cap a cut may move to end on a boundary (see `cap`).
_CUT_SLACK = 1024
_BOUNDARY = re.compile(r"[\s\"'`<>()\[\]{},;]")


def cut_point(text: str, limit: int) -> int:
    """Where to cut `text` near `limit` without splitting a token in two.

    Redaction runs on what is kept: a token cut at the cap (half an API key) no longer
    looked like one and was stored in part. The cut moves on to the next space, quote or
    bracket, at most `_CUT_SLACK` characters further; a private key block cut anywhere
    is still hidden, to the end, by its `BEGIN` line.
    """
    if len(text) <= limit:
        return len(text)
    boundary = _BOUNDARY.search(text, limit, limit + _CUT_SLACK)
    return boundary.start() if boundary else limit + _CUT_SLACK


def cap(text: str, limit: int) -> str:
    """`text` cut near `limit` (see `cut_point`), saying how much was left out."""
    text = clean_text(text)
    end = cut_point(text, limit)
    if end >= len(text):
        return text
    return text[:end] + f"\n[… {len(text) - end:,} more characters not indexed]"


def looks_binary(head: bytes) -> bool:
    """A NUL byte near the start: a binary file, if no line of it turns out to be JSON.

    Only a hint: one NUL byte in a real transcript costs its own line, not the file.
    """
    return b"\x00" in head


def _read_line(fh: IO[bytes]) -> tuple[bytes | None, int, bool]:
    """Return `(line, length, complete)`; `line` is None when it was too long to keep."""
    line = fh.readline(MAX_LINE_BYTES + 1)
    if len(line) <= MAX_LINE_BYTES or line.endswith(b"\n"):
        return line, len(line), line.endswith(b"\n")
    length = len(line)
    while True:
        chunk = fh.readline(_CHUNK)
        length += len(chunk)
        if not chunk or chunk.endswith(b"\n"):
            return None, length, chunk.endswith(b"\n")


def iter_objects(
    fh: IO[bytes], start_offset: int, start_line: int, stats: ReadStats
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield `(line_number, object)` for each usable line after `start_offset`.

    Line numbers are 1-based and count every line of the file, so a problem reported
    for line N is line N in an editor. `stats` is updated as reading goes.
    """
    fh.seek(start_offset)
    offset, line_no = start_offset, start_line
    while True:
        raw, length, complete = _read_line(fh)
        if not length:
            break
        number = line_no + 1
        stats.bytes_read += length
        if not complete:
            # Possibly still being written: use it only if it already parses.
            stats.pending_tail = True
            if raw is not None:
                obj = _decode(raw)
                if isinstance(obj, dict):
                    stats.lines_read += 1
                    yield number, obj
            break
        offset += length
        line_no = number
        stats.end_offset, stats.end_line = offset, line_no
        stats.lines_read += 1
        if raw is None:
            stats.problems.append(Problem(number, "line too long", f"{length} bytes"))
            continue
        if not raw.strip():
            continue
        if b"\x00" in raw:
            stats.problems.append(Problem(number, "NUL byte in line", _preview(raw)))
            continue
        obj = _decode(raw)
        if isinstance(obj, dict):
            yield number, obj
        elif obj is _MALFORMED:
            stats.problems.append(Problem(number, "malformed JSON", _preview(raw)))
        else:
            stats.problems.append(Problem(number, "not a JSON object", _preview(raw)))


_MALFORMED = object()


def _decode(raw: bytes) -> Any:
    try:
        return json.loads(raw.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return _MALFORMED


def _preview(raw: bytes) -> str:
    """The start of a skipped line, printable: enough to find it in an editor.

    Cut on a boundary, not inside a token, so the indexer can still redact a secret the
    preview quotes.
    """
    text = raw[: 80 + _CUT_SLACK * 4].decode("utf-8", "replace").strip()
    text = text[: cut_point(text, 80)]
    return "".join(c if c.isprintable() else "\ufffd" for c in text)
