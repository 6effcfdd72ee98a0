"""findsession's public face: index, embed, search, read, resume, list, hand off, blame,
title, forget, status; `__all__` is everything it offers.

Every interface (the CLI, the MCP server, the resident service, the web page) calls
only this: arguments in, rendering out. What each of them used to do on its own (choose
the roots, index then embed, scope a project, look a session up, list recent sessions,
leave the asking agent's own session out, forget) happens here once, so the interfaces
cannot drift apart. A script uses it the same way (docs/python-api.md):

    from findsession.api import Findsession, ReadOptions

    with Findsession.open() as fs:
        fs.index(fs.roots())
        fs.embed()
        response = fs.search("the deploy that lied about being live")
        first = response.hits[0]
        view = fs.read(first.session.id, ReadOptions(turn=first.turn, context=1))

Each question's options are one typed object (`SearchOptions`, `ReadOptions`,
`ListOptions`, `BlameOptions`, `HandoffOptions`), the same an interface builds and the
service receives. The class is assembled in `findsession.core`, one group of methods per
module; each name here is imported when first asked for (PEP 562), so a command line
that only needs the option names (`--kind`'s choices) does not load the index.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from findsession.lazy import exports

if TYPE_CHECKING:
    from findsession.audit import Auditor
    from findsession.config import Config
    from findsession.core.archiving import RestoreReport
    from findsession.core.findsession import Findsession, configured_server
    from findsession.core.forgetting import ForgetReport
    from findsession.core.indexing import Say
    from findsession.core.options import BlameOptions, HandoffOptions, ListOptions, ReadOptions
    from findsession.core.pushing import BATCH, PushReport
    from findsession.core.sharing import Share
    from findsession.domain import (
        AuditRecord,
        Blame,
        Brief,
        Hit,
        IndexStatus,
        Resume,
        Root,
        SearchResponse,
        Session,
        SourceReport,
    )
    from findsession.errors import FindsessionError, SessionNotFound
    from findsession.projects import bounded
    from findsession.reader import SessionView
    from findsession.roots import RootChoice
    from findsession.search.filters import (
        KINDS,
        MAX_TOP,
        MODES,
        SPEAKERS,
        BadOption,
        SearchOptions,
        parse_when,
    )
    from findsession.sources import HANDOFF_AGENTS
    from findsession.sources import KINDS as SOURCE_KINDS
    from findsession.storage import add_person, init_server, remove_person, server_status
    from findsession.storage.push import PushCounts
    from findsession.storage.team import Person, ServerStatus
    from findsession.titles.report import TitlesReport, UndoReport

#: Each public name: the module that defines it (and its name there, when another).
_HOMES: dict[str, str] = {
    "Findsession": "findsession.core.findsession",
    "configured_server": "findsession.core.findsession",
    "SearchOptions": "findsession.search.filters",
    "ReadOptions": "findsession.core.options",
    "ListOptions": "findsession.core.options",
    "BlameOptions": "findsession.core.options",
    "HandoffOptions": "findsession.core.options",
    "KINDS": "findsession.search.filters",
    "MAX_TOP": "findsession.search.filters",
    "MODES": "findsession.search.filters",
    "SPEAKERS": "findsession.search.filters",
    "BadOption": "findsession.search.filters",
    "parse_when": "findsession.search.filters",
    "SOURCE_KINDS": "findsession.sources.registry:KINDS",
    "HANDOFF_AGENTS": "findsession.sources.registry",
    "SearchResponse": "findsession.domain",
    "Hit": "findsession.domain",
    "Session": "findsession.domain",
    "Resume": "findsession.domain",
    "Root": "findsession.domain",
    "IndexStatus": "findsession.domain",
    "SourceReport": "findsession.domain",
    "AuditRecord": "findsession.domain",
    "Blame": "findsession.domain",
    "Brief": "findsession.domain",
    "SessionView": "findsession.reader",
    "RootChoice": "findsession.roots",
    "ForgetReport": "findsession.core.forgetting",
    "RestoreReport": "findsession.core.archiving",
    "Say": "findsession.core.indexing",
    "Auditor": "findsession.audit",
    "Config": "findsession.config",
    "FindsessionError": "findsession.errors",
    "SessionNotFound": "findsession.errors",
    "bounded": "findsession.projects",
    "TitlesReport": "findsession.titles.report",
    "UndoReport": "findsession.titles.report",
    "BATCH": "findsession.core.pushing",
    "PushReport": "findsession.core.pushing",
    "PushCounts": "findsession.storage.push",
    "Share": "findsession.core.sharing",
    "Person": "findsession.storage.team",
    "ServerStatus": "findsession.storage.team",
    "add_person": "findsession.storage",
    "init_server": "findsession.storage",
    "remove_person": "findsession.storage",
    "server_status": "findsession.storage",
}

__all__ = [
    "AuditRecord",
    "Auditor",
    "BATCH",
    "BadOption",
    "Blame",
    "BlameOptions",
    "Brief",
    "Config",
    "Findsession",
    "FindsessionError",
    "ForgetReport",
    "HANDOFF_AGENTS",
    "HandoffOptions",
    "Hit",
    "IndexStatus",
    "KINDS",
    "ListOptions",
    "MAX_TOP",
    "MODES",
    "Person",
    "PushCounts",
    "PushReport",
    "ReadOptions",
    "Resume",
    "RestoreReport",
    "Root",
    "RootChoice",
    "SOURCE_KINDS",
    "SPEAKERS",
    "Say",
    "SearchOptions",
    "SearchResponse",
    "ServerStatus",
    "Session",
    "SessionNotFound",
    "SessionView",
    "Share",
    "SourceReport",
    "TitlesReport",
    "UndoReport",
    "add_person",
    "bounded",
    "configured_server",
    "init_server",
    "parse_when",
    "remove_person",
    "server_status",
]


__getattr__, __dir__ = exports(__name__, _HOMES)
