"""Letta Code's local conversations: where they are, what a file is, and the `Source`.

Letta Code keeps an agent's conversations on a Letta server (Letta Cloud, or one the
person runs), where nothing is on this machine to read; with its local backend
(`letta --backend local`, `letta backend local`, or `LETTA_LOCAL_BACKEND_EXPERIMENTAL=1`)
it keeps them in a storage folder instead: `$LETTA_LOCAL_BACKEND_DIR`, else
`~/.letta/lc-local-backend`. Each conversation is a folder of its `conversations/`,
named by its key in base64url: `conversation:<id>` (`local-conv-1`, counted in each
storage folder), or `default:<agent id>` for an agent's default conversation. The folder
holds `conversation.json` (`id`, `agent_id`, `summary`: its title, `/new <name>`'s or
one made for it; written again whole at each change), `manifest.json`,
`system-prompt.json` (the compiled system prompt, not read) and `messages.jsonl`, the
transcript. Beside `conversations/` are `agents/`, `providers/` (keys) and `memfs/` (the
agents' memory, a git repository each): none is a conversation, none is read.

`messages.jsonl` is Pi's session file (`letta_records`): a `session` header (`id`,
`cwd`), then `message` and `compaction` entries, appended as the conversation goes on and
written again whole when Letta repairs or upgrades it (read on from the JSON-lines
cursor, from the start when the bytes before it changed). A message Letta changes after
storing it is appended again under its id, and only its last copy counts; the cursor
keeps the ids of the last messages read, and an entry read on from it that holds one of
them again has the file read from the top (`LettaSource.read`). The pi-ai messages of the
format before it (`pi-ai-message-jsonl`, one message a line, no header) are read too;
the oldest rows (`parts`, which Letta itself reads only after `letta local-backend
migrate-transcripts`) are not.

A conversation's id is unique within its storage folder only, so its session is indexed
as `<store id>:<key>` (`base.store_id` of the storage folder), as a store's are. A
subagent's conversation (another agent's, in the same storage folder) is linked to the
conversation that started it (`letta_subagents`).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from findsession.domain import MetaEvent, MetaKind, Resume, Session
from findsession.sources.base import Skip, Source, SourceFile, store_id
from findsession.sources.cursor import Cursor, Reading, Record, State
from findsession.sources.json_doc import side_object
from findsession.sources.jsonl import clean_text, read_with_state, texts_at
from findsession.sources.letta_records import LettaParser
from findsession.sources.letta_subagents import subagent
from findsession.sources.opening import open_regular
from findsession.sources.pi import header_cwd
from findsession.sources.places.clis import letta_storage_dir
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import option, resume_in_cwd
from findsession.sources.walking import walk

KIND = SourceKind.LETTA
MESSAGES, CONVERSATION = "messages.jsonl", "conversation.json"
#: The storage folder's other folders: agents, keys, and the agents' memory repositories.
_NOT_CONVERSATIONS = frozenset(("agents", "providers", "memfs"))
_SIDE_BYTES = 1 << 20


class LettaSource(Source):
    """Letta Code's `lc-local-backend/conversations/<key>/messages.jsonl`."""

    kind = KIND
    #: 2: a message appended again under its id replaces its earlier copy.
    #: 3: a subagent's conversation is linked to the conversation that started it.
    reads = 3

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        """Each conversation's `messages.jsonl` under `root` (a storage folder, its
        `conversations/`, one conversation's folder, or the file); a conversation not yet
        spoken in has none."""
        if root.is_file():
            if root.name == MESSAGES:
                yield root
            return
        for folder, dirs, names in walk(root, skip):
            if MESSAGES in names:
                yield folder / MESSAGES
                dirs[:] = []
            else:
                dirs[:] = [d for d in dirs if d not in _NOT_CONVERSATIONS]

    def describe(self, path: Path) -> SourceFile:
        """A conversation; a subagent's (`letta_subagents`) linked to the conversation
        that started it."""
        sid = session_id(path)
        started = subagent(path, side_object(path.with_name(CONVERSATION), _SIDE_BYTES))
        if started is None:
            return SourceFile(path=path, source=KIND, session_id=sid)
        parent = f"{sid.split(':', 1)[0]}:{started.parent_key}" if started.parent_key else None
        return SourceFile(path=path, source=KIND, session_id=sid, is_subagent=True,
                          parent_id=parent, agent_type=started.kind)  # fmt: skip

    def stamp_paths(self, path: Path) -> list[str]:
        """`conversation.json`, where a title lands without a new message."""
        return [str(path.with_name(CONVERSATION))]

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        """The entries added since `cursor`, each message's last copy only; when one of
        them is a message read before it again, the whole file from the top."""
        # A read from the cursor starts after the header: its `cwd` is read again.
        cwd = header_cwd(fh) if cursor is not None else None
        reading, parser = _read(fh, cursor, lambda kept: LettaParser(cwd, _recent(kept)))
        if parser.copies.again:
            # The index holds its earlier copy: read from the top again, as a Codex
            # rollout is when what it appends changes what was read, and whole, since
            # a slice read on would find the copy of the slice before it again.
            reading, parser = _read(fh, None, lambda _: LettaParser(), sliced=False)
        reading.records = parser.copies.kept(reading.records)
        if not reading.binary:
            reading.records += _title(sf.path.parent)
        return reading

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        with open_regular(str(path)) as fh:
            return texts_at(fh, lines, LettaParser().parse)

    def resume(self, session: Session) -> Resume:
        """`letta --backend local --conv <id>` (an agent's default conversation:
        `--agent <agent id> --conv default`), in the conversation's working directory;
        a storage folder other than the default must be named in
        `LETTA_LOCAL_BACKEND_DIR`, which the command cannot carry."""
        key = session.id.split(":", 1)[1] if ":" in session.id else session.id
        if key.startswith("default:"):
            target = [*option("--agent", key.split(":", 1)[1]), "--conv", "default"]
        else:
            target = option("--conv", key)
        note = None
        storage = _storage_of(Path(session.file_path)) if session.file_path else None
        if storage is not None and storage != letta_storage_dir():
            note = f"Run it with LETTA_LOCAL_BACKEND_DIR={storage}: the conversation is there."
        return resume_in_cwd(session, "letta", "--backend", "local", *target, note=note)

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: Letta Code keeps a title in `conversation.json`, which it writes again
        whole; a line appended to the transcript would be read as an entry."""
        return None


def _read(
    fh: IO[bytes],
    cursor: Cursor | None,
    restore: Callable[[Cursor | None], LettaParser],
    sliced: bool = True,
) -> tuple[Reading, LettaParser]:
    """The entries after `cursor` (from the top when the file changed before it), with
    the parser that read them; the cursor keeps the ids of the last messages read."""

    def parse(line: int, obj: dict[str, Any], parser: LettaParser) -> list[Record]:
        return parser.parse(line, obj)

    return read_with_state(fh, cursor, parse, LettaParser, restore, _ids, sliced=sliced)


def _recent(cursor: Cursor | None) -> list[str]:
    """The ids of the last messages read before `cursor` (none from an older cursor)."""
    kept = (cursor.state or {}).get("ids") if cursor is not None else None
    try:
        ids = json.loads(kept) if isinstance(kept, str) else []
    except (ValueError, RecursionError):
        return []
    return [i for i in ids if isinstance(i, str)] if isinstance(ids, list) else []


def _ids(parser: LettaParser) -> State | None:
    recent = parser.copies.recent
    return {"ids": json.dumps(recent, separators=(",", ":"))} if recent else None


def session_id(path: Path) -> str:
    """`<store id of the storage folder>:<key>`: the key is the folder's name decoded
    (`conversation:` left off an ordinary conversation's), else the folder's name."""
    key = _decoded(path.parent.name) or clean_text(path.parent.name)
    key = key.removeprefix("conversation:")
    storage = _storage_of(path) or path.parent
    return f"{store_id('letta', storage)}:{key}"


def _decoded(name: str) -> str | None:
    try:
        key = base64.urlsafe_b64decode(name + "=" * (-len(name) % 4)).decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    ok = key.startswith(("conversation:", "default:")) and key.isprintable()
    return clean_text(key) if ok else None


def _storage_of(path: Path) -> Path | None:
    """The storage folder of a conversation's `messages.jsonl`, when it is in one."""
    conversations = path.parent.parent
    return conversations.parent if conversations.name == "conversations" else None


def _title(folder: Path) -> list[Record]:
    """`conversation.json`'s `summary`: the name `/new <name>` gave, or one Letta Code
    made for it (the file does not say which)."""
    summary = side_object(folder / CONVERSATION, _SIDE_BYTES).get("summary")
    if isinstance(summary, str) and summary.strip():
        return [MetaEvent(MetaKind.AI_TITLE, clean_text(summary.strip())[:200], 0)]
    return []
