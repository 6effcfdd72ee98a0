"""findsession: find the AI coding-agent session you were working on X in.

The public Python API is the core API, `Findsession`, and the dataclasses it returns;
the CLI and the MCP server use nothing else, so anything they can do a script can do:

    from findsession import Findsession

    with Findsession.open() as fs:
        fs.index(fs.roots())
        fs.embed()
        for hit in fs.search("the deploy that lied about being live").hits:
            print(hit.session.id, hit.snippet)

The names are imported when first asked for (PEP 562), not when the package is: every
submodule import runs this file first, and `findsession --help` or a keyword search
must not pay for the whole API (numpy, the storage layer, every source) up front.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from findsession.lazy import exports

if TYPE_CHECKING:
    from findsession.api import BadOption, Findsession, ForgetReport, RootChoice, SearchOptions
    from findsession.domain import Hit, IndexStatus, Message, Root, SearchResponse, Session, Turn
    from findsession.errors import FindsessionError

#: Each public name and the module that defines it.
_HOMES = {
    "BadOption": "findsession.api",
    "Findsession": "findsession.api",
    "ForgetReport": "findsession.api",
    "RootChoice": "findsession.api",
    "SearchOptions": "findsession.api",
    "Hit": "findsession.domain",
    "IndexStatus": "findsession.domain",
    "Message": "findsession.domain",
    "Root": "findsession.domain",
    "SearchResponse": "findsession.domain",
    "Session": "findsession.domain",
    "Turn": "findsession.domain",
    "FindsessionError": "findsession.errors",
}

__all__ = [
    "BadOption",
    "Findsession",
    "FindsessionError",
    "ForgetReport",
    "Hit",
    "IndexStatus",
    "Message",
    "Root",
    "RootChoice",
    "SearchOptions",
    "SearchResponse",
    "Session",
    "Turn",
]

__version__ = "0.1.0"


__getattr__, __dir__ = exports(__name__, _HOMES)
