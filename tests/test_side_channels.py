"""A person on a team's server learns nothing of a colleague's unshared sessions, tried
as an attacker would: with plain SQL as their own role, on the real server.

Alice pushes a session she has not shared (its project `/home/alice/secretproj`, a word
nobody else says, its vectors). Bob then tries what row-level security alone did not
stop: `EXPLAIN (ANALYZE)` with sequential scans off on every table and every indexed
column (an index scan that visits a hidden row and drops it reports "Rows Removed by
Filter", and a walk over ranges spells the values out), the same as a DELETE and an
UPDATE, a nearest-neighbour walk over the vector graph, every function the schema lets
him run, and the counts he may read. Bob's answers must be the same whether or not
Alice's session exists.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from postgres_server import Server
from psycopg import sql
from team import machine, make_team, rows, session

from findsession.storage.sql.tables import OWNER, SESSION, TABLES, UNIT

SECRET_PROJECT = "/home/alice/secretproj"
SECRET_WORD = "zanzibarquux"
#: Tables whose rows belong to a session's owner and are read by everyone once shared,
#: and tables whose rows are their owner's alone: every table both backends hold, as
#: described once (findsession.storage.sql.tables), so a new one is tried unasked. The
#: server's own tables (`postings`) are found in its catalog by their `owner` column.
CONTENT = tuple(n for n, t in TABLES.items() if t.belongs in (SESSION, UNIT))
OWN = tuple(n for n, t in TABLES.items() if t.belongs == OWNER)
#: Counts of an EXPLAIN (ANALYZE) node that count rows the scan visited.
VISITED = ("Actual Rows", "Rows Removed by Filter", "Rows Removed by Index Recheck")


@pytest.fixture(scope="module")
def hidden(pg_server: Server, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """Alice's unshared sessions, pushed with their vectors and indexed straight into
    the server, and Bob's own; the team's URLs and Alice's pushed session's id. One
    server for the module: the last test deletes Alice's rows."""
    database = pg_server.fresh_database()
    tmp_path = tmp_path_factory.mktemp("side-channels")
    team = make_team(pg_server, pg_server.url(database), tmp_path)
    alice, bob = (
        machine(tmp_path, "alice-laptop", team["alice"]),
        machine(tmp_path, "bob-laptop", team["bob"]),
    )
    secret = session(
        alice,
        SECRET_PROJECT,
        (f"the {SECRET_WORD} merger numbers for the board", "Kept in the vault sheet."),
        ("who else knows about the acquisition", "Only the two founders."),
    )
    session(
        bob,
        "/home/bob/code/tools",
        ("a cache for the build", "Use ccache."),
        ("the lighthouse keeper logs", "Rotate them weekly."),
    )
    for each in (alice, bob):
        each.run("index")
        each.run("push")
    # Her desktop indexes straight into the server: files, messages, runs of hers there.
    desk = machine(tmp_path, "alice-desk", team["alice"])
    config = tmp_path / "alice-desk" / "config.toml"
    config.write_text(config.read_text("utf-8").replace('"sqlite"', '"postgresql"'), "utf-8")
    session(desk, SECRET_PROJECT, (f"{SECRET_WORD} due diligence list", "Legal has it."))
    desk.run("index")
    desk.run("search", SECRET_WORD)
    yield {**team, "secret": secret}
    pg_server.execute(f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")


def _tables(url: str) -> list[str]:
    return [
        r[0] for r in rows(url, "SELECT tablename FROM pg_tables WHERE schemaname = 'findsession'")
    ]


def _owned_tables(url: str) -> dict[str, bool]:
    """Every table of the schema whose rows have an owner, and whether a share shows
    them (an `audience` column): those described once and the server's own (`postings`)."""
    found = rows(
        url,
        "SELECT table_name, bool_or(column_name = 'audience') FROM information_schema.columns"
        " WHERE table_schema = 'findsession' GROUP BY 1 HAVING bool_or(column_name = 'owner')",
    )
    return dict(found)


def _indexed_columns(url: str) -> list[tuple[str, str, str]]:
    """(table, column, type) of every plain column some index of the schema holds."""
    return rows(
        url,
        "SELECT DISTINCT t.relname, a.attname, format_type(a.atttypid, a.atttypmod)"
        " FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid"
        " JOIN pg_namespace n ON n.oid = t.relnamespace"
        " JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = ANY(i.indkey)"
        " WHERE n.nspname = 'findsession' ORDER BY 1, 2",
    )


def _visited(plan: dict[str, Any]) -> int:
    """Every row a plan's nodes read or dropped, summed over the tree."""
    own = sum(int(plan.get(key, 0)) for key in VISITED)
    return own + sum(_visited(p) for p in plan.get("Plans", []))


def _absent(value: Any) -> Any:
    """A value of the same type that no row holds, beside `value`: what bob's probe
    for a hidden value must look like (his own rows count alike in both)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return -value - 7919
    if isinstance(value, float):
        return -value - 7919.5
    if isinstance(value, bytes):
        return value + b"\x00absent"
    return f"{value}\x7fabsent"


def _explain(url: str, statement: sql.Composable, params: Any) -> int | None:
    """The rows `statement` visited as the role of `url`, with sequential scans off and
    the statement rolled back; None when the role may not run it at all."""
    with psycopg.connect(url) as db:
        try:
            db.execute("SET LOCAL enable_seqscan = off")
            found = db.execute(
                sql.SQL("EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF, FORMAT JSON) ")
                + statement,
                params,
            ).fetchone()[0]
        except (psycopg.errors.InsufficientPrivilege, psycopg.errors.GeneratedAlways):
            return None  # refused before it ran
        finally:
            db.rollback()
    return _visited(found[0]["Plan"])


def test_explain_on_every_indexed_column_shows_bob_none_of_alices_hidden_rows(
    hidden: dict[str, Any],
) -> None:
    admin, bob = hidden["admin"], hidden["bob"]
    probed = 0
    owned = _owned_tables(admin)
    assert {*CONTENT, *OWN, "postings"} <= {t for t in owned if t not in ("shares", "unit_count")}
    for table, column, _type in _indexed_columns(admin):
        if column in ("owner", "shared", "audience") or table not in (*CONTENT, *OWN, *owned):
            continue  # the keys every policy reads; settings are everyone's
        if table in ("shares", "unit_count"):
            continue  # shares are everyone's to read; the counts: the test of counts
        if _type == "tsvector":
            continue  # its index answers `@@` alone: the next test
        owner = "owner = 'alice'" + (" AND NOT shared" if owned.get(table) else "")
        values = [
            r[0]
            for r in rows(
                admin,
                sql.SQL(  # values of hers that no row of bob's holds too
                    "SELECT DISTINCT {c} FROM findsession.{t} WHERE {w} AND {c} IS NOT NULL"
                    " AND {c} NOT IN (SELECT {c} FROM findsession.{t} WHERE owner <> 'alice'"
                    " AND {c} IS NOT NULL) LIMIT 3"
                ).format(c=sql.Identifier(column), t=sql.Identifier(table), w=sql.SQL(owner)),
            )
        ]
        for value in values:
            col, tab = sql.Identifier(column), sql.Identifier("findsession", table)
            for statement in (
                sql.SQL("SELECT 1 FROM {} WHERE {} >= %s AND {} <= %s").format(tab, col, col),
                sql.SQL("SELECT 1 FROM {} WHERE {} = %s").format(tab, col),
                sql.SQL("DELETE FROM {} WHERE {} = %s").format(tab, col),
                sql.SQL("UPDATE {} SET {} = {} WHERE {} = %s").format(tab, col, col, col),
            ):
                twice = statement.as_string().count("%s") == 2
                seen = [
                    _explain(bob, statement, (v, v) if twice else (v,))
                    for v in (value, _absent(value))
                ]
                probed += 1
                assert seen[0] == seen[1], (table, column, value, statement.as_string(), seen)
    assert probed > 100, probed


def test_every_index_a_person_could_walk_leads_with_whom_its_rows_are_shown_to(
    hidden: dict[str, Any],
) -> None:
    """The walk above sees only the plans the planner picks: an index led by another
    column passed it while an audience-led index of the same table was cheaper. So the
    catalog is read too: every B-tree over a column of a table with owners starts with
    `audience` (content) or `owner` (a person's own); the unique keys are over
    `sealed(...)`, the text and vector indexes are the next test's."""
    found = rows(
        hidden["admin"],
        "SELECT t.relname, c.relname, am.amname, i.indkey[0], a.attname,"
        " EXISTS (SELECT 1 FROM pg_attribute x WHERE x.attrelid = t.oid"
        "  AND x.attname = 'audience' AND NOT x.attisdropped)"
        " FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid"
        " JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am am ON am.oid = c.relam"
        " JOIN pg_namespace n ON n.oid = t.relnamespace"
        " LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = i.indkey[0]"
        " WHERE n.nspname = 'findsession' AND EXISTS (SELECT 1 FROM pg_attribute o"
        "  WHERE o.attrelid = t.oid AND o.attname = 'owner' AND NOT o.attisdropped)",
    )
    walked = {t for t, *_ in found}
    assert {*CONTENT, *OWN, "postings"} <= walked | {"shares", "unit_count"}
    wrong = []
    for table, index, method, first, column, shown in found:
        if method in ("gin", "hnsw") or first == 0:
            continue  # `@@`, the graph (next test) and sealed keys answer nothing walked
        if table in ("shares", "unit_count"):
            continue  # everyone's to read; the counts are the test of counts
        if column != ("audience" if shown else "owner"):
            wrong.append((table, index, column))
    assert not wrong, wrong


def test_the_vector_graph_and_the_text_indexes_say_nothing_of_hidden_rows(
    hidden: dict[str, Any],
) -> None:
    admin, bob = hidden["admin"], hidden["bob"]
    vector = rows(admin, "SELECT embedding::text FROM findsession.chunks WHERE owner = 'alice'")
    dims = len(vector[0][0].split(","))
    nearest = sql.SQL(
        "SELECT 1 FROM findsession.chunks WHERE vector_dims(embedding) = {d}"
        " ORDER BY embedding::halfvec({d}) <=> %s::halfvec({d}) LIMIT 5"
    ).format(d=sql.Literal(dims))
    assert not _explain(bob, nearest, (vector[0][0],))
    for column in ("words", "tool_words", "cjk_grams"):
        words = sql.SQL("SELECT 1 FROM findsession.units WHERE {} @@ to_tsquery(%s)").format(
            sql.Identifier(column)
        )
        seen = [_explain(bob, words, (w,)) for w in (SECRET_WORD, "absentword")]
        assert seen[0] == seen[1], (column, seen)


def _graphs(url: str) -> int:
    return rows(
        url,
        "SELECT count(*) FROM pg_indexes WHERE schemaname = 'findsession'"
        " AND indexname LIKE 'chunks\\_hnsw\\_%%'",
    )[0][0]


def test_bob_cannot_make_the_server_build_graphs(hidden: dict[str, Any]) -> None:
    """Forty calls once made forty partial HNSW indexes, owned by the admin."""
    before = _graphs(hidden["admin"])
    with psycopg.connect(hidden["bob"], autocommit=True) as db:
        for dims in range(2, 42):
            with contextlib.suppress(psycopg.errors.RaiseException):
                db.execute("SELECT findsession.ensure_graph(%s)", (dims,))
    assert _graphs(hidden["admin"]) == before


def test_an_id_taken_is_all_a_unique_key_tells(hidden: dict[str, Any]) -> None:
    """Ids are one key for the whole server, so whether one exact id is taken is the one
    thing a person can learn (a push must, to give a session an id of its own); never
    a neighbouring id, a prefix, or how many there are."""
    bob, secret = hidden["bob"], hidden["secret"]
    assert rows(bob, "SELECT findsession.session_id_taken(%s)", (secret,))[0][0]
    for probe in (secret[:8], secret[:-1], secret + "0"):
        assert not rows(bob, "SELECT findsession.session_id_taken(%s)", (probe,))[0][0]
    walk = sql.SQL("SELECT 1 FROM findsession.sessions WHERE id >= %s AND id < %s")
    assert not _explain(bob, walk, (secret[:4], secret[:4] + "\uffff"))


#: What the server counts of a relation's work in this transaction, per table and index:
#: scans, rows read by them, rows fetched through an index (`pg_stat_user_tables` and
#: `pg_stat_user_indexes` once flushed, which every role may read).
_WORK = (
    "SELECT c.relname, pg_stat_get_xact_numscans(c.oid), pg_stat_get_xact_tuples_returned(c.oid),"
    " pg_stat_get_xact_tuples_fetched(c.oid) FROM pg_class c"
    " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'findsession'"
    " AND c.relkind IN ('r', 'i') ORDER BY 1"
)


def _work(url: str, statement: str) -> dict[str, tuple[int, ...]]:
    """What `statement` made the server do, as `url`'s role, on every relation of the
    schema where it did anything: the counters before and after, in one transaction,
    with sequential scans off as findsession's own searches run (on a small table the
    planner would read every row whatever the word)."""
    with psycopg.connect(url) as db:
        db.execute("SET LOCAL enable_seqscan = off")
        before = {r[0]: r[1:] for r in db.execute(_WORK).fetchall()}
        db.execute(statement).fetchall()
        after = {r[0]: r[1:] for r in db.execute(_WORK).fetchall()}
        db.rollback()
    return {
        name: tuple(a - b for a, b in zip(counts, before.get(name, (0, 0, 0)), strict=True))
        for name, counts in after.items()
        if counts != before.get(name, (0, 0, 0))
    }


def _word_probes(word: str) -> list[str]:
    """Every call a person may make that looks a word up, for `word`: alone, in a
    phrase, as a prefix, in a filtered list."""
    queries = [f"'{word}'", f"'{word}' <-> 'merger'", f"'{word[:-3]}':*", f"!'{word}' & 'due'"]
    calls = [
        f"SELECT findsession.matching_count('{c}', $q${q}$q$::tsquery, 1000)"
        for c in ("words", "tool_words", "cjk_grams")
        for q in queries
    ]
    calls += [f"SELECT * FROM findsession.matching_units('words', $q${q}$q$, 10)" for q in queries]
    calls += [
        "SELECT * FROM findsession.keyword_ranked('words', '{0.125,0.25,0.5,1.0}', 4,"
        f" ARRAY[$q${q}$q$], ARRAY[1.0::float8], 10, 10, {filters})"
        for q in queries
        for filters in (
            "NULL, NULL, NULL, NULL, NULL, NULL",
            f"'{SECRET_PROJECT}', NULL, NULL, 'turn', '2000', NULL",
        )
    ]
    return calls


def test_a_word_only_a_colleagues_private_units_hold_costs_bob_no_more_work(
    hidden: dict[str, Any],
) -> None:
    """Calling the search functions straight over SQL, Bob's lookup of a word only
    Alice's unshared units hold read those units (their count in `pg_stat_user_tables`,
    and 5x the time of an absent word): a function he may call must do work bounded by
    what he may read, so a secret word and an absent one cost him the same, on every
    table and index."""
    bob = hidden["bob"]
    for secret, absent in zip(_word_probes(SECRET_WORD), _word_probes("absentwordq"), strict=True):
        assert _work(bob, secret) == _work(bob, absent), secret


def test_bobs_word_lookups_answer_what_the_units_he_may_read_hold(
    hidden: dict[str, Any],
) -> None:
    """Looked up through the rows of his words rather than the GIN index, Bob's calls
    answer as the admin's do over the units Bob may read: words, prefixes, phrases,
    negations, alternatives, weights."""
    admin, bob = hidden["admin"], hidden["bob"]
    mine = "u.audience IN ('bob', '')"
    queries = [
        "cache",
        "cach:*",
        "cache <-> for",
        "!ccache & build",
        "build | zanzibarquux",
        "cache:B",
        "!zanzibarquux",
        "cc:*",
        "zanzibarquux",
        "lighthouse | ccache",
        "keeper & lighthouse",
        "lightho:* | cache",
        "!lighthouse & !ccache",
    ]
    for text in queries:
        q = f"to_tsquery('findsession.words', $q${text}$q$)"
        [(count,)] = rows(
            admin, f"SELECT count(*) FROM findsession.units u WHERE {mine} AND u.words @@ {q}"
        )
        assert rows(bob, f"SELECT findsession.matching_count('words', {q}, NULL)") == [(count,)]
        ids = rows(
            admin,
            f"SELECT u.id FROM findsession.units u WHERE {mine} AND u.words @@ {q} ORDER BY 1",
        )
        assert (
            rows(bob, f"SELECT * FROM findsession.matching_units('words', {q}, NULL) ORDER BY 1")
            == ids
        ), text
        ranked = (
            "SELECT r.* FROM findsession.keyword_ranked('words', '{0.125,0.25,0.5,1.0}', 4,"
            f" ARRAY[({q})::text], ARRAY[1.0::float8], 10, 1000, NULL, NULL, NULL, NULL,"
            " NULL, NULL) r"
        )
        theirs = rows(admin, f"{ranked} JOIN findsession.units u ON u.id = r.id WHERE {mine}")
        assert rows(bob, ranked) == theirs and (theirs or count == 0), text


def test_a_vector_near_a_colleagues_private_chunks_costs_bob_no_more_work(
    hidden: dict[str, Any],
) -> None:
    """The graph walked for Bob holds only what he may read: the walk toward Alice's
    own vector fetches no more rows than the walk toward his."""
    admin, bob = hidden["admin"], hidden["bob"]
    [(hers,)] = rows(
        admin,
        "SELECT embedding::text FROM findsession.chunks WHERE owner = 'alice' ORDER BY id LIMIT 1",
    )
    [(his,)] = rows(
        admin,
        "SELECT embedding::text FROM findsession.chunks WHERE owner = 'bob' ORDER BY id LIMIT 1",
    )
    dims = len(hers.split(","))
    for take in (1, 40):
        for filters in (
            "NULL, NULL, NULL, NULL, NULL, NULL, NULL",
            f"'{SECRET_PROJECT}', NULL, NULL, NULL, NULL, NULL, NULL",
        ):
            seen = [
                _work(
                    bob,
                    f"SELECT * FROM findsession.vector_ranked('{v}', {dims}, {take}, {filters})",
                )
                for v in (hers, his)
            ]
            assert seen[0] == seen[1], (take, filters, seen)


def _estimate(url: str, statement: str) -> float:
    """The planner's estimate of the rows `statement` returns, as `url`'s role."""
    with psycopg.connect(url) as db:
        plan = db.execute(f"EXPLAIN (FORMAT JSON) {statement}").fetchone()[0]
        db.rollback()
    return float(plan[0]["Plan"]["Plan Rows"])


def test_the_planners_estimates_say_nothing_of_hidden_values(hidden: dict[str, Any]) -> None:
    """The planner's statistics are sampled over every row, policies or not, and any
    role's EXPLAIN reads them back: with a project Alice works in often, Bob's estimate
    for her path was 143 rows where an absent one got 1, and a range over a column
    walks its histogram. No column of words (text, bytes, vectors) of a table with
    owners keeps statistics but whose rows they are."""
    admin, bob = hidden["admin"], hidden["bob"]
    often = "/home/alice/clientwork"
    with psycopg.connect(admin, autocommit=True) as db:
        db.execute(
            "INSERT INTO findsession.sessions (id, source, cwd, owner) SELECT 'often' || g,"
            " 'claude-code', %s, 'alice' FROM generate_series(1, 300) g",
            (often,),
        )
        db.execute(
            "INSERT INTO findsession.sessions (id, source, cwd, owner) SELECT 'many' || g,"
            " 'claude-code', '/home/' || (CASE WHEN g % 2 = 0 THEN 'bob' ELSE 'alice' END)"
            " || '/p' || g, CASE WHEN g % 2 = 0 THEN 'bob' ELSE 'alice' END"
            " FROM generate_series(1, 6000) g"
        )
        db.execute("ANALYZE findsession.sessions")
    try:
        for condition in ("cwd = %s", "cwd < %s", "cwd > %s"):
            statement = f"SELECT 1 FROM findsession.sessions WHERE {condition}"
            seen = [
                _estimate(bob, statement.replace("%s", f"'{v}'"))
                for v in (often, "/home/nobody/absent")
            ]
            assert seen[0] == seen[1], (condition, seen)
        kept = rows(
            admin,
            "SELECT c.relname, a.attname FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid"
            " WHERE c.relnamespace = 'findsession'::regnamespace AND c.relkind = 'r'"
            " AND a.attnum > 0 AND NOT a.attisdropped AND a.attstattarget IS DISTINCT FROM 0"
            " AND (SELECT t.typcategory FROM pg_type t WHERE t.oid = a.atttypid) NOT IN ('N', 'B')"
            " AND a.attname NOT IN ('owner', 'audience', 'shared') AND EXISTS (SELECT 1"
            "  FROM pg_attribute o WHERE o.attrelid = c.oid AND o.attname = 'owner')",
        )
        assert kept == [], kept
    finally:
        with psycopg.connect(admin, autocommit=True) as db:
            db.execute("DELETE FROM findsession.sessions WHERE id ~ '^(often|many)[0-9]'")
            db.execute("ANALYZE findsession.sessions")


#: What each function the schema grants people is asked: a probe per argument list.
#: A function not named here fails the test below until someone says how to probe it.
def _probes(hidden: dict[str, Any], dims: int, vector: str) -> dict[str, list[str]]:
    secret = hidden["secret"]
    return {
        "now_iso": [],  # reads no table
        "in_project": [],  # pure
        "sealed": [],  # pure
        "ensure_graph": [],  # tested above
        "session_id_taken": [],  # see the test of ids below
        "session_shared": [f"SELECT findsession.session_shared('alice', '{SECRET_PROJECT}')"],
        "unit_total": ["SELECT findsession.unit_total()"],
        "matching_count": [
            f"SELECT findsession.matching_count('{c}', '{SECRET_WORD}'::tsquery, NULL)"
            for c in ("words", "tool_words", "cjk_grams")
        ],
        "matching_units": [
            f"SELECT * FROM findsession.matching_units('words', '{SECRET_WORD}'::tsquery, 10)"
        ],
        "keyword_ranked": [
            "SELECT * FROM findsession.keyword_ranked('words', '{0.125,0.25,0.5,1.0}', 4,"
            f" ARRAY['{SECRET_WORD}'], ARRAY[1.0::float8], 10, 10, NULL, NULL, NULL, NULL, NULL,"
            " NULL)",
            "SELECT * FROM findsession.keyword_ranked('words', '{0.125,0.25,0.5,1.0}', 4,"
            f" ARRAY['{SECRET_WORD}'], ARRAY[1.0::float8], 10, 10, '{SECRET_PROJECT}',"
            f" '{secret}', ARRAY['claude-code'], 'turn', '2000', '3000')",
        ],
        "vector_ranked": [
            f"SELECT * FROM findsession.vector_ranked('{vector}', {dims}, 40, NULL, NULL, NULL,"
            " NULL, NULL, NULL, NULL)",
            f"SELECT * FROM findsession.vector_ranked('{vector}', {dims}, 40,"
            f" '{SECRET_PROJECT}', '{secret}', ARRAY['claude-code'], NULL, NULL, NULL, 'prompt')",
        ],
    }


def _bobs_answers(bob: str, probes: dict[str, list[str]]) -> list[Any]:
    """Every probe's answer as bob, and every table's row count as bob sees it."""
    answers: list[Any] = []
    for statements in probes.values():
        for statement in statements:
            answers.append((statement, rows(bob, statement)))
    for table in _tables(bob):
        answers.append((table, rows(bob, f"SELECT count(*) FROM findsession.{table}")))
    answers.append(("unit_count", rows(bob, "SELECT * FROM findsession.unit_count ORDER BY 1")))
    return answers


def test_every_function_and_count_bob_may_read_is_the_same_without_alices_session(
    hidden: dict[str, Any],
) -> None:
    admin, bob = hidden["admin"], hidden["bob"]
    granted = {
        r[0]
        for r in rows(
            admin,
            "SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
            " WHERE n.nspname = 'findsession' AND p.prorettype <> 'trigger'::regtype"
            " AND has_function_privilege('bob', p.oid, 'EXECUTE')",
        )
    }
    vector = rows(admin, "SELECT embedding::text FROM findsession.chunks WHERE owner = 'alice'")
    dims = len(vector[0][0].split(","))
    probes = _probes(hidden, dims, vector[0][0])
    assert granted <= set(probes), f"say how to probe {sorted(granted - set(probes))}"
    probes = {name: calls for name, calls in probes.items() if name in granted}
    with_secret = _bobs_answers(bob, probes)
    with psycopg.connect(admin, autocommit=True) as db:  # alice's rows go, as forget would
        for table in (*CONTENT, *OWN):
            db.execute(
                sql.SQL("DELETE FROM findsession.{} WHERE owner = 'alice'").format(
                    sql.Identifier(table)
                )
            )
    without = _bobs_answers(bob, probes)
    assert with_secret == without
