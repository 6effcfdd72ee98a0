"""The index schema, one step per version: what each migration creates or changes.

`migrations.MIGRATIONS` lists these steps in order. A step that has shipped is never
edited; a change to the schema is a new step at the end.
"""

from __future__ import annotations

import apsw

from findsession.storage.sqlite.cjk_index import write_cjk


def v1_base(db: apsw.Connection) -> None:
    """Files, sessions, messages, searchable units and their FTS5 keyword index."""
    db.execute(
        """
        CREATE TABLE files (
            path        TEXT PRIMARY KEY,
            source      TEXT NOT NULL,
            root        TEXT,
            session_id  TEXT,
            size        INTEGER NOT NULL DEFAULT 0,
            mtime_ns    INTEGER NOT NULL DEFAULT 0,
            offset      INTEGER NOT NULL DEFAULT 0,  -- bytes consumed: whole lines only
            lines       INTEGER NOT NULL DEFAULT 0,  -- lines consumed, for line numbers
            tail_hash   TEXT,                        -- hash of the bytes before offset
            status      TEXT NOT NULL DEFAULT 'ok',  -- ok | missing | error | binary
            error       TEXT,
            indexed_at  TEXT
        );
        CREATE TABLE sessions (
            id                TEXT PRIMARY KEY,
            source            TEXT NOT NULL,
            file_path         TEXT,
            parent_id         TEXT,
            is_subagent       INTEGER NOT NULL DEFAULT 0,
            agent_type        TEXT,
            agent_description TEXT,
            cwd               TEXT,
            git_branch        TEXT,
            version           TEXT,
            first_ts          TEXT,
            last_ts           TEXT,
            title             TEXT,
            n_messages        INTEGER NOT NULL DEFAULT 0,
            n_turns           INTEGER NOT NULL DEFAULT 0,
            missing           INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX sessions_cwd ON sessions(cwd);
        CREATE INDEX sessions_parent ON sessions(parent_id);
        CREATE INDEX sessions_file ON sessions(file_path);

        -- Every usable record, in file order; (file_path, line, part) makes re-reading
        -- a line harmless, and uuid lets replays of known messages be skipped.
        CREATE TABLE messages (
            id          INTEGER PRIMARY KEY,
            session_id  TEXT NOT NULL,
            file_path   TEXT NOT NULL,
            line        INTEGER NOT NULL,
            part        INTEGER NOT NULL,
            uuid        TEXT,
            parent_uuid TEXT,
            message_id  TEXT,
            kind        TEXT NOT NULL,
            text        TEXT NOT NULL,
            ts          TEXT,
            tool_name   TEXT,
            tool_id     TEXT,
            files       TEXT,
            is_error    INTEGER NOT NULL DEFAULT 0,
            cwd         TEXT,
            git_branch  TEXT,
            version     TEXT,
            UNIQUE (file_path, line, part)
        );
        CREATE INDEX messages_session ON messages(session_id, line, part);
        CREATE INDEX messages_uuid ON messages(uuid) WHERE uuid IS NOT NULL;

        CREATE TABLE session_meta (
            session_id TEXT NOT NULL,
            file_path  TEXT NOT NULL,
            line       INTEGER NOT NULL,
            kind       TEXT NOT NULL,
            value      TEXT NOT NULL,
            leaf_uuid  TEXT,
            PRIMARY KEY (file_path, line)
        );
        CREATE INDEX session_meta_session ON session_meta(session_id);

        -- What search ranks: one row per turn, per session fingerprint, per doc section.
        CREATE TABLE units (
            id         INTEGER PRIMARY KEY,
            session_id TEXT NOT NULL,
            kind       TEXT NOT NULL,           -- turn | session | doc
            ordinal    INTEGER NOT NULL,        -- turn number; 0 for a fingerprint
            source     TEXT NOT NULL,
            ts         TEXT,
            title      TEXT NOT NULL DEFAULT '',
            prompt     TEXT NOT NULL DEFAULT '',
            reply      TEXT NOT NULL DEFAULT '',
            tools      TEXT NOT NULL DEFAULT '',
            tool_names TEXT,
            files      TEXT,
            hash       TEXT NOT NULL,           -- unchanged hash: row and vectors kept
            UNIQUE (session_id, kind, ordinal)
        );
        CREATE INDEX units_ts ON units(ts);

        -- Two keyword indexes: FTS5's BM25 saturates term frequency over the whole row,
        -- so long tool output in the same row would outrank a word a person typed.
        -- Search ranks each separately and fuses the lists, tools at a lower weight.
        CREATE VIRTUAL TABLE units_fts USING fts5(
            title, prompt, reply,
            content='units', content_rowid='id', tokenize='porter unicode61'
        );
        CREATE VIRTUAL TABLE tools_fts USING fts5(
            tools, content='units', content_rowid='id', tokenize='porter unicode61'
        );
        CREATE TRIGGER units_ai AFTER INSERT ON units BEGIN
            INSERT INTO units_fts(rowid, title, prompt, reply)
            VALUES (new.id, new.title, new.prompt, new.reply);
            INSERT INTO tools_fts(rowid, tools) VALUES (new.id, new.tools);
        END;
        CREATE TRIGGER units_ad AFTER DELETE ON units BEGIN
            INSERT INTO units_fts(units_fts, rowid, title, prompt, reply)
            VALUES ('delete', old.id, old.title, old.prompt, old.reply);
            INSERT INTO tools_fts(tools_fts, rowid, tools) VALUES ('delete', old.id, old.tools);
        END;
        CREATE TRIGGER units_au AFTER UPDATE ON units BEGIN
            INSERT INTO units_fts(units_fts, rowid, title, prompt, reply)
            VALUES ('delete', old.id, old.title, old.prompt, old.reply);
            INSERT INTO tools_fts(tools_fts, rowid, tools) VALUES ('delete', old.id, old.tools);
            INSERT INTO units_fts(rowid, title, prompt, reply)
            VALUES (new.id, new.title, new.prompt, new.reply);
            INSERT INTO tools_fts(rowid, tools) VALUES (new.id, new.tools);
        END;

        CREATE TABLE problems (
            file_path TEXT NOT NULL,
            line      INTEGER NOT NULL,
            reason    TEXT NOT NULL,
            detail    TEXT,
            PRIMARY KEY (file_path, line)
        );

        CREATE TABLE runs (
            id           INTEGER PRIMARY KEY,
            started_at   TEXT NOT NULL,
            finished_at  TEXT,
            roots        TEXT,
            files_seen   INTEGER,
            files_read   INTEGER,
            bytes_read   INTEGER,
            lines_read   INTEGER,
            sessions     INTEGER,
            problems     INTEGER,
            interrupted  INTEGER NOT NULL DEFAULT 0
        );
        """
    )


def v2_vectors_and_cjk(db: apsw.Connection) -> None:
    """Embedding vectors per chunk of a unit, and a CJK bigram keyword index."""
    db.execute(
        """
        -- Key-value facts about the index itself: which embedding model made the vectors.
        CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);

        -- One row per piece of a unit's text that fits the model's window. The vector is
        -- int8 (times `scale`); `code` holds its sign bits for the first, coarse scan.
        CREATE TABLE chunks (
            id      INTEGER PRIMARY KEY,
            unit_id INTEGER NOT NULL,
            field   TEXT NOT NULL,              -- title | prompt | reply
            start   INTEGER NOT NULL,           -- character span inside the field
            end     INTEGER NOT NULL,
            scale   REAL NOT NULL,
            vec     BLOB NOT NULL,
            code    BLOB NOT NULL
        );
        CREATE INDEX chunks_unit ON chunks(unit_id);

        -- Units whose vectors are complete; a unit missing here still needs embedding,
        -- which is how an interrupted embedding run resumes.
        CREATE TABLE embedded (unit_id INTEGER PRIMARY KEY, chunks INTEGER NOT NULL);

        -- A unit whose text changes or that disappears loses its vectors with it.
        CREATE TRIGGER units_vectors_ad AFTER DELETE ON units BEGIN
            DELETE FROM chunks WHERE unit_id = old.id;
            DELETE FROM embedded WHERE unit_id = old.id;
        END;
        CREATE TRIGGER units_vectors_au AFTER UPDATE OF title, prompt, reply ON units
        WHEN old.title IS NOT new.title OR old.prompt IS NOT new.prompt
            OR old.reply IS NOT new.reply
        BEGIN
            DELETE FROM chunks WHERE unit_id = old.id;
            DELETE FROM embedded WHERE unit_id = old.id;
        END;

        -- CJK bigrams of units that contain CJK text (see findsession.cjk); unicode61
        -- alone treats a run of Han characters as one token.
        CREATE VIRTUAL TABLE cjk_fts USING fts5(
            title, prompt, reply, tools,
            content='', contentless_delete=1, tokenize='unicode61'
        );
        """
    )
    rows = db.execute("SELECT id, title, prompt, reply, tools FROM units").fetchall()
    for unit_id, *fields in rows:
        write_cjk(db, unit_id, fields)


def v3_vocabularies(db: apsw.Connection) -> None:
    """Per-term document counts of the keyword indexes (no data of their own).

    Search drops a query word that most units contain: it barely moves BM25 but makes
    FTS5 score hundreds of thousands of rows.
    """
    db.execute(
        """
        CREATE VIRTUAL TABLE units_vocab USING fts5vocab(units_fts, 'row');
        CREATE VIRTUAL TABLE tools_vocab USING fts5vocab(tools_fts, 'row');
        """
    )


def v4_redactions(db: apsw.Connection) -> None:
    """Count secrets redacted per transcript, and read every transcript again once.

    Text indexed before redaction existed may hold secrets: forgetting every file's
    cursor makes the next `index` run re-read and redact all of it.
    """
    db.execute(
        """
        CREATE TABLE redactions (
            file_path TEXT NOT NULL,
            kind      TEXT NOT NULL,
            n         INTEGER NOT NULL,
            PRIMARY KEY (file_path, kind)
        );
        UPDATE files SET offset = 0, lines = 0, size = -1, tail_hash = NULL;
        """
    )


def v5_private_sessions(db: apsw.Connection) -> None:
    """Sessions marked private: never indexed again, whatever is appended to them."""
    db.execute("CREATE TABLE private_sessions (id TEXT PRIMARY KEY, marked_at TEXT)")


def v6_secure_delete_and_replays(db: apsw.Connection) -> None:
    """Deleted text leaves the keyword indexes at once; files that replay others are known;
    every transcript is redacted again.

    FTS5 keeps a deleted row's terms in its segments until they happen to be merged, so a
    forgotten session's words stayed in the file. `secure-delete` removes them with the
    row; `optimize` drops what earlier deletions left behind.

    `replays` records, per file, the files whose lines it repeated (a resumed session, a
    copy in an archive root, a project folder moved within a root). Those lines were
    skipped as replays; when the file that held them is pruned, the replaying files are
    read again so their sessions survive.
    """
    for table in ("units_fts", "tools_fts", "cjk_fts"):
        db.execute(f"INSERT INTO {table}({table}, rank) VALUES ('secure-delete', 1)")
        db.execute(f"INSERT INTO {table}({table}) VALUES ('optimize')")
    # Redaction learnt kinds it missed before (a GCP private_key, short passwords,
    # Authorization headers, ...): every transcript is read again once, so what was
    # stored before is redacted by today's rules. Unchanged units keep their vectors.
    db.execute("UPDATE files SET offset = 0, lines = 0, size = -1, tail_hash = NULL")
    db.execute(
        """
        CREATE TABLE replays (
            file_path   TEXT NOT NULL,   -- the file whose lines were skipped as replays
            source_path TEXT NOT NULL,   -- the file that held those lines first
            PRIMARY KEY (file_path, source_path)
        ) WITHOUT ROWID;
        CREATE INDEX replays_source ON replays(source_path);
        """
    )


def v7_message_headings(db: apsw.Connection) -> None:
    """Where a note's section sits in its document (`guide.md › Syncthing › Restart`).

    Nullable and NULL for every transcript message, so adding it rewrites nothing and
    no file is read again.
    """
    db.execute("ALTER TABLE messages ADD COLUMN heading TEXT")


def v8_resume_titles_audit(db: apsw.Connection) -> None:
    """Tables for going back to work from a result: the last list a terminal was shown
    (`open N`), the title lines findsession appended to transcripts (so `titles --undo`
    removes exactly those bytes), and the audit of agents' searches."""
    db.execute(
        """
        CREATE TABLE last_results (
            terminal   TEXT NOT NULL,     -- who was shown the list (a tty, a shell)
            rank       INTEGER NOT NULL,  -- 1-based, as printed
            session_id TEXT NOT NULL,
            shown_at   TEXT NOT NULL,     -- ISO time of the search
            PRIMARY KEY (terminal, rank)
        ) WITHOUT ROWID;
        -- A title line findsession appended, or (offset and line NULL) a title kept in
        -- the index only, for a format with no documented place for one.
        CREATE TABLE title_writes (
            id         INTEGER PRIMARY KEY,
            session_id TEXT NOT NULL,
            file_path  TEXT NOT NULL,
            offset     INTEGER,           -- where the appended line starts
            line       BLOB,              -- the exact bytes written, newline included
            title      TEXT NOT NULL,
            written_at TEXT NOT NULL,
            UNIQUE (file_path, offset)
        );
        CREATE INDEX title_writes_session ON title_writes(session_id);
        CREATE TABLE audit (
            id           INTEGER PRIMARY KEY,
            at           TEXT NOT NULL,   -- ISO time (UTC)
            connection   TEXT NOT NULL,   -- the MCP connection (one server process) that asked
            tool         TEXT NOT NULL,   -- search_conversation, read_conversation, list_sessions
            query_digest TEXT,            -- keyed digest, never the query's text; NULL: no query
            filters      TEXT NOT NULL,   -- JSON
            strategy     TEXT,            -- the retrieval that ran (searches only)
            confidence   TEXT,            -- strong, weak or nothing (searches only)
            results      TEXT NOT NULL,   -- JSON: sessions, turns, ranking components
            excluded     TEXT NOT NULL,   -- JSON: candidates each filter excluded
            held_back    INTEGER NOT NULL DEFAULT 0  -- results the evidence budget withheld
        );
        CREATE INDEX audit_at ON audit(at);
        """
    )
