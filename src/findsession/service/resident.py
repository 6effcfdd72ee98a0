"""What the service keeps in memory: one open index, its model and vectors, warm.

Searches run one at a time on one connection (two cores gain nothing from running two
BM25 scans at once, and it keeps the in-memory vectors single); the watcher, indexer
and embedder run beside them on their own connections.
"""

from __future__ import annotations

import logging
import resource
import sys
import threading
import time
from pathlib import Path

from findsession.api import Findsession, SearchOptions
from findsession.freshness import Freshness

log = logging.getLogger("findsession.service")


class Resident:
    """The warm index, its freshness, and the lock searches take turns on."""

    def __init__(self, db: Path) -> None:
        self.db = db
        self.fs = Findsession.open(db)
        self._config_seen = _stamp(self.fs.settings.path)
        self.lock = threading.Lock()
        self.freshness = Freshness(db, self.fs.watched_roots())

    def current(self) -> Findsession:
        """The open index, opened again when the config file changed since: a served
        search must use the settings an in-process one would read. Call under `lock`."""
        stamp = _stamp(self.fs.settings.path)
        if stamp != self._config_seen:
            log.info("the config file changed; reading it again")
            fresh = Findsession.open(self.db)  # a broken config raises here, said to the client
            self.fs.close()
            self.fs, self._config_seen = fresh, stamp
        return self.fs

    def warm(self) -> float:
        """Load the model, the vectors and the keyword index's pages with one search, so
        the first person's search is as fast as every later one; the seconds it took."""
        started = time.perf_counter()
        with self.lock:
            try:
                self.fs.search("warm up the index", SearchOptions(top=1))
                self.fs.search("warm up the index", SearchOptions(top=1))  # int8 vectors
            except Exception as exc:  # noqa: BLE001 - an empty or broken index still serves
                log.warning("warm-up search failed: %s", exc)
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
            "watching": [str(r.path) for r in fresh.watched],
            "index_runs": fresh.index_runs,
            "last_index": fresh.last_run,
            "embedding": fresh.embedding,
            "caught_up": fresh.caught_up(),
            "last_error": fresh.last_error,
            "last_push": fresh.last_push,
        }

    def close(self) -> None:
        self.freshness.stop()
        with self.lock:
            self.fs.close()


def _rss_mb() -> float | None:
    """Resident memory now (Linux); the peak stands in elsewhere."""
    try:
        with open("/proc/self/statm") as fh:
            pages = int(fh.read().split()[1])
    except (OSError, ValueError, IndexError):
        return None
    import os

    return pages * os.sysconf("SC_PAGE_SIZE") / (1 << 20)


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size
