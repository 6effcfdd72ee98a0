"""JSON over HTTP to a server the user configured (an embedding or a title model).

Only the standard library's client is used, and only to the URL the config names:
nothing leaves the machine unless the person chose a server. Each caller names the error
its own callers expect, so a failure reads the same wherever it surfaces.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from findsession.errors import FindsessionError


def post_json(
    endpoint: str,
    body: dict[str, Any],
    *,
    api_key: str | None = None,
    timeout: float,
    error: type[FindsessionError],
) -> Any:
    """POST `body` as JSON and return the decoded answer; `error` says why not."""
    headers = {"Content-Type": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    request = urllib.request.Request(
        endpoint, data=json.dumps(body).encode(), headers=headers, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as exc:
        detail = exc.read()[:300].decode("utf-8", "replace")
        raise error(f"{endpoint} answered {exc.code}: {detail}") from exc
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise error(f"cannot reach {endpoint}: {exc}") from exc
