"""The store's vector search as a mixin of `Store`, its numpy parts imported on first use.

Every command opens the store, and most (read, list, status, a keyword search, an index
run with nothing to embed) never touch a vector: importing numpy and the matrix with the
class would cost each of them a tenth of a second before doing anything.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from findsession.storage.base import Filters, VectorMatch
from findsession.storage.sqlite.connection import Connection as Store

if TYPE_CHECKING:
    import numpy as np


class VectorSearchMixin(Store):
    """The store's vector search (see findsession.storage.base.VectorIndex)."""

    def load_vectors(self) -> None:
        from findsession.storage.sqlite.vector_index import VectorMatrix

        VectorMatrix.current(self)

    def pack_vectors(self) -> bool:
        """Write the packed arrays a cold searcher loads with one read, when the vectors
        changed enough since the last pack; inside a write transaction."""
        from findsession.storage.sqlite import vector_pack

        return vector_pack.write_pack(self)

    def vector_search(self, vector: np.ndarray, filters: Filters, limit: int) -> list[VectorMatch]:
        from findsession.storage.sqlite.vector_index import VectorMatrix

        return VectorMatrix.current(self).search(self, vector, filters, limit)
