"""From a file back to the sessions that wrote it: the index of files written looked up by
the file's name, each write matched as its session saw the path (`paths`), and, for a
range of lines, ranked by whether its written text holds those lines now (`lines`).

Newest first. With a range, the writes that hold every line of it come first, then those
that hold some; each line is attributed to the newest write that holds it (the one that
wrote it last), and a line none holds is said to be no session's.

The file itself is read (`ondisk`) only to locate the range, and only when a session of
the caller's project wrote it; a line is shown as a session wrote it, never as the file
holds it, so a line no session wrote shows no text.
"""

from __future__ import annotations

from findsession.blame.lines import Written, neutral, normal
from findsession.blame.ondisk import read_range
from findsession.blame.paths import Target, match
from findsession.domain import Blame, BlameLine, Session, Writer
from findsession.storage.base import Storage, WriteMatch

DEFAULT_LIMIT = 20
#: Lines of a change shown with each write.
ADDED_SHOWN = 6
REMOVED_SHOWN = 3
PROMPT_CHARS = 200
#: What the per-call cap is, in words, for the note on a line no session holds.
_CAP_NOTE = (
    "{n} of the writes to this file were cut at the index's per-call limit (about"
    " 2,000 characters): a line none of them holds may be in the part cut away"
)
_UNREAD = "no indexed session{where} wrote this file, so its lines were not read"


def blame(
    store: Storage,
    path: str,
    first: int | None = None,
    last: int | None = None,
    project: str | None = None,
    limit: int = DEFAULT_LIMIT,
) -> Blame:
    """The sessions that wrote the file at `path` (absolute), newest first; with
    `first`..`last`, ranked by whether they hold those lines as the file reads now.
    `project` (already within the caller's boundary) keeps the sessions of that project."""
    target = Target.of(path)
    candidates = store.file_writes_named(target.name, target.tail, project)
    matched = [(w, kind) for w in candidates if (kind := match(w, target))]
    result = Blame(path=path, first=first, last=last, writers=[], total=len(matched))
    if first and not matched:
        result.notes.append(_UNREAD.format(where=f" of {project}" if project else ""))
    reads = first is not None and bool(matched)
    lines = read_range(path, first, last if last is not None else first) if reads else []
    wanted = [(n, normal(text)) for n, text in lines if not neutral(text)]
    ids = [w.id for w, _ in matched] if wanted else [w.id for w, _ in matched[:limit]]
    texts = store.file_write_texts(ids)
    holds: dict[int, set[int]] = {}
    written = {w.id: Written.of(*texts.get(w.id, ("", ""))) for w, _ in matched}
    for w, _ in matched:
        holds[w.id] = {n for n, text in wanted if written[w.id].holds(text)}
    # matched is newest first: the first holder of a line wrote it last.
    writer_of = {n: next((w.id for w, _ in matched if n in holds[w.id]), None) for n, _ in wanted}
    lasts = {i for i in writer_of.values() if i is not None}
    if wanted:
        every = {n for n, _ in wanted}
        matched.sort(key=lambda m: 0 if holds[m[0].id] >= every else 1 if holds[m[0].id] else 2)
    shown = matched[:limit] + [m for m in matched[limit:] if m[0].id in lasts]
    missing = [w.id for w, _ in shown if w.id not in texts]
    texts.update(store.file_write_texts(missing) if missing else {})
    sessions = _sessions(store, {w.session_id for w, _ in shown})
    prompts = _prompts(store, shown)
    position: dict[int, int] = {}
    for w, kind in shown:
        session = sessions.get(w.session_id)
        if session is None:
            continue  # forgotten between the two reads
        position[w.id] = len(result.writers)
        result.writers.append(
            _writer(w, kind, session, prompts.get((w.session_id, w.turn), ""), texts.get(w.id),
                    len(holds[w.id]) if wanted else None, w.id in lasts)  # fmt: skip
        )
    for n, text in lines:
        chosen = writer_of.get(n)
        result.lines.append(
            BlameLine(n, _as_written(normal(text), chosen, matched, written),
                      position.get(chosen) if chosen is not None else None,
                      neutral=neutral(text))  # fmt: skip
        )
    unheld = [b for b in result.lines if b.writer is None and not b.neutral]
    cut = sum(1 for w, _ in matched if w.truncated)
    if unheld and cut:
        result.notes.append(_CAP_NOTE.format(n=cut))
    return result


def _as_written(
    line: str,
    chosen: int | None,
    matched: list[tuple[WriteMatch, str]],
    written: dict[int, Written],
) -> str | None:
    """A line as the write that holds it wrote it (a blank or bracket line: as any
    matched write did); None when none did: the file's own text is never shown."""
    if chosen is not None:
        return written[chosen].as_written(line)
    return next((t for w, _ in matched if (t := written[w.id].as_written(line)) is not None), None)


def _sessions(store: Storage, ids: set[str]) -> dict[str, Session]:
    found = {}
    for sid in ids:
        session = store.get_session(sid)
        if session is not None:
            found[sid] = session
    return found


def _prompts(store: Storage, shown: list[tuple[WriteMatch, str]]) -> dict[tuple[str, int], str]:
    turns: dict[str, set[int]] = {}
    for w, _ in shown:
        turns.setdefault(w.session_id, set()).add(w.turn)
    out = {}
    for sid, ordinals in turns.items():
        for ordinal, (prompt, _) in store.turn_texts(sid, sorted(ordinals)).items():
            flat = " ".join(prompt.split())
            out[(sid, ordinal)] = (
                flat if len(flat) <= PROMPT_CHARS else flat[: PROMPT_CHARS - 1] + "…"
            )
    return out


def _writer(
    w: WriteMatch,
    kind: str,
    session: Session,
    prompt: str,
    text: tuple[str, str] | None,
    holds: int | None,
    last: bool,
) -> Writer:
    added_text, removed_text = text or ("", "")
    added = added_text.splitlines()
    return Writer(
        session=session,
        turn=w.turn,
        ts=w.ts or session.last_ts,
        tool=w.tool,
        op=w.op,
        path=w.path,
        match=kind,
        prompt=prompt,
        added=added[:ADDED_SHOWN],
        removed=removed_text.splitlines()[:REMOVED_SHOWN],
        added_lines=len(added),
        truncated=w.truncated,
        holds=holds,
        last=last,
    )
