"""The other interfaces the service runs inside itself, on its warm index: the page
(`findsession ui`) and an MCP server's session (`findsession serve`, relayed).

Named as `module:function`, as the command table names what runs a command, and
imported only when first asked for: a service nobody opened a page or an agent session
on never loads the web server or the MCP SDK, and no module of the service imports
another interface. Each function takes the service's `Resident`, the request that asked
for it and, for a session, the connection it then speaks on.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from importlib import import_module
from typing import Any

#: `op` -> the function that answers it, in the interface that owns it.
HOSTED: dict[str, str] = {
    "page": "findsession.web.served:page_for",
    "mcp": "findsession.mcp_server.hosted:session",
}
#: What ends each one that keeps running (the page's server), called as the service stops.
STOPS: dict[str, str] = {"page": "findsession.web.served:stop_page"}


def stop_hosted() -> None:
    """End what `STOPS` names, each only if it was ever started."""
    for ref in STOPS.values():
        module, name = ref.split(":")
        if module in sys.modules:
            getattr(sys.modules[module], name)()


def hosted(op: str) -> Callable[..., Any]:
    """The function `HOSTED` names for `op`, imported now."""
    module, name = HOSTED[op].split(":")
    return getattr(import_module(module), name)
