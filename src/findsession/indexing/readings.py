"""Files an older findsession read, read again by this one.

An unchanged file costs a stat, so a release that reads a format better (a record it
dropped, a turn it built wrong) would otherwise leave every file indexed before it as
the older release read it, for as long as the file does not change: a Claude Code
session that began with `/init` stayed without its first turn after the fix. Each source
says which reading of its files it gives (`Source.reads`), and what every source shares,
turn building and redaction, has its own (`SHARED`): a secret of a kind a newer release
knows is redacted from files an older one stored in clear. The index keeps, per source,
the reading its files were read with (the `settings` row `reading.<kind>`); where it
differs from this release's, the source's files are marked to be read from the start
(`read_again`) in the same transaction that records the new reading. A run cut short
leaves them marked, and the next run reads them; vectors are kept by text, so a unit
read again with the same text is not embedded again.

An index made before readings were recorded holds no such row: its files were read
with the first reading (`FIRST`). So a source with no file in the index gets this
release's reading recorded by the first run that walks one of its roots, before it reads
a file there: the files a run reads from now on are read with it. (A file enters the
index only by such a run: a run told which files changed reads only files it knows.)
Only those sources are asked, so a run imports no source it does not read.
"""

from __future__ import annotations

from collections.abc import Collection

from findsession.sources import SOURCES
from findsession.storage.base import FileState
from findsession.storage.views import IndexStore

#: The reading every source shares: turn building (`indexing.turns`) and redaction
#: (`redact`). 2: a turn may open without a typed prompt (a session started by `/init`
#: kept its first replies in no turn). 3: thirteen more kinds of secret are redacted
#: (Vault, Groq, DigitalOcean tokens, `curl -u`, `.netrc`, ...), and a token the stored
#: cap cuts keeps no prefix. 4: Tavily's API keys are redacted.
SHARED = 4
#: What an index made before readings were recorded was read with.
FIRST = "1.1"


def reading(kind: str) -> str:
    """This release's reading of a source's files: the shared one's, then the source's."""
    return f"{SHARED}.{SOURCES[kind].reads}"


def read_again_if_read_differently(
    store: IndexStore, known: dict[str, FileState], walked: Collection[str]
) -> list[str]:
    """Mark to be read from the start every known file of a source whose stored reading
    is not this release's, record this release's, and return the sources so marked;
    record this release's reading for each source of the roots about to be `walked`
    that has none and no file in the index yet.

    Called at the start of a run that walks its roots, before it decides what changed;
    the caller reads the files' states again when any source was marked."""
    by_kind: dict[str, list[str]] = {}
    for path, state in known.items():
        by_kind.setdefault(state.source, []).append(path)
    marked: list[str] = []
    with store.transaction():
        for kind, paths in sorted(by_kind.items()):
            if kind not in SOURCES:
                continue  # a source this release does not have: its files stay as read
            key = f"reading.{kind}"
            if (store.setting(key) or FIRST) == reading(kind):
                continue
            for path in paths:
                store.read_again(path)
            store.set_setting(key, reading(kind))
            marked.append(kind)
        for kind in dict.fromkeys(walked):
            if kind in SOURCES and kind not in by_kind and store.setting(f"reading.{kind}") is None:
                store.set_setting(f"reading.{kind}", reading(kind))
    return marked
