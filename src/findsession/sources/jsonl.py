"""Read a JSON-lines file from a byte offset, surviving whatever real files contain.

Transcripts are written while we read them, edited by sanitisers and copied between
machines, so every line is suspect: it is read as bytes, decoded on its own with invalid
UTF-8 replaced, and skipped with a reason when it is not a JSON object. A last line with
no newline may still be being written: it is used if it already parses, but the offset
is left before it so the next run reads it again once it is complete.

It owns the append-only cursor: the offset and line count consumed and a digest of every
byte before the offset, so a file that only grew is read on and one edited before the
offset is read again from the start.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any, TypeVar

from findsession.domain import Message, MessageKind, Problem
from findsession.sources import budget
from findsession.sources.cursor import HEAD, Cursor, Reading, Record, State, looks_binary
from findsession.sources.opening import open_regular

#: Lines longer than this are skipped: nothing a person reads is that long, and holding
#: it would cost memory for no search value.
MAX_LINE_BYTES = 64 * 1024 * 1024
_CHUNK = 1024 * 1024
_BLOCK = 1 << 20


@dataclass
class ReadStats:
    """Where reading stopped and what it cost; the indexer stores the cursor."""

    end_offset: int
    end_line: int
    bytes_read: int = 0
    lines_read: int = 0
    pending_tail: bool = False
    problems: list[Problem] = field(default_factory=list)
    #: Stopped at `max_bytes`, before the end: there is more to read from `end_offset`.
    more: bool = False


def clean_text(value: str) -> str:
    """Replace lone surrogates (legal in JSON escapes, illegal in UTF-8) so SQLite takes it."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return value.encode("utf-8", "replace").decode("utf-8")
    return value


def text_or_none(value: Any) -> str | None:
    """A non-empty string as the index can store it (a lone surrogate, legal in a JSON
    escape, replaced), else None. Every id, name or time a reader keeps from a record
    passes here: one kept as written could not be stored, and its file was not read."""
    return clean_text(value) if isinstance(value, str) and value else None


def text_or_empty(value: Any) -> str:
    """`text_or_none` for a field whose absence is the empty string."""
    return clean_text(value) if isinstance(value, str) else ""


def stripped(value: Any) -> str | None:
    """A string value without lone surrogates or blanks around it; None for anything
    else, or for nothing but blanks."""
    return (clean_text(value).strip() or None) if isinstance(value, str) else None


#: How far past a cap a cut may move to end on a boundary (see `cap`).
CUT_SLACK = 1024
_BOUNDARY = re.compile(r"[\s\"'`<>()\[\]{},;]")


def cut_point(text: str, limit: int) -> int:
    """Where to cut `text` near `limit` without splitting a token in two.

    Redaction runs on what is kept: a token cut at the cap (half an API key) no longer
    looked like one and was stored in part. A text at most a quarter of the limit (up to
    `CUT_SLACK` characters) past it is kept whole; a longer one is cut at the end of
    a line within that reach (what makes a value a secret may come after it on its line:
    `echo pw | sudo -S`), else at the next space, quote or bracket, at most `CUT_SLACK`
    characters further; a private key block cut anywhere is still hidden, to the end, by
    its `BEGIN` line. When one run of characters with none of them reaches past that (a
    URL, minified code, a blob with a token in it), the cut moves back to before the run
    instead: no part of it is kept, so no token's first characters are kept without the
    rest (`ghp_` and 20 of its 36).
    """
    whole = min(CUT_SLACK, limit // 4)  # a preview of 80 stays about that
    if len(text) <= limit + whole:
        return len(text)
    line = text.find("\n", limit, limit + whole)
    if line >= 0:
        return line  # a command line kept whole: `echo pw | sudo -S` needs its end
    boundary = _BOUNDARY.search(text, limit, limit + CUT_SLACK)
    if boundary:
        return boundary.start()
    last = None
    for last in _BOUNDARY.finditer(text, 0, limit):  # noqa: B007 - the last one is wanted
        pass
    return last.end() if last else 0


def text_of(content: Any) -> str:
    """A message's text: a string, or the text of its parts joined by newlines (a part
    without text, an image, gives none), as OpenAI-shaped messages hold it."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, dict)]
        return "\n".join(p for p in parts if isinstance(p, str))
    return ""


_THINK = re.compile(r"\A\s*<think>(.*?)</think>\s*", re.DOTALL)


def leading_thinking(text: str) -> tuple[str, str]:
    """A reply that opens with its model's `<think>…</think>` (models that think in the
    open write their thinking into the text): the thinking, and the reply after it."""
    inline = _THINK.match(text)
    return (inline.group(1).strip(), text[inline.end() :]) if inline else ("", text)


def cap(text: str, limit: int) -> str:
    """`text` cut near `limit` (see `cut_point`), saying how much was left out."""
    text = clean_text(text)
    end = cut_point(text, limit)
    if end >= len(text):
        return text
    return text[:end] + f"\n[… {len(text) - end:,} more characters not indexed]"


def said(kind: MessageKind, text: str, base: dict[str, Any], limit: int) -> list[Record]:
    """A message of `kind` holding `text` stripped and capped at `limit`, or none when the
    text is blank: every reader keeps an empty prompt or reply out of the index, and
    `base` holds what each record of the same place shares (its line, time, folder)."""
    text = text.strip()
    return [Message(kind, cap(text, limit), **base)] if text else []


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
    fh: IO[bytes],
    start_offset: int,
    start_line: int,
    stats: ReadStats,
    glued: bool = False,
    max_bytes: int | None = None,
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield `(line_number, object)` for each usable line after `start_offset`.

    Line numbers are 1-based and count every line of the file, so a problem reported
    for line N is line N in an editor. `stats` is updated as reading goes. With `glued`,
    a line that holds several objects with nothing between them (`}{`: a writer that
    lost a newline) gives each of them, under the line's number. Each line spends the
    file's read budget (`sources.budget`); when it runs out, reading stops before the
    line, so the cursor in `stats` lies where a later read may go on. With `max_bytes`,
    no line is begun once that many bytes were read (`stats.more` then says so).
    """
    spend = budget.current()
    fh.seek(start_offset)
    offset, line_no = start_offset, start_line
    while True:
        if max_bytes is not None and offset - start_offset >= max_bytes:
            stats.more = bool(fh.read(1))
            break
        raw, length, complete = _read_line(fh)
        if not length or not spend.line():
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
        if obj is _MALFORMED and glued and (objects := _glued_objects(raw)):
            for each in objects:
                yield number, each
        elif isinstance(obj, dict):
            yield number, obj
        elif obj is _MALFORMED:
            stats.problems.append(Problem(number, "malformed JSON", _preview(raw)))
        else:
            stats.problems.append(Problem(number, "not a JSON object", _preview(raw)))


#: What one read of an append-only file parses at most: about 30 MB of records in
#: memory. A 200 MB session needed 0.9 GB read whole; the service lives under 600 MB.
SLICE_BYTES = 16 << 20

#: Turns one line's object into records.
ParseLine = Callable[[int, dict[str, Any]], Iterable[Record]]


def read_appended(
    fh: IO[bytes], cursor: Cursor | None, parse: ParseLine, glued: bool = False, sliced: bool = True
) -> Reading:
    """Records after `cursor` when the file only grew since; else every record, fresh.

    The cursor is the append-only kind: bytes and lines consumed, and a digest of every
    byte before the offset (see `_can_resume`). A file that shrank or changed before the
    offset is read from the start. `sliced`: at most `SLICE_BYTES` are read at a time
    (`Reading.more` then says to read on), so a session of any length costs the memory
    of one slice; a source whose reading needs the whole file at once says False.
    """
    fh.seek(0)
    head = fh.read(HEAD)
    size = os.fstat(fh.fileno()).st_size
    fresh = cursor is None or not _can_resume(fh, cursor, size)
    start = Cursor() if fresh or cursor is None else cursor
    stats = ReadStats(end_offset=start.offset, end_line=start.lines)
    limit = SLICE_BYTES if sliced else None
    records = [
        rec
        for line, obj in iter_objects(fh, start.offset, start.lines, stats, glued, limit)
        for rec in parse(line, obj)
    ]
    # Nothing of a binary file is a transcript line: it is left out, with no cursor.
    binary = (
        "binary: no line of it is JSON" if fresh and not records and looks_binary(head) else None
    )
    end = (
        Cursor()
        if binary
        else Cursor(stats.end_offset, stats.end_line, prefix_hash(fh, stats.end_offset))
    )
    return Reading(
        records,
        end,
        fresh=fresh,
        binary=binary,
        bytes_read=stats.bytes_read,
        lines_read=stats.lines_read,
        problems=stats.problems,
        more=stats.more and not binary,
    )


S = TypeVar("S")


def read_with_state(
    fh: IO[bytes],
    cursor: Cursor | None,
    parse: Callable[[int, dict[str, Any], S], Iterable[Record]],
    start: Callable[[], S],
    restore: Callable[[Cursor | None], S],
    keep: Callable[[S], State | None],
    sliced: bool = True,
) -> tuple[Reading, S]:
    """`read_appended` for a parser that keeps something across lines (the calls still
    waiting for their output): a read from the top starts it afresh (`start`), a read on
    from the cursor goes on with what the cursor kept (`restore`), and the cursor
    returned keeps what it is after the last line read (`keep`). What it is then comes
    back with the reading, for a source that decides on it (which records go, whether
    to read again from the top); `sliced` as `read_appended`'s."""
    lines_before = cursor.lines if cursor is not None else 0
    held: list[S] = []

    def each(line: int, obj: dict[str, Any]) -> Iterable[Record]:
        if not held:
            held.append(restore(cursor) if line > lines_before else start())
        return parse(line, obj, held[0])

    reading = read_appended(fh, cursor, each, sliced=sliced)
    if not held:
        held.append(start() if reading.fresh else restore(cursor))
    end = reading.cursor
    if end.digest is not None:
        reading.cursor = Cursor(end.offset, end.lines, end.digest, keep(held[0]))
    return reading, held[0]


def _can_resume(fh: IO[bytes], cursor: Cursor, size: int) -> bool:
    """True when the file only grew: every byte before the old offset is unchanged.

    The whole prefix is checked, not only its last KiB: an edit in place that kept the
    size (a token masked with `sed`) lay before that KiB and was never seen, so the old
    token stayed searchable. The check is a CRC-32 of the prefix (3.8 GB/s here, four
    times blake2b: it guards against edits, not adversaries) plus blake2b of the last
    KiB; it reads the prefix once per changed file, and an unchanged file still costs
    only a stat.
    """
    if cursor.offset > size or cursor.offset == 0:
        return False
    return prefix_hash(fh, cursor.offset) == cursor.digest


def prefix_hash(fh: IO[bytes], offset: int) -> str:
    """A digest of the file's first `offset` bytes (the part already indexed): a CRC-32
    of them all and a hash of their last KiB (see `_can_resume`)."""
    crc = 0
    fh.seek(0)
    buffer = bytearray(min(offset, _BLOCK) or 1)
    view = memoryview(buffer)
    left = offset
    while left > 0:
        n = fh.readinto(view[: min(left, _BLOCK)])
        if not n:
            break
        crc = zlib.crc32(view[:n], crc)
        left -= n
    start = max(0, offset - 1024)
    fh.seek(start)
    tail = hashlib.blake2b(fh.read(offset - start), digest_size=16).hexdigest()
    return f"crc32:{crc:08x}:{offset - left}:{tail}"


def objects_at(fh: IO[bytes], lines: set[int]) -> Iterator[tuple[int, dict[str, Any]]]:
    """`(line_number, object)` for the wanted lines that still hold a JSON object.

    For reading a few recorded lines back: other lines are passed over undecoded.
    """
    for number, raw in enumerate(fh, 1):
        if number in lines:
            obj = _decode(raw)
            if isinstance(obj, dict):
                yield number, obj


def texts_at(
    fh: IO[bytes], lines: set[int], parse: Callable[[int, dict[str, Any]], Iterable[Record]]
) -> dict[tuple[int, int], str]:
    """The text of each message on the wanted `lines`, as `{(line, part): text}`.

    For `read --raw` of a format whose parser keeps state across lines (a tree, a
    session header, a parent's task): every line is parsed from the start, as when it
    was indexed, and the reading stops after the last wanted line.
    """
    texts: dict[tuple[int, int], str] = {}
    last = max(lines, default=0)
    for number, obj in iter_objects(fh, 0, 0, ReadStats(0, 0)):
        records = parse(number, obj)
        if number in lines:
            for part, rec in enumerate(records):
                if isinstance(rec, Message):
                    texts[(number, part)] = rec.text
        if number >= last:
            break
    return texts


def every_record(path: str, parse: ParseLine) -> list[Record]:
    """Every record of the file at `path`, each line parsed from the top as when it was
    first indexed (a result read on from an offset that needs its call's name; `read
    --raw`)."""
    records: list[Record] = []
    with open_regular(path) as fh:
        for number, obj in iter_objects(fh, 0, 0, ReadStats(0, 0)):
            records += parse(number, obj)
    return records


def unknown_kinds(unknown: dict[str, list[int]], reason: str, noun: str = "line") -> list[Problem]:
    """One problem for each kind of record a parser did not know, at its first line,
    saying how many there were (`unknown` maps each kind to its lines)."""
    problems = []
    for kind, lines in unknown.items():
        count = f"{len(lines)} {noun}" + ("" if len(lines) == 1 else "s")
        problems.append(Problem(lines[0], reason, f"{kind} ({count})"))
    return problems


_MALFORMED = object()


def _decode(raw: bytes) -> Any:
    try:
        return json.loads(raw.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return _MALFORMED


def _glued_objects(raw: bytes) -> list[dict[str, Any]]:
    """The JSON objects of a line that holds several back to back; none unless every
    byte of it belongs to one of them (a line cut short stays a malformed line)."""
    text = raw.decode("utf-8", "replace").strip()
    decoder = json.JSONDecoder()
    objects: list[dict[str, Any]] = []
    pos = 0
    try:
        while pos < len(text):
            obj, pos = decoder.raw_decode(text, pos)
            if not isinstance(obj, dict):
                return []
            objects.append(obj)
            while pos < len(text) and text[pos].isspace():
                pos += 1
    except (ValueError, RecursionError):
        return []
    return objects if len(objects) > 1 else []


def _preview(raw: bytes) -> str:
    """The start of a skipped line, printable: enough to find it in an editor.

    Cut on a boundary, not inside a token, so the indexer can still redact a secret the
    preview quotes.
    """
    text = raw[: 80 + CUT_SLACK * 4].decode("utf-8", "replace").strip()
    text = text[: cut_point(text, 80)]
    return "".join(c if c.isprintable() else "\ufffd" for c in text)
