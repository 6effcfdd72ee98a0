"""The audit of agents' searches, as the core API offers it: a recorder, the log.

Kept apart from reading because it touches the audit key beside the index.
"""

from __future__ import annotations

from findsession.audit import Auditor, digest, key_path, load_key
from findsession.core.base import Core
from findsession.domain import AuditRecord
from findsession.search.filters import parse_when


class AuditingMixin(Core):
    """`Findsession`'s audit: a recorder per MCP connection, the log."""

    def auditor(self, connection: str) -> Auditor:
        """What records one MCP connection's answers, under the key beside the index."""
        return Auditor(self.store, key_path(self.path), connection)

    def audit_log(
        self, *, since: str | None = None, limit: int = 50, query: str | None = None
    ) -> list[AuditRecord]:
        """Audit records, newest first; `query` keeps the searches for exactly that text
        (its digest under the index's key: whoever holds the key can check)."""
        start = parse_when(since, name="since") if since else None
        wanted = digest(load_key(key_path(self.path), create=False), query) if query else None
        return self.store.audit_records(start, limit, wanted)
