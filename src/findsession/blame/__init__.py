"""`findsession blame`: from a file back to the sessions that wrote it.

`trace` answers from the index of files written (`storage/writes.py`, derived from each
session's stored messages by `indexing/writes.py`): `paths` says whether a stored write is
of the file asked about, as its session saw the path; `lines` whether its text holds the
file's lines as they read now.
"""

from findsession.blame.trace import blame

__all__ = ["blame"]
