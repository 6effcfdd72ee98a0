"""The audit of agents' searches: a keyed digest instead of the query (`key`), and a
record per answered MCP tool call, written before the answer (`recorder`)."""

from findsession.audit.key import AuditKeyError, digest, key_path, load_key
from findsession.audit.recorder import AuditFailed, Auditor

__all__ = ["AuditFailed", "AuditKeyError", "Auditor", "digest", "key_path", "load_key"]
