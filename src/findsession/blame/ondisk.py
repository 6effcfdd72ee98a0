"""The file asked about, as it reads now: read only to locate the lines asked for.

Its text is never what `blame` answers with (a line's text comes from what a session
wrote, as the index holds it: redacted), and it is read only when a session the caller
may see wrote the path (`trace` decides), so `blame` cannot be used to read a file: an
agent asking `sessions_for_file` for `/etc/shadow` or `~/.ssh/id_rsa` got their lines.
Only a regular file is read (a FIFO would block, `/dev/zero` never ends), its first
`MAX_BYTES` at most, within `READ_SECONDS` (a stalled network mount leaves the call, not
the caller, waiting).
"""

from __future__ import annotations

import threading
from typing import Any

from findsession.errors import FindsessionError
from findsession.sources.opening import NotRegular, open_regular

#: Lines past this many bytes of a file are not located.
MAX_BYTES = 8 << 20
#: A read that takes longer is given up.
READ_SECONDS = 5.0


def read_range(path: str, first: int, last: int) -> list[tuple[int, str]]:
    """Lines `first`..`last` of the file as it reads now (numbered from 1), to compare
    with what sessions wrote; `FindsessionError` when it cannot be read as a file."""
    found: dict[str, Any] = {}

    def read() -> None:
        try:
            with open_regular(path) as fh:
                found["data"] = fh.read(MAX_BYTES + 1)
        except NotRegular as exc:
            found["error"] = f"{path} is {exc}"
        except OSError as exc:
            found["error"] = f"cannot read {path}: {exc.strerror or exc}"

    reader = threading.Thread(target=read, name="blame-read", daemon=True)
    reader.start()
    reader.join(READ_SECONDS)
    if reader.is_alive():
        raise FindsessionError(
            f"{path} could not be read within {READ_SECONDS:g} s (a stalled mount?):"
            " its lines were not located"
        )
    if "error" in found:
        raise FindsessionError(found["error"])
    data: bytes = found["data"]
    cut = len(data) > MAX_BYTES
    lines = data[:MAX_BYTES].decode("utf-8", errors="replace").splitlines()
    if cut and lines:
        lines.pop()  # the line the bound cut in two
    if first > len(lines):
        if cut:
            raise FindsessionError(
                f"line {first} of {path} lies past its first {MAX_BYTES >> 20} MB, which is"
                " all findsession reads of a file to locate lines"
            )
        raise FindsessionError(
            f"{path} has {len(lines)} line{'s' if len(lines) != 1 else ''}, not line {first}"
        )
    last = min(last, len(lines))
    return [(n, lines[n - 1]) for n in range(first, last + 1)]
