"""Bring the index up to date with the transcripts on disk, reading only what changed.

`scan` finds the files and checks they may be read; `file` reads one changed file
through its source's cursor; `records` stores what it gave (redacted, private and
excluded sessions dropped, replays skipped); `session` rebuilds the sessions it touched;
`run` ties them together in commit groups and records the run. Nothing here knows a
transcript format: that stays behind `findsession.sources`.
"""

from __future__ import annotations

from findsession.domain import Root
from findsession.indexing.report import IndexReport, Progress
from findsession.indexing.run import index_roots

__all__ = ["IndexReport", "Progress", "Root", "index_roots"]
