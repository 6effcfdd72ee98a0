"""Schema step 9: each chunk remembers a digest of the exact text its vector came from.

Forked and resumed sessions repeat hundreds of turns word for word, and each copy is a
unit of its own. With the digest, a text already embedded is looked up instead of run
through the model again. Chunks written before this step have none and are simply not
reused; nothing is re-embedded for the upgrade.
"""

from __future__ import annotations

import apsw


def v9_chunk_text_hash(db: apsw.Connection) -> None:
    """`chunks.text_hash`: the embedder's digest of the text (model identity included)."""
    db.execute(
        """
        ALTER TABLE chunks ADD COLUMN text_hash BLOB;
        CREATE INDEX chunks_text_hash ON chunks(text_hash) WHERE text_hash IS NOT NULL;
        """
    )
