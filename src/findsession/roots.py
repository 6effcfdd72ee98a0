"""Which folders an index run reads, and what each source reads and holds.

The core API's choice of roots, apart from the API itself: the folders a person names
(each read as the source whose standard place holds it), else every enabled source's
standard place, the config's roots and each indexed project's own folder (for its
`CLAUDE.md`, `AGENTS.md`, `GEMINI.md`, and a store an agent keeps in the project, as
Crush's `.crush/`); with nothing anywhere and an empty index, the shipped sample.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from findsession import config
from findsession.config import Config
from findsession.domain import Root, SourceCounts, SourceReport
from findsession.errors import FindsessionError
from findsession.search.filters import BadOption
from findsession.sources import DEFAULT_SOURCE, ENTRIES, SOURCES, SPOKEN_NAMES
from findsession.storage import Storage

#: The source that reads projects' own instruction files (`CLAUDE.md`, `AGENTS.md`).
MEMORY = "memory"


@dataclass
class RootChoice:
    """The roots an index run reads, and what the person should know about the choice."""

    roots: list[Root]
    notes: list[str] = field(default_factory=list)
    #: True when no transcripts were found and the shipped sample corpus stands in.
    sample: bool = False
    #: Folders or files named to be read that do not exist (the run reads the rest and
    #: the command fails: a typo must not pass for an index run with nothing new).
    missing: list[Path] = field(default_factory=list)


def choose_roots(
    settings: Config, store: Storage, paths: Iterable[str | Path], source: str | None
) -> RootChoice:
    """See `Findsession.roots`."""
    if source is not None and source not in SOURCES:
        raise BadOption(f"source must be one of {', '.join(SOURCES)}, not {source!r}")
    given = [root_of(settings, Path(p).expanduser().resolve(), source) for p in paths]
    if given:
        missing = [r.path for r in given if not r.path.exists()]
        if len(missing) == len(given):
            named = ", ".join(str(m) for m in missing)
            raise FindsessionError(
                f"{named} {'does' if len(missing) == 1 else 'do'} not exist: nothing was read"
                " (name a folder or file that exists)"
            )
        return RootChoice([r for r in given if r.path.exists()], missing=missing)
    found = [r for r in config.default_roots(settings) if r.path.exists()]
    # An export that is gone is still named: its sessions are marked missing (or pruned).
    found += [r for r in export_roots(settings, store) if r not in found]
    found += project_memory_roots(settings, store, found)
    found += project_store_roots(settings, store, found)
    if found:
        return RootChoice(found)
    standard = config.default_roots(settings)
    where = f"at {standard[0].path}" if standard else "(every source is off in the config)"
    sample = config.sample_root()
    if any(root != str(sample.path) for root, _ in store.indexed_roots()):
        # The sample is for a first look at an empty index: an index of folders named
        # before (archived transcripts) must not gain its sessions, neither from a run
        # with no folder named nor from the service keeping the index fresh.
        note = (
            f"no transcripts found {where}; nothing read (the index holds folders named"
            " before: name one to read it again, or add it to the config file's roots)"
        )
        return RootChoice([], [note])
    note = (
        f"no transcripts found {where}; indexing the sample corpus that ships with"
        " findsession instead (name a folder, or add roots to the config file, to index"
        " your own)"
    )
    return RootChoice([sample], [note], sample=True)


def export_roots(settings: Config, store: Storage) -> list[Root]:
    """The chat apps' exports named before: the index remembers the root each of its
    files came from, so a run with no folder named reads them again (a newer export
    saved over one, or beside it in a folder named, is read then), unless the source
    is off. One deleted since is still a root: its sessions stay, marked missing, and
    `--prune` removes them."""
    exports = {e.kind for e in ENTRIES if e.export} - set(settings.disabled)
    return [Root(Path(root), kind) for root, kind in store.indexed_roots() if kind in exports]


def project_memory_roots(settings: Config, store: Storage, roots: list[Root]) -> list[Root]:
    """Each indexed project's own folder, read for its `CLAUDE.md`, `AGENTS.md` and
    `GEMINI.md` (a few stats each), unless the memory source is off. A project is known
    once its first session is indexed, so its files are read from the run after."""
    if MEMORY not in SOURCES or MEMORY in settings.disabled:
        return []
    have = set(roots)
    dirs = store.project_dirs(tuple(SPOKEN_NAMES))
    extra = [Root(Path(d), MEMORY) for d in dirs if Path(d).is_absolute()]
    return [r for r in extra if r not in have and r.path.is_dir()]


def project_store_roots(settings: Config, store: Storage, roots: list[Root]) -> list[Root]:
    """Each indexed project's own store of an agent that keeps one inside the project
    (Crush's `.crush/`), for every enabled source that says where (`project_root`): a
    stat or two per project, so a project Crush never listed is still read."""
    dirs = [Path(d) for d in store.project_dirs(tuple(SPOKEN_NAMES)) if Path(d).is_absolute()]
    have = set(roots)
    extra: list[Root] = []
    for kind, source in SOURCES.items():
        if kind in settings.disabled:
            continue
        for folder in dirs:
            place = source.project_root(folder)
            if place is not None and Root(place, kind) not in have:
                have.add(Root(place, kind))
                extra.append(Root(place, kind))
    return extra


def root_of(settings: Config, path: Path, source: str | None) -> Root:
    """`source`, else the source of the deepest standard place or configured root
    holding `path` (`~/.claude/projects/x/memory` is memory's, not Claude Code's)."""
    if source:
        return Root(path, source)
    best: Root | None = None
    for root in config.default_roots(settings):
        try:
            place = root.path.resolve()
        except OSError:
            continue
        holds = path == place or place in path.parents
        if holds and (best is None or len(place.parts) > len(best.path.parts)):
            best = Root(place, root.source)
    return Root(path, best.source if best else DEFAULT_SOURCE)


def source_reports(settings: Config, store: Storage) -> list[SourceReport]:
    """Each known source: on or off, the places it reads, what the index holds from it."""
    counts = store.source_counts()
    everywhere = config.default_roots(settings) + export_roots(settings, store)
    exports = {e.kind for e in ENTRIES if e.export}
    reports = []
    for kind, source in SOURCES.items():
        places = [r.path for r in everywhere if r.source == kind]
        if kind in settings.disabled:
            places = list(source.default_roots())
        reports.append(
            SourceReport(
                kind=kind,
                enabled=kind not in settings.disabled,
                roots=[(str(p), p.exists()) for p in places],
                counts=counts.get(kind, SourceCounts()),
                # What the source cannot read here (an encrypted history), if anything.
                notes=source.report_notes(),
                export=kind in exports,
            )
        )
    return reports
