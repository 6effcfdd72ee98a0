"""Ctrl-C held off while a file's or a batch's writes are half done.

Python raises KeyboardInterrupt at whatever bytecode runs when SIGINT arrives. Landing
inside a transaction's bookkeeping (between a savepoint's writes and its release, inside
`contextlib`'s exit of the generator that manages it) it left that generator suspended:
Python closed it later and printed "Exception ignored" with a traceback, and the run's
final COMMIT could keep half a file whose cursor was never written. Inside `Held`, SIGINT
is only noted; KeyboardInterrupt is raised as the block ends, so an interrupted run
stops between two files, each whole.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType, TracebackType


class Held:
    """`with Held():` runs its block to the end on Ctrl-C, then raises KeyboardInterrupt.

    Only in the main thread, and only while Python's own handler is installed: a process
    that handles SIGINT itself (the resident service) keeps its handler, and signals
    cannot be handled from other threads.
    """

    def __init__(self) -> None:
        self.previous: object = None
        self.caught = False

    def _note(self, signum: int, frame: FrameType | None) -> None:
        self.caught = True

    def __enter__(self) -> Held:
        if (
            threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) is signal.default_int_handler
        ):
            self.previous = signal.signal(signal.SIGINT, self._note)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)  # type: ignore[arg-type]
            self.previous = None
        if self.caught and kind is None:
            raise KeyboardInterrupt
