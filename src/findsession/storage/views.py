"""What each user of the index is given: the protocols of `base` it asks of, together.

A function that takes the index names the narrowest of these (or one protocol alone):
what it may do to the index is then read from its signature, and a backend that serves
search need not be one that can write. `Storage`, everything at once, is for what opens
an index and hands it on: the core API.
"""

from __future__ import annotations

from typing import Protocol

from findsession.storage import base
from findsession.storage.writes import WriteIndex


class SearchStore(
    base.Index, base.SearchReader, base.KeywordIndex, base.VectorIndex, base.SessionReader, Protocol
):
    """Search: both retrievals, the units' fields, the sessions they belong to."""


class IndexStore(
    base.Index,
    base.IndexWriter,
    base.Embedding,
    base.SessionReader,
    base.TitleLog,
    WriteIndex,
    Protocol,
):
    """An index run: files, records, sessions and units written, then embedded."""


class TitleStore(
    base.Index, base.IndexWriter, base.SessionReader, base.TitleLog, base.KeywordIndex, Protocol
):
    """Titles: a session's material and its words' rarity, the title log, the files a
    title is written into and read back from."""


class ReadStore(base.SessionReader, base.IndexWriter, Protocol):
    """A session read back, from the index or (raw) from the files its lines came from."""


class BlameStore(base.SessionReader, WriteIndex, base.Embedding, Protocol):
    """Blame: the files written, the sessions that wrote them, their turns' prompts."""


class RootsStore(base.SessionReader, base.Upkeep, Protocol):
    """Which folders an index run reads, and each source's counts."""
