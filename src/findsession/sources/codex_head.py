"""A Codex rollout's first lines and the `session_meta` payloads among them.

What a rollout is (its id, parent, role) is told from its start, both when it is
described for indexing (`codex`) and when a `/review` rollout looks among its siblings
for the session it reviewed for (`codex_review`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from findsession.sources.codex_zst import is_compressed
from findsession.sources.opening import open_regular

#: Bytes of a rollout's start read to find its `session_meta` lines (the first holds the
#: whole system prompt and tool list, tens of KB).
HEAD_BYTES = 8 << 20
#: Lines read for them: a replayed parent's `session_meta` follows the rollout's own.
HEAD_LINES = 3


def head(path: Path, lines: int) -> bytes:
    """A rollout's first lines (at most `HEAD_BYTES`), decompressed; empty if unreadable."""
    try:
        with open_regular(str(path)) as fh:
            if not is_compressed(path.name):
                return _read_head(fh, lines)
            import zstandard  # only a compressed rollout pays its import

            try:
                reader = zstandard.ZstdDecompressor().stream_reader(fh, read_across_frames=True)
                return _read_head(reader, lines)
            except zstandard.ZstdError:
                return b""
    except OSError:
        return b""


def head_metas(path: Path) -> list[dict[str, Any]]:
    """The `session_meta` payloads among a rollout's first lines (none if unreadable)."""
    metas = []
    for number, raw in enumerate(head(path, HEAD_LINES).split(b"\n")[:HEAD_LINES], 1):
        try:
            obj = json.loads(raw.decode("utf-8", "replace"))
        except (ValueError, RecursionError):
            continue
        if not isinstance(obj, dict):
            continue
        if obj.get("type") == "session_meta" and isinstance(obj.get("payload"), dict):
            metas.append(obj["payload"])
        elif number == 1 and "type" not in obj and isinstance(obj.get("id"), str):
            metas.append(obj)  # the first rollouts wrote the meta bare
    return metas


def _read_head(fh: Any, lines: int) -> bytes:
    data = b""
    while len(data) < HEAD_BYTES and data.count(b"\n") < lines:
        chunk = fh.read(min(1 << 20, HEAD_BYTES - len(data)))
        if not chunk:
            break
        data += chunk
    return data
