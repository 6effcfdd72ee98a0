"""What every part of the core API works on: one open index and the settings read once.

Each mixin of this package derives from `Core`, so it can be read on its own and still
say what `self` holds; `Findsession.__init__` (findsession.api) sets both attributes.
"""

from __future__ import annotations

from pathlib import Path

from findsession.config import Config
from findsession.storage import Storage


class Core:
    """The index and the settings, as `Findsession` holds them."""

    store: Storage
    settings: Config

    @property
    def path(self) -> Path:
        return self.store.path
