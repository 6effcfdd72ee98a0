"""The resident service's figures for one index, for `bench/speed.py --service`.

Starts a real service (`findsession service start`) for the index, then measures:
- a warm CLI search: the wall time of a whole `findsession QUERY` process answered by
  the service, the figure to hold against `rg` and the cold in-process search;
- a live append: from the moment 10 lines are appended to a transcript until a keyword
  search through the service finds them (polled over the socket every 10 ms);
- the service's resident memory after the searches;
- idle CPU: the service's own CPU time (from /proc) over `idle_seconds` with no file
  changes, as a share of one core.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from findsession.api import SearchOptions
from findsession.protocol.client import Unavailable, ask, ask_operation
from findsession.protocol.place import Place
from findsession.protocol.requests import Search


def _status(place: Place) -> dict:
    return ask(place, {"op": "service"})


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _wait(condition, seconds: float) -> bool:  # noqa: ANN001
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if condition():
                return True
        except Unavailable:
            pass
        time.sleep(0.2)
    return False


def measure(
    db: Path,
    root: Path | None,
    env: dict[str, str],
    queries: list[str],
    run,  # noqa: ANN001 - speed.run
    append_live,  # noqa: ANN001 - speed.append_live
    idle_seconds: float,
) -> dict:
    env = {**env, "FINDSESSION_DB": str(db)}
    saved = {
        k: os.environ.get(k) for k in ("FINDSESSION_DB", "FINDSESSION_CONFIG", "XDG_RUNTIME_DIR")
    }
    os.environ.update({k: env[k] for k in saved if k in env})
    try:
        place = Place.for_index(db)
        out: dict = {}
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "findsession", "service", "start"],
            env=env,
            check=True,
            capture_output=True,
        )
        out["service_start_s"] = time.perf_counter() - started
        _wait(lambda: _status(place).get("caught_up"), 600)
        pid = _status(place)["pid"]
        walls = [run([q], env)[0] for q in queries for _ in range(3)]
        out["warm_cli_p50"] = statistics.median(walls)
        out["served"] = _status(place)["answered"]
        if root is not None:
            token = f"servicelive{time.time_ns() % 10**9}"
            request = Search(token, SearchOptions(mode="keyword"))
            appended = time.perf_counter()
            append_live(root, token)
            while not ask_operation(place, request).result["results"]:
                if time.perf_counter() - appended > 30:
                    break
                time.sleep(0.01)
            out["service_append_s"] = time.perf_counter() - appended
        _wait(lambda: not _status(place).get("embedding") and _status(place).get("caught_up"), 900)
        out["service_rss_mb"] = _status(place)["rss_mb"]
        if idle_seconds > 0 and Path(f"/proc/{pid}/stat").exists():
            time.sleep(1)
            before = _cpu_seconds(pid)
            time.sleep(idle_seconds)
            out["idle_cpu_pct"] = 100 * (_cpu_seconds(pid) - before) / idle_seconds
            out["idle_seconds"] = idle_seconds
        return out
    finally:
        subprocess.run(
            [sys.executable, "-m", "findsession", "service", "stop"], env=env, capture_output=True
        )
        for k, v in saved.items():
            os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)
