"""A title for one session: offline always, from the configured model when there is one.

The model is asked only when `[titles] provider` names one; when its server cannot be
reached or answers nonsense, the offline title stands, and the person is told once. A
title or summary that the redactor finds a secret in is never used: the text a title is
made from is redacted already, and a model must not bring one back either.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import PurePosixPath, PureWindowsPath

from findsession.domain import Session
from findsession.redact import redact
from findsession.storage.views import TitleStore
from findsession.titles.model import ModelTitler, TitleModelError, UnusableAnswer
from findsession.titles.propose import Material, candidates, offline_title
from findsession.titles.settings import TitleSettings

#: Turns whose prompts a title is made from: what a session set out to do is said early.
TURNS = 8


@dataclass(frozen=True, slots=True)
class Proposal:
    title: str
    by: str
    summary: str | None = None
    terms: list[str] = field(default_factory=list)


class Titler:
    """Makes proposals for many sessions, remembering each word's rarity between them."""

    def __init__(self, store: TitleStore, settings: TitleSettings) -> None:
        self.store = store
        self.model = ModelTitler(settings) if settings.provider != "offline" else None
        self.rarity: dict[str, float] = {}
        self.notes: list[str] = []
        self._unusable = 0

    @property
    def by(self) -> str:
        return self.model.identity if self.model else "offline"

    def propose(self, session: Session) -> Proposal | None:
        """The title for `session`, or None when it gives nothing to name it by."""
        prompts, files = self.store.title_material(session.id, TURNS)
        project = _folder_name(session.cwd)
        material = Material(prompts, files, project)
        found = candidates(material)
        unknown = [t for t in found if t not in self.rarity]
        if unknown:
            self.rarity.update(self.store.word_rarity(unknown))
        offline = offline_title(material, found, self.rarity)
        fallback = (
            Proposal(offline.title, "offline", None, offline.terms)
            if offline and not redact(offline.title)[1]
            else None
        )
        if self.model is None or not prompts:
            return fallback
        try:
            title, summary = self.model.propose(material)
        except UnusableAnswer:
            self._unusable += 1
            return fallback
        except TitleModelError as exc:
            self.notes.append(f"the title model failed ({exc}); offline titles from here on")
            self.model = None
            return fallback
        if redact(title)[1]:
            return fallback
        if summary and redact(summary)[1]:
            summary = None
        return Proposal(title, self.model.identity, summary, [])

    def finish(self) -> list[str]:
        """Notes for the person about the run: model failures and unusable answers."""
        if self._unusable:
            n = self._unusable
            self.notes.append(
                f"the title model gave {n} answer{'s' if n != 1 else ''} with no usable title;"
                " those sessions have offline titles"
            )
        return self.notes


def _folder_name(cwd: str | None) -> str | None:
    """The project folder's own name, from a POSIX or a Windows path."""
    if not cwd:
        return None
    return (PureWindowsPath if "\\" in cwd else PurePosixPath)(cwd).name or None
