"""What every embedding provider offers, so the indexer and search never know which runs.

A provider turns texts into L2-normalised float32 vectors and says how to cut a long text
into pieces its model can see whole: a model with a 256-token window silently reads only
the start of anything longer, so long units are chunked, never truncated.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Protocol

from findsession.errors import FindsessionError

if TYPE_CHECKING:  # numpy only where vectors are computed, not to choose a model
    import numpy as np

Role = Literal["query", "document"]

#: Pieces embedded per field at most: a 100k-character paste should not cost minutes.
MAX_CHUNKS = 8


class EmbeddingUnavailable(FindsessionError):
    """The configured model cannot be loaded or reached; search falls back to keywords."""


class Embedder(Protocol):
    """A sentence-embedding model behind one small interface."""

    #: Names the model and its settings; vectors from two identities are never mixed.
    identity: str
    dims: int
    #: Cosine below which a unit found only by this model is not shown (0: no floor).
    min_cosine: float
    #: A unit found only by this model must score within this of the best match: models
    #: spread cosines differently (MiniLM over 0..1, e5 within about 0.7..0.95).
    cosine_margin: float

    def embed(self, texts: list[str], role: Role) -> np.ndarray:
        """Vectors of shape (len(texts), dims), float32, each of length 1."""
        ...

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Character spans of `text` that each fit the model's window, in order."""
        ...


def normalize(vectors: np.ndarray) -> np.ndarray:
    """Scale rows to length 1 (zero rows stay zero) so a dot product is the cosine."""
    import numpy as np

    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


def char_spans(text: str, window: int, overlap: int) -> list[tuple[int, int]]:
    """Windows of about `window` characters, cut at whitespace, overlapping by `overlap`.

    For providers whose tokenizer we cannot run (a remote server), characters stand in
    for tokens.
    """
    spans: list[tuple[int, int]] = []
    start, n = 0, len(text)
    while start < n and len(spans) < MAX_CHUNKS:
        end = min(n, start + window)
        if end < n:
            cut = text.rfind(" ", start + window // 2, end)
            end = cut if cut > start else end
        spans.append((start, end))
        if end >= n:
            break
        start = max(end - overlap, start + 1)
    return spans
