"""The service's answer to one operation: the typed request read from the message, run on
a connection of the warm index, the versioned object (or the error) sent back.

No command line is parsed here and nothing is printed: the client built the request
from its own options (its directory, its terminal) and renders the answer itself, with
the renderer it uses when it answers in-process. What an operation does is
`protocol.operations`, shared with that in-process path.
"""

from __future__ import annotations

from typing import Any

from findsession.errors import FindsessionError
from findsession.protocol.operations import answer
from findsession.protocol.requests import error_object, request_of
from findsession.service.resident import Resident


def dispatch(resident: Resident, message: dict[str, Any]) -> dict[str, Any]:
    """`{"ok": true, "result", "ms"}`, or `{"ok": false, "error"}` for a request the
    service could not read or an error of the operation (a session not found)."""
    try:
        request = request_of(message.get("op"), message.get("request", {}))
        with resident.index() as fs:
            answered = answer(fs, request)
    except FindsessionError as exc:
        return {"ok": False, "error": error_object(exc)}
    return {"ok": True, "result": answered.result, "ms": round(answered.ms, 3)}
