"""Code Puppy's sessions: where they are, and the `Source` that reads them.

Code Puppy keeps everything in `~/.code_puppy/` on every system, unless an XDG variable
is set: then its cache folder is `$XDG_CACHE_HOME/code_puppy` and its data folder
`$XDG_DATA_HOME/code_puppy`. A conversation is saved (after each turn, at exit, and by
`/dump_context NAME`) as `<name>.json`, a versioned envelope of pydantic-ai's messages
(`code_puppy_records`), with `<name>_meta.json` beside it (`session_name`, `timestamp`,
`message_count`, `auto_saved`, and `scope_key`: the folder it was saved from). Where:

- `autosaves/` of the cache folder: every session, named `auto_session_<date>_<time>_
  <microseconds>_<pid>` unless the person named it (`code-puppy -r NAME` creates or
  continues `NAME.json`); an editor's sessions over ACP in `autosaves/acp/`;
- `contexts/` of the data folder: named sessions from before the two were one folder
  (Code Puppy moves them into `autosaves/` when it starts);
- `subagent_sessions/<session id>.json` of the data folder: each subagent's history
  (`invoke_agent`), with `<session id>.txt` beside it (`agent_name`, `initial_prompt`):
  a subagent of the session whose `invoke_agent` result first names its id.

Code Puppy writes a session again whole (a temporary file renamed into place), so it is
read whole when its content changed (`json_doc`). A compaction drops from the file the
messages it summarised or cut: what the index read before stays, and the document
carries on after it (`code_puppy_compaction`). Before its JSON envelope, Code Puppy
saved a session as a Python pickle, `<name>.pkl`: unpickling runs code, so findsession
never opens one; it reports it, read nothing (Code Puppy turns it into `<name>.json` and
moves it to `pre_v2_backup/` the next time it starts, which is not walked).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from findsession.domain import MetaEvent, MetaKind, Resume, Session
from findsession.sources.base import Skip, Source, SourceFile
from findsession.sources.code_puppy_compaction import follow
from findsession.sources.code_puppy_parents import subagent_parent
from findsession.sources.code_puppy_records import Context, envelope_records
from findsession.sources.cursor import Cursor, Reading, Record
from findsession.sources.generations import texts_by_generation
from findsession.sources.json_doc import load_or_none, read_document, side_object
from findsession.sources.jsonl import clean_text
from findsession.sources.opening import open_regular
from findsession.sources.places.data import CODE_PUPPY_SUBAGENTS as _SUBAGENTS
from findsession.sources.places.data import code_puppy_autosaves
from findsession.sources.registry import SourceKind
from findsession.sources.resuming import option, resume_anywhere
from findsession.sources.walking import walk

KIND = SourceKind.CODE_PUPPY
#: The folders a session file lies in; any other JSON in Code Puppy's folder (its
#: models, agents, plugins' settings) is not a session.
_FOLDERS = frozenset(("autosaves", "acp", "contexts", "subagent_sessions"))
#: Code Puppy's own sidecars, which share the `.json` suffix.
_SIDECARS = ("_meta.json", "_acp.json")
#: Where migrated pickles (and those it could not migrate) go: not sessions to read.
_BACKUP = "pre_v2_backup"
_AUTO = "auto_session_"
_PICKLE = (
    "a Code Puppy session saved as a Python pickle: not read, since unpickling runs code "
    "(Code Puppy rewrites it as JSON the next time it starts)"
)


def is_session_file(path: Path) -> bool:
    """A session's envelope (or an older pickle), not a sidecar."""
    name = path.name
    if name.endswith(".pkl"):
        return len(name) > len(".pkl")
    return name.endswith(".json") and not name.endswith(_SIDECARS) and len(name) > 5


class CodePuppySource(Source):
    """Code Puppy's `autosaves/*.json`, older `contexts/*.json` and
    `subagent_sessions/*.json`."""

    kind = KIND
    #: 2: what was read before a compaction stays (the cursor keeps where the session's
    #: messages stand); an index made before has its sessions read again once, which
    #: loses nothing: it held what each file held, read whole at every change.
    reads = 2

    def discover(self, root: Path, skip: Skip) -> Iterator[Path]:
        """Every session file under `root` (a sessions folder, a copy of Code Puppy's
        folder, or one file); a pickle only where no envelope of the same name stands."""
        if root.is_file():
            if is_session_file(root):
                yield root
            return
        for folder, dirs, names in walk(root, skip):
            dirs[:] = [d for d in dirs if d != _BACKUP]
            if folder != root and folder.name not in _FOLDERS:
                continue
            present = set(names)
            for name in names:
                path = folder / name
                if not is_session_file(path):
                    continue
                if name.endswith(".pkl") and name[: -len(".pkl")] + ".json" in present:
                    continue  # Code Puppy loads the envelope, not the pickle
                yield path

    def describe(self, path: Path) -> SourceFile:
        sid = path.stem
        if path.parent.name != _SUBAGENTS:
            return SourceFile(path=path, source=KIND, session_id=sid)
        about = side_object(path.with_suffix(".txt"))
        agent, prompt = about.get("agent_name"), about.get("initial_prompt")
        return SourceFile(
            path=path,
            source=KIND,
            session_id=sid,
            is_subagent=True,
            parent_id=subagent_parent(path, [code_puppy_autosaves()]),
            agent_type=clean_text(agent)[:100] if isinstance(agent, str) and agent else None,
            agent_description=clean_text(prompt)[:500] if isinstance(prompt, str) else None,
        )

    def read(self, sf: SourceFile, fh: IO[bytes], cursor: Cursor | None) -> Reading:
        if sf.path.name.endswith(".pkl"):
            size = os.fstat(fh.fileno()).st_size
            return Reading([], Cursor(offset=size), fresh=True, binary=_PICKLE)
        ctx = _context(sf.path)
        parse = lambda doc, problems: _records(sf, doc, problems, ctx)  # noqa: E731
        return read_document(fh, cursor, parse, follow)

    def read_back(self, path: Path, lines: set[int]) -> dict[tuple[int, int], str]:
        if path.name.endswith(".pkl"):
            return {}
        with open_regular(str(path)) as fh:
            doc = load_or_none(fh.read())
        sf = self.describe(path)
        records = _records(sf, doc, [], _context(path)) if doc is not None else []
        return texts_by_generation(records, lines)

    def resume(self, session: Session) -> Resume:
        """`code-puppy --resume NAME`: Code Puppy finds a session of its `autosaves/` by name
        from any folder (and a file elsewhere by its path), and its tools work where it
        starts: run in the folder the session was saved from when that still exists."""
        path = Path(session.file_path) if session.file_path else None
        if path is None or path.parent.name == "autosaves":
            target = path.stem if path is not None else session.id
        else:
            target = str(path)
        return resume_anywhere(session, "code-puppy", *option("--resume", target))

    def title_line(self, sf: SourceFile, title: str) -> bytes | None:
        """None: Code Puppy names a session by its file's name, and writes its envelope
        again whole; a line appended would break the document."""
        return None


def _context(path: Path) -> Context:
    """The folder a session was saved from (`scope_key` of its sidecar)."""
    scope = side_object(path.with_name(path.stem + "_meta.json")).get("scope_key")
    return Context(cwd=clean_text(scope) if isinstance(scope, str) and scope.strip() else None)


def _records(sf: SourceFile, doc: object, problems: list, ctx: Context) -> list[Record]:
    """The envelope's records, then a name the person gave the session as its title."""
    records = envelope_records(doc, problems, ctx)
    named = sf.session_id
    if records and not sf.is_subagent and not named.startswith(_AUTO):
        records.append(MetaEvent(MetaKind.CUSTOM_TITLE, clean_text(named)[:200], 0))
    return records
