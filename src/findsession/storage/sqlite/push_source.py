"""What a push reads from the local index: the sessions logged after a cursor, whole.

`push_log` (schema step 11) holds each session's latest change number; a push reads the
next few sessions after its cursor in one snapshot, so a session's row, units and
titles are of one moment, and the cursor it returns covers exactly what was read. The
cursor for each server is a setting of this index, moved by the caller only after the
server committed the batch (see findsession.core.pushing).
"""

from __future__ import annotations

import hashlib

from findsession.domain import Session
from findsession.storage.base import TitleWrite, UnitRow
from findsession.storage.push import Chunk, PushBatch, PushedSession, PushedUnit
from findsession.storage.rows import SESSION_COLUMNS, json_list
from findsession.storage.sqlite.connection import Connection

_UNIT_COLUMNS = (
    "u.session_id, u.id, u.kind, u.ordinal, u.source, u.ts, u.title, u.prompt, u.reply,"
    " u.tools, u.tool_names, u.files, u.hash, e.unit_id IS NOT NULL"
)


def cursor_key(target: str) -> str:
    """The setting that keeps the cursor for one server (its URL, never stored as is:
    it may hold a password)."""
    return "push:" + hashlib.blake2b(target.encode("utf-8"), digest_size=12).hexdigest()


class PushSourceMixin(Connection):
    """The local side of `findsession push` (see findsession.storage.push.PushSource)."""

    def push_cursor(self, target: str) -> int:
        return int(self.setting(cursor_key(target)) or 0)

    def set_push_cursor(self, target: str, seq: int) -> None:
        with self.transaction():
            self.set_setting(cursor_key(target), str(int(seq)))

    def push_pending(self, after: int) -> int:
        return int(self.scalar("SELECT count(*) FROM push_log WHERE seq > ?", (after,)))

    def push_batch(self, after: int, limit: int) -> PushBatch:
        with self.snapshot():
            logged = self.query(
                "SELECT session_id, seq FROM push_log WHERE seq > ? ORDER BY seq LIMIT ?",
                (after, limit),
            )
            batch = PushBatch(seq=logged[-1][1] if logged else after)
            ids = [sid for sid, _ in logged]
            private = self._among("SELECT id FROM private_sessions WHERE", ids)
            rows = self._rows_of(ids)
            units = self._units_of(ids)
            titles = self._titles_of(ids)
        for sid in ids:
            if sid in private:
                batch.tombstones.append(sid)
            elif sid not in rows:
                batch.gone.append(sid)
            else:
                session, description = rows[sid]
                batch.sessions.append(
                    PushedSession(session, description, units.get(sid, []), titles.get(sid, []))
                )
        return batch

    def push_vectors(self, units: list[tuple[int, str]]) -> dict[int, list[Chunk]]:
        wanted = dict(units)
        found: dict[int, list[Chunk]] = {}
        with self.snapshot():
            for part in self.batches(wanted):
                ids, params = self.among("u.id", part)
                of_units, chunk_params = self.among("unit_id", part)
                held = {
                    r[0]
                    for r in self.query(
                        "SELECT u.id, u.hash FROM units u JOIN embedded e ON e.unit_id = u.id"
                        f" WHERE {ids}",
                        params,
                    )
                    if wanted.get(r[0]) == r[1]
                }
                for row in self.query(
                    "SELECT unit_id, field, span_start, span_end, scale, vec, code, text_hash"
                    f" FROM chunks WHERE {of_units} ORDER BY unit_id, id",
                    chunk_params,
                ):
                    if row[0] in held:
                        found.setdefault(row[0], []).append(
                            (row[1], row[2], row[3], float(row[4]), row[5], row[6], row[7])
                        )
        return found

    def _among(self, select: str, ids: list[str]) -> set[str]:
        out: set[str] = set()
        for part in self.batches(ids):
            where, params = self.among("id", part)
            out |= {r[0] for r in self.query(f"{select} {where}", params)}
        return out

    def _rows_of(self, ids: list[str]) -> dict[str, tuple[Session, str | None]]:
        columns = ", ".join(SESSION_COLUMNS)
        out = {}
        for part in self.batches(ids):
            where, params = self.among("id", part)
            for row in self.query(
                f"SELECT {columns}, agent_description FROM sessions WHERE {where}", params
            ):
                session = Session(**dict(zip(SESSION_COLUMNS, row[:-1], strict=True)))
                session.is_subagent, session.missing = (
                    bool(session.is_subagent),
                    bool(session.missing),
                )
                out[session.id] = (session, row[-1])
        return out

    def _units_of(self, ids: list[str]) -> dict[str, list[PushedUnit]]:
        out: dict[str, list[PushedUnit]] = {}
        for part in self.batches(ids):
            where, params = self.among("u.session_id", part)
            for r in self.query(
                f"SELECT {_UNIT_COLUMNS} FROM units u LEFT JOIN embedded e ON e.unit_id = u.id"
                f" WHERE {where} ORDER BY u.id",
                params,
            ):
                row = UnitRow(*r[2:10], json_list(r[10]), json_list(r[11]))
                out.setdefault(r[0], []).append(PushedUnit(row, r[12], r[1], bool(r[13])))
        return out

    def _titles_of(self, ids: list[str]) -> dict[str, list[TitleWrite]]:
        """The titles kept in the index only: a title line written into a transcript is
        already in the session's row."""
        out: dict[str, list[TitleWrite]] = {}
        for part in self.batches(ids):
            where, params = self.among("session_id", part)
            for sid, path, title, at in self.query(
                "SELECT session_id, file_path, title, written_at FROM title_writes"
                f" WHERE line_offset IS NULL AND {where} ORDER BY id",
                params,
            ):
                out.setdefault(sid, []).append(TitleWrite(sid, path, title, written_at=at))
        return out
