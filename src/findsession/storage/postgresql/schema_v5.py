"""Step 5: the vector graph over half-precision copies, half the memory, the same answers.

A stored vector is the embedder's int8 values (the scale left out: cosine does not see
it), and every value from -128 to 127 is exact in half precision. An HNSW index over
`embedding::halfvec(N)` therefore ranks exactly as one over single precision while its
vectors take 768 bytes instead of 1,536; with the neighbour lists the graph falls from
about 2 kB a vector to about 1.1 kB, and a graph that fits in memory is what keeps a
walk fast (at 1M units the 4 GB single-precision graph no longer fit in 4 GB of shared
buffers). The query vector is rounded to half precision as well, a change of cosine in
the fourth decimal.

This step drops the old graph and replaces `ensure_graph`; it does not build the new
one, which would hold the migration's lock for minutes on a large server, whoever opened
it. The admin's `findsession server init` builds it right after (findsession.storage.
postgresql.roles), else the next embedding run or push (each ends by making a missing
graph); until then a search scans the vectors exactly.
"""

from __future__ import annotations

from typing import Any

import psycopg


def v5_half_graph(db: psycopg.Connection[Any]) -> None:
    path = db.execute("SELECT current_setting('search_path')").fetchone()[0]
    graphs = db.execute(
        "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()"
        " AND indexname LIKE 'chunks\\_hnsw\\_%'"
    ).fetchall()
    for (name,) in graphs:
        db.execute(f'DROP INDEX "{name}"')
    db.execute(
        f"""
        CREATE OR REPLACE FUNCTION ensure_graph(dims integer) RETURNS void
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = {path}, pg_temp AS $$
        BEGIN
            IF to_regclass('chunks_hnsw_' || dims) IS NULL THEN
                EXECUTE format('CREATE INDEX IF NOT EXISTS chunks_hnsw_%s ON chunks USING hnsw'
                    ' ((embedding::halfvec(%s)) halfvec_cosine_ops)'
                    ' WHERE vector_dims(embedding) = %s', dims, dims, dims);
            END IF;
        END $$;
        """
    )
