"""Write docs/cli.md: every command's `--help`, as the parser prints it.

    python tools/cli_reference.py

The reference is generated, never written by hand, so it cannot drift from the parser;
`tests/test_cli_reference.py` fails when the file is out of date (run this to fix it),
and when the README's table of commands names one the parser lacks or lacks one.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "cli.md"
#: The width the reference is wrapped at, whatever the terminal that generates it.
WIDTH = "100"

HEAD = """# Command-line reference

Every command's `--help`, generated from the parser by `python tools/cli_reference.py`
(a test fails when this file is out of date). The README's table says what each command
is for; this is what each one takes.
"""


def reference() -> str:
    """The reference's text: the main help, then each command's, in the parser's order."""
    from findsession.cli.parser import build_parser
    from findsession.cli.table import COMMANDS

    saved = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH  # argparse wraps at the terminal's width
    try:
        parser = build_parser()
        sub = next(a for a in parser._actions if a.dest == "command")
        parts = [HEAD, "## `findsession`\n", _block(parser.format_help())]
        for command in COMMANDS:
            helps = sub.choices[command.name].format_help()  # type: ignore[union-attr]
            parts += [f"## `findsession {command.name}`\n", _block(helps)]
    finally:
        if saved is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = saved
    return "\n".join(parts)


def _block(text: str) -> str:
    return f"```text\n{text.rstrip()}\n```\n"


def main() -> int:
    DOC.write_text(reference(), encoding="utf-8")
    print(f"wrote {DOC}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
