"""The peak memory of a `findsession` command run in a process of its own, in MB.

`os.wait4`'s `ru_maxrss` for a child counts the process it was forked from: Linux keeps
the high-water mark across fork and exec, so a run late in the suite, forked from a
worker that had loaded the model and a few indexes, read 352 MB for a run that used 74.
The child reports its own peak instead: `VmHWM`, the high-water mark of the address
space exec gave it, written at exit to a file the test names.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import IO

_RUN = """
import atexit, os, runpy, sys

def _peak():
    with open("/proc/self/status") as status:
        kb = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
    with open(os.environ["FINDSESSION_TEST_PEAK"], "w") as out:
        out.write(str(kb))

atexit.register(_peak)
sys.argv = ["findsession", *sys.argv[1:]]
runpy.run_module("findsession", run_name="__main__", alter_sys=True)
"""


def run_measured(
    args: list[str],
    env: dict[str, str],
    folder: Path,
    stdout: IO[bytes] | int,
    stderr: IO[bytes] | int,
) -> tuple[int, float]:
    """Run `findsession ARGS`; its exit code and its own peak resident memory in MB."""
    peak = folder / "peak-kb"
    peak.unlink(missing_ok=True)
    proc = subprocess.run(
        [sys.executable, "-c", _RUN, *args],
        env={**env, "FINDSESSION_TEST_PEAK": str(peak)},
        stdout=stdout,
        stderr=stderr,
        check=False,
    )
    return proc.returncode, int(peak.read_text()) / 1024


def supported() -> bool:
    """Whether this system says a process's peak (`/proc/self/status`: Linux)."""
    return os.path.exists("/proc/self/status")
