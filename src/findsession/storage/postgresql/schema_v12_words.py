"""Schema step 12's word lookups: a person's keyword functions read the rows of their
own words (`postings`), never a unit they may not read (findsession.storage.postgresql.
schema_v12 says why)."""

from __future__ import annotations

from typing import Any

import psycopg

from findsession.storage.postgresql.schema_v8 import _filters, quoted
from findsession.storage.postgresql.schema_v11 import COLUMNS

#: Units the rarest word of a query may hold for its units alone to be the candidates:
#: past that, the words' rows are intersected (an index-only read of each word's rows
#: costs less than reading a unit's `tsvector` for every unit one common word holds).
_FEW = 2_000


def readable_units(db: psycopg.Connection[Any], path: str) -> None:
    """The units the login role may read that may match a query in one column."""
    numbers = " ".join(f"WHEN '{c}' THEN {n}" for c, n in COLUMNS.items())
    look = (
        "'SELECT ' || CASE WHEN prefix[i] THEN 'DISTINCT ' ELSE '' END || 'p.audience,"
        " p.unit_id FROM postings p WHERE p.audience = ANY ($1) AND p.col = $2 AND p.lexeme '"
        " || CASE WHEN prefix[i] THEN '^@ ' ELSE '= ' END || quote_literal(leaf[i])"
    )
    db.execute(
        f"""
        CREATE FUNCTION readable_units(col text, q tsquery)
        RETURNS TABLE (audience text, unit_id bigint)
        LANGUAGE plpgsql STABLE SET search_path = {path}, pg_temp SET enable_seqscan = off AS $$
        DECLARE
            colno smallint := CASE col {numbers} END;
            mine text[] := ARRAY[session_user::text COLLATE "default", ''];
            leaf text[] := '{{}}';
            prefix boolean[] := '{{}}';
            m text[];
            parts text[] := '{{}}';
            rarest integer;
            fewest bigint;
            n bigint;
        BEGIN
            IF colno IS NULL THEN RAISE EXCEPTION 'no keyword column %', col; END IF;
            IF ''::tsvector @@ q THEN  -- it holds without any of its words
                RETURN QUERY SELECT u.audience, u.id FROM units u WHERE u.audience = ANY (mine);
                RETURN;
            END IF;
            FOR m IN SELECT regexp_matches(q::text, '''((?:[^'']|'''')*)''(:[*A-D]*)?', 'g')
            LOOP
                leaf := leaf || replace(m[1], '''''', '''');
                prefix := prefix || (coalesce(m[2], '') LIKE '%*%');
            END LOOP;
            FOR i IN 1..coalesce(array_length(leaf, 1), 0) LOOP
                parts := parts || ({look});
            END LOOP;
            IF parts = '{{}}' THEN RETURN; END IF;
            IF q::text !~ '[|!]' THEN
                -- Every word is required: the units holding the rarest are enough, when
                -- it is rare; when every word is common, those holding all of them.
                FOR i IN 1..array_length(parts, 1) LOOP
                    EXECUTE format('SELECT count(*) FROM (%s LIMIT {_FEW + 1}) t', parts[i])
                        INTO n USING mine, colno;
                    IF fewest IS NULL OR n < fewest THEN fewest := n; rarest := i; END IF;
                END LOOP;
                IF fewest <= {_FEW} OR array_length(parts, 1) = 1 THEN
                    RETURN QUERY EXECUTE parts[rarest] USING mine, colno;
                ELSE
                    RETURN QUERY EXECUTE array_to_string(parts, ' INTERSECT ') USING mine, colno;
                END IF;
            ELSE
                RETURN QUERY EXECUTE array_to_string(parts, ' UNION ') USING mine, colno;
            END IF;
        END $$;
        """
    )


#: The units a statement of these functions reads: every unit for the schema's owner
#: (exempt from the policies, as when it reads the tables itself), through the GIN
#: index; for a person, `readable_units`. `%1$s` is the column, checked by the caller.
_OWNERS_UNITS = "units u"
_PERSONS_UNITS = (
    "readable_units(%1$L, $1) r JOIN units u ON u.audience = r.audience AND u.id = r.unit_id"
)


def _units(placeholder: str) -> str:
    """The FROM of a search function's statement, `placeholder` its query's parameter."""
    return (
        "CASE WHEN session_user = current_user THEN "
        f"'{quoted(_OWNERS_UNITS)}' ELSE "
        f"'{quoted(_PERSONS_UNITS.replace('$1', placeholder))}' END"
    )


def word_functions(db: psycopg.Connection[Any], definer: str) -> None:
    columns = ", ".join(f"'{c}'" for c in COLUMNS)
    check = f"IF col NOT IN ({columns}) THEN RAISE EXCEPTION 'no keyword column %', col; END IF;"
    db.execute(
        f"""
        -- How many units the caller may read match `q` in `col` (stopping past `cap`).
        CREATE OR REPLACE FUNCTION matching_count(col text, q tsquery, cap integer)
        RETURNS bigint LANGUAGE plpgsql STABLE {definer} AS $$
        DECLARE found bigint;
        BEGIN
            {check}
            EXECUTE format('SELECT count(*) FROM (SELECT 1 FROM ' || {_units("$1")}
                || ' WHERE u.%1$I @@ $1 LIMIT $2) t', col) INTO found USING q, cap + 1;
            RETURN found;
        END $$;

        -- The units the caller may read that match `q` in `col` (at most `lim`).
        CREATE OR REPLACE FUNCTION matching_units(col text, q tsquery, lim integer)
        RETURNS TABLE (id bigint) LANGUAGE plpgsql STABLE {definer} AS $$
        BEGIN
            {check}
            RETURN QUERY EXECUTE format('SELECT u.id FROM ' || {_units("$1")}
                || ' WHERE u.%1$I @@ $1 LIMIT $2', col) USING q, lim;
        END $$;
        """
    )


def keyword_ranked(db: psycopg.Connection[Any], definer: str) -> None:
    """Step 8's `keyword_ranked` (findsession.storage.postgresql.keyword_index explains
    the SQL) over the units `_units` gives, a unit's session found by its whole key."""
    columns = ", ".join(f"'{c}'" for c in COLUMNS)
    check = f"IF col NOT IN ({columns}) THEN RAISE EXCEPTION 'no keyword column %', col; END IF;"
    by_session, by_unit = (quoted(f) for f in _filters(8))
    db.execute(
        f"""
        CREATE OR REPLACE FUNCTION keyword_ranked(
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
                sessions := ' JOIN sessions s ON s.audience = u.audience AND s.id = u.session_id'
                    || '{by_session}';
            END IF;
            RETURN QUERY EXECUTE format(
                'SELECT t.id, t.session_id, t.kind, t.ordinal, (%2$s)::float8 AS score FROM ('
                ' SELECT d.id, d.session_id, d.kind, d.ordinal %3$s,'
                ' 1.2 * (0.25 + 0.75 * length(v) / $6) AS k FROM ('
                ' SELECT u.id, u.session_id, u.kind, u.ordinal, u.%1$I || ''''::tsvector AS v'
                ' FROM ' || {_units("$2")} || '%4$s WHERE u.%1$I @@ $2{by_unit}'
                ' OFFSET 0) d OFFSET 0) t ORDER BY 5 DESC, 1 LIMIT $7',
                col, score, rs, sessions)
            USING weights, (SELECT string_agg('(' || t || ')', ' | ') FROM unnest(terms) t)
                ::tsquery, scale, terms, idfs, avglen, lim, f_project, f_session, f_sources,
                f_kind, f_after, f_before;
        END $$;
        """
    )
