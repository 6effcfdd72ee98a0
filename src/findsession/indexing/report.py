"""What an index run is given and what it reports."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from findsession.domain import Problem

#: Called as `progress(done, total, path)` while changed files are read.
Progress = Callable[[int, int, str], None]


@dataclass
class IndexReport:
    """What one `index` run did; the CLI prints it and `--json` emits it."""

    roots: list[str]
    files_seen: int = 0
    files_read: int = 0
    files_unchanged: int = 0
    files_missing: int = 0
    files_pruned: int = 0
    bytes_read: int = 0
    lines_read: int = 0
    sessions_changed: int = 0
    units_written: int = 0
    sessions_total: int = 0
    turns_total: int = 0
    problems: list[tuple[str, Problem]] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)
    seconds: float = 0.0
    interrupted: bool = False
    #: Secrets replaced by `[REDACTED:kind]` before storing, by kind.
    redacted: dict[str, int] = field(default_factory=dict)
    #: Why the run stopped early other than Ctrl-C (a full disk), or None.
    failed: str | None = None
    #: Files and folders left out, with the reason: unreadable folders, FIFOs, links out
    #: of the roots, binary files.
    skipped: list[tuple[str, str]] = field(default_factory=list)
    #: Files whose read was cut short at the work one read may cost (lines, seconds,
    #: decompressed bytes: `sources.budget`), with where and what happens to the rest.
    cut: list[tuple[str, str]] = field(default_factory=list)
    #: Bytes added to the archive of transcripts (compressed), and the files that could
    #: not be archived with why (the index has them all the same).
    archived_bytes: int = 0
    archive_errors: list[tuple[str, str]] = field(default_factory=list)
    #: The roots were walked in full (no list of changed files, or one the index did not
    #: know all of).
    full_scan: bool = True
    #: The sources whose files this run read again from the start, since an older
    #: release read them otherwise (`indexing.readings`).
    read_anew: list[str] = field(default_factory=list)

    def absorb(self, part: IndexReport) -> None:
        """Add one file's report to the run's: done only once the file's savepoint held,
        so a file whose reading failed and rolled back counts nothing it did not keep."""
        for name in (
            "files_read",
            "files_unchanged",
            "bytes_read",
            "lines_read",
            "sessions_changed",
            "units_written",
            "archived_bytes",
        ):
            setattr(self, name, getattr(self, name) + getattr(part, name))
        self.problems.extend(part.problems)
        self.errors.extend(part.errors)
        self.skipped.extend(part.skipped)
        self.cut.extend(part.cut)
        self.archive_errors.extend(part.archive_errors)
        for kind, n in part.redacted.items():
            self.redacted[kind] = self.redacted.get(kind, 0) + n

    def skipped_by_reason(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for _, problem in self.problems:
            counts[problem.reason] = counts.get(problem.reason, 0) + 1
        return counts
