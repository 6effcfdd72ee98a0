"""The index schema on PostgreSQL, step 1: the same tables as the SQLite file, with
full-text search in `tsvector` columns and vectors in pgvector.

Keyword text: one text-search configuration, `findsession.words`, a copy of `simple`
whose ASCII words go through the English Snowball stemmer without a stop-word list: the
same choice as SQLite's `porter unicode61` (English word forms match, every other
language's words match as written, nothing is dropped). Text is cut into letter-and-digit
runs first, as `unicode61` does, so `bar.py` is found in `src/foo/bar.py`. CJK text gets
a column of its own, its character bigrams (findsession.cjk) stored as lexemes as they
are. Title, prompt and reply carry weights A, B and C, so a speaker filter is a weight
restriction and the column weights of the ranking are the SQLite ones.
"""

from __future__ import annotations

from typing import Any

import psycopg

#: Characters of one field the keyword index reads: a tsvector holds at most 1 MB.
FIELD_CHARS = 300_000


def _words(column: str) -> str:
    """The expression of one field's words for a tsvector column."""
    return (
        "to_tsvector('findsession.words'::regconfig,"
        f" regexp_replace(left({column}, {FIELD_CHARS}), '[^[:alnum:]]+', ' ', 'g'))"
    )


def v1_base(db: psycopg.Connection[Any]) -> None:
    db.execute(
        r"""
        CREATE TEXT SEARCH DICTIONARY english_stem_all (TEMPLATE = snowball, Language = english);
        CREATE TEXT SEARCH CONFIGURATION words (COPY = pg_catalog.simple);
        ALTER TEXT SEARCH CONFIGURATION words
            ALTER MAPPING FOR asciiword, asciihword, hword_asciipart WITH english_stem_all;

        CREATE FUNCTION now_iso() RETURNS text LANGUAGE sql STABLE
            RETURN to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"');

        -- findsession.projects.in_project: a project is its path or a path below it;
        -- paths that look like Windows paths compare either separator, any case.
        CREATE FUNCTION in_project(cwd text, project text) RETURNS boolean
        LANGUAGE plpgsql IMMUTABLE AS $$
        DECLARE
            root text := rtrim(project, '/\');
            windows boolean;
        BEGIN
            IF cwd IS NULL THEN RETURN false; END IF;
            IF root = '' THEN root := left(project, 1); END IF;
            windows := root ~ '^([A-Za-z]:[\\/]|\\\\)' OR cwd ~ '^([A-Za-z]:[\\/]|\\\\)'
                OR root ~ '^[A-Za-z]:$';
            IF windows THEN
                root := lower(replace(root, '\', '/'));
                cwd := lower(replace(cwd, '\', '/'));
            END IF;
            IF root IN ('/', '') THEN RETURN left(cwd, 1) = '/' OR root = ''; END IF;
            root := rtrim(root, '/');
            RETURN cwd = root OR left(cwd, length(root) + 1) = root || '/';
        END $$;

        CREATE TABLE settings (key text PRIMARY KEY, value text NOT NULL);

        CREATE TABLE files (
            path        text COLLATE "C" PRIMARY KEY,
            source      text NOT NULL,
            root        text COLLATE "C",
            session_id  text,
            size        bigint NOT NULL DEFAULT 0,
            mtime_ns    bigint NOT NULL DEFAULT 0,
            read_offset bigint NOT NULL DEFAULT 0,   -- bytes consumed: whole lines only
            lines       bigint NOT NULL DEFAULT 0,
            tail_hash   text,
            status      text NOT NULL DEFAULT 'ok',
            error       text,
            indexed_at  text
        );
        CREATE TABLE sessions (
            id                text COLLATE "C" PRIMARY KEY,
            source            text NOT NULL,
            file_path         text COLLATE "C",
            parent_id         text,
            is_subagent       boolean NOT NULL DEFAULT false,
            agent_type        text,
            agent_description text,
            cwd               text COLLATE "C",
            git_branch        text,
            version           text,
            first_ts          text COLLATE "C",
            last_ts           text COLLATE "C",
            title             text,
            n_messages        integer NOT NULL DEFAULT 0,
            n_turns           integer NOT NULL DEFAULT 0,
            missing           boolean NOT NULL DEFAULT false
        );
        CREATE INDEX sessions_cwd ON sessions (cwd);
        CREATE INDEX sessions_parent ON sessions (parent_id);
        CREATE INDEX sessions_file ON sessions (file_path);

        CREATE TABLE messages (
            id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            session_id  text NOT NULL,
            file_path   text NOT NULL,
            line        integer NOT NULL,
            part        integer NOT NULL,
            uuid        text,
            parent_uuid text,
            message_id  text,
            kind        text NOT NULL,
            text        text NOT NULL,
            ts          text,
            tool_name   text,
            tool_id     text,
            files       text,
            is_error    boolean NOT NULL DEFAULT false,
            cwd         text,
            git_branch  text,
            version     text,
            heading     text,
            UNIQUE (file_path, line, part)
        );
        CREATE INDEX messages_session ON messages (session_id, line, part);
        CREATE INDEX messages_uuid ON messages (uuid) WHERE uuid IS NOT NULL;

        CREATE TABLE session_meta (
            session_id text NOT NULL,
            file_path  text NOT NULL,
            line       integer NOT NULL,
            kind       text NOT NULL,
            value      text NOT NULL,
            leaf_uuid  text,
            PRIMARY KEY (file_path, line)
        );
        CREATE INDEX session_meta_session ON session_meta (session_id);
        """
    )
    db.execute(
        f"""
        CREATE TABLE units (
            id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            session_id text NOT NULL,
            kind       text NOT NULL,
            ordinal    integer NOT NULL,
            source     text NOT NULL,
            ts         text COLLATE "C",
            title      text NOT NULL DEFAULT '',
            prompt     text NOT NULL DEFAULT '',
            reply      text NOT NULL DEFAULT '',
            tools      text NOT NULL DEFAULT '',
            tool_names text,
            files      text,
            hash       text NOT NULL,
            words      tsvector GENERATED ALWAYS AS (
                setweight({_words("title")}, 'A') || setweight({_words("prompt")}, 'B')
                || setweight({_words("reply")}, 'C')) STORED,
            tool_words tsvector GENERATED ALWAYS AS ({_words("tools")}) STORED,
            -- CJK bigrams of title, prompt, reply and tools (weights A to D), written
            -- with the row (findsession.cjk); empty for a unit without CJK text.
            cjk_grams  tsvector NOT NULL DEFAULT '',
            UNIQUE (session_id, kind, ordinal)
        );
        CREATE INDEX units_ts ON units (ts);
        CREATE INDEX units_words ON units USING gin (words);
        CREATE INDEX units_tool_words ON units USING gin (tool_words);
        CREATE INDEX units_cjk_grams ON units USING gin (cjk_grams);
        """
    )
    db.execute(
        """
        -- One row per embedded piece of a unit's field; `embedding` is the vector as
        -- pgvector searches it, `scale`/`vec`/`code` the int8 form the embedder reuses.
        -- Its HNSW index is made for the model's dimension when vectors first arrive.
        CREATE TABLE chunks (
            id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            unit_id    bigint NOT NULL REFERENCES units (id) ON DELETE CASCADE,
            field      text NOT NULL,
            span_start integer NOT NULL,
            span_end   integer NOT NULL,
            scale      real NOT NULL,
            vec        bytea NOT NULL,
            code       bytea NOT NULL,
            text_hash  bytea,
            embedding  vector NOT NULL
        );
        CREATE INDEX chunks_unit ON chunks (unit_id);
        CREATE INDEX chunks_text_hash ON chunks (text_hash) WHERE text_hash IS NOT NULL;
        CREATE TABLE embedded (
            unit_id bigint PRIMARY KEY REFERENCES units (id) ON DELETE CASCADE,
            chunks  integer NOT NULL
        );
        -- A unit whose text changes loses its vectors (its time alone does not matter).
        CREATE FUNCTION units_text_changed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF OLD.title IS DISTINCT FROM NEW.title OR OLD.prompt IS DISTINCT FROM NEW.prompt
                OR OLD.reply IS DISTINCT FROM NEW.reply THEN
                DELETE FROM chunks WHERE unit_id = OLD.id;
                DELETE FROM embedded WHERE unit_id = OLD.id;
            END IF;
            RETURN NEW;
        END $$;
        CREATE TRIGGER units_text_au AFTER UPDATE OF title, prompt, reply ON units
            FOR EACH ROW EXECUTE FUNCTION units_text_changed();

        CREATE TABLE problems (
            file_path text NOT NULL,
            line      integer NOT NULL,
            reason    text NOT NULL,
            detail    text,
            PRIMARY KEY (file_path, line)
        );
        CREATE TABLE runs (
            id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            started_at  text NOT NULL,
            finished_at text,
            roots       text,
            files_seen  integer,
            files_read  integer,
            bytes_read  bigint,
            lines_read  bigint,
            sessions    integer,
            problems    integer,
            interrupted boolean NOT NULL DEFAULT false
        );
        CREATE TABLE redactions (
            file_path text NOT NULL,
            kind      text NOT NULL,
            n         integer NOT NULL,
            PRIMARY KEY (file_path, kind)
        );
        CREATE TABLE private_sessions (id text PRIMARY KEY, marked_at text);
        CREATE TABLE replays (
            file_path   text NOT NULL,
            source_path text NOT NULL,
            PRIMARY KEY (file_path, source_path)
        );
        CREATE INDEX replays_source ON replays (source_path);
        CREATE TABLE last_results (
            terminal   text NOT NULL,
            rank       integer NOT NULL,
            session_id text NOT NULL,
            shown_at   text COLLATE "C" NOT NULL,
            PRIMARY KEY (terminal, rank)
        );
        CREATE TABLE title_writes (
            id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            session_id  text NOT NULL,
            file_path   text COLLATE "C" NOT NULL,
            line_offset bigint,
            line        bytea,
            title       text NOT NULL,
            written_at  text NOT NULL,
            UNIQUE (file_path, line_offset)
        );
        CREATE INDEX title_writes_session ON title_writes (session_id);
        CREATE TABLE audit (
            id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            at           text COLLATE "C" NOT NULL,
            connection   text NOT NULL,
            tool         text NOT NULL,
            query_digest text,
            filters      text NOT NULL,
            strategy     text,
            confidence   text,
            results      text NOT NULL,
            excluded     text NOT NULL,
            held_back    integer NOT NULL DEFAULT 0
        );
        CREATE INDEX audit_at ON audit (at);
        INSERT INTO settings (key, value) VALUES ('vector_epoch', md5(random()::text));
        """
    )
