"""The JSON shapes of findsession's results: a stable, documented schema (docs/json.md).

The CLI's `--json` and the MCP server's tools both build their answers here, one function
per shape, so a script and an agent see the same objects with the same field names and a
change to one reaches the other. Fields are only ever added within a schema version;
renaming or removing one bumps it.

One module per command family, every public name (the `*_SCHEMA` names included)
re-exported here: `common` (the schema names, `dumps`, a session's object), `search`
(hits and confidence), `resume` (the resume object and `open`), `sessions` (`read` and
the session list), `status` (`status`, `index`, `forget`, `sources`), `audit`, `titles`
(`titles` and its undo), `team` (`push`, `share`, `server status`), `handoff`, `blame`.

Each name is imported when first used (PEP 562): a client printing the object the service
sent needs `dumps` alone, not every builder and what they read.
"""

from typing import TYPE_CHECKING

from findsession.lazy import exports

if TYPE_CHECKING:
    from findsession.jsonout.audit import audit_json
    from findsession.jsonout.blame import blame_json
    from findsession.jsonout.common import (
        AUDIT_SCHEMA,
        BLAME_SCHEMA,
        FORGET_SCHEMA,
        HANDOFF_SCHEMA,
        INDEX_SCHEMA,
        OPEN_SCHEMA,
        PUSH_SCHEMA,
        READ_SCHEMA,
        SEARCH_SCHEMA,
        SERVER_SCHEMA,
        SESSIONS_SCHEMA,
        SHARES_SCHEMA,
        SOURCES_SCHEMA,
        STATUS_SCHEMA,
        TITLES_SCHEMA,
        UNDO_SCHEMA,
        dumps,
        session_json,
    )
    from findsession.jsonout.handoff import handoff_json
    from findsession.jsonout.resume import open_json, resume_json
    from findsession.jsonout.search import CONFIDENCE_SAYS, confidence_json, hit_json, search_json
    from findsession.jsonout.sessions import (
        FIRST_PROMPT_CHARS,
        message_json,
        read_json,
        sessions_json,
    )
    from findsession.jsonout.status import forget_json, index_json, sources_json, status_json
    from findsession.jsonout.team import push_json, server_json, shares_json
    from findsession.jsonout.titles import titles_json, undo_json

#: Each public name and the module of this package that defines it.
_HOMES = {
    "audit_json": "audit",
    "blame_json": "blame",
    "AUDIT_SCHEMA": "common",
    "BLAME_SCHEMA": "common",
    "FORGET_SCHEMA": "common",
    "HANDOFF_SCHEMA": "common",
    "INDEX_SCHEMA": "common",
    "OPEN_SCHEMA": "common",
    "PUSH_SCHEMA": "common",
    "READ_SCHEMA": "common",
    "SEARCH_SCHEMA": "common",
    "SERVER_SCHEMA": "common",
    "SESSIONS_SCHEMA": "common",
    "SHARES_SCHEMA": "common",
    "SOURCES_SCHEMA": "common",
    "STATUS_SCHEMA": "common",
    "TITLES_SCHEMA": "common",
    "UNDO_SCHEMA": "common",
    "dumps": "common",
    "session_json": "common",
    "handoff_json": "handoff",
    "open_json": "resume",
    "resume_json": "resume",
    "CONFIDENCE_SAYS": "search",
    "confidence_json": "search",
    "hit_json": "search",
    "search_json": "search",
    "FIRST_PROMPT_CHARS": "sessions",
    "message_json": "sessions",
    "read_json": "sessions",
    "sessions_json": "sessions",
    "forget_json": "status",
    "index_json": "status",
    "sources_json": "status",
    "status_json": "status",
    "push_json": "team",
    "server_json": "team",
    "shares_json": "team",
    "titles_json": "titles",
    "undo_json": "titles",
}

__all__ = [
    "BLAME_SCHEMA",
    "HANDOFF_SCHEMA",
    "handoff_json",
    "blame_json",
    "PUSH_SCHEMA",
    "SERVER_SCHEMA",
    "SHARES_SCHEMA",
    "push_json",
    "server_json",
    "shares_json",
    "AUDIT_SCHEMA",
    "CONFIDENCE_SAYS",
    "FIRST_PROMPT_CHARS",
    "FORGET_SCHEMA",
    "INDEX_SCHEMA",
    "OPEN_SCHEMA",
    "READ_SCHEMA",
    "SEARCH_SCHEMA",
    "SESSIONS_SCHEMA",
    "SOURCES_SCHEMA",
    "STATUS_SCHEMA",
    "TITLES_SCHEMA",
    "UNDO_SCHEMA",
    "audit_json",
    "confidence_json",
    "dumps",
    "forget_json",
    "hit_json",
    "index_json",
    "message_json",
    "open_json",
    "read_json",
    "resume_json",
    "search_json",
    "session_json",
    "sessions_json",
    "sources_json",
    "status_json",
    "titles_json",
    "undo_json",
]


__getattr__, __dir__ = exports(__name__, _HOMES)
