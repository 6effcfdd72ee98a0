"""Keeping the index fresh from the operating system's file events, never by polling.

Three threads, each asleep until there is something to do:
- the watcher blocks in the OS's notification API (inotify, FSEvents) through
  watchfiles and hands each debounced batch of changed paths to the indexer;
- the indexer reads just those files when the index already knows them all (an
  appended turn is searchable in milliseconds), else scans the roots in full (a new
  session file, a deleted one); it starts with one full run to catch up on whatever
  changed while no service ran;
- the embedder runs at a lower CPU priority behind it: keyword search has the new turn
  at once, vectors follow without slowing a search down;
- with `[storage] push = true`, the pusher sends the team's server what changed once
  the embedder is done (vectors go with their units), at most once a `PUSH_EVERY`, so an
  agent writing turn after turn costs the server one push a minute, not one a turn.
Each writes through its own connection; WAL lets the searcher read meanwhile.

Another process may already keep the same index fresh: an MCP server started beside a
resident service watches the same folders. `defer_to` says when that is so; the indexer
then leaves each round to it, and catches up in full on the first event after it
stopped, so two indexers never do the same work twice.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from findsession.api import Findsession, Root

log = logging.getLogger("findsession.service")

#: Milliseconds the watcher waits for a burst of writes (an agent's turn) to end.
STEP_MS = 50
#: The embedder's niceness: below searches and indexing, above nothing.
EMBED_NICENESS = 10
#: Seconds between two pushes to a team's server, at the least; a push that failed
#: (the server down) is tried again after as long.
PUSH_EVERY = 60.0


class Freshness:
    """The watcher, the indexer and the embedder for one index."""

    def __init__(
        self, db: Path, roots: list[Root], defer_to: Callable[[], bool] | None = None
    ) -> None:
        self.db, self.roots = db, roots
        #: True while another process keeps this index fresh: rounds are left to it.
        self.defer_to = defer_to
        self.deferred = False
        self.watched = [r for r in roots if r.path.exists()]
        self.stopping = threading.Event()
        self._wake = threading.Condition()
        self._changed: set[str] = set()
        self._full = True  # the catch-up run
        #: The last run failed: the next event's run is a full one.
        self._retry_full = False
        self._embed = threading.Event()
        self.index_runs = 0
        self.last_run: dict | None = None
        self.last_error: str | None = None
        self.embedding = False
        self._push = threading.Event()
        self.last_push: dict | None = None
        self._threads = [
            threading.Thread(target=self._watch, name="findsession-watcher", daemon=True),
            threading.Thread(target=self._index, name="findsession-indexer", daemon=True),
            threading.Thread(target=self._embed_loop, name="findsession-embedder", daemon=True),
            threading.Thread(target=self._push_loop, name="findsession-pusher", daemon=True),
        ]

    def start(self) -> None:
        for thread in self._threads:
            thread.start()

    def stop(self) -> None:
        self.stopping.set()
        self._embed.set()
        self._push.set()
        with self._wake:
            self._wake.notify_all()

    def caught_up(self) -> bool:
        """Whether the catch-up run is done and nothing is waiting to be indexed."""
        with self._wake:
            return self.index_runs > 0 and not self._full and not self._changed

    def _watch(self) -> None:
        if not self.watched:
            log.info("no root exists yet; nothing to watch")
            return
        import watchfiles

        paths = [str(r.path) for r in self.watched]
        log.info("watching %s", ", ".join(paths))
        try:
            for changes in watchfiles.watch(
                *paths,
                debounce=1000,
                step=STEP_MS,
                stop_event=self.stopping,
                raise_interrupt=False,
                ignore_permission_denied=True,
            ):
                with self._wake:
                    self._changed.update(path for _, path in changes)
                    self._wake.notify_all()
        except Exception as exc:  # noqa: BLE001 - say why; searches go on without it
            self.last_error = f"watching stopped: {exc}"
            log.error("%s", self.last_error)

    def _index(self) -> None:
        fs: Findsession | None = None
        opened: tuple[int, int] | None = None
        while not self.stopping.is_set():
            with self._wake:
                while not (self._full or self._changed or self.stopping.is_set()):
                    self._wake.wait()
                full, changed = self._full or self._retry_full, sorted(self._changed)
                self._full, self._retry_full, self._changed = False, False, set()
            if self.stopping.is_set():
                break
            try:
                if self._leave_to_other():
                    continue  # counted in `finally`, as a round
                if self.deferred:  # the other one stopped: what changed since is unknown
                    full, self.deferred = True, False
                if fs is not None and _identity(self.db) != opened:
                    # The index file was moved, replaced or deleted under us: writing on
                    # through the old handle would index into a file nobody reads.
                    fs.close()
                    fs = None
                if fs is None:
                    fs = Findsession.open(self.db)
                    opened = _identity(self.db)
                started = time.perf_counter()
                report = fs.index(self.roots, only=None if full else changed)
                self.last_run = {
                    "at": time.time(),
                    # A full scan: the catch-up run, or changes the index did not know all of.
                    "full": report.full_scan,
                    "files_seen": report.files_seen,
                    "files_read": report.files_read,
                    "sessions_changed": report.sessions_changed,
                    "seconds": round(time.perf_counter() - started, 3),
                }
                self.last_error = None
                if report.sessions_changed or full:
                    self._embed.set()
            except Exception as exc:  # noqa: BLE001 - a broken file or busy index must not end it
                self.last_error = f"indexing failed: {exc}"
                log.error("%s", self.last_error)
                if fs is not None:
                    fs.close()
                fs = None
                with self._wake:
                    # In full on the next event, not at once: a failure that stays
                    # (a locked index) would otherwise spin, a run and a log line each turn.
                    self._retry_full = True
            finally:
                with self._wake:
                    self.index_runs += 1
                    self._wake.notify_all()
        if fs is not None:
            fs.close()

    def _leave_to_other(self) -> bool:
        """Whether another process keeps the index fresh now (then this round is theirs)."""
        if self.defer_to is None or not self.defer_to():
            return False
        if not self.deferred:
            log.info("another process keeps this index fresh; leaving indexing to it")
        self.deferred = True
        return True

    def _embed_loop(self) -> None:
        if sys.platform.startswith("linux"):
            # Linux niceness is per thread: this lowers the embedder alone.
            with contextlib.suppress(OSError):
                os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), EMBED_NICENESS)
        fs: Findsession | None = None
        opened: tuple[int, int] | None = None
        while True:
            self._embed.wait()
            self._embed.clear()
            if self.stopping.is_set():
                break
            self.embedding = True
            try:
                if fs is not None and _identity(self.db) != opened:
                    # The index file was moved, replaced or deleted under us: writing on
                    # through the old handle would index into a file nobody reads.
                    fs.close()
                    fs = None
                if fs is None:
                    fs = Findsession.open(self.db)
                    opened = _identity(self.db)
                fs.embed(say=lambda line: log.info("%s", line))
                if fs.settings.push_after_index:
                    self._push.set()
            except Exception as exc:  # noqa: BLE001
                self.last_error = f"embedding failed: {exc}"
                log.error("%s", self.last_error)
                if fs is not None:
                    fs.close()
                fs = None
            finally:
                self.embedding = False
        if fs is not None:
            fs.close()

    def _push_loop(self) -> None:
        """Push after the embedder, no sooner than `PUSH_EVERY` after the last push;
        changes that come meanwhile go in that next push, since a push sends everything
        logged after its cursor. Asleep (no timer) while nothing changes."""
        last = float("-inf")
        while True:
            self._push.wait()
            if self.stopping.wait(max(0.0, last + PUSH_EVERY - time.monotonic())):
                break
            self._push.clear()
            try:
                with Findsession.open(self.db) as fs:
                    if not fs.settings.push_after_index or not fs.unpushed():
                        continue  # nothing to send: the server is not even asked
                    last = time.monotonic()
                    report = fs.push()
                self.last_push = {
                    "at": time.time(),
                    "server": report.server,
                    "sent": report.sent,
                    "sessions_written": report.written.sessions,
                    "error": None,
                }
                log.info("pushed %d changed sessions to %s", report.sent, report.server)
            except Exception as exc:  # noqa: BLE001 - the server may be down: try again later
                last = time.monotonic()
                self.last_push = {"at": time.time(), "error": str(exc)}
                log.error("push failed: %s", exc)
                self._push.set()  # what is unsent stays logged; try again after PUSH_EVERY


def _identity(path: Path) -> tuple[int, int] | None:
    """Which file `path` names now (device and inode), or None when it names none."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)
