"""findsession: find the AI coding-agent session you were working on X in.

The public Python API is what this module exports; the CLI and the MCP server use
nothing else, so anything they can do a script can do too.
"""

from findsession.domain import Hit, Message, SearchResponse, Session, Turn
from findsession.errors import FindsessionError
from findsession.indexing import IndexReport, index_roots
from findsession.search.engine import SearchOptions, search
from findsession.storage.sqlite import Store

__all__ = [
    "FindsessionError",
    "Hit",
    "IndexReport",
    "Message",
    "SearchOptions",
    "SearchResponse",
    "Session",
    "Store",
    "Turn",
    "index_roots",
    "search",
]

__version__ = "0.1.0"
