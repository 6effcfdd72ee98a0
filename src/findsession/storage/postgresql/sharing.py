"""Projects a person shows the team: rows of `shares`, read by the row-level security
policies (see `schema_v2`), never by the search code.

A project is a directory and everything below it, as the `--project` filter means it
(the SQL function `in_project`). Sharing writes one row; the policies do the rest, so
taking a share back hides those sessions again at once.
"""

from __future__ import annotations

from findsession.storage.postgresql.connection import Connection


class SharingMixin(Connection):
    """`findsession share`: the asker's own shares, and everyone's to read."""

    def share(self, project: str) -> bool:
        """Show the team the owner's sessions under `project`; False if already shown."""
        with self.transaction():
            return bool(
                self.execute(
                    "INSERT INTO shares (project) VALUES (?) ON CONFLICT DO NOTHING", (project,)
                )
            )

    def unshare(self, project: str) -> bool:
        """Stop showing `project`; False if it was not shown."""
        with self.transaction():
            return bool(
                self.execute(
                    "DELETE FROM shares WHERE owner = current_user AND project = ?", (project,)
                )
            )

    def shares(self) -> list[tuple[str, str, str, bool]]:
        """Every share: (owner, project, since when, whether it is the asker's)."""
        return self.query(
            "SELECT owner, project, shared_at, owner = current_user FROM shares"
            " ORDER BY owner = current_user DESC, owner, project"
        )

    def who_am_i(self) -> str:
        """The role this index was opened as: the owner of what it writes."""
        return str(self.scalar("SELECT current_user"))
