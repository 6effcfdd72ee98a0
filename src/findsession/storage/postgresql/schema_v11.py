"""Step 11: each unit's words as rows, so a keyword list costs its words, not its units.

A keyword list ranked through the GIN index reads the `tsvector` of every unit holding
any query word and ranks it (`keyword_ranked`): 18k–61k units at 240k units, 6 to 11 µs
each, and counting a word for its IDF reads every unit holding it too. `postings` holds
one row per unit, column and lexeme, with the lexeme's weighted count as `ts_rank_cd`
computes it for a one-word query (the column's weights and scale: 4·Σ weight for the
conversation and the CJK bigrams, the count of positions for tool text) and the column's
length; a list is then an index-only read of its words' rows, a count one of a word's.
Tried at 240k units before it shipped: the same top 10 for all 16 benchmark queries, 4.4×
faster lists, 18× faster counts (docs/benchmarks.md).

The rows follow their unit: written, rewritten and deleted with it by statement
triggers, and shown to whom the unit is (`shared`, `audience`, as every content row
since step 8; the index leads with `audience`, so no walk of it meets a word of a
session its reader may not see). A list's phrase terms are still scored by
`keyword_ranked` and added to its words' scores; a speaker's weight, a filter and a raw
query send the whole list there.
"""

from __future__ import annotations

from typing import Any

import psycopg

from findsession.storage.postgresql.schema_v8 import MINE, VISIBLE, quoted

#: The keyword columns, their numbers in `postings`, and each lexeme's weighted count
#: as `ts_rank_cd` with the column's weights, scaled as `keyword_index.TF_SCALE` does
#: (0 for a lexeme stored without positions, which `ts_rank_cd` ignores).
COLUMNS = {"words": 1, "tool_words": 2, "cjk_grams": 3}
_WEIGHTED = (
    "4 * (SELECT sum(CASE w WHEN 'A' THEN 1.0 WHEN 'B' THEN 0.5 WHEN 'C' THEN 0.25"
    " ELSE 0.125 END) FROM unnest(x.weights) AS w)"
)
_COUNTED = "cardinality(x.positions)"


def postings_of(units: str) -> str:
    """The postings of every row of `units` (a table or transition table with `id`,
    `owner`, `shared` and the three columns)."""
    parts = [
        f"SELECT u.owner, u.id, {number}::smallint, x.lexeme,"
        f" coalesce({_COUNTED if column == 'tool_words' else _WEIGHTED}, 0)::real,"
        f" length(u.{column}), u.shared FROM {units} u, unnest(u.{column}) AS x"
        for column, number in COLUMNS.items()
    ]
    return (
        "INSERT INTO postings (owner, unit_id, col, lexeme, tf, len, shared) "
        + " UNION ALL ".join(parts)
    )


def v11_postings(db: psycopg.Connection[Any]) -> None:
    path = db.execute("SELECT current_setting('search_path')").fetchone()[0]
    db.execute(
        f"""
        CREATE TABLE postings (
            owner    text NOT NULL DEFAULT current_user,
            unit_id  bigint NOT NULL,
            col      smallint NOT NULL,
            lexeme   text NOT NULL,
            tf       real NOT NULL,
            len      integer NOT NULL,
            shared   boolean NOT NULL DEFAULT false,
            audience text NOT NULL GENERATED ALWAYS AS
                (CASE WHEN shared THEN '' ELSE owner END) STORED
        );
        ALTER TABLE postings ENABLE ROW LEVEL SECURITY;
        CREATE POLICY postings_read ON postings FOR SELECT USING ({VISIBLE});
        CREATE POLICY postings_insert ON postings FOR INSERT WITH CHECK ({MINE});
        CREATE POLICY postings_update ON postings FOR UPDATE USING ({MINE}) WITH CHECK ({MINE});
        CREATE POLICY postings_delete ON postings FOR DELETE USING ({MINE});
        """
    )
    db.execute(postings_of("units"))
    db.execute(
        """
        CREATE INDEX postings_key ON postings (audience, col, lexeme) INCLUDE (unit_id, tf, len);
        CREATE INDEX postings_unit ON postings (audience, unit_id);
        ANALYZE postings;
        """
    )
    # A unit's rows go when it goes, and are written again when its words or its flag
    # change (a share moves its session's units: the rows follow). Through EXECUTE, each
    # run planned for the tables as they are (step 10). Named to run before
    # `units_shared`, which may mark the new units at once: their rows then follow.
    gone = (
        "DELETE FROM postings p USING removed r WHERE p.audience = r.audience AND p.unit_id = r.id"
    )
    changed = (
        "SELECT n.* FROM added n JOIN removed r ON r.id = n.id"
        " WHERE (n.words, n.tool_words, n.cjk_grams, n.shared)"
        " IS DISTINCT FROM (r.words, r.tool_words, r.cjk_grams, r.shared)"
    )
    gone_changed = (
        "DELETE FROM postings p USING removed r JOIN added n ON n.id = r.id"
        " WHERE p.audience = r.audience AND p.unit_id = r.id"
        " AND (n.words, n.tool_words, n.cjk_grams, n.shared)"
        " IS DISTINCT FROM (r.words, r.tool_words, r.cjk_grams, r.shared)"
    )
    db.execute(
        f"""
        CREATE FUNCTION units_postings_written() RETURNS trigger LANGUAGE plpgsql
        SET search_path = {path}, pg_temp AS $$
        BEGIN
            IF TG_OP = 'INSERT' THEN
                EXECUTE '{quoted(postings_of("added"))}';
            ELSIF TG_OP = 'DELETE' THEN
                EXECUTE '{quoted(gone)}';
            ELSE
                EXECUTE '{quoted(gone_changed)}';
                EXECUTE '{quoted(postings_of(f"({changed})"))}';
            END IF;
            RETURN NULL;
        END $$;
        CREATE TRIGGER units_postings_ai AFTER INSERT ON units
            REFERENCING NEW TABLE AS added
            FOR EACH STATEMENT EXECUTE FUNCTION units_postings_written();
        CREATE TRIGGER units_postings_au AFTER UPDATE ON units
            REFERENCING OLD TABLE AS removed NEW TABLE AS added
            FOR EACH STATEMENT EXECUTE FUNCTION units_postings_written();
        CREATE TRIGGER units_postings_ad AFTER DELETE ON units
            REFERENCING OLD TABLE AS removed
            FOR EACH STATEMENT EXECUTE FUNCTION units_postings_written();
        CREATE FUNCTION units_postings_emptied() RETURNS trigger LANGUAGE plpgsql
        SET search_path = {path}, pg_temp AS $$
        BEGIN
            TRUNCATE postings;
            RETURN NULL;
        END $$;
        CREATE TRIGGER units_postings_at AFTER TRUNCATE ON units
            FOR EACH STATEMENT EXECUTE FUNCTION units_postings_emptied();
        """
    )
