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
    session(bob, "/home/bob/code/tools", ("a cache for the build", "Use ccache."))
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
