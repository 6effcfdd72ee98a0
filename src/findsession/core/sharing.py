"""`findsession share`: the projects a person shows the team on a shared server.

Sharing is a row the server's row-level security reads (what a person may see is
decided there, not here), so these calls only need the index to be a shared server.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from findsession.core.base import Core
from findsession.errors import FindsessionError
from findsession.paths import expand
from findsession.storage.push import Sharing


@dataclass(frozen=True)
class Share:
    """One project shown to the team: by whom, since when, and whether by the asker."""

    owner: str
    project: str
    since: str
    mine: bool


class SharingMixin(Core):
    """`Findsession`'s share, unshare and list of shares."""

    def _sharing(self) -> Sharing:
        if not hasattr(self.store, "share"):
            raise FindsessionError(
                "sharing is for a shared server, and this index is a local file",
                cli_hint="name the server: --backend postgresql (the config's [storage] url)"
                " or --backend postgresql://user@host/db",
            )
        return cast(Sharing, self.store)

    def share(self, project: str) -> tuple[str, bool]:
        """Show the team your sessions under `project` (a directory, as `--project`
        means it); the project's path and whether it was newly shared."""
        path = _project(project)
        return path, self._sharing().share(path)

    def unshare(self, project: str) -> tuple[str, bool]:
        """Stop showing `project`; its path and whether it had been shown."""
        path = _project(project)
        return path, self._sharing().unshare(path)

    def shares(self) -> list[Share]:
        """Every project shown to the team, yours first."""
        return [Share(*row) for row in self._sharing().shares()]


def _project(project: str) -> str:
    if not project.strip():
        raise FindsessionError("name the project's directory to share")
    return str(expand(project).resolve())
