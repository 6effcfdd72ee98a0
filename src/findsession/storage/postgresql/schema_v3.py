"""Step 3: the number of units, kept by triggers, for the keyword ranking's IDF.

Every keyword search needs N, the number of units, for each word's inverse document
frequency. `count(*)` reads the whole table (or its primary key) every time: 5 ms at
23k units, ten times that at 240k, more than the rest of a search. Statement-level
triggers keep the number in one row instead; writers already take turns (the writers'
advisory lock), so the row is never contended.
"""

from __future__ import annotations

from typing import Any

import psycopg

#: The statement triggers that count units in and out (step 8 keeps them, counting per
#: audience through a new `units_counted`).
COUNTED_ON_WRITE = """
        CREATE TRIGGER units_count_ai AFTER INSERT ON units REFERENCING NEW TABLE AS added
            FOR EACH STATEMENT EXECUTE FUNCTION units_counted();
        CREATE TRIGGER units_count_ad AFTER DELETE ON units REFERENCING OLD TABLE AS removed
            FOR EACH STATEMENT EXECUTE FUNCTION units_counted();
"""


def v3_unit_count(db: psycopg.Connection[Any]) -> None:
    db.execute(
        f"""
        CREATE TABLE unit_count (n bigint NOT NULL);
        INSERT INTO unit_count (n) SELECT count(*) FROM units;
        CREATE FUNCTION units_counted() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'INSERT' THEN
                UPDATE unit_count SET n = n + (SELECT count(*) FROM added);
            ELSIF TG_OP = 'DELETE' THEN
                UPDATE unit_count SET n = n - (SELECT count(*) FROM removed);
            ELSE
                UPDATE unit_count SET n = 0;
            END IF;
            RETURN NULL;
        END $$;
        {COUNTED_ON_WRITE}
        CREATE TRIGGER units_count_at AFTER TRUNCATE ON units
            FOR EACH STATEMENT EXECUTE FUNCTION units_counted();
        """
    )
