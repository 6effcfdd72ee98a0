"""Step 4: the model of a shared server's vectors is the admin's to change.

`settings` is one table for the whole server: the model every vector came from
(`embedding_model`, `embedding_dims`), the schema's step, and the counters searchers
watch. Before this step any person could update or delete any of it, so one person whose
config named another model would, on their first embedding run, drop the server's model
and write vectors of theirs beside everyone else's: vectors of two models in one graph,
compared as if they were one. Row-level security now lets a person read every setting,
add one that is missing (the first push names the model), and change or delete only the
counters; the model and the schema's step stay as the admin (the table's owner, whom
these policies do not bind) or the first writer left them.
"""

from __future__ import annotations

from typing import Any

import psycopg

#: Settings a person may change or delete: everything but the model and the schema step.
_MUTABLE = "key NOT LIKE 'embedding\\_%' AND key <> 'schema_version'"


def v4_settings(db: psycopg.Connection[Any]) -> None:
    db.execute(
        f"""
        ALTER TABLE settings ENABLE ROW LEVEL SECURITY;
        CREATE POLICY settings_read ON settings FOR SELECT USING (true);
        CREATE POLICY settings_insert ON settings FOR INSERT WITH CHECK (true);
        CREATE POLICY settings_update ON settings FOR UPDATE
            USING ({_MUTABLE}) WITH CHECK ({_MUTABLE});
        CREATE POLICY settings_delete ON settings FOR DELETE USING ({_MUTABLE});
        """
    )
