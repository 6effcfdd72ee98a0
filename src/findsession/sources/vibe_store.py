"""Mistral Vibe 3's session store: one session's history entries, as Vibe last committed them.

Vibe 3 keeps each session (a root session, a fork, a subagent) as a folder of its own,
`<sessions>/unified/<id>/`, written by its harness's `UnifiedSessionStore`:

- `CURRENT`: `{generation, manifest_sha256, session_id, snapshot_sequence, store_format:
  "mistral.vibe.unified-session-store/v1", store_format_minor}`, the generation in force;
- `generations/<generation>/manifest.json` names that generation's documents:
  `projection-state.json` (what the person saw: `snapshot.session` with its title, and
  `snapshot.history.entries`), `runtime-state.json` (`session_metadata.cwd`, `identity:
  {kind: root|fork|subagent, parent_session_id}`) and the model's own checkpoint (not
  read). A document's list that the manifest gives `chunks` for is stored out of line:
  the named `chunks/<sha256>.json` arrays, in order, are the list;
- `journal/<sequence>.jsonl`, the segment the manifest names: what happened since that
  generation, one record a line; its `projection_delta` records (`append_entry`,
  `replace_entry`, `remove_entry`, `set_history_entries`, `set_envelope`) bring the
  entries up to date, `session_relocated` moves the session's folder. Vibe folds the
  journal into a new generation after each turn, so it is short.

A store is read whole, and again whenever its `CURRENT`, journal or `meta.json` changed.
A generation caught half replaced (a file gone, a chunk missing) reads as a problem and
nothing changes in the index until the next run. Checked against stores the real Vibe
3.0.2 wrote.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from findsession.sources.names import entry_name
from findsession.sources.opening import open_regular

STORE_FORMAT = "mistral.vibe.unified-session-store/v1"
_GENERATION = re.compile(r"\A\d{16}\Z")
_DIGEST = re.compile(r"\A[0-9a-f]{64}\Z")
_SEGMENT = re.compile(r"\Ajournal/\d{16}\.jsonl\Z")
#: Any one document of a store at most (a chunk is sealed at 64 KiB; a journal segment
#: holds one turn).
_MAX_BYTES = 256 * 1024 * 1024


class StoreError(Exception):
    """A store that cannot be read as it is now (written at this moment, or damaged)."""


@dataclass
class Store:
    """One session's store, read: its entries in order and what describes it."""

    session_id: str
    entries: list[dict[str, Any]] = field(default_factory=list)
    session: dict[str, Any] = field(default_factory=dict)  # the projection's `session`
    cwd: str | None = None
    kind: str = "root"  # root, fork or subagent
    parent_id: str | None = None
    #: What the read depended on, hashed: the same digest means nothing changed.
    digest: str = ""


def read_store(current: Path) -> Store:
    """The store whose `CURRENT` file is `current`. Raises `StoreError` or `OSError`."""
    folder = current.parent
    hasher = hashlib.blake2b(digest_size=16)
    raw = _bytes(current)
    hasher.update(raw)
    pointer = _object(raw, "CURRENT")
    if pointer.get("store_format") != STORE_FORMAT:
        raise StoreError(f"not a store of {STORE_FORMAT}: {pointer.get('store_format')!r}")
    generation = pointer.get("generation")
    if not isinstance(generation, str) or not _GENERATION.match(generation):
        raise StoreError(f"CURRENT names no generation: {generation!r}")
    gen = folder / "generations" / generation
    manifest = _object(_bytes(gen / "manifest.json"), "manifest.json")
    projection = _document(folder, gen, manifest.get("projection_state"), "projection-state.json")
    runtime = _document(folder, gen, manifest.get("runtime_state"), "runtime-state.json",
                        pooled=False)  # fmt: skip
    snapshot = _dict(projection.get("snapshot"))
    history = _dict(snapshot.get("history"))
    entries = [e for e in _list(history.get("entries")) if isinstance(e, dict)]
    metadata = _dict(runtime.get("session_metadata"))
    identity = _dict(runtime.get("identity"))
    store = Store(
        session_id=_text(pointer.get("session_id")) or folder.name,
        entries=entries,
        session=_dict(snapshot.get("session")),
        cwd=_text(metadata.get("cwd")),
        kind=_text(identity.get("kind")) or "root",
        parent_id=_text(identity.get("parent_session_id"))
        or _text(metadata.get("parent_session_id")),
    )
    segment = _dict(manifest.get("recovery_journal_segment")).get("path")
    if isinstance(segment, str) and _SEGMENT.match(segment):
        journal = folder / segment
        data = _bytes(journal) if journal.exists() else b""
        hasher.update(data)
        _replay(store, data)
    store.digest = "blake2b:" + hasher.hexdigest()
    return store


def _replay(store: Store, data: bytes) -> None:
    """Apply the journal's records to the entries, in order. A last line without its
    newline is an append caught half written: Vibe cuts it off before writing on."""
    lines = data.split(b"\n")[:-1]
    for raw in lines:
        try:
            record = json.loads(raw)
        except (ValueError, RecursionError):
            continue
        if not isinstance(record, dict):
            continue
        kind, payload = record.get("type"), _dict(record.get("payload"))
        if kind == "projection_advanced":
            snapshot = _dict(payload.get("snapshot"))
            history = _dict(snapshot.get("history"))
            store.entries = [e for e in _list(history.get("entries")) if isinstance(e, dict)]
            store.session = _dict(snapshot.get("session")) or store.session
        elif kind in ("projection_delta", "session_relocated"):
            if kind == "session_relocated":
                store.cwd = _text(_dict(payload.get("metadata")).get("cwd")) or store.cwd
            for op in _list(payload.get("delta")):
                if isinstance(op, dict):
                    _apply(store, op)


def _apply(store: Store, op: dict[str, Any]) -> None:
    """One delta operation, as Vibe's own `apply_projection_delta` applies it."""
    name, entry = op.get("op"), op.get("entry")
    if name == "append_entry" and isinstance(entry, dict):
        store.entries.append(entry)
    elif name == "replace_entry" and isinstance(entry, dict):
        for i, old in enumerate(store.entries):
            if old.get("id") == op.get("id"):
                store.entries[i] = entry
                break
    elif name == "remove_entry":
        store.entries = [e for e in store.entries if e.get("id") != op.get("id")]
    elif name == "set_history_entries":
        store.entries = [e for e in _list(op.get("entries")) if isinstance(e, dict)]
    elif name == "set_envelope":
        store.session = _dict(_dict(op.get("state")).get("session")) or store.session


def _document(
    folder: Path, gen: Path, ref: Any, default: str, pooled: bool = True
) -> dict[str, Any]:
    """A generation's document, with its out-of-line list put back (the projection's
    history entries) when `pooled` and the manifest names chunks for it."""
    ref = _dict(ref)
    name = ref.get("path") if isinstance(ref.get("path"), str) else default
    if entry_name(name) is None or name.startswith("."):
        raise StoreError(f"manifest names no document of its generation: {name!r}")
    doc = _object(_bytes(gen / name), name)
    chunks = ref.get("chunks")
    if pooled and isinstance(chunks, list):
        items: list[Any] = []
        for digest in chunks:
            if not isinstance(digest, str) or not _DIGEST.match(digest):
                raise StoreError(f"manifest names a chunk that is no digest: {digest!r}")
            chunk = json.loads(_bytes(folder / "chunks" / f"{digest}.json"))
            items.extend(chunk if isinstance(chunk, list) else [])
        history = _dict(_dict(doc.get("snapshot")).get("history"))
        history["entries"] = items
    return doc


def _bytes(path: Path) -> bytes:
    try:
        with open_regular(str(path)) as fh:
            data = fh.read(_MAX_BYTES + 1)
    except FileNotFoundError as exc:  # replaced while read: the next run reads it whole
        raise StoreError(f"{path.name} is gone (the store was being written)") from exc
    if len(data) > _MAX_BYTES:
        raise StoreError(f"{path.name} is over {_MAX_BYTES >> 20} MB")
    return data


def _object(data: bytes, name: str) -> dict[str, Any]:
    try:
        obj = json.loads(data.decode("utf-8", "replace"))
    except (ValueError, RecursionError) as exc:
        raise StoreError(f"{name} is not JSON (written at this moment?)") from exc
    if not isinstance(obj, dict):
        raise StoreError(f"{name} is not a JSON object")
    return obj


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def identity(current: Path) -> tuple[str, str, str | None]:
    """(session id, kind, parent id) of the store whose `CURRENT` is `current`, from its
    runtime state alone (a subagent names the session that started it); the folder's
    name and a root session when it cannot be read now."""
    try:
        pointer = _object(_bytes(current), "CURRENT")
        generation = pointer.get("generation")
        if not isinstance(generation, str) or not _GENERATION.match(generation):
            raise StoreError("no generation")
        gen = current.parent / "generations" / generation
        manifest = _object(_bytes(gen / "manifest.json"), "manifest.json")
        runtime = _document(current.parent, gen, manifest.get("runtime_state"),
                            "runtime-state.json", pooled=False)  # fmt: skip
    except (StoreError, OSError):
        return current.parent.name, "root", None
    ident = _dict(runtime.get("identity"))
    sid = _text(pointer.get("session_id")) or current.parent.name
    parent = _text(ident.get("parent_session_id"))
    return sid, _text(ident.get("kind")) or "root", parent
