"""The server's side of `findsession push`: one batch of sessions, one transaction.

A pushed session is identified by its owner (the connecting role), the machine it was
pushed from and its id there; its id on the server is that id unless another session
holds it (see `schema_v2`). What arrives is compared with what the server holds and
only the difference is written: a unit whose hash is unchanged is left alone (its
vectors with it), a session row whose values are the same is not updated, so a batch
sent twice (a push killed before its cursor moved) writes nothing the second time.

Tombstones come first in every batch: a session its owner forgot on any machine is
dropped from the server, with its subagents, and refused from then on, so a machine
that has not heard of the forget cannot bring it back.
"""

from __future__ import annotations

from findsession.errors import DatabaseError
from findsession.storage.postgresql.dialect import PostgresDialect
from findsession.storage.postgresql.push_rows import PushRowsMixin
from findsession.storage.push import Chunk, PushBatch, PushCounts, PushedSession
from findsession.storage.rows import SESSION_COLUMNS

_PUSHED_COLUMNS = (*SESSION_COLUMNS, "agent_description", "machine", "local_id")
_UPSERT = (
    f"INSERT INTO sessions ({', '.join(_PUSHED_COLUMNS)})"
    f" VALUES ({', '.join(['?'] * len(_PUSHED_COLUMNS))})"
    f" ON CONFLICT {PostgresDialect().key('sessions')} DO UPDATE SET"
    f" {', '.join(f'{c} = excluded.{c}' for c in _PUSHED_COLUMNS[1:])}"
    f" WHERE ({', '.join(f'sessions.{c}' for c in _PUSHED_COLUMNS[1:])})"
    f" IS DISTINCT FROM ({', '.join(f'excluded.{c}' for c in _PUSHED_COLUMNS[1:])})"
    " RETURNING id"
)


class PushTargetMixin(PushRowsMixin):
    """Pushes received (see findsession.storage.push.PushTarget)."""

    def push_model(self, identity: str, dims: int) -> str | None:
        with self.transaction():
            stored = self.setting("embedding_model")
            if stored is None:
                self.set_setting("embedding_model", identity)
                self.set_setting("embedding_dims", str(int(dims)))
                return None
        return None if stored == identity else stored

    def pushed_state(
        self, machine: str, local_ids: list[str]
    ) -> dict[tuple[str, str, int], tuple[str, bool]]:
        """(session, kind, ordinal) → (hash, vectors in) of the units the server holds
        of these sessions from `machine`."""
        rows = self.query(
            "SELECT s.local_id, u.kind, u.ordinal, u.hash, e.unit_id IS NOT NULL"
            " FROM sessions s JOIN units u ON u.session_id = s.id AND u.owner = s.owner"
            " LEFT JOIN embedded e ON e.unit_id = u.id"
            " WHERE s.owner = current_user AND s.machine = ? AND s.local_id = ANY(?)",
            (machine, list(local_ids)),
        )
        return {(r[0], r[1], r[2]): (r[3], bool(r[4])) for r in rows}

    def receive_push(
        self, machine: str, batch: PushBatch, vectors: dict[int, list[Chunk]]
    ) -> PushCounts:
        counts = PushCounts()
        with self.transaction():
            if batch.tombstones:
                counts.tombstones = self._tombstones(batch.tombstones)
                counts.removed += self._drop(
                    "owner = current_user AND (local_id = ANY(?)"
                    " OR (local_id IS NULL AND id = ANY(?)))",
                    (batch.tombstones, batch.tombstones),
                )
            if batch.gone:
                counts.removed += self._drop(
                    "owner = current_user AND machine = ? AND local_id = ANY(?)",
                    (machine, batch.gone),
                )
            forgotten = {
                r[0]
                for r in self.query(
                    "SELECT id FROM private_sessions WHERE owner = current_user AND id = ANY(?)",
                    ([p.session.id for p in batch.sessions],),
                )
            }
            ids = self._server_ids(machine, [p.session.id for p in batch.sessions])
            # Parents first, so a subagent's parent already has its server id.
            for pushed in sorted(batch.sessions, key=lambda p: p.session.is_subagent):
                if pushed.session.id in forgotten:
                    counts.refused += 1
                    continue
                self._session(machine, pushed, ids, counts)
                counts.add(self.write_units(ids[pushed.session.id], pushed, vectors))
            if counts.vectors:
                self.bump_vector_generation()
        return counts

    def finish_push(self) -> None:
        """Make the HNSW graph of each vector size the pushed rows hold, when it is not
        made yet: once over everything loaded, after the last batch."""
        dims = self.setting("embedding_dims")  # the pushed model's, set by `push_model`
        if dims and self.scalar("SELECT EXISTS (SELECT 1 FROM chunks)"):
            with self.transaction():
                self._ensure_graph(int(dims))

    def _tombstones(self, ids: list[str]) -> int:
        written = 0
        for sid in ids:
            written += self.execute(
                "INSERT INTO private_sessions (id, marked_at) VALUES (?, now_iso())"
                " ON CONFLICT DO NOTHING",
                (sid,),
            )
        return written

    def _drop(self, where: str, params: tuple) -> int:
        """Delete the owner's sessions matching `where`, their subagents and everything
        stored of them; how many sessions went."""
        ids = [r[0] for r in self.query(f"SELECT id FROM sessions WHERE {where}", params)]
        if not ids:
            return 0
        ids += [
            r[0]
            for r in self.query(
                "SELECT id FROM sessions WHERE owner = current_user AND parent_id = ANY(?)",
                (ids,),
            )
        ]
        for table in ("units", "title_writes", "messages", "session_meta"):
            self.execute(
                f"DELETE FROM {table} WHERE owner = current_user AND session_id = ANY(?)", (ids,)
            )
        return self.execute(
            "DELETE FROM sessions WHERE owner = current_user AND id = ANY(?)", (ids,)
        )

    def _server_ids(self, machine: str, local_ids: list[str]) -> dict[str, str]:
        """Each session's id on the server: the one it was given before, else its own id
        when free, else qualified by the machine (and then the owner)."""
        ids = dict(
            self.query(
                "SELECT local_id, id FROM sessions WHERE owner = current_user AND machine = ?"
                " AND local_id = ANY(?)",
                (machine, list(local_ids)),
            )
        )
        owner = self.scalar("SELECT current_user")
        given = set(ids.values())
        for local in local_ids:
            if local in ids:
                continue
            for candidate in (local, f"{local}@{machine}", f"{local}@{machine}.{owner}"):
                if candidate not in given and not self.scalar(
                    "SELECT session_id_taken(?)", (candidate,)
                ):
                    ids[local] = candidate
                    given.add(candidate)
                    break
            else:
                raise DatabaseError(f"no free id on the server for session {local} of {machine}")
        return ids

    def _session(
        self, machine: str, pushed: PushedSession, ids: dict[str, str], counts: PushCounts
    ) -> None:
        s = pushed.session
        sid = ids[s.id]
        parent = s.parent_id
        if parent is not None:
            parent = (
                ids.get(parent)
                or self.scalar(
                    "SELECT id FROM sessions WHERE owner = current_user AND machine = ?"
                    " AND local_id = ?",
                    (machine, parent),
                )
                or parent
            )
        values = {name: getattr(s, name) for name in SESSION_COLUMNS}
        values.update(id=sid, parent_id=parent)
        row = [*values.values(), pushed.agent_description, machine, s.id]
        if self.query(_UPSERT, row):
            counts.sessions += 1
        if sid != s.id:  # subagents pushed before it point at its id on their machine
            self.execute(
                "UPDATE sessions SET parent_id = ? WHERE owner = current_user AND machine = ?"
                " AND parent_id = ? AND local_id IS NOT NULL",
                (sid, machine, s.id),
            )
