"""Which terminal a command runs in, so `open N` reads the list that terminal was shown.

Two windows searching at once must not take each other's numbers. The controlling
terminal's name (`/dev/pts/3`) tells them apart and is the same for every command typed
in one window, whichever of stdin, stdout or stderr is piped. Without a terminal (a
script, an editor's task runner) the parent process, normally the shell that runs each
command, stands in; failing that, one shared list.
"""

from __future__ import annotations

import os


def terminal_id() -> str:
    """`tty:/dev/pts/3`, else `shell:<parent pid>`, else `default`."""
    for fd in (0, 1, 2):
        try:
            if os.isatty(fd):
                return f"tty:{os.ttyname(fd)}"
        except (OSError, AttributeError):  # closed descriptor; no ttyname on Windows
            continue
    parent = os.getppid()
    # 1 (or 0): the parent is gone and init adopted us; every orphan would share it.
    return f"shell:{parent}" if parent > 1 else "default"
