"""`findsession push`: this machine's local index into a shared server, incrementally.

The local index logs which sessions changed (a change number per session); the push
keeps a cursor per server in the local index and sends the sessions logged after it,
a batch per server transaction, moving the cursor only once the server committed. A
push killed at any point resumes from the last committed batch; the batch it was in is
sent again, and the server, which writes only what differs, writes nothing twice.

Forgotten sessions travel as tombstones ahead of everything else in their batch; the
server drops the session and refuses it from then on. Vectors travel in the index's
int8 form with their scale, and only for units the server has none for, never
re-embedded. What travels is what the index holds: redacted when it was indexed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import cast

from findsession.config import Config
from findsession.core.base import Core
from findsession.errors import FindsessionError
from findsession.storage import SERVER_BACKENDS, open_storage
from findsession.storage.push import PushBatch, PushCounts, PushSource, PushTarget

#: Sessions per batch (one server transaction each): `FINDSESSION_PUSH_BATCH` or `--batch`.
BATCH = 200
#: Called after each committed batch with its number, what it wrote and the sessions left.
OnBatch = Callable[[int, PushCounts, int], None]


@dataclass
class PushReport:
    """What one push sent and what the server wrote."""

    server: str
    owner: str
    machine: str
    #: Sessions logged as changed since the last push (tombstones and removals included).
    sent: int = 0
    batches: int = 0
    written: PushCounts = field(default_factory=PushCounts)
    #: Vectors not sent because the server's come from another model (its identity).
    other_model: str | None = None


def choose_backend(settings: Config, backend: str | None) -> tuple[str, str | None]:
    """(backend, url) for `--backend`: `sqlite`, `postgresql` (the config's url), or a URL;
    None keeps the config's choice."""
    if backend is None:
        return settings.backend, settings.storage_url
    if backend == "sqlite":
        return "sqlite", None
    if backend in SERVER_BACKENDS:
        if not settings.storage_url:
            raise FindsessionError(
                f"--backend {backend} needs the server's URL",
                cli_hint="set [storage] url in the config file, or FINDSESSION_STORAGE_URL,"
                " or give the URL itself: --backend postgresql://user@host/db",
            )
        return backend, settings.storage_url
    if backend.startswith(("postgresql://", "postgres://")):
        return "postgresql", backend
    raise FindsessionError(
        f"--backend takes sqlite, postgresql or a postgresql:// URL, not {backend!r}"
    )


class PushingMixin(Core):
    """`Findsession`'s push."""

    def push(
        self,
        to: str | None = None,
        *,
        batch: int = BATCH,
        everything: bool = False,
        on_batch: OnBatch | None = None,
    ) -> PushReport:
        """Send the server what this index holds and it lacks; `everything` sends every
        session again (the server still writes only what differs)."""
        machine = self.settings.machine
        if not machine:
            raise FindsessionError(
                "push needs this machine's name, to tell its sessions from your other"
                " machines' on the server",
                cli_hint='set [machine] name = "..." in the config file, or FINDSESSION_MACHINE',
            )
        url = to or self.settings.storage_url
        if not url:
            raise FindsessionError(
                "push needs the server's URL",
                cli_hint="give --to postgresql://user@host/db, or set [storage] url"
                " (or FINDSESSION_STORAGE_URL)",
            )
        if self.settings.backend in SERVER_BACKENDS or not hasattr(self.store, "push_batch"):
            raise FindsessionError(
                "push sends this machine's own index, and the config makes the server the index",
                cli_hint='index here with [storage] backend = "sqlite", then push',
            )
        source = cast(PushSource, self.store)
        opened, _ = open_storage(self.path, backend="postgresql", url=url)
        target = cast(PushTarget, opened)
        try:
            report = PushReport(target.url, target.who_am_i(), machine)
            report.other_model = self._check_model(target)
            cursor = 0 if everything else source.push_cursor(url)
            while True:
                left = source.push_pending(cursor)
                pushed = source.push_batch(cursor, max(1, batch))
                if pushed.seq == cursor:
                    break
                vectors = (
                    {} if report.other_model else self._vectors_wanted(target, pushed, machine)
                )
                counts = target.receive_push(machine, pushed, vectors)
                source.set_push_cursor(url, pushed.seq)
                cursor = pushed.seq
                sent = len(pushed.sessions) + len(pushed.tombstones) + len(pushed.gone)
                report.sent += sent
                report.batches += 1
                report.written.add(counts)
                if on_batch:
                    on_batch(report.batches, counts, left - sent)
            target.finish_push()
        finally:
            opened.close()
        return report

    def unpushed(self, to: str | None = None) -> int:
        """How many sessions changed here since the last push to the server (`to`, else
        the config's): asked of this index alone, the server is not contacted."""
        url = to or self.settings.storage_url
        if not url or not hasattr(self.store, "push_batch"):
            return 0
        source = cast(PushSource, self.store)
        return source.push_pending(source.push_cursor(url))

    def _check_model(self, target: PushTarget) -> str | None:
        """The server's model when it is not this index's (then no vectors travel)."""
        identity = self.store.setting("embedding_model")
        dims = self.store.setting("embedding_dims")
        if identity is None or dims is None:
            return None
        return target.push_model(identity, int(dims))

    def _vectors_wanted(
        self, target: PushTarget, pushed: PushBatch, machine: str
    ) -> dict[int, list[tuple]]:
        """The local chunks of the batch's units the server holds no vectors for."""
        held = target.pushed_state(machine, [p.session.id for p in pushed.sessions])
        wanted = [
            (unit.local_id, unit.hash)
            for p in pushed.sessions
            for unit in p.units
            if unit.embedded
            and held.get((p.session.id, unit.row.kind, unit.row.ordinal)) != (unit.hash, True)
        ]
        return cast(PushSource, self.store).push_vectors(wanted) if wanted else {}
