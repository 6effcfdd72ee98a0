"""Open Interpreter's conversations: where they are, and the `Source` that reads them.

Open Interpreter (`pip install open-interpreter`, 0.2 to 0.4) saves each conversation of
its terminal (and of `interpreter.chat()` in Python, unless `conversation_history` is
off) as one JSON list of its messages in `conversations/` of its config folder,
`platformdirs.user_config_dir("open-interpreter")`: `$XDG_CONFIG_HOME/open-interpreter`
(else `~/.config/open-interpreter`) on Linux, `~/Library/Application Support/
open-interpreter` on macOS, `%LOCALAPPDATA%\\open-interpreter\\open-interpreter` on
Windows. The file is named once, after the first answer: the first prompt's first words
(its first 25 characters, the last word dropped; 15 characters when they hold no
space), `__`, and the local time (`%B_%d_%Y_%H-%M-%S`), then `.json`. It is written
again whole, same name, after every answer (a plain write: read whole when its content
changed, `json_doc`), also when `interpreter --conversations` resumed it.

The session id is the file name without `.json`. Open Interpreter keeps no working
folder and no title: the title is the first prompt, as its own list shows the file name
cut from it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import IO

from findsession.domain import Resume, Session
from findsession.sources.base import Skip, Source, SourceFile, texts_by_line
from findsession.sources.cursor import Cursor, Reading
from findsession.sources.epoch import epoch_iso, iso_utc
from findsession.sources.json_doc import load_or_none, read_document
from findsession.sources.open_interpreter_records import Times, document_records
from findsession.sources.opening import open_regular
from findsession.sources.registry import SourceKind
from findsession.sources.walking import walk

KIND = SourceKind.OPEN_INTERPRETER
#: The time Open Interpreter puts at the end of a conversation's file name.
_NAMED_AT = re.compile(r"__([A-Za-z]+_\d{2}_\d{4}_\d{2}-\d{2}-\d{2})\.json\Z")


class OpenInterpreterSource(Source):
    """Open Interpreter's `conversations/<first words>__<time>.json`."""

    kind = KIND

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        """Every `.json` file of the conversations folder `root` (or of a `conversations`
        folder under it: a copy of the config folder), or `root` itself."""
        if root.is_file():
            if root.name.endswith(".json"):
                yield root
            return
        for folder, _dirs, names in walk(root, skip):
            if folder == root or folder.name == "conversations":
                yield from (folder / name for name in names if name.endswith(".json"))

    def describe(self, path: Path) -> SourceFile:
        return SourceFile(path=path, source=KIND, session_id=path.name[: -len(".json")])

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        times = _times(sf.path, fh)
        return read_document(
            fh, cursor, lambda doc, problems: document_records(doc, problems, times)
        )

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        """Each wanted message as the file holds it now, numbered as `read` did."""
        with open_regular(str(path)) as fh:
            doc = load_or_none(fh.read())
        return texts_by_line(document_records(doc, [], Times()) if doc is not None else [], lines)

    def resume(self, session: Session) -> Resume:
        """`interpreter --conversations`: Open Interpreter has no option that opens one
        conversation; its list does, by the name shown (the file name, `__` shown as
        `... (` and `_` as a space)."""
        shown = session.id.replace("__", "... (").replace("_", " ") + ")"
        note = (
            "Open Interpreter has no option that resumes one conversation: pick "
            f'"{shown}" in the list `interpreter --conversations` shows'
            " (it lists only its own conversations folder)."
        )
        return Resume(command=("interpreter", "--conversations"), session_id=session.id,
                      note=note, anywhere=True)  # fmt: skip

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: the file is one JSON list, written again whole; a line appended would
        break it."""
        return None


def _times(path: Path, fh: IO[bytes]) -> Times:
    """When the file was named (the time in its name, local time) and last written."""
    try:
        saved = epoch_iso(os.fstat(fh.fileno()).st_mtime)
    except (OSError, ValueError):
        saved = None
    named = _NAMED_AT.search(path.name)
    started = None
    if named:
        try:
            moment = datetime.strptime(named.group(1), "%B_%d_%Y_%H-%M-%S")
            started = iso_utc(moment.isoformat(), naive_local=True)
        except ValueError:
            started = None
    return Times(started or saved, saved or started)
