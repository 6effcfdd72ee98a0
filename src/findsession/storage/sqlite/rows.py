"""The row dataclasses of the seam (findsession.storage.base), as this package names them."""

from __future__ import annotations

from findsession.storage.base import FileState, UnitRow

__all__ = ["FileState", "UnitRow"]
