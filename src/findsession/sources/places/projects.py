"""The stores agents keep inside a project, and the rule that finds each in a project
(`Entry.in_project`, `Source.project_root`): a project the agent's own list never named
is still read."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class ProjectStore:
    """Where one agent keeps a project's store, and its name in what is reported."""

    agent: str
    folder: str
    db_name: str

    def in_project(self, project: Path) -> Path | None:
        """`project`'s folder of this store, when it holds the database."""
        folder = project / self.folder
        return folder if (folder / self.db_name).is_file() else None

    def project_of(self, db: Path) -> str:
        """The project a database belongs to: the folder that holds the store's folder."""
        return str(db.parent.parent) if db.parent.name == self.folder else str(db.parent)


CRUSH_STORE = ProjectStore(agent="Crush", folder=".crush", db_name="crush.db")


#: OpenCode before its rewrite: `data.directory` defaulted to `.opencode`, in the project.
OPENCODE_FIRST = ProjectStore(agent="OpenCode", folder=".opencode", db_name="opencode.db")


#: RA.Aid's store, in a project's folder (and the home folder's, when run there).
RA_AID_STORE = ProjectStore(agent="RA.Aid", folder=".ra-aid", db_name="pk.db")


#: Where SpecStory keeps a project's chat exports (`.specstory/history/`).
SPECSTORY_FOLDER, SPECSTORY_HISTORY = ".specstory", "history"


#: Where Cody's JetBrains plugin (2024) kept a project's chats.
CODY_IDEA, CODY_HISTORY_XML = ".idea", "cody_history.xml"


def crush_project(project: Path) -> Path | None:
    """A project's own Crush data folder, when it has a database."""
    return CRUSH_STORE.in_project(project)


def opencode_project(project: Path) -> Path | None:
    """A project's `.opencode/` folder, when the first OpenCode kept a store there."""
    return OPENCODE_FIRST.in_project(project)


def ra_aid_project(project: Path) -> Path | None:
    """A project's own `.ra-aid/` folder, when it has a store."""
    return RA_AID_STORE.in_project(project)


def specstory_project(project: Path) -> Path | None:
    """A project's own SpecStory history folder, when it has one."""
    folder = project / SPECSTORY_FOLDER / SPECSTORY_HISTORY
    return folder if folder.is_dir() else None


def cody_project(project: Path) -> Path | None:
    """A JetBrains project's `.idea`, when the Cody plugin kept its chats there."""
    folder = project / CODY_IDEA
    return folder if (folder / CODY_HISTORY_XML).is_file() else None
