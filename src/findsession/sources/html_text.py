"""A reply written as HTML (Gemini Apps' answers in a Takeout export) as the plain text
the index keeps: paragraphs and list items on lines of their own, and code kept as
code, in a fenced block with its language, its spacing untouched.

Only the text is kept: no tag, attribute or link target reaches the index, and
entities are decoded. Malformed markup costs nothing: the parser takes what it can.
"""

from __future__ import annotations

from html.parser import HTMLParser

_BLOCKS = frozenset(
    {"p", "div", "section", "article", "blockquote", "table", "ul", "ol", "hr", "figure"}
)
_HEADINGS = {"h1": "# ", "h2": "## ", "h3": "### ", "h4": "#### ", "h5": "##### ", "h6": "###### "}
_SKIPPED = frozenset({"script", "style", "head", "template"})


def html_text(html: str) -> str:
    """`html`'s text: see the module's docstring."""
    parser = _Text()
    try:
        parser.feed(html)
        parser.close()
    except (AssertionError, ValueError):  # a parser that gave up keeps what it read
        pass
    return parser.text()


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.pre = 0
        self.skipped = 0
        self.lists: list[list[int]] = []  # each open list: [is ordered, items so far]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIPPED:
            self.skipped += 1
        elif tag == "pre":
            self.pre += 1
            self._line()
            self.out.append("```" + _language(attrs) + "\n")
        elif tag == "code" and self.pre:
            language = _language(attrs)
            if language and self.out and self.out[-1] == "```\n":
                self.out[-1] = f"```{language}\n"
        elif tag == "code":
            self.out.append("`")
        elif tag == "br":
            self.out.append("\n")
        elif tag in _HEADINGS:
            self._line()
            self.out.append(_HEADINGS[tag])
        elif tag in ("ul", "ol"):
            self._line()
            self.lists.append([tag == "ol", 0])
        elif tag == "li":
            self._line()
            if self.lists:
                self.lists[-1][1] += 1
                ordered, n = self.lists[-1]
                indent = "  " * (len(self.lists) - 1)
                self.out.append(f"{indent}{n}. " if ordered else f"{indent}- ")
            else:
                self.out.append("- ")
        elif tag in ("td", "th"):
            self.out.append(" | ")
        elif tag in _BLOCKS or tag == "tr":
            self._line()

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED:
            self.skipped = max(0, self.skipped - 1)
        elif tag == "pre" and self.pre:
            self.pre -= 1
            if self.out and not self.out[-1].endswith("\n"):
                self.out.append("\n")
            self.out.append("```\n")
        elif tag == "code" and not self.pre:
            self.out.append("`")
        elif tag in ("ul", "ol") and self.lists:
            self.lists.pop()
            self._line()
        elif tag in _HEADINGS or tag in _BLOCKS or tag in ("li", "tr"):
            self._line()

    def handle_data(self, data: str) -> None:
        if self.skipped:
            return
        if self.pre or not data:
            self.out.append(data)
            return
        words = " ".join(data.split())
        # The spaces at a run's ends part it from its neighbours (`a <b>bold</b> word`).
        head = " " if data[0].isspace() else ""
        tail = " " if data[-1].isspace() and words else ""
        self.out.append(head + words + tail)

    def _line(self) -> None:
        """End the current line, unless it already ended."""
        if self.out and not self.out[-1].endswith("\n"):
            self.out.append("\n")

    def text(self) -> str:
        lines = [line.rstrip() for line in "".join(self.out).split("\n")]
        kept: list[str] = []
        inside = False
        for line in lines:
            if line.lstrip().startswith("```"):
                inside = not inside
                kept.append(line.strip())
                continue
            if inside:
                kept.append(line)
            elif line.strip() or (kept and kept[-1].strip()):
                kept.append(line.strip() if not line.startswith("  ") else line)
        return "\n".join(kept).strip()


def _language(attrs: list[tuple[str, str | None]]) -> str:
    """The language a `class="language-python"` (or `lang-`) names, else nothing."""
    for name, value in attrs:
        if name == "class" and value:
            for word in value.split():
                for prefix in ("language-", "lang-"):
                    if word.startswith(prefix) and word[len(prefix) :].isidentifier():
                        return word[len(prefix) :]
    return ""
