"""The progress bar an index run shows while it reads and embeds.

Only on a terminal: a bar written into a pipe or a log file is noise, so there the run
reports once, when it ends.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from findsession import render

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress, TaskID

#: Told how far a run is: done of total, and the file it is on (the API's `Progress`).
Report = Callable[[int, int, str], None]


class progress_bar:  # noqa: N801 - used as a context manager like a function
    """A rich progress bar on a terminal; nothing when stderr is a pipe or a file.

    `with progress_bar(err, "indexing") as progress:` gives the callback to hand to the
    API, or None when there is no terminal to draw on.
    """

    def __init__(self, err: Console, label: str) -> None:
        self.err = err
        self.label = label
        self.bar: Progress | None = None
        self.task: TaskID | None = None

    def __enter__(self) -> Report | None:
        if not self.err.is_terminal:
            return None
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )

        self.bar = Progress(
            TextColumn(self.label),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            TextColumn("[dim]{task.fields[name]}"),
            console=self.err,
            transient=True,
        )
        self.bar.start()
        self.task = self.bar.add_task("index", total=None, name="")
        return self.update

    def update(self, done: int, total: int, path: str = "") -> None:
        assert self.bar is not None and self.task is not None
        # A file name from the disk may hold anything, a control sequence included.
        name = render.printable(Path(path).name[:40])
        self.bar.update(self.task, completed=done, total=total, name=name)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()
