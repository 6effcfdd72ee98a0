"""What the service keeps in memory: its index open on a few connections, the model and
vectors they share, warm.

Each request borrows one connection (`index()`) for as long as it takes: two searches
run at once on two connections instead of waiting on one lock. The model and the vector
arrays are the process's, loaded once and shared by every connection (the embedder by
its settings, the arrays by the index's path: `VectorMatrix` keeps one per file and
replaces it whole when vectors change, so a search in another thread keeps the arrays it
started with). More connections than cores gain nothing but memory; a request beyond
them waits for one to come back. The watcher, indexer and embedder run beside them on
connections of their own.
"""

from __future__ import annotations

import logging
import os
import queue
import resource
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from findsession.api import Findsession, SearchOptions
from findsession.freshness import Freshness

log = logging.getLogger("findsession.service")

#: Connections requests are answered on: one per core, at least two, at most four.
READERS = max(2, min(4, os.cpu_count() or 2))


@dataclass
class _Reader:
    """One connection, and the config file's stamp when it was opened."""

    fs: Findsession
    config: tuple[int, int] | None


class Resident:
    """The warm index on `READERS` connections, and its freshness."""

    def __init__(self, db: Path, readers: int = READERS) -> None:
        self.db = db
        first = Findsession.open(db)
        self.settings = first.settings
        self._readers = readers
        self._idle: queue.LifoQueue[_Reader] = queue.LifoQueue()
        self._idle.put(_Reader(first, _stamp(first.settings.path)))
        self._opened = 1
        self._opening = threading.Lock()
        self.freshness = Freshness(db, first.watched_roots())

    @contextmanager
    def index(self) -> Iterator[Findsession]:
        """A connection of the warm index for one request, read with the settings an
        in-process command would read now: one opened before the config file changed is
        opened again (a broken config raises here, said to the client)."""
        reader = self._take()
        try:
            stamp = _stamp(reader.fs.settings.path)
            if stamp != reader.config:
                log.info("the config file changed; reading it again")
                fresh = Findsession.open(self.db)
                reader.fs.close()
                reader.fs, reader.config = fresh, stamp
                self.settings = fresh.settings
            yield reader.fs
        finally:
            self._idle.put(reader)

    def _take(self) -> _Reader:
        try:
            return self._idle.get_nowait()
        except queue.Empty:
            pass
        with self._opening:
            more = self._opened < self._readers
            if more:
                self._opened += 1
        if more:
            try:
                fs = Findsession.open(self.db)
            except BaseException:
                with self._opening:
                    self._opened -= 1
                raise
            return _Reader(fs, _stamp(fs.settings.path))
        return self._idle.get()

    def warm(self) -> float:
        """Open every connection and load the model, the vectors and the keyword index's
        pages with a search on each, so the first person's search is as fast as every
        later one; the seconds it took."""
        started = time.perf_counter()
        readers = [self._take() for _ in range(self._readers)]
        try:
            for reader in readers:
                try:
                    reader.fs.search("warm up the index", SearchOptions(top=1))
                    reader.fs.search("warm up the index", SearchOptions(top=1))  # int8 vectors
                except Exception as exc:  # noqa: BLE001 - an empty or broken index still serves
                    log.warning("warm-up search failed: %s", exc)
        finally:
            for reader in readers:
                self._idle.put(reader)
        return time.perf_counter() - started

    def status(self) -> dict:
        fresh = self.freshness
        usage = resource.getrusage(resource.RUSAGE_SELF)
        # ru_maxrss: kilobytes on Linux, bytes on macOS.
        peak = usage.ru_maxrss / (1 << 20 if sys.platform == "darwin" else 1 << 10)
        return {
            "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 3),
            "rss_mb": round(_rss_mb() or peak, 1),
            "peak_rss_mb": round(peak, 1),
            "readers": self._opened,
            "watching": [str(r.path) for r in fresh.watched],
            "index_runs": fresh.index_runs,
            "last_index": fresh.last_run,
            "embedding": fresh.embedding,
            "caught_up": fresh.caught_up(),
            "last_error": fresh.last_error,
            "last_push": fresh.last_push,
        }

    def close(self, wait: float = 10.0) -> None:
        """Stop the freshness threads and close every connection, each once the request
        it answers is done (at most `wait` seconds for all of them)."""
        self.freshness.stop()
        deadline = time.monotonic() + wait
        for _ in range(self._opened):
            try:
                reader = self._idle.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                log.warning("a request was still running at exit")
                break
            reader.fs.close()


def _rss_mb() -> float | None:
    """Resident memory now (Linux); the peak stands in elsewhere."""
    try:
        with open("/proc/self/statm") as fh:
            pages = int(fh.read().split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE") / (1 << 20)


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size
