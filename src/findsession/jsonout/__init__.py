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
"""

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
