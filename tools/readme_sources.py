"""Write the README's list of sources from the registry, so the list a reader sees is
the one findsession reads and is never typed twice.

The list sits in README.md between two marks (`BEGIN`, `END`); this rewrites what is
between them from `findsession.sources.registry` (each entry's kind, whether it is an
agent, a chat app's export or a document, and its name in `NAMES`).
`tests/test_readme_sources.py` fails when the two differ.

    .venv/bin/python tools/readme_sources.py          # rewrite README.md
    .venv/bin/python tools/readme_sources.py --check  # exit 1 if README.md differs
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from findsession.sources.registry import ENTRIES, NAMES

README = Path(__file__).resolve().parents[1] / "README.md"
BEGIN = "<!-- sources: written by tools/readme_sources.py from sources/registry.py -->"
END = "<!-- /sources -->"


def listing() -> str:
    """The list, in the registry's order: agents, chat apps' exports, documents."""

    def named(entries: list) -> str:
        return ", ".join(f"{NAMES[e.kind]} (`{e.kind}`)" for e in entries)

    agents = [e for e in ENTRIES if e.agent and not e.export]
    exports = [e for e in ENTRIES if e.export]
    documents = [e for e in ENTRIES if not e.agent]
    lines = [
        f"- **Coding agents**, read where each keeps its history: {named(agents)}.",
        "- **Chat apps' exports**, read from the export you download and name"
        f" (`findsession index --source chatgpt EXPORT.zip`): {named(exports)}.",
        f"- **Documents**: {named(documents)}.",
    ]
    return "\n".join(lines)


def rewritten(readme: str) -> str:
    """`readme` with the text between the marks replaced by `listing()`."""
    start = readme.index(BEGIN) + len(BEGIN)
    end = readme.index(END, start)
    return readme[:start] + "\n" + listing() + "\n" + readme[end:]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if README.md differs")
    args = parser.parse_args()
    text = README.read_text(encoding="utf-8")
    new = rewritten(text)
    if args.check:
        if new != text:
            print("README.md's list of sources differs from the registry", file=sys.stderr)
            return 1
        return 0
    README.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
