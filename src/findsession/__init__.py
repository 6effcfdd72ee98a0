"""findsession: find the AI coding-agent session you were working on X in.

The public Python API is the core API, `Findsession`, and the dataclasses it returns;
the CLI and the MCP server use nothing else, so anything they can do a script can do:

    from findsession import Findsession

    with Findsession.open() as fs:
        fs.index(fs.roots())
        fs.embed()
        for hit in fs.search("the deploy that lied about being live").hits:
            print(hit.session.id, hit.snippet)
"""

from findsession.api import BadOption, Findsession, ForgetReport, RootChoice, SearchOptions
from findsession.domain import Hit, IndexStatus, Message, Root, SearchResponse, Session, Turn
from findsession.errors import FindsessionError

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
