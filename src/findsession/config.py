"""Where things live: the database, the config file, and the roots to index.

Precedence for the database: `--db`, then `FINDSESSION_DB`, then the user's data
directory. The config file (TOML) is `FINDSESSION_CONFIG` or the user's config directory.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from findsession.archive.settings import ArchiveSettings, BadArchiveSettings
from findsession.domain import Root
from findsession.embeddings.settings import BadEmbeddingSettings, EmbeddingSettings
from findsession.errors import FindsessionError
from findsession.paths import APP as APP  # re-exported: callers name them config.*
from findsession.paths import config_path as config_path
from findsession.paths import db_path as db_path
from findsession.paths import expand
from findsession.sources import DEFAULT_SOURCE, PLACES, SOURCES
from findsession.storage import BACKENDS, SERVER_BACKENDS
from findsession.titles.settings import BadTitleSettings, TitleSettings


class ConfigError(FindsessionError):
    """The config file cannot be read or holds a value findsession cannot use."""


@dataclass
class Config:
    """Settings from the config file, read once and passed down to whatever needs them;
    every field has a default that needs no file."""

    path: Path
    roots: list[Root] = field(default_factory=list)
    #: The `[embedding]` table: provider and its settings (see findsession.embeddings).
    embedding: EmbeddingSettings = field(default_factory=EmbeddingSettings)
    #: `[storage] backend`: where the index lives (see findsession.storage); a URL
    #: alone chooses `postgresql`.
    backend: str = "sqlite"
    #: `[storage] url`, or `FINDSESSION_STORAGE_URL`: the server a server backend uses,
    #: or (with `backend = "sqlite"`) the shared server `push` sends this index to.
    storage_url: str | None = None
    #: `[storage] push = true`: after each index run (the CLI's, a schedule's) and from
    #: the resident service, send what changed to `storage_url` (see findsession.core.
    #: pushing). Off by default: nothing leaves the machine unless the person asks.
    push_after_index: bool = False
    #: `[search] hybrid_weight`: the vector list's weight in rank fusion.
    hybrid_weight: float = 0.5
    #: `[mcp] all_projects`: the MCP server searches every project, not only its own.
    mcp_all_projects: bool = False
    #: `[mcp] evidence_budget`: distinct turns one MCP connection may be shown.
    mcp_evidence_budget: int = 400
    #: `[privacy] exclude`: globs of project directories never to index.
    exclude: list[str] = field(default_factory=list)
    #: `[privacy] committed_stores = "index"`: read the stores agents keep inside a
    #: project (`.opencode/`, `.crush/`, `.specstory/history/`) that its git repository
    #: tracks. Off by default ("skip"): a committed store came with the repository as
    #: readily as from this machine's agent, and may hold anyone's sessions.
    committed_stores: bool = False
    #: `[sources] <kind> = false` (or `enabled = false` in `[sources.<kind>]`): sources
    #: whose standard places and configured roots are left alone.
    disabled: set[str] = field(default_factory=set)
    #: The `[titles]` table: how titles are proposed and where they may be written.
    titles: TitleSettings = field(default_factory=TitleSettings)
    #: The `[archive]` table: which sources' transcripts are kept beside the index.
    archive: ArchiveSettings = field(default_factory=ArchiveSettings)
    #: This machine's name, for `[titles] writer`: `FINDSESSION_MACHINE`, else
    #: `[machine] name`. Hostnames can be equal on two machines, so it is never guessed.
    machine: str | None = None


def load_config() -> Config:
    """Read the config file if there is one.

    `roots` is a list of folders, or of tables `{path = "...", source = "claude-code"}`.
    """
    path = config_path()
    config = Config(path=path)
    config.machine = _machine_name(os.environ.get("FINDSESSION_MACHINE") or None, path)
    if not path.exists():
        _read_storage({}, config)
        return config
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read the config file {path}: {exc}") from exc
    for entry in data.get("roots", []):
        if isinstance(entry, str):
            entry = {"path": entry}
        if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
            raise ConfigError(f"{path}: each entry of `roots` must be a path or {{path = ...}}")
        source = entry.get("source", DEFAULT_SOURCE)
        if source not in SOURCES:
            known = ", ".join(SOURCES)
            raise ConfigError(f"{path}: unknown source {source!r} in roots (known: {known})")
        config.roots.append(Root(expand(entry["path"]), source))
    embedding = data.get("embedding", {})
    if not isinstance(embedding, dict):
        raise ConfigError(f"{path}: [embedding] must be a table")
    if isinstance(embedding.get("path"), str):
        embedding["path"] = str(expand(embedding["path"]))
    try:
        config.embedding = EmbeddingSettings.from_table(embedding)
    except BadEmbeddingSettings as exc:
        raise ConfigError(f"{path}: {exc}") from None
    _read_storage(data.get("storage", {}), config)
    weight = data.get("search", {}).get("hybrid_weight", 0.5)
    if not isinstance(weight, int | float) or not 0 <= weight <= 1:
        raise ConfigError(f"{path}: [search] hybrid_weight must be a number from 0 to 1")
    config.hybrid_weight = float(weight)
    mcp = data.get("mcp", {})
    config.mcp_all_projects = bool(mcp.get("all_projects", False))
    budget = mcp.get("evidence_budget", 400)
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise ConfigError(f"{path}: [mcp] evidence_budget must be a whole number, 1 or more")
    config.mcp_evidence_budget = budget
    exclude = data.get("privacy", {}).get("exclude", [])
    if not isinstance(exclude, list) or not all(isinstance(g, str) for g in exclude):
        raise ConfigError(f"{path}: [privacy] exclude must be a list of path globs")
    config.exclude = exclude
    committed = data.get("privacy", {}).get("committed_stores", "skip")
    if committed not in ("skip", "index"):
        raise ConfigError(f'{path}: [privacy] committed_stores must be "skip" or "index"')
    config.committed_stores = committed == "index"
    _read_sources(data.get("sources", {}), config)
    titles = data.get("titles", {})
    if not isinstance(titles, dict):
        raise ConfigError(f"{path}: [titles] must be a table")
    try:
        config.titles = TitleSettings.from_table(titles)
    except BadTitleSettings as exc:
        raise ConfigError(f"{path}: {exc}") from None
    try:
        config.archive = ArchiveSettings.from_table(data.get("archive", {}))
    except BadArchiveSettings as exc:
        raise ConfigError(f"{path}: {exc}") from None
    machine = data.get("machine", {})
    if not isinstance(machine, dict):
        raise ConfigError(f"{path}: [machine] must be a table")
    config.machine = config.machine or _machine_name(machine.get("name"), path)
    return config


def _machine_name(value: Any, path: Path) -> str | None:
    """A machine name as given, or None; anything but a non-blank string is refused."""
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(
            f"{path}: [machine] name (or FINDSESSION_MACHINE) must be a non-blank string"
        )
    return value.strip()


def _read_storage(table: Any, config: Config) -> None:
    """`[storage]`: `backend` and the server's `url` (which `FINDSESSION_STORAGE_URL`
    replaces). A URL with no backend named means PostgreSQL: the server is the index.
    With `backend = "sqlite"` the URL is the shared server this machine pushes to
    (`findsession push`, or after every index run with `push = true`) and searches with
    `--backend postgresql`."""
    path = config.path
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [storage] must be a table")
    url = os.environ.get("FINDSESSION_STORAGE_URL") or table.get("url")
    if url is not None and (not isinstance(url, str) or not url.strip()):
        raise ConfigError(f"{path}: [storage] url must be a non-blank string")
    backend = table.get("backend", "postgresql" if url else "sqlite")
    if backend not in BACKENDS:
        known = ", ".join(BACKENDS)
        raise ConfigError(f"{path}: unknown [storage] backend {backend!r} (known: {known})")
    if backend in SERVER_BACKENDS and not url:
        raise ConfigError(
            f"{path}: [storage] backend {backend!r} needs [storage] url"
            " (or FINDSESSION_STORAGE_URL): postgresql://user@host:port/database"
        )
    push = table.get("push", False)
    if not isinstance(push, bool):
        raise ConfigError(f"{path}: [storage] push must be true or false")
    if push and (backend in SERVER_BACKENDS or not url):
        raise ConfigError(
            f"{path}: [storage] push = true sends this machine's own index to [storage] url:"
            ' it needs backend = "sqlite" and the url'
        )
    config.backend, config.storage_url, config.push_after_index = backend, url, push


def _read_sources(table: Any, config: Config) -> None:
    """`[sources]`: `codex = false` turns a source off; `[sources.markdown] roots = [...]`
    adds folders of that kind (`enabled = false` there turns it off too)."""
    path = config.path
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [sources] must be a table")
    for kind, value in table.items():
        if kind not in SOURCES:
            known = ", ".join(SOURCES)
            raise ConfigError(f"{path}: unknown source {kind!r} in [sources] (known: {known})")
        if isinstance(value, bool):
            value = {"enabled": value}
        if not isinstance(value, dict):
            raise ConfigError(f"{path}: [sources] {kind} must be true, false or a table")
        enabled = value.get("enabled", True)
        roots = value.get("roots", [])
        if not isinstance(enabled, bool):
            raise ConfigError(f"{path}: [sources.{kind}] enabled must be true or false")
        if not isinstance(roots, list) or not all(isinstance(r, str) for r in roots):
            raise ConfigError(f"{path}: [sources.{kind}] roots must be a list of folders")
        if not enabled:
            config.disabled.add(kind)
        for root in roots:
            entry = Root(expand(root), kind)
            if entry not in config.roots:
                config.roots.append(entry)


def default_roots(config: Config) -> list[Root]:
    """Each enabled source's standard location, then the roots the config file adds.

    Read from the sources' place rules (`sources.places`), not from the sources: a run
    imports only the sources whose places it reads."""
    roots = [
        Root(p, kind)
        for kind, where in PLACES.items()
        if kind not in config.disabled
        for p in where()
    ]
    roots += [r for r in config.roots if r not in roots and r.source not in config.disabled]
    return roots


def sample_root() -> Root:
    """The sample corpus shipped with the package, for a first run without transcripts."""
    from importlib import resources

    path = Path(str(resources.files("findsession") / "sample" / "claude" / "projects"))
    return Root(path, "claude-code")
