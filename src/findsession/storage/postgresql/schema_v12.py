"""Step 12: what a person's call costs the server depends only on what they may read.

Step 8's search functions run as the schema's owner, through the GIN and HNSW indexes,
and keep the rows their caller may read. They returned nothing of a colleague's, but
they met it on the way: a word only Alice's unshared units held made Bob's call to
`matching_count` fetch every one of those units (5.6 ms against 1.1 ms for an absent
word at 5,000 units, and their count in `pg_stat_user_tables`, which every role reads),
and a vector near Alice's private chunks made his walk of the one graph fetch and drop
them. Now:

- **A person's words are looked up in `postings`** (step 11), whose index leads with
  `audience`: `readable_units` takes the words of the query (a prefix as a range of the
  index, so `lexeme` compares byte by byte now, `COLLATE "C"`), and returns the units the
  caller may read that hold the rarest of them (every word of a query without `|` or
  `!` is required) or any of them; the functions then test `@@` on those units alone,
  found by `(audience, id)`. A query that holds without any of its words (`!word`)
  reads every unit the caller may read. The schema's owner, who may read everything,
  still goes through the GIN indexes.
- **A graph per audience.** `chunks_hnsw_<dims>_<audience>`: each person's own vectors,
  and the shared ones (`…_shared`), each a partial HNSW index. A person's walk goes
  through their graph and the shared one and meets nothing else; the owner's walks every
  audience's. `ensure_graph` builds the caller's (the owner: all); until a graph is
  built its rows are compared one by one, found through the `(audience, …)` B-trees.
  The single graph of step 5 is dropped here; `server init` builds the new ones, else
  each person's next push or embedding run builds theirs.
- **Every join finds its row by its index's whole key** (a unit's session by
  `(audience, id)`): a search's work follows its rows, not the size of the tables.
- **No statistics of words.** The planner's estimates come from statistics sampled
  over every row, policies or not: as Bob, `EXPLAIN SELECT 1 FROM sessions WHERE cwd =
  '/home/alice/secretproj'` estimated 143 rows where an absent path got 1, and a range
  walked over a column's histogram spells out its values. Every column of text, bytes,
  words or vectors of a table with owners, but `owner` and `audience`, now keeps none
  (`SET STATISTICS 0`); numbers and flags keep theirs, which the plans need.
- `readable_units` is for these functions alone: not granted to people (`INTERNAL`).
"""

from __future__ import annotations

from typing import Any

import psycopg

from findsession.storage.postgresql import schema_v12_words as words
from findsession.storage.postgresql.schema_v8 import _filters, quoted

#: Functions of the schema that only its own functions call: people may not execute
#: them (`roles` revokes them from the group after granting it the rest).
INTERNAL = ("readable_units(text, tsquery)",)
#: Columns whose statistics stay: whose rows they are, as every policy reads them.
_STATISTICS_KEPT = ("owner", "audience", "shared")
#: The group role people belong to (`roles.GROUP`; not imported: roles imports this).
_GROUP = "findsession_users"


def graph_name(dims: str, audience: str) -> str:
    """The SQL expression naming the graph of the vectors of `dims` dimensions for
    `audience` (both SQL expressions): `chunks_hnsw_384_shared`, or a digest of the
    person's role, since a role's name may hold what an index name may not."""
    return (
        f"'chunks_hnsw_' || {dims} || '_' || CASE WHEN {audience} = '' THEN 'shared'"
        f" ELSE left(md5({audience}), 16) END"
    )


def v12_bounded_reads(db: psycopg.Connection[Any]) -> None:
    path = db.execute("SELECT current_setting('search_path')").fetchone()[0]
    db.execute('ALTER TABLE postings ALTER COLUMN lexeme TYPE text COLLATE "C"')
    for (name,) in db.execute(
        "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()"
        " AND indexname LIKE 'chunks\\_hnsw\\_%'"
    ).fetchall():
        db.execute(f'DROP INDEX "{name}"')
    _no_statistics(db)
    definer = f"SECURITY DEFINER SET search_path = {path}, pg_temp SET enable_seqscan = off"
    words.readable_units(db, path)
    words.word_functions(db, definer)
    words.keyword_ranked(db, definer)
    _graphs(db, definer)
    for name in INTERNAL:
        db.execute(f"REVOKE EXECUTE ON FUNCTION {name} FROM PUBLIC")
    if db.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (_GROUP,)).fetchone():
        for name in INTERNAL:
            db.execute(f"REVOKE EXECUTE ON FUNCTION {name} FROM {_GROUP}")


def _no_statistics(db: psycopg.Connection[Any]) -> None:
    """No column of words (text, bytes, a `tsvector`, a vector) of a table with owners
    keeps statistics but whose rows they are, and what was sampled before goes too (a
    column set to keep none keeps its old ones). Numbers and flags keep theirs: they
    hold no one's words, and a join by id estimated without them read every unit a
    person may read instead of the 50 it wanted (10x the time of a keyword list):
    through `pg_clear_attribute_stats` (PostgreSQL 18), else as a superuser; an owner
    who is neither leaves them until a superuser clears them (docs/shared-index.md)."""
    columns = db.execute(
        "SELECT c.relname, a.attname, a.attnum FROM pg_attribute a"
        " JOIN pg_class c ON c.oid = a.attrelid"
        " WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r'"
        " AND a.attnum > 0 AND NOT a.attisdropped AND a.attname <> ALL (%s)"
        " AND (SELECT t.typcategory FROM pg_type t WHERE t.oid = a.atttypid) NOT IN ('N', 'B')"
        " AND EXISTS (SELECT 1 FROM pg_attribute o WHERE o.attrelid = c.oid"
        "  AND o.attname = 'owner' AND NOT o.attisdropped)",
        (list(_STATISTICS_KEPT),),
    ).fetchall()
    clear = db.execute("SELECT to_regproc('pg_catalog.pg_clear_attribute_stats')").fetchone()[0]
    superuser = db.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")
    may_delete = bool(superuser.fetchone()[0])
    for table, column, number in columns:
        db.execute(f'ALTER TABLE {table} ALTER COLUMN "{column}" SET STATISTICS 0')
        if clear:
            db.execute(
                "SELECT pg_catalog.pg_clear_attribute_stats(current_schema(), %s, %s, false)",
                (table, column),
            )
        elif may_delete:
            db.execute(
                "DELETE FROM pg_catalog.pg_statistic WHERE starelid = %s::regclass"
                " AND staattnum = %s",
                (table, number),
            )


def _graphs(db: psycopg.Connection[Any], definer: str) -> None:
    """`ensure_graph` and `vector_ranked` over one graph per audience."""
    audiences = (
        "CASE WHEN session_user = current_user"
        " THEN (SELECT coalesce(array_agg(DISTINCT c.audience), '{}') FROM unit_count c"
        " WHERE c.n > 0)"
        " ELSE ARRAY[session_user::text COLLATE \"default\", ''] END"
    )
    filters = quoted("".join(_filters(3)))
    distance = "c.embedding::halfvec(%1$s) <=> $1::halfvec(%1$s)"
    db.execute(
        f"""
        CREATE OR REPLACE FUNCTION ensure_graph(dims integer) RETURNS void
        LANGUAGE plpgsql {definer} AS $$
        DECLARE
            a text;
            name text;
        BEGIN
            IF dims IS DISTINCT FROM (SELECT value::integer FROM settings
                                      WHERE key = 'embedding_dims') THEN
                RAISE EXCEPTION 'the server''s vectors do not have % dimensions', dims;
            END IF;
            FOREACH a IN ARRAY {audiences} LOOP
                name := {graph_name("dims", "a")};
                IF to_regclass(name) IS NULL AND EXISTS (
                        SELECT 1 FROM chunks c WHERE c.audience = a
                        AND vector_dims(c.embedding) = dims) THEN
                    EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON chunks USING hnsw'
                        ' ((embedding::halfvec(%s)) halfvec_cosine_ops)'
                        ' WHERE vector_dims(embedding) = %s AND audience = %L',
                        name, dims, dims, a);
                END IF;
            END LOOP;
        END $$;

        CREATE OR REPLACE FUNCTION vector_ranked(
            q text, dims integer, take integer, f_project text, f_session text,
            f_sources text[], f_kind text, f_after text, f_before text, f_field text)
        RETURNS TABLE (unit_id bigint, session_id text, kind text, ordinal integer,
                       cosine float8, field text, span_start integer, span_end integer)
        LANGUAGE plpgsql STABLE {definer} AS $$
        DECLARE
            parts text[] := '{{}}';
            a text;
        BEGIN
            -- One walk per audience the caller may read, each through that audience's
            -- graph (its condition names it), the filters in the same statement.
            FOREACH a IN ARRAY {audiences} LOOP
                parts := parts || format(
                    '(SELECT c.unit_id, u.session_id, u.kind, u.ordinal, c.field,'
                    ' c.span_start, c.span_end, {distance} AS distance'
                    ' FROM chunks c JOIN units u ON u.audience = c.audience AND u.id = c.unit_id'
                    ' JOIN sessions s ON s.audience = u.audience AND s.id = u.session_id'
                    ' WHERE vector_dims(c.embedding) = %1$s AND c.audience = %2$L'
                    ' AND ($9 IS NULL OR c.field = $9){filters}'
                    ' ORDER BY {distance} LIMIT $2)', dims, a);
            END LOOP;
            IF parts = '{{}}' THEN RETURN; END IF;
            RETURN QUERY EXECUTE
                'SELECT DISTINCT ON (n.unit_id) n.unit_id, n.session_id, n.kind, n.ordinal,'
                ' (1 - n.distance)::float8, n.field, n.span_start, n.span_end FROM ('
                || array_to_string(parts, ' UNION ALL ')
                || ') n ORDER BY n.unit_id, n.distance'
            USING q, take, f_project, f_session, f_sources, f_kind, f_after, f_before, f_field;
        END $$;
        """
    )
