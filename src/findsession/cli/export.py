"""`findsession export SESSION`: a session as one Markdown or HTML file.

The text is the index's (redacted) unless `--raw` is given twice, or once and confirmed
at a terminal: a raw export holds the secrets redaction took out, and a file travels
further than a terminal's scrollback. A raw file is written readable by its owner only.
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
import tempfile
from pathlib import Path

from rich.console import Console

from findsession import render
from findsession.errors import FindsessionError
from findsession.paths import expand
from findsession.protocol import requests as rq
from findsession.protocol.context import Context
from findsession.render.console import say

_RAW_REFUSED = (
    "a --raw export holds what redaction took out (keys, tokens, passwords): give --raw"
    " twice to mean it"
)


def export(args: argparse.Namespace, ctx: Context) -> int:
    fmt = args.format or export_format(args.output)
    raw = args.raw > 0
    if args.raw == 1 and not _confirmed(ctx.err):
        raise FindsessionError(_RAW_REFUSED)
    doc = ctx.ask(rq.Export(args.session, raw=raw)).result
    text = render.export_html(doc) if fmt == "html" else render.export_markdown(doc)
    if not args.output:
        sys.stdout.write(text)
        return 0
    path = expand(args.output)
    write_file(path, text, private=raw)
    turns = doc["total_turns"]
    size = f"{turns} turn{'s' if turns != 1 else ''}, {len(text):,} chars"
    say(ctx.err, f"wrote {path} ({fmt}, {size})")
    return 0


def export_format(output: str | None) -> str:
    """The format a file name asks for: `.html`/`.htm` is HTML, anything else Markdown."""
    suffix = Path(output).suffix.lower() if output else ""
    return "html" if suffix in (".html", ".htm") else "md"


def _confirmed(err: Console) -> bool:
    """Asked at a terminal only: a script must say `--raw --raw`."""
    if not (sys.stdin.isatty() and sys.stderr.isatty()):
        return False
    err.print(
        "This export holds the transcript's own text, with the secrets the index redacted."
        " Type yes to write it: ",
        end="",
        soft_wrap=True,
    )
    try:
        return input().strip().lower() in ("y", "yes")
    except EOFError:
        return False


def write_file(path: Path, text: str, private: bool) -> None:
    """Write `text` whole or not at all (a temporary file renamed into place); `private`
    makes it readable by its owner alone.

    A symbolic link stays one: the file it leads to is written (renaming over the link
    made it a regular file). A device or a pipe (`-o /dev/stdout`) is written into as a
    shell's `>` would, never replaced (as root, the rename replaced `/dev/stdout`)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise FindsessionError(f"cannot write {path}: {exc.strerror or exc}") from exc
    if mode is not None and stat.S_ISDIR(mode):
        raise FindsessionError(f"cannot write {path}: it is a folder; name a file in it")
    if mode is not None and not stat.S_ISREG(mode):
        _write_into(path, text)
        return
    target = Path(os.path.realpath(path))  # through any link, to the file it names
    folder = target.parent
    if not folder.is_dir():
        raise FindsessionError(f"cannot write {path}: the folder {folder} does not exist")
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=folder)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(tmp, 0o600 if private else 0o644 & ~_umask())
        os.replace(tmp, target)
    except OSError as exc:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        raise FindsessionError(f"cannot write {path}: {exc.strerror or exc}") from exc


def _write_into(path: Path, text: str) -> None:
    """`text` written into a device or a pipe, which stays what it is."""
    try:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        raise FindsessionError(f"cannot write {path}: {exc.strerror or exc}") from exc


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
