"""A chat app's data export (ChatGPT, Claude.ai, Gemini Apps): where its conversations
are, how they are read again when a newer export comes, and the `Source` the three
share.

An export is a root the person names (`findsession index --source chatgpt EXPORT`):
the zip as downloaded, the folder it unpacks to, the one JSON file that holds the
conversations, or a folder of several exports. Nothing on the machine is scanned for
one, and nothing in it is ever written: a zip is read in place, member by member.
The index remembers the root (its files' rows name it), so later runs read it again,
and a newer export put beside the older one, or over it, is read too.

One file holds many conversations, so it is a file of sibling sessions: each
conversation is the session `<kind>:<its id in the app>`, whichever export it was read
from. A newer export of the same account holds the same ids, so a conversation read
again from it replaces what the older export gave (the indexer drops the older copy
first) instead of being indexed twice; one deleted from the account is simply absent
from the newer export and stays as the older export gave it. Each conversation also
gives its revision (the app's last-changed time, `MetaKind.REVISION`): read from an
export whose copy is no newer than the one another export gave, it is left as the index
holds it (`indexing/revisions.py`).

Within one file, each conversation's content is digested as it is read; the digests are
the state of the file's cursor, so an export rewritten in place re-reads only the
conversations that changed. Records are numbered `foreign_db.line_of(rank, position)`:
the rank a hash of the conversation's id, position 0 its title, 1 its revision, the
messages from 2.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any, Protocol

from findsession.domain import Message, MetaEvent, MetaKind, Problem, Resume, Session
from findsession.redact import redact
from findsession.sources import budget
from findsession.sources.base import Skip, Source, SourceFile, texts_by_line
from findsession.sources.cursor import Cursor, Reading, Record
from findsession.sources.cursor_ide_records import PLACEHOLDER_TITLES, rank_of
from findsession.sources.export_archive import document
from findsession.sources.foreign_db import line_of, position_of
from findsession.sources.json_array import Item, Items
from findsession.sources.opening import open_regular
from findsession.sources.resuming import no_resume
from findsession.sources.walking import walk

#: A conversation's title, its revision, and where its messages start.
TITLE, REVISION, FIRST = 0, 1, 2
_KEY = re.compile(r"[A-Za-z0-9_.\-]{1,100}")


@dataclass
class Conversation:
    """One conversation as the export holds it: its id in the app (the session's key),
    a digest of its text (its token), and what its format reads it from."""

    key: str
    token: str
    value: Any
    #: Where it sits in the document (its item's place), for problems.
    index: int = 0


class ExportFormat(Protocol):
    """What one app's export differs in: the file that holds its conversations, and
    what a conversation means."""

    #: The app's name, as people know it.
    app: str
    #: The file name that holds the conversations (`conversations.json`).
    document: str

    def is_document(self, path: str) -> bool:
        """Whether a file (or a zip's member) at `path` holds the conversations."""

    def conversations(
        self, items: Iterable[Item], problems: list[Problem]
    ) -> Iterator[Conversation]:
        """The conversations the document's items hold."""

    def records(self, conv: Conversation, problems: list[Problem]) -> list[Record]:
        """One conversation as format-free records, numbered by `line`."""

    def link(self, key: str) -> str | None:
        """Where the app shows the conversation `key`, for the person to open it."""

    def unread(self, path: str) -> str | None:
        """Why a file of the export that is not read is named (another form of the
        conversations), or None for every other file."""


@dataclass(frozen=True)
class ConversationsArray:
    """An export whose conversations are one JSON array in `conversations.json`
    (ChatGPT's, Claude.ai's): what each app differs in given as data, its conversation
    read from an item (`read_one`) and as records (`to_records`), and its chats' address
    (`chat_link`, with `{key}`)."""

    app: str
    read_one: Callable[[Item], Conversation | Problem]
    to_records: Callable[[Conversation, list[Problem]], list[Record]]
    chat_link: str
    document: str = "conversations.json"

    def is_document(self, path: str) -> bool:
        return path.replace("\\", "/").rsplit("/", 1)[-1] == self.document

    def conversations(
        self, items: Iterable[Item], problems: list[Problem]
    ) -> Iterator[Conversation]:
        return conversations_of(items, problems, self.app, self.read_one)

    def records(self, conv: Conversation, problems: list[Problem]) -> list[Record]:
        return self.to_records(conv, problems)

    def unread(self, path: str) -> str | None:
        return None

    def link(self, key: str) -> str | None:
        return self.chat_link.format(key=key)


class ChatExportSource(Source):
    """One chat app's exports: read only from the roots the person names."""

    kind: str
    format: ExportFormat

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        """The export named (a zip, or the conversations' file), or every zip and every
        conversations' file under a folder named (an unpacked export, or a folder the
        exports are downloaded to). An export deleted since it was named gives nothing:
        its sessions stay, marked missing."""
        if not root.exists():
            return
        if root.is_file():
            yield root
            return
        for folder, _dirs, files in walk(root, skip):
            for name in files:
                path = folder / name
                if name.lower().endswith(".zip") or self.format.is_document(str(path)):
                    yield path
                elif (why := self.format.unread(str(path))) is not None:
                    skip(path, why)

    def describe(self, path: Path) -> SourceFile:
        """Every export of an app gives its conversations the same ids (`<kind>:<id>`),
        so a conversation is one session whichever export it came from."""
        return SourceFile(path, self.kind, session_id=self.kind, sibling_sessions=True)

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        return read_export(fh, cursor, self.format)

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        """Each wanted message as the export holds it, numbered as `read` did."""
        ranks = {position_of(line)[0] for line in lines}
        records: list[Record] = []
        with open_regular(str(path)) as fh, document(fh, self.format) as (raw, _why):
            if raw is None:
                return {}
            for conv in self.format.conversations(Items(raw), []):
                if rank_of(conv.key) in ranks:
                    records.extend(self.format.records(conv, []))
        return texts_by_line(records, lines)

    def resume(self, session: Session) -> Resume:
        key = session.id.split(":", 1)[-1]
        link = self.format.link(key)
        where = f": open {link}" if link else ""
        return no_resume(
            f"{self.format.app} is a web app with no command to go back into a conversation{where}"
        )

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: an export is the app's own record of the account, never written."""
        return None


def read_export(fh: IO[bytes], cursor: Cursor | None, fmt: ExportFormat) -> Reading:
    """The conversations that are new or changed since `cursor`, each given whole.

    A conversation whose digest is the one the cursor holds is passed over; one absent
    from this export keeps what it gave before. A read the file's budget cuts keeps the
    digests of the conversations it read and starts again on the next run; an export
    that stops early (a download cut short) gives the conversations before the cut,
    and the cut is named for the file.
    """
    size = os.fstat(fh.fileno()).st_size
    old = _tokens(cursor)
    problems: list[Problem] = []
    new: dict[str, str] = {}
    records: list[Record] = []
    replaced: set[str] = set()
    spend = budget.current()
    complete = True
    with document(fh, fmt) as (raw, why):
        if raw is None:
            return Reading([], Cursor(size), fresh=False, binary=why)
        items = Items(raw)
        for conv in fmt.conversations(items, problems):
            same = old.get(conv.key) == conv.token
            # A conversation read costs a line of the budget; one passed over only time,
            # so a read cut short goes on past it next run.
            if not (spend.in_time() if same else spend.line()):
                complete = False
                break
            new[conv.key] = conv.token
            if same:
                continue
            records.extend(fmt.records(conv, problems))
            replaced.add(conv.key)
        if complete and items.ended is not None:
            spend.stop(f"{fmt.document}: {items.ended}; the conversations before it are read")
    state = {**old, **new}
    # A read the budget cut leaves its offset short of the file's end, so the next run
    # reads the file again and goes on from the conversations not yet read.
    now = Cursor(size if complete else 0, len(state), None, state)
    if not replaced and not problems:
        return Reading([], now, fresh=False, unchanged=complete and items.ended is None)
    return Reading(
        records,
        now,
        fresh=False,
        replaced=frozenset(replaced),
        bytes_read=size,
        lines_read=len(new),
        problems=problems,
    )


def _tokens(cursor: Cursor | None) -> dict[str, str]:
    if cursor is None or not cursor.state:
        return {}
    return {str(k): str(v) for k, v in cursor.state.items()}


#: Items read before a document none of whose items is a conversation is given up on.
_TRIED = 20


def conversations_of(
    items: Iterable[Item],
    problems: list[Problem],
    app: str,
    conversation: Callable[[Item], Conversation | Problem],
) -> Iterator[Conversation]:
    """Each item's conversation; an item that is none is a problem. A document whose
    first items are all none (another app's export, named with the wrong source) is
    given up on after a few, in one problem, not one per item."""
    found = 0
    for n, item in enumerate(items, 1):
        got = conversation(item)
        if isinstance(got, Conversation):
            found += 1
            yield got
            continue
        problems.append(got)
        if not found and n >= _TRIED:
            why = f"its first {n} items are not {app} conversations: read no further"
            problems.append(Problem(0, f"not a {app} export", why))
            return


def token(*texts: str) -> str:
    """A short digest of a conversation's text, to tell whether it changed."""
    h = hashlib.blake2b(digest_size=8)
    for text in texts:
        h.update(text.encode("utf-8", "replace"))
        h.update(b"\0")
    return h.hexdigest()


def array_item(
    item: Item, ids: tuple[str, ...], holds: str, app: str, other: tuple[str, str]
) -> Conversation | Problem:
    """The conversation an item of `conversations.json` is: keyed by the first of `ids`
    it has (`key_of`), holding `holds` (the field only `app`'s conversations have). Any
    other item is a problem at its place: named as the other app's conversation when it
    holds that app's field (`other`: the field, the app's name), as an export read with
    the wrong source shows, else as not one of `app`'s. ChatGPT's and Claude.ai's
    exports differ only in these names."""
    doc = item.value
    key = None
    if isinstance(doc, dict):
        key = key_of(next((found for at in ids if (found := doc.get(at))), None))
    if key is None or holds not in doc:
        field, theirs = other
        mistaken = isinstance(doc, dict) and field in doc
        shape = f"a {theirs} conversation" if mistaken else f"not a {app} conversation"
        return Problem(item.index + 1, shape, item.text[:80])
    return Conversation(key, token(item.text), doc, item.index)


def key_of(value: Any) -> str | None:
    """A conversation's id as a session key: as the app wrote it when it looks like an
    id, else a digest of it (a key is part of a session id people type, and kept in the
    file's cursor: one that reads as a secret is never kept as it is)."""
    if not isinstance(value, str) or not value:
        return None
    if _KEY.fullmatch(value) and not redact(value)[1]:
        return value
    return "h-" + token(value)


def heads(conv: Conversation, title: str | None, revision: str | None) -> list[Record]:
    """A conversation's title and revision records, at their fixed places. A title the
    app gives every conversation before it names one ("New chat") is none: the first
    prompt says more."""
    rank = rank_of(conv.key)
    out: list[Record] = []
    if title and title.strip() and title.strip().lower() not in PLACEHOLDER_TITLES:
        out.append(
            MetaEvent(MetaKind.AI_TITLE, title.strip(), line_of(rank, TITLE), None, conv.key)
        )
    if revision:
        out.append(MetaEvent(MetaKind.REVISION, revision, line_of(rank, REVISION), None, conv.key))
    return out


def numbered(conv: Conversation, messages: Iterable[Message]) -> list[Message]:
    """A conversation's messages with their line numbers, in order, from `FIRST`."""
    rank = rank_of(conv.key)
    out = []
    for position, msg in enumerate(messages, FIRST):
        out.append(replace(msg, line=line_of(rank, position), session_key=conv.key))
    return out


def problem_line(conv: Conversation) -> int:
    """The line a problem of a conversation is reported at: its title's."""
    return line_of(rank_of(conv.key), TITLE)
