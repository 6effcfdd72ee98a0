"""Step 8: no index walks a person's statement over rows they may not read.

Row-level security hid rows but not what an index scan met on the way to them: as an
ordinary person, `EXPLAIN (ANALYZE)` with sequential scans off reported "Rows Removed
by Filter" for rows the policy hid, because a comparison on an indexed column (`cwd`,
`file_path`, `id`, `ts`, `parent_id`) is leakproof, so the planner ran it inside the
index scan and the policy after it; a walk over ranges spelled a colleague's unshared
project paths out. Now:

- Every content row carries `audience`: '' when it is shared, else its owner (a column
  generated from `owner` and `shared`), and the read policy is `audience = ANY(ARRAY[
  current_user, ''])`, one condition an index can hold. Every index of a content table
  starts with `audience`, and every index of a table that is its owner's alone starts
  with `owner`, so whichever index a person's statement walks, the policy is part of
  its condition and a hidden row is never visited.
- A key that must stay unique (a message's file, line and part; a unit's session,
  kind and ordinal; a session's id) is a unique index over `sealed(...)`, a function
  that is not leakproof: the planner never runs a person's condition on it before the
  policy, so that index cannot be walked, and `ON CONFLICT` still finds the row. Every
  such key but a session's id starts with the owner, so a person's insert collides
  with their own rows only; session ids are one namespace for the whole server, so
  whether one exact id is taken is what a unique key (and `session_id_taken`) tells.
- `chunks` lost its primary key and its foreign keys to `units` (their indexes led with
  the id); a trigger deletes a deleted unit's vectors instead.
- The unit count is kept per audience and owner under the same policies, so a person's
  N is the number of units they may read (it was the server's).
- Keyword and vector search read through `keyword_ranked`, `matching_count`,
  `matching_units` and `vector_ranked`, functions owned by the schema's owner that run
  through the GIN and HNSW indexes and keep only the rows the caller may read (the
  login role: `session_user`). Under the policies the planner may use an index only for
  a leakproof condition, and `@@` is not one: a person's keyword list read every unit
  on the server. The schema's owner is exempt from the policies and reads everything,
  through the same functions. People may not read `chunks.embedding` themselves (the
  admin's grants, findsession.storage.postgresql.roles): an ORDER BY over the graph
  would otherwise tell them which hidden vectors lie near any vector they choose.
- `ensure_graph` builds only the graph of the server's model's dimension, and only
  when vectors of it are stored: any person could make it build one index per call.
"""

from __future__ import annotations

from typing import Any

import psycopg

from findsession.storage.postgresql.schema_v2 import BY_SESSION, BY_UNIT, OWNER_ONLY
from findsession.storage.postgresql.schema_v3 import COUNTED_ON_WRITE

#: Tables whose rows are read with their session (or unit): led by `audience`.
CONTENT = ("sessions", *BY_SESSION, *BY_UNIT)
#: The role's name as the columns compare it. `current_user` is a `name`, whose text
#: has the "C" collation; compared in it, a condition cannot be an index's (the columns
#: have the database's), and the planner checked the policy after the scan.
ME = 'current_user::text COLLATE "default"'
#: Who may read a content row, as one indexable condition.
VISIBLE = f"audience = ANY (ARRAY[{ME}, ''])"
#: Whose rows a person may write, and read where they are theirs alone.
MINE = f"owner = {ME}"

#: Constraints whose index led with a column a person could walk.
_DROPPED = {
    "chunks": ("chunks_unit_id_fkey", "chunks_pkey"),
    "embedded": ("embedded_unit_id_fkey", "embedded_pkey"),
    "units": ("units_pkey", "units_session_id_kind_ordinal_key"),
    "sessions": ("sessions_pkey", "sessions_pushed"),
    "title_writes": ("title_writes_pkey", "title_writes_file_path_line_offset_key"),
    "messages": ("messages_pkey", "messages_file_path_line_part_key"),
    "session_meta": ("session_meta_pkey",),
    "runs": ("runs_pkey",),
    "audit": ("audit_pkey",),
}
_DROPPED_INDEXES = (
    "sessions_cwd",
    "sessions_parent",
    "sessions_file",
    "sessions_owner_local",
    "units_ts",
    "units_owner",
    "chunks_unit",
    "chunks_text_hash",
    "title_writes_session",
    "messages_session",
    "messages_uuid",
    "session_meta_session",
    "replays_source",
    "audit_at",
)
_INDEXES = """
    CREATE UNIQUE INDEX sessions_id_key ON sessions (sealed(ARRAY[id]));
    CREATE UNIQUE INDEX sessions_pushed_key ON sessions (sealed(ARRAY[owner, machine, local_id]))
        WHERE local_id IS NOT NULL;
    CREATE INDEX sessions_id ON sessions (audience, id);
    CREATE INDEX sessions_cwd ON sessions (audience, cwd);
    CREATE INDEX sessions_parent ON sessions (audience, parent_id);
    CREATE INDEX sessions_file ON sessions (audience, file_path);
    CREATE INDEX sessions_local ON sessions (audience, owner, machine, local_id);

    CREATE UNIQUE INDEX units_key ON units (sealed(ARRAY[owner, session_id, kind, ordinal::text]));
    CREATE INDEX units_id ON units (audience, id);
    CREATE INDEX units_session ON units (audience, session_id, kind, ordinal);
    CREATE INDEX units_ts ON units (audience, ts);

    CREATE INDEX chunks_id ON chunks (audience, id);
    CREATE INDEX chunks_unit ON chunks (audience, unit_id);
    CREATE INDEX chunks_text_hash ON chunks (audience, text_hash) WHERE text_hash IS NOT NULL;

    CREATE UNIQUE INDEX embedded_key ON embedded (sealed(ARRAY[owner, unit_id::text]));
    CREATE INDEX embedded_unit ON embedded (audience, unit_id);

    CREATE UNIQUE INDEX title_writes_key
        ON title_writes (sealed(ARRAY[owner, file_path, line_offset::text]))
        WHERE line_offset IS NOT NULL;
    CREATE INDEX title_writes_id ON title_writes (audience, id);
    CREATE INDEX title_writes_session ON title_writes (audience, session_id);
    CREATE INDEX title_writes_file ON title_writes (audience, file_path, line_offset);

    CREATE UNIQUE INDEX messages_key
        ON messages (sealed(ARRAY[owner, file_path, line::text, part::text]));
    CREATE INDEX messages_id ON messages (audience, id);
    CREATE INDEX messages_session ON messages (audience, session_id, line, part);
    CREATE INDEX messages_uuid ON messages (audience, uuid) WHERE uuid IS NOT NULL;
    CREATE INDEX messages_file ON messages (audience, file_path);

    CREATE UNIQUE INDEX session_meta_key
        ON session_meta (sealed(ARRAY[owner, file_path, line::text]));
    CREATE INDEX session_meta_session ON session_meta (audience, session_id);
    CREATE INDEX session_meta_file ON session_meta (audience, file_path, line);

    CREATE INDEX runs_id ON runs (owner, id);
    CREATE INDEX audit_id ON audit (owner, id);
    CREATE INDEX audit_at ON audit (owner, at);
    CREATE INDEX replays_source ON replays (owner, source_path);
"""


def v8_audience(db: psycopg.Connection[Any]) -> None:
    path = db.execute("SELECT current_setting('search_path')").fetchone()[0]
    db.execute(
        """
        -- A key as text no condition of a person's can be run on before the policy.
        CREATE FUNCTION sealed(parts text[]) RETURNS text
        LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$ BEGIN RETURN parts::text; END $$;
        """
    )
    for table in CONTENT:
        db.execute(
            f"ALTER TABLE {table} ADD COLUMN audience text NOT NULL"
            " GENERATED ALWAYS AS (CASE WHEN shared THEN '' ELSE owner END) STORED"
        )
    for table, constraints in _DROPPED.items():
        for constraint in constraints:
            db.execute(f"ALTER TABLE {table} DROP CONSTRAINT {constraint}")
    for index in _DROPPED_INDEXES:
        db.execute(f"DROP INDEX {index}")
    db.execute(_INDEXES)
    db.execute(
        """
        -- What the foreign keys did: a unit's vectors go with it.
        CREATE FUNCTION units_vectors_gone() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            DELETE FROM chunks WHERE unit_id IN (SELECT id FROM removed);
            DELETE FROM embedded WHERE unit_id IN (SELECT id FROM removed);
            RETURN NULL;
        END $$;
        CREATE TRIGGER units_vectors_ad AFTER DELETE ON units REFERENCING OLD TABLE AS removed
            FOR EACH STATEMENT EXECUTE FUNCTION units_vectors_gone();
        """
    )
    _unit_count(db)
    for table in (*CONTENT, *OWNER_ONLY, "shares", "unit_count"):
        if table != "unit_count":
            read = VISIBLE if table in CONTENT else "true" if table == "shares" else MINE
            db.execute(f"ALTER POLICY {table}_read ON {table} USING ({read})")
        db.execute(
            f"ALTER POLICY {table}_insert ON {table} WITH CHECK ({MINE});"
            f" ALTER POLICY {table}_update ON {table} USING ({MINE}) WITH CHECK ({MINE});"
            f" ALTER POLICY {table}_delete ON {table} USING ({MINE});"
        )
    _functions(db, path)
    # Every function of the schema finds its tables in it, whatever the caller's
    # search_path: a trigger run by a statement of a person's own finds ours.
    for (function,) in db.execute(
        "SELECT p.oid::regprocedure::text FROM pg_proc p"
        " WHERE p.pronamespace = current_schema()::regnamespace AND p.proconfig IS NULL"
    ).fetchall():
        db.execute(f"ALTER FUNCTION {function} SET search_path = {path}, pg_temp")


def _unit_count(db: psycopg.Connection[Any]) -> None:
    """The number of units per audience and owner: a person's N sums what they may read."""
    db.execute(
        f"""
        DROP TRIGGER units_count_ai ON units;
        DROP TRIGGER units_count_ad ON units;
        DROP TRIGGER units_count_at ON units;
        DROP FUNCTION units_counted();
        DROP TABLE unit_count;
        CREATE TABLE unit_count (
            audience text NOT NULL,
            owner    text NOT NULL DEFAULT current_user,
            n        bigint NOT NULL,
            PRIMARY KEY (audience, owner)
        );
        INSERT INTO unit_count (audience, owner, n)
            SELECT audience, owner, count(*) FROM units GROUP BY audience, owner;
        ALTER TABLE unit_count ENABLE ROW LEVEL SECURITY;
        CREATE POLICY unit_count_read ON unit_count FOR SELECT USING ({VISIBLE});
        CREATE POLICY unit_count_insert ON unit_count FOR INSERT WITH CHECK (true);
        CREATE POLICY unit_count_update ON unit_count FOR UPDATE USING (true);
        CREATE POLICY unit_count_delete ON unit_count FOR DELETE USING (true);

        CREATE FUNCTION units_counted() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            a text[]; o text[]; d bigint[];
        BEGIN
            IF TG_OP = 'INSERT' THEN
                SELECT array_agg(x.audience), array_agg(x.owner), array_agg(x.n) INTO a, o, d
                FROM (SELECT audience, owner, count(*) AS n FROM added
                      GROUP BY audience, owner) x;
            ELSIF TG_OP = 'DELETE' THEN
                SELECT array_agg(x.audience), array_agg(x.owner), array_agg(-x.n) INTO a, o, d
                FROM (SELECT audience, owner, count(*) AS n FROM removed
                      GROUP BY audience, owner) x;
            ELSE  -- an update that moved units between audiences (a share given or taken)
                SELECT array_agg(x.audience), array_agg(x.owner), array_agg(x.n) INTO a, o, d
                FROM (SELECT audience, owner, sum(n) AS n FROM (
                        SELECT n.audience, n.owner, 1 AS n FROM added n JOIN removed r
                            ON r.id = n.id WHERE r.audience <> n.audience
                        UNION ALL
                        SELECT r.audience, r.owner, -1 FROM added n JOIN removed r
                            ON r.id = n.id WHERE r.audience <> n.audience) m
                      GROUP BY audience, owner) x;
            END IF;
            IF a IS NOT NULL THEN
                INSERT INTO unit_count AS c (audience, owner, n)
                SELECT x.a, x.o, sum(x.d) FROM unnest(a, o, d) AS x(a, o, d)
                GROUP BY x.a, x.o
                ON CONFLICT (audience, owner) DO UPDATE SET n = c.n + excluded.n;
            END IF;
            RETURN NULL;
        END $$;
        {COUNTED_ON_WRITE}
        CREATE TRIGGER units_count_au AFTER UPDATE ON units
            REFERENCING OLD TABLE AS removed NEW TABLE AS added
            FOR EACH STATEMENT EXECUTE FUNCTION units_counted();
        CREATE FUNCTION units_count_cleared() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            DELETE FROM unit_count;
            RETURN NULL;
        END $$;
        CREATE TRIGGER units_count_at AFTER TRUNCATE ON units
            FOR EACH STATEMENT EXECUTE FUNCTION units_count_cleared();
        """
    )


#: The filters (`Filters`) as both search functions apply them, from their parameters:
#: the session's, then the unit's (findsession.storage.postgresql.filters).
_SESSION_FILTERS = (
    " AND (${project} IS NULL OR in_project(s.cwd, ${project}))"
    " AND (${session} IS NULL OR s.id = ${session} OR starts_with(s.id, ${session})"
    " OR s.parent_id = ${session}) AND (${sources} IS NULL OR s.source = ANY(${sources}))"
)
_UNIT_FILTERS = (
    " AND (${kind} IS NULL OR u.kind = ${kind}) AND (${after} IS NULL OR u.ts >= ${after})"
    " AND (${before} IS NULL OR u.ts < ${before})"
)
#: The rows the caller may read: everything for the schema's owner (exempt from the
#: policies, as when it reads the tables itself), else its own and the shared.
_MAY_READ = (
    "(session_user = current_user"
    " OR {0}.audience = ANY (ARRAY[session_user::text COLLATE \"default\", '']))"
)
_COLUMNS = ("words", "tool_words", "cjk_grams")
#: An empty tsvector inside a dynamic statement inside a function body.
_EMPTY = "'" * 4


def quoted(text: str) -> str:
    """`text` inside a PL/pgSQL string literal."""
    return text.replace("'", "''")


def _filters(first: int) -> tuple[str, str]:
    """The session and unit filters over parameters numbered from `first`."""
    names = ("project", "session", "sources", "kind", "after", "before")
    numbers = {n: str(first + i) for i, n in enumerate(names)}
    return _SESSION_FILTERS.format(**numbers), _UNIT_FILTERS.format(**numbers)


def _functions(db: psycopg.Connection[Any], path: str) -> None:
    definer = f"SECURITY DEFINER SET search_path = {path}, pg_temp"
    columns = ", ".join(f"'{c}'" for c in _COLUMNS)
    check = f"IF col NOT IN ({columns}) THEN RAISE EXCEPTION 'no keyword column %', col; END IF;"
    visible = quoted(_MAY_READ.format("u"))
    db.execute(
        f"""
        CREATE OR REPLACE FUNCTION ensure_graph(dims integer) RETURNS void
        LANGUAGE plpgsql {definer} AS $$
        BEGIN
            IF dims IS DISTINCT FROM (SELECT value::integer FROM settings
                                      WHERE key = 'embedding_dims') THEN
                RAISE EXCEPTION 'the server''s vectors do not have % dimensions', dims;
            END IF;
            IF to_regclass('chunks_hnsw_' || dims) IS NULL AND EXISTS (
                    SELECT 1 FROM chunks WHERE vector_dims(embedding) = dims) THEN
                EXECUTE format('CREATE INDEX IF NOT EXISTS chunks_hnsw_%s ON chunks USING hnsw'
                    ' ((embedding::halfvec(%s)) halfvec_cosine_ops)'
                    ' WHERE vector_dims(embedding) = %s', dims, dims, dims);
            END IF;
        END $$;

        -- How many units the caller may read match `q` in `col` (stopping past `cap`).
        CREATE FUNCTION matching_count(col text, q tsquery, cap integer) RETURNS bigint
        LANGUAGE plpgsql STABLE {definer} AS $$
        DECLARE found bigint;
        BEGIN
            {check}
            EXECUTE format('SELECT count(*) FROM (SELECT 1 FROM units u WHERE u.%I @@ $1'
                ' AND {visible} LIMIT $2) t', col) INTO found USING q, cap + 1;
            RETURN found;
        END $$;

        -- The units the caller may read that match `q` in `col` (at most `lim`).
        CREATE FUNCTION matching_units(col text, q tsquery, lim integer)
        RETURNS TABLE (id bigint) LANGUAGE plpgsql STABLE {definer} AS $$
        BEGIN
            {check}
            RETURN QUERY EXECUTE format('SELECT u.id FROM units u WHERE u.%I @@ $1'
                ' AND {visible} LIMIT $2', col) USING q, lim;
        END $$;
        """
    )
    _keyword_ranked(db, definer, check, visible)
    _vector_ranked(db, definer)
    for name in (
        "ensure_graph(integer)",
        "matching_count(text, tsquery, integer)",
        "matching_units(text, tsquery, integer)",
        "session_id_taken(text)",
        "keyword_ranked(text, float4[], float8, text[], float8[], float8, integer, text, text,"
        " text[], text, text, text)",
        "vector_ranked(text, integer, integer, text, text, text[], text, text, text, text)",
    ):
        db.execute(f"REVOKE EXECUTE ON FUNCTION {name} FROM PUBLIC")


def _keyword_ranked(db: psycopg.Connection[Any], definer: str, check: str, visible: str) -> None:
    """One keyword list ranked by BM25 as FTS5 computes it (findsession.storage.
    postgresql.keyword_index explains the SQL). The statement is put together here from
    the number of terms and a column checked against the three names, never from text
    the caller sends; every value is a parameter. Sessions are joined only when a
    filter reads them: for every matching unit, the join would cost a lookup."""
    by_session, by_unit = (quoted(f) for f in _filters(8))
    db.execute(
        f"""
        CREATE FUNCTION keyword_ranked(
            col text, weights float4[], scale float8, terms text[], idfs float8[],
            avglen float8, lim integer, f_project text, f_session text, f_sources text[],
            f_kind text, f_after text, f_before text)
        RETURNS TABLE (id bigint, session_id text, kind text, ordinal integer, score float8)
        LANGUAGE plpgsql STABLE {definer} AS $$
        DECLARE
            rs text := '';
            score text := '';
            n integer := coalesce(array_length(terms, 1), 0);
            sessions text := '';
        BEGIN
            {check}
            IF n = 0 THEN RETURN; END IF;
            FOR i IN 1..n LOOP
                rs := rs || format(', $3 * ts_rank_cd($1, v, $4[%s]::tsquery, 0) AS r%s', i, i);
                score := score || CASE WHEN i > 1 THEN ' + ' ELSE '' END
                    || format('$5[%s] * r%s * 2.2 / (r%s + k)', i, i, i);
            END LOOP;
            IF f_project IS NOT NULL OR f_session IS NOT NULL OR f_sources IS NOT NULL THEN
                sessions := ' JOIN sessions s ON s.id = u.session_id{by_session}';
            END IF;
            RETURN QUERY EXECUTE format(
                'SELECT t.id, t.session_id, t.kind, t.ordinal, (%s)::float8 AS score FROM ('
                ' SELECT d.id, d.session_id, d.kind, d.ordinal %s,'
                ' 1.2 * (0.25 + 0.75 * length(v) / $6) AS k FROM ('
                ' SELECT u.id, u.session_id, u.kind, u.ordinal, u.%I || {_EMPTY}::tsvector AS v'
                ' FROM units u%s WHERE u.%I @@ $2 AND {visible}{by_unit}'
                ' OFFSET 0) d OFFSET 0) t ORDER BY 5 DESC, 1 LIMIT $7',
                score, rs, col, sessions, col)
            USING weights, (SELECT string_agg('(' || t || ')', ' | ') FROM unnest(terms) t)
                ::tsquery, scale, terms, idfs, avglen, lim, f_project, f_session, f_sources,
                f_kind, f_after, f_before;
        END $$;
        """
    )


def _vector_ranked(db: psycopg.Connection[Any], definer: str) -> None:
    """The best `take` chunks by cosine to `q`, among the vectors of `dims` dimensions
    the caller may read, with the filters in the same statement (findsession.storage.
    postgresql.vectors explains it): one row per unit, its best chunk."""
    filters = quoted("".join(_filters(3)))
    visible = quoted(_MAY_READ.format("c"))
    distance = "c.embedding::halfvec(%s) <=> $1::halfvec(%s)"
    db.execute(
        f"""
        CREATE FUNCTION vector_ranked(
            q text, dims integer, take integer, f_project text, f_session text,
            f_sources text[], f_kind text, f_after text, f_before text, f_field text)
        RETURNS TABLE (unit_id bigint, session_id text, kind text, ordinal integer,
                       cosine float8, field text, span_start integer, span_end integer)
        LANGUAGE plpgsql STABLE {definer} AS $$
        BEGIN
            RETURN QUERY EXECUTE format(
                'SELECT DISTINCT ON (n.unit_id) n.unit_id, n.session_id, n.kind, n.ordinal,'
                ' (1 - n.distance)::float8, n.field, n.span_start, n.span_end FROM ('
                ' SELECT c.unit_id, u.session_id, u.kind, u.ordinal, c.field, c.span_start,'
                ' c.span_end, {distance} AS distance'
                ' FROM chunks c JOIN units u ON u.id = c.unit_id'
                ' JOIN sessions s ON s.id = u.session_id'
                ' WHERE vector_dims(c.embedding) = %s AND {visible}'
                ' AND ($9 IS NULL OR c.field = $9){filters}'
                ' ORDER BY {distance} LIMIT $2) n ORDER BY n.unit_id, n.distance',
                dims, dims, dims, dims, dims)
            USING q, take, f_project, f_session, f_sources, f_kind, f_after, f_before, f_field;
        END $$;
        """
    )
