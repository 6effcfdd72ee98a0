"""A session as the reader shows it: `findsession.read/1` with every message's size.

Tool output can run to megabytes (a build log, a file dumped whole); the reader shows
it collapsed with its size, so each message's text is cut at `TEXT_CAP` characters and
`chars` says how long it was. Everything else is the CLI's `read --tools --json`.
"""

from __future__ import annotations

from typing import Any

from findsession import jsonout

#: A message longer than this is sent cut (its `chars` says how long it was).
TEXT_CAP = 20_000


def read_payload(view: Any, cap: int | None = TEXT_CAP) -> dict[str, Any]:
    """`view`: what `Findsession.read` returns; `cap` None keeps every message whole (an
    export is read on paper, not scrolled through in a browser tab)."""
    data = jsonout.read_json(view)
    for turn in data["turns"]:
        for message in turn["messages"]:
            text = message["text"]
            message["chars"] = len(text)
            if cap is not None and len(text) > cap:
                message["text"] = text[:cap]
    return data
