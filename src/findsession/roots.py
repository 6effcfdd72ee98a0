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
from findsession.paths import expand
from findsession.search.filters import BadOption
from findsession.sources import DEFAULT_SOURCE, ENTRIES, IN_PROJECT, SOURCES, SPOKEN_NAMES, Source
from findsession.sources.git_index import tracked
from findsession.storage.views import RootsStore

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
    settings: Config, store: RootsStore, paths: Iterable[str | Path], source: str | None
) -> RootChoice:
    """See `Findsession.roots`."""
    if source is not None and source not in SOURCES:
        raise BadOption(f"source must be one of {', '.join(SOURCES)}, not {source!r}")
    given = [root_of(settings, expand(p).resolve(), source) for p in paths]
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


def export_roots(settings: Config, store: RootsStore) -> list[Root]:
    """The chat apps' exports named before: the index remembers the root each of its
    files came from, so a run with no folder named reads them again (a newer export
    saved over one, or beside it in a folder named, is read then), unless the source
    is off. One deleted since is still a root: its sessions stay, marked missing, and
    `--prune` removes them."""
    exports = {e.kind for e in ENTRIES if e.export} - set(settings.disabled)
    return [Root(Path(root), kind) for root, kind in store.indexed_roots() if kind in exports]


def project_memory_roots(settings: Config, store: RootsStore, roots: list[Root]) -> list[Root]:
    """Each indexed project's own folder, read for its `CLAUDE.md`, `AGENTS.md` and
    `GEMINI.md` (a few stats each), unless the memory source is off. A project is known
    once its first session is indexed, so its files are read from the run after."""
    if MEMORY not in SOURCES or MEMORY in settings.disabled:
        return []
    have = set(roots)
    dirs = store.project_dirs(tuple(SPOKEN_NAMES))
    extra = [Root(Path(d), MEMORY) for d in dirs if Path(d).is_absolute()]
    return [r for r in extra if r not in have and r.path.is_dir()]


def project_store_roots(settings: Config, store: RootsStore, roots: list[Root]) -> list[Root]:
    """Each indexed project's own store of an agent that keeps one inside the project
    (Crush's `.crush/`), for every enabled source that says where (`project_root`): a
    stat or two per project, so a project Crush never listed is still read. Asked of the
    sources' rules (`sources.places`), which import no source."""
    dirs = [Path(d) for d in store.project_dirs(tuple(SPOKEN_NAMES)) if Path(d).is_absolute()]
    have = set(roots)
    extra: list[Root] = []
    for kind, rule in IN_PROJECT.items():
        if kind in settings.disabled:
            continue
        for folder in dirs:
            place = rule(folder)
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


def source_reports(settings: Config, store: RootsStore) -> list[SourceReport]:
    """Each known source: on or off, the places it reads, what the index holds from it."""
    counts = store.source_counts()
    everywhere = config.default_roots(settings) + export_roots(settings, store)
    exports = {e.kind for e in ENTRIES if e.export}
    dirs = [Path(d) for d in store.project_dirs(tuple(SPOKEN_NAMES)) if Path(d).is_absolute()]
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
                # What the source cannot read here (an encrypted history), if anything,
                # and where each store it keeps inside a project came from.
                notes=[*source.report_notes(), *_store_origins(settings, dirs, source)],
                export=kind in exports,
            )
        )
    return reports


#: Stores listed per source in `sources`; the rest are counted.
_ORIGINS_SHOWN = 20


def _store_origins(settings: Config, dirs: list[Path], source: Source) -> list[str]:
    """Where each store the source keeps inside an indexed project came from: committed
    to the project's git repository (so it may be anyone's: left out unless the config
    reads such stores), or not."""
    lines: list[str] = []
    fate = "read: [privacy] committed_stores" if settings.committed_stores else "left out"
    for folder in dirs:
        place = source.project_root(folder)
        if place is None:
            continue
        kept = [p for p in source.discover(place, lambda *_: None) if source.kept_in_project(p)]
        committed = sum(1 for p in kept if tracked(p) is not None)
        if not kept:
            continue
        if len(kept) == 1:
            origin = "committed to its git repository" if committed else "not committed"
            lines.append(f"{kept[0]}: {origin}" + (f" ({fate})" if committed else ""))
        else:
            lines.append(
                f"{place}: {len(kept)} files, {committed} committed to its git repository"
                + (f" ({fate})" if committed else "")
            )
    if len(lines) > _ORIGINS_SHOWN:
        lines[_ORIGINS_SHOWN:] = [f"and {len(lines) - _ORIGINS_SHOWN} more projects' stores"]
    return lines
