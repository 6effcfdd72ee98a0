"""What a Markdown note holds: its text decoded safely, its front matter, its top-level
headings and the spans of lines between them.

Shared by the note sources (docs, journals, agent memory), which decide where a note is
cut into units; nothing here knows which kind of note it reads. Headings come from a
CommonMark parser, so a `## ` inside a code fence, an indented code block or a quote is
text, and an underlined (setext) heading is a heading.
"""

from __future__ import annotations

import codecs
import re
import tomllib
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from findsession.domain import Problem
from findsession.sources.cursor import HEAD
from findsession.sources.jsonl import clean_text
from findsession.sources.notes_dates import iso_date

#: Front matter longer than this is not front matter but a document that starts with a
#: rule: it is read as text.
_FRONT_MAX_LINES = 500
_FRONT_MAX_CHARS = 64 * 1024
_HEADING_CAP = 200
#: Lines past this are not looked at for headings (they stay in the last section): the
#: parser costs about 50 µs per block, and a file of 8 MB of one-line paragraphs would
#: take minutes. Real notes are far shorter.
PARSE_MAX_LINES = 20_000
_TAGS_CAP = 50

# Block structure only: inline markup is not needed to find headings, and skipping it
# makes parsing several times faster. `maxNesting` bounds hostile nesting.


@cache
def _markdown() -> Any:
    """The CommonMark block parser, built on first use: importing it costs every
    command about 25 ms, and most commands read no note."""
    from markdown_it import MarkdownIt

    parser = MarkdownIt("commonmark", {"maxNesting": 20})
    parser.disable("inline")
    return parser


@dataclass(frozen=True, slots=True)
class FrontMatter:
    """The front matter fields a note source uses; the block itself is never indexed."""

    title: str | None = None
    date: str | None = None
    tags: tuple[str, ...] = ()
    description: str | None = None

    def searchable(self) -> str:
        """Tags and description as a line or two of text, so a search for them finds the
        note without the raw block being indexed."""
        parts = []
        if self.tags:
            parts.append("Tags: " + ", ".join(self.tags))
        if self.description:
            parts.append(self.description)
        return "\n".join(parts)


@dataclass(frozen=True, slots=True)
class Heading:
    """A top-level heading: its lines `[start, end)` (0-based, in the whole file), its
    level (1 for `#`) and its text, whitespace collapsed."""

    start: int
    end: int
    level: int
    text: str


@dataclass
class Note:
    """A note's lines (front matter included, so line numbers are the editor's) and
    what parsing found in them."""

    lines: list[str]
    body_start: int
    headings: list[Heading]
    front: FrontMatter = field(default_factory=FrontMatter)

    def first_title(self) -> Heading | None:
        return next((h for h in self.headings if h.level == 1 and h.text), None)


@dataclass(frozen=True, slots=True)
class Span:
    """Lines `[start, end)` of a note read as one unit; `heading` opened it (None for the
    text before the first cut) and `title` is the `#` heading it sits under."""

    start: int
    end: int
    heading: Heading | None
    title: str | None


def decode(data: bytes) -> str | None:
    """The file's text, invalid UTF-8 replaced, line ends as `\\n`; None for a binary file.

    A UTF-16 note (its byte-order mark says so) is text despite its NUL bytes.
    """
    if not data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)) and b"\x00" in data[:HEAD]:
        return None
    return decode_text(data)


def decode_text(data: bytes) -> str:
    """The file's text as `decode` gives it, even when it looks binary: for a format
    whose own markers say whether it is one (a SpecStory export), where a NUL byte
    costs only itself (it reads as U+FFFD)."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        text = data.decode("utf-16", "replace")
    else:
        text = data.decode("utf-8-sig", "replace")
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "\ufffd")
    return clean_text(text)


def parse_note(text: str, problems: list[Problem]) -> Note:
    """Front matter and top-level headings; a problem is added for broken front matter."""
    lines = text.split("\n")
    front, body_start = _front_matter(lines, problems)
    parsed = lines[body_start : body_start + PARSE_MAX_LINES]
    if len(lines) - body_start > PARSE_MAX_LINES:
        problems.append(
            Problem(body_start + PARSE_MAX_LINES + 1, "note too long", "no sections cut after")
        )
    body = "\n".join(parsed)
    headings: list[Heading] = []
    tokens = _markdown().parse(body)
    for n, token in enumerate(tokens):
        if token.type != "heading_open" or token.level != 0 or not token.map:
            continue
        inline = tokens[n + 1] if n + 1 < len(tokens) else None
        content = inline.content if inline is not None and inline.type == "inline" else ""
        start, end = token.map
        headings.append(
            Heading(
                body_start + start,
                body_start + end,
                int(token.tag[1:]),
                " ".join(content.split())[:_HEADING_CAP],
            )
        )
    return Note(lines, body_start, headings, front)


def spans(note: Note, cuts: list[Heading]) -> list[Span]:
    """The note cut before each heading of `cuts` (in file order); spans holding nothing
    but headings and blank lines are left out, so a lone `# Title` is not a unit."""
    heading_lines = {i for h in note.headings for i in range(h.start, h.end)}
    starts = [(note.body_start, None), *((h.start, h) for h in cuts)]
    titles = iter(h for h in note.headings if h.level == 1)
    upcoming, title = next(titles, None), None
    out = []
    for n, (start, heading) in enumerate(starts):
        end = starts[n + 1][0] if n + 1 < len(starts) else len(note.lines)
        while upcoming is not None and upcoming.start <= start:
            upcoming, title = next(titles, None), upcoming.text
        if any(note.lines[i].strip() and i not in heading_lines for i in range(start, end)):
            out.append(Span(start, end, heading, title))
    return out


def span_text(note: Note, span: Span) -> tuple[int, str]:
    """The span's first non-blank line (1-based, the unit's line number) and its lines as
    written, blank lines at either end dropped."""
    lines = note.lines[span.start : span.end]
    first = next(i for i, line in enumerate(lines) if line.strip())
    return span.start + first + 1, "\n".join(lines[first:]).rstrip()


def heading_path(file_name: str, note: Note, span: Span) -> str:
    """Where a span sits: `guide.md › Syncthing › Restart` (file, `#` title, heading)."""
    parts = [file_name]
    title = span.title or note.front.title
    if span.heading is not None and span.heading.level == 1:
        title = span.heading.text or title
    for part in (title, span.heading.text if span.heading else None):
        if part and part != parts[-1]:
            parts.append(part)
    return " › ".join(parts)


def _front_matter(lines: list[str], problems: list[Problem]) -> tuple[FrontMatter, int]:
    """The front matter (YAML between `---` lines, or TOML between `+++`) and the index of
    the first line after it; a block that is no mapping is text (a rule, a heading)."""
    fence = lines[0].rstrip() if lines else ""
    if fence not in ("---", "+++"):
        return FrontMatter(), 0
    closers = ("---", "...") if fence == "---" else ("+++",)
    end = next(
        (i for i in range(1, min(len(lines), _FRONT_MAX_LINES)) if lines[i].rstrip() in closers),
        None,
    )
    if end is None:
        return FrontMatter(), 0
    block = "\n".join(lines[1:end])
    if len(block) > _FRONT_MAX_CHARS:
        return FrontMatter(), 0
    import yaml  # on first use: most commands read no front matter

    try:
        data = yaml.safe_load(block) if fence == "---" else tomllib.loads(block)
    except (yaml.YAMLError, tomllib.TOMLDecodeError, ValueError, RecursionError) as exc:
        problems.append(Problem(1, "front matter unreadable; read as text", str(exc)[:80]))
        return FrontMatter(), 0
    if not isinstance(data, dict):
        return FrontMatter(), 0
    return _fields(data), end + 1


def _fields(data: dict[Any, Any]) -> FrontMatter:
    title = _text(data.get("title")) or _text(data.get("name"))
    description = _text(data.get("description")) or _text(data.get("summary"))
    raw_tags = next((data[k] for k in ("tags", "tag", "keywords") if k in data), None)
    if isinstance(raw_tags, str):
        raw_tags = re.split(r"[,\s]+", raw_tags)
    tags = []
    for tag in raw_tags if isinstance(raw_tags, list) else []:
        value = _text(tag)
        if value and value.lstrip("#"):
            tags.append(value.lstrip("#")[:_HEADING_CAP])
    when = next((data[k] for k in ("date", "created") if data.get(k)), None)
    return FrontMatter(title, iso_date(when), tuple(tags[:_TAGS_CAP]), description)


def _text(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return None
    text = " ".join(clean_text(str(value)).split())
    return text[:1000] or None
