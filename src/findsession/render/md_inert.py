"""Transcript text in a Markdown file that a renderer with HTML on shows, never runs.

A reply is Markdown already, and stays so: its emphasis, lists and code read as they
did. But a CommonMark renderer passes raw HTML through (`<script>`, `<img onerror>`,
`<iframe>`) and fetches images (`![](http://…)`), so a transcript's text ran and made
requests from an exported file. Here every `<` of transcript text that a renderer would
read as Markdown becomes `&lt;` and every `![` becomes `!\\[`; code (fenced, indented, a
code span) is left as written, where a renderer shows `<` as text anyway.

What is code is decided by parsing the whole document as a renderer does (markdown-it,
CommonMark), not each message alone: a list left open by one reply makes the next
reply's indented "code" a paragraph, and a fence left open swallows the fence of the
output after it. Escaping can change what the rest parses as (an HTML block hid a fence
line), so the document is parsed again while a line that led a block was escaped; then it
is checked as a renderer reads it, and if any raw HTML or image is left, every `<` of
transcript text is escaped, code or not. A 700 KB export of a real 36-turn session
costs 0.25 s of CPU more (0.03 s before).
"""

from __future__ import annotations

import bisect
import re
import string
from collections.abc import Iterable, Iterator

from markdown_it import MarkdownIt
from markdown_it.token import Token


class Theirs(str):
    """A piece of the document that a transcript wrote: escaped; the rest is ours."""


_PARSER = MarkdownIt("commonmark")
#: The blocks alone (no inline parsing), which is all that says what is code.
_BLOCKS = MarkdownIt("commonmark").disable(["inline", "text_join"])
#: A line whose first text (after quote and list markers) is `<` or `[`.
_LEADS = re.compile(r"^[ \t>]*(?:(?:[-+*]|\d{1,9}[.)])[ \t]+)*[<\[]")
_CODE = frozenset({"fence", "code_block"})
_PUNCT = frozenset(string.punctuation)
#: The only HTML the document may hold: its own folds.
_OURS = re.compile(r"<details><summary>[^<>]*</summary>|</details>")
_ROUNDS = 8


def inert_document(pieces: Iterable[str]) -> str:
    """The pieces joined by line breaks, each `Theirs` piece made inert."""
    lines: list[str] = []
    theirs: list[bool] = []
    for piece in pieces:
        for line in str(piece).split("\n"):
            lines.append(line)
            theirs.append(isinstance(piece, Theirs))
    for _ in range(_ROUNDS):
        code = _code_lines(lines)
        again = False
        for start, end in _paragraphs(lines, theirs, code):
            block = "\n".join(lines[start:end])
            escaped = _escape(block)
            if escaped == block:
                continue
            for n, line in enumerate(escaped.split("\n"), start):
                # Only a line that led with `<` or `[` (an HTML block, a link's
                # definition) can have held other lines' structure: parse again then.
                again = again or (line != lines[n] and bool(_LEADS.match(lines[n])))
                lines[n] = line  # as many lines: escaping adds no line break
        if not again:
            break
    if not _inert(lines):
        lines = [
            _escape_all(line) if mine else line for line, mine in zip(lines, theirs, strict=True)
        ]
    if not _inert(lines):  # never seen: then no `<` is left but the folds' own
        lines = [line if _OURS.fullmatch(line) else _escape_all(line) for line in lines]
    return "\n".join(lines)


def _code_lines(lines: list[str]) -> set[int]:
    """The lines a renderer shows as code (a fence with its markers, indented code)."""
    code: set[int] = set()
    for token in _BLOCKS.parse("\n".join(lines)):
        if token.type in _CODE and token.map:
            code.update(range(*token.map))
    return code


def _paragraphs(
    lines: list[str], theirs: list[bool], code: set[int]
) -> Iterator[tuple[int, int]]:
    """Runs of transcript lines outside code, cut at blank lines (a code span never
    crosses one), as (first, past last)."""
    start = None
    for n in range(len(lines) + 1):
        inside = n < len(lines) and theirs[n] and n not in code
        blank = inside and lines[n].strip() in ("", ">")
        if start is not None and (not inside or blank):
            yield start, n
            start = None
        if inside and not blank and start is None:
            start = n


def _escape(text: str) -> str:
    """`<` and `![` escaped outside code spans and backslash escapes."""
    out: list[str] = []
    runs: dict[int, list[int]] = {}  # backtick runs by length: where each starts
    for match in re.finditer(r"`+", text):
        runs.setdefault(len(match.group()), []).append(match.start())
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\\" and i + 1 < n and text[i + 1] in _PUNCT:
            out.append(text[i : i + 2])  # already an escape: `\<` is text
            i += 2
        elif ch == "`":
            run = 1
            while i + run < n and text[i + run] == "`":
                run += 1
            close = _closing(runs.get(run, []), i + run)
            stop = close + run if close >= 0 else i + run
            out.append(text[i:stop])  # a code span as it is, or backticks with no match
            i = stop
        elif ch == "<":
            out.append("&lt;")
            i += 1
        elif ch == "!" and text.startswith("[", i + 1):
            out.append("!\\[")
            i += 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _closing(starts: list[int], after: int) -> int:
    """Where the first run of the opener's length at or after `after` begins (the end
    of the code span), or -1: `starts` are those runs, in order."""
    k = bisect.bisect_left(starts, after)
    return starts[k] if k < len(starts) else -1


def _escape_all(line: str) -> str:
    return line.replace("<", "&lt;").replace("![", "!\\[")


def _inert(lines: list[str]) -> bool:
    """No raw HTML but the document's own folds, and no image, anywhere."""
    return all(_harmless(token) for token in _walk(_PARSER.parse("\n".join(lines))))


def _harmless(token: Token) -> bool:
    if token.type == "html_block":
        return all(_OURS.fullmatch(line) for line in token.content.strip().split("\n"))
    return token.type not in ("html_inline", "image")


def _walk(tokens: list[Token]) -> Iterator[Token]:
    for token in tokens:
        yield token
        yield from _walk(token.children or [])
