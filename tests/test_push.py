"""A team's shared index on a real PostgreSQL server: machines push their local indexes,
people see their own sessions and what others shared, and forgetting reaches the server.

Each machine is a home of its own with Claude Code transcripts, indexed by the real CLI
into its own SQLite file (with the bundled model's vectors) and pushed by the real CLI.
People are login roles the admin made with `findsession server add-person`; what they
see is checked both through findsession and with plain SQL, so the row-level security
itself is tested, not only our filters.
"""

from __future__ import annotations

import hashlib
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psycopg
import pytest
from conftest import CLI
from postgres_server import Server
from team import every_row, machine, make_team, rows, server_state, session, url_as, versions
from test_redaction import pieces
from transcripts import Transcript, project_dir

TOKEN = "ghp_R8sT2vW5yZ1aB4cD7eF0gH3iJ6kL9mN2oP5q"
SHOP, PRIVATE = "/home/dev/code/shop", "/home/dev/private/diary"
SYNCED = "5a3f0c11-7d2e-4b9a-9c41-0e6d2b8f7a10"  # one transcript on both machines


@pytest.fixture
def team(pg_server: Server, pg_url: str, tmp_path: Path) -> dict[str, str]:
    """The admin prepares the fresh database and makes alice and bob; their URLs."""
    return make_team(pg_server, pg_url, tmp_path)


def test_two_machines_push_into_one_server_once_and_a_forget_follows(
    team: dict[str, str], tmp_path: Path
) -> None:
    laptop, desktop = (machine(tmp_path, n, team["alice"]) for n in ("laptop", "desktop"))
    deploy = session(
        laptop,
        SHOP,
        (
            "why does the deploy report live before the healthz probe passes",
            "The readiness probe is missing, so kubernetes routes traffic at once.",
        ),
        ("use this token for the registry: " + TOKEN, "Stored it in the CI secret instead."),
    )
    diary = session(laptop, PRIVATE, ("notes on feeding the sourdough starter", "Twice a day."))
    for each in (laptop, desktop):
        session(
            each,
            SHOP,
            ("the flaky test from a timezone bug", "Pin TZ=UTC in CI."),
            session_id=SYNCED,
        )
    qif = session(desktop, SHOP, ("borrow checker error in the QIF parser", "Clone the line."))
    for each in (laptop, desktop):
        each.run("index")

    first = laptop.json("push")
    assert first["owner"] == "alice" and first["machine"] == "laptop"
    assert first["written"]["sessions"] == 3 and first["written"]["vectors"] > 0
    assert desktop.json("push")["written"]["sessions"] == 2
    # Alice's vector graph was built once over what the first push loaded: hers alone,
    # none shared yet (schema step 12).
    graphs = rows(
        team["admin"],
        "SELECT indexname, indexdef FROM pg_indexes WHERE indexname LIKE 'chunks\\_hnsw\\_%%'",
    )
    assert [(n, "audience = 'alice'" in d) for n, d in graphs] == [
        ("chunks_hnsw_384_" + hashlib.md5(b"alice").hexdigest()[:16], True)
    ], graphs

    # Both machines' sessions answer from the server; the synced transcript is there
    # once per machine, the second under an id the CLI prints and takes back.
    ids = {r[0] for r in rows(team["admin"], "SELECT id FROM findsession.sessions")}
    assert ids == {deploy, diary, qif, SYNCED, f"{SYNCED}@desktop"}
    found = laptop.json("search", "borrow checker QIF parser", "--backend", "postgresql")
    assert found["strategy"] == "hybrid" and found["results"][0]["session"]["id"] == qif
    found = desktop.json("search", "deploy healthz probe", "--backend", "postgresql")
    assert found["results"][0]["session"]["id"] == deploy
    assert "Pin TZ=UTC" in laptop.run("read", f"{SYNCED}@desktop", "--backend", "postgresql").stdout
    # A search shows the synced transcript once, not once per machine.
    found = laptop.json("search", "flaky test timezone bug", "--backend", "postgresql")
    copies = [r for r in found["results"] if r["session"]["id"] in (SYNCED, f"{SYNCED}@desktop")]
    assert len(copies) == 1 and found["results"][0] is copies[0], found["results"]
    assert [r["rank"] for r in found["results"]] == list(range(1, len(found["results"]) + 1))
    local = laptop.json("search", "borrow checker QIF parser")["results"]
    assert qif not in {r["session"]["id"] for r in local}, "the laptop's own index stays its own"

    # Pushing again sends nothing; sending everything again writes nothing.
    before = versions(team["admin"])
    again = laptop.json("push")
    assert again["sent"] == 0 and again["batches"] == 0
    everything = laptop.json("push", "--all")
    assert everything["sent"] == 3 and set(everything["written"].values()) == {0}
    assert versions(team["admin"]) == before

    # No piece of the planted token reached the server, in any table (the keyword
    # columns and `postings` hold words folded to lower case).
    dump = "\n".join(v for values in every_row(team["admin"]).values() for v in values)
    folded = dump.lower()
    assert "REDACTED" in dump and not any(p.lower() in folded for p in pieces(TOKEN))

    # A forget on the laptop removes the session from the server, the desktop's copy too;
    # the desktop, which still holds it, cannot bring it back.
    laptop.run("forget", SYNCED)
    gone = laptop.json("push")["written"]
    assert gone["tombstones"] == 1 and gone["removed"] == 2
    session(desktop, SHOP, ("one more turn about the timezone", "Done."), session_id=SYNCED)
    desktop.run("index")
    back = desktop.json("push", "--all")["written"]
    assert back["refused"] == 1 and back["sessions"] == 0
    left = {r[0] for r in rows(team["admin"], "SELECT local_id FROM findsession.sessions")}
    assert SYNCED not in left and qif in left
    assert not rows(
        team["admin"], "SELECT 1 FROM findsession.units WHERE session_id LIKE %s", (SYNCED + "%",)
    )


def test_push_true_sends_every_index_run_and_the_services_changes(
    team: dict[str, str], tmp_path: Path
) -> None:
    """`[storage] push = true`: an index run ends by pushing, a server that is down
    costs the run nothing (one line, exit 0, sent on the next run), and the resident
    service pushes what it indexed from file events."""
    laptop = machine(tmp_path, "laptop", team["alice"])
    config = tmp_path / "laptop" / "config.toml"
    config.write_text(
        config.read_text("utf-8").replace('backend = "sqlite"', 'backend = "sqlite"\npush = true'),
        "utf-8",
    )
    on_server = "SELECT local_id FROM findsession.sessions"
    first = session(laptop, SHOP, ("why is the flaky login test flaky", "A shared clock."))
    done = laptop.run("index")
    assert "pushed to" in done.stderr and rows(team["admin"], on_server) == [(first,)]

    laptop.env["FINDSESSION_STORAGE_URL"] = team["alice"].replace("host=", "host=/nowhere")
    second = session(laptop, SHOP, ("the login test again", "Froze the clock."))
    down = laptop.run("index")
    assert down.returncode == 0 and "the index is up to date but the push failed" in down.stderr
    assert len([line for line in down.stderr.splitlines() if "push failed" in line]) == 1
    del laptop.env["FINDSESSION_STORAGE_URL"]
    assert laptop.json("push")["sent"] == 1, "the next push sends what the failed one did not"

    runtime = Path(tempfile.mkdtemp(prefix="fs-"))
    laptop.env["XDG_RUNTIME_DIR"] = str(runtime)
    try:
        laptop.run("service", "start")
        third = session(laptop, SHOP, ("a session the service pushes", "Watched and sent."))
        deadline = time.monotonic() + 60
        while (third,) not in rows(team["admin"], on_server):
            assert time.monotonic() < deadline, "the service did not push the new session"
            time.sleep(0.2)
        assert {r[0] for r in rows(team["admin"], on_server)} == {first, second, third}
    finally:
        laptop.run("service", "stop", check=False)
        shutil.rmtree(runtime, ignore_errors=True)


def test_a_push_killed_midway_resumes_to_the_same_end_state(
    pg_server: Server, team: dict[str, str], tmp_path: Path
) -> None:
    laptop = machine(tmp_path, "laptop", team["alice"])
    for n in range(12):
        session(laptop, SHOP, (f"task {n}: rename the module number {n}", f"Renamed module {n}."))
    laptop.run("index")
    env = {**laptop.env, "FINDSESSION_PUSH_BATCH": "1"}
    push = subprocess.Popen(
        [sys.executable, "-m", "findsession", "push", "--verbose"],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert push.stderr is not None
    for line in push.stderr:
        if line.startswith("batch 2:"):
            push.send_signal(signal.SIGKILL)
            break
    push.wait(timeout=60)
    assert push.returncode == -signal.SIGKILL
    midway = len(rows(team["admin"], "SELECT id FROM findsession.sessions"))
    assert 2 <= midway < 12, "the kill landed mid-push"

    resumed = laptop.json("push")
    assert resumed["sent"] <= 12 - midway + 1 and resumed["written"]["sessions"] == 12 - midway
    # The same push, uninterrupted, into a fresh database of its own.
    other = pg_server.fresh_database()
    try:
        CLI(tmp_path, tmp_path / "unused.db").run("server", "init", "--url", pg_server.url(other))
        laptop.run("push", "--to", url_as(pg_server, "alice", other))
        assert server_state(team["admin"]) == server_state(pg_server.url(other))
    finally:
        pg_server.execute(f"DROP DATABASE IF EXISTS {other} WITH (FORCE)")
    duplicates = rows(
        team["admin"],
        "SELECT count(*) - count(DISTINCT (unit_id, field, span_start)) FROM findsession.chunks",
    )
    assert duplicates == [(0,)]


def test_a_grown_or_shortened_session_rewrites_only_the_units_that_changed(
    pg_server: Server, team: dict[str, str], tmp_path: Path
) -> None:
    """A long session that gained a turn writes that turn (and the session's own unit,
    which holds its latest prompt); its other units are not rewritten. A turn taken back
    is dropped. The server ends as a push of the whole session into an empty one does."""
    laptop = machine(tmp_path, "laptop", team["alice"])
    turns = [
        (f"step {n} of the payment retry ladder", f"Backoff step {n} is in.") for n in range(30)
    ]
    sid = session(laptop, SHOP, *turns)
    laptop.run("index")
    assert laptop.json("push")["written"]["units"] == 31, "30 turns and the session's own"
    turn_rows = (
        "SELECT ordinal, xmin::text FROM findsession.units WHERE kind = 'turn' AND ordinal <= 29"
    )
    before = rows(team["admin"], turn_rows)

    refund = ("and the idempotency key for refunds", "Keyed on the order.")
    session(laptop, SHOP, *turns, refund, session_id=sid)
    laptop.run("index")
    grown = laptop.json("push")["written"]
    assert (grown["units"], grown["vectors"], grown["units_removed"]) == (2, 2, 0)
    assert rows(team["admin"], turn_rows) == before, "the unchanged turns were not rewritten"
    found = laptop.json("search", "refund idempotency key", "--backend", "postgresql")
    assert found["results"][0]["session"]["id"] == sid

    session(laptop, SHOP, *turns[:29], session_id=sid)
    laptop.run("index")
    shrunk = laptop.json("push")["written"]
    assert (shrunk["units"], shrunk["units_removed"]) == (1, 2)
    other = pg_server.fresh_database()
    try:
        CLI(tmp_path, tmp_path / "unused.db").run("server", "init", "--url", pg_server.url(other))
        laptop.run("push", "--all", "--to", url_as(pg_server, "alice", other))
        assert server_state(team["admin"]) == server_state(pg_server.url(other))
    finally:
        pg_server.execute(f"DROP DATABASE IF EXISTS {other} WITH (FORCE)")


def test_row_level_security_shows_bob_only_what_alice_shared(
    team: dict[str, str], tmp_path: Path
) -> None:
    alice, bob = (
        machine(tmp_path, "alice-laptop", team["alice"]),
        machine(tmp_path, "bob-laptop", team["bob"]),
    )
    shop = session(alice, SHOP, ("the cache headers for static assets", "gzip and a year."))
    diary = session(alice, PRIVATE, ("the cache of letters from grandmother", "Kept private."))
    session(bob, "/home/bob/code/tools", ("a cache for the build", "Use ccache."))
    for each in (alice, bob):
        each.run("index")
        each.run("push")

    def bob_finds() -> set[str]:
        found = bob.json("search", "cache", "--backend", "postgresql", "--mode", "keyword")
        return {r["session"]["id"] for r in found["results"]}

    def alice_rows_bob_reads() -> dict[str, list[str]]:
        seen = every_row(team["bob"])
        return {t: [v for v in vs if "alice" in v] for t, vs in seen.items() if t != "shares"}

    assert shop not in bob_finds() and diary not in bob_finds() and len(bob_finds()) == 1
    assert not any(alice_rows_bob_reads().values()), "RLS hides every row of alice's"

    alice.run("share", SHOP)
    assert shop in bob_finds() and diary not in bob_finds()
    # A session pushed into a project already shared is shown too, its vectors with it.
    later = session(alice, SHOP, ("the cache busting query string", "A content hash."))
    alice.run("index")
    alice.run("push")
    assert later in bob_finds()
    by_meaning = bob.json(
        "search", "cache busting query string", "--backend", "postgresql", "--mode", "vector"
    )
    assert later in {r["session"]["id"] for r in by_meaning["results"]}
    seen = alice_rows_bob_reads()
    assert seen["sessions"] and seen["units"] and seen["chunks"], "the shared rows show"
    assert not any(diary in v or "grandmother" in v for vs in seen.values() for v in vs)
    assert not any(seen[t] for t in ("files", "private_sessions", "runs", "audit"))
    owner_only = rows(team["bob"], "SELECT count(*) FROM findsession.chunks WHERE owner = 'alice'")
    shared = rows(
        team["admin"],
        "SELECT count(*) FROM findsession.chunks c JOIN findsession.units u ON u.id = c.unit_id"
        " WHERE u.session_id = ANY(%s)",
        ([shop, later],),
    )
    assert owner_only == shared

    # Bob cannot write as alice, nor take her share back.
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        rows(team["bob"], "INSERT INTO findsession.shares (owner, project) VALUES ('alice', '/')")
    bob.run("share", "--remove", SHOP)
    assert shop in bob_finds()
    listed = bob.json("share", "--list")["shares"]
    assert listed == [
        {"owner": "alice", "project": SHOP, "since": listed[0]["since"], "mine": False}
    ]
    alice.run("share", "--remove", SHOP)
    assert shop not in bob_finds()


def _writes(url: str) -> dict[str, tuple[int, int]]:
    """(rows inserted, rows updated) per content table since the server started."""
    found = rows(
        url,
        "SELECT relname, n_tup_ins, n_tup_upd FROM pg_stat_user_tables"
        " WHERE schemaname = 'findsession' AND relname IN ('units', 'chunks', 'embedded')",
    )
    return {r[0]: (r[1], r[2]) for r in found}


def test_a_session_pushed_into_a_shared_project_is_written_once(
    team: dict[str, str], tmp_path: Path
) -> None:
    """Its rows arrive shown to the team: marked after the insert, each unit, vector and
    their index entries were written twice (and the graph's, on a server that has one)."""
    alice = machine(tmp_path, "alice-laptop", team["alice"])
    bob = machine(tmp_path, "bob-laptop", team["bob"])
    alice.run("share", SHOP)
    first = session(alice, SHOP, ("the cache headers for static assets", "gzip and a year."))
    later = session(alice, SHOP, ("the cache busting query string", "A content hash."))
    alice.run("index")
    before = _writes(team["admin"])
    alice.run("push")
    deadline = time.monotonic() + 10  # the push's server process reports as it ends
    while _writes(team["admin"])["units"][0] == before.get("units", (0, 0))[0]:
        assert time.monotonic() < deadline, "the push's inserts never showed in the stats"
        time.sleep(0.1)
    after = _writes(team["admin"])
    for table, (inserted, updated) in after.items():
        assert inserted > before.get(table, (0, 0))[0], f"{table}: the push wrote rows"
        assert updated == before.get(table, (0, 0))[1], f"{table}: rows written again"
    found = bob.json("search", "cache", "--backend", "postgresql", "--mode", "hybrid")
    assert {first, later} <= {r["session"]["id"] for r in found["results"]}
    shown = rows(
        team["bob"],
        "SELECT count(*) FROM findsession.chunks c JOIN findsession.units u ON u.id = c.unit_id"
        " WHERE u.session_id = ANY(%s)",
        ([first, later],),
    )
    assert shown[0][0] >= 2, "bob reads their vectors"


def test_a_person_allowed_one_connection_still_searches(
    team: dict[str, str], tmp_path: Path
) -> None:
    """A search ranks its tool-text list on a second connection; a role the server
    allows one connection searches on that one alone, with the same hits."""
    alice = machine(tmp_path, "alice-laptop", team["alice"])
    shop = session(alice, SHOP, ("the cache headers for static assets", "gzip and a year."))
    alice.run("index")
    alice.run("push")

    def found() -> list[str]:
        out = alice.json("search", "cache headers", "--backend", "postgresql", "--mode", "keyword")
        return [r["session"]["id"] for r in out["results"]]

    before = found()
    with psycopg.connect(team["admin"], autocommit=True) as db:
        db.execute("ALTER ROLE alice CONNECTION LIMIT 1")
    assert found() == before == [shop]


def test_a_hit_says_whose_session_it_is_and_where_it_resumes(
    team: dict[str, str], tmp_path: Path
) -> None:
    """On the shared server a colleague's session is marked as theirs and is not offered
    to resume; one's own from another machine resumes there. Two people searching from
    terminals of the same name (`shell:<pid>`, `tty:/dev/pts/0`) each open their own
    list: before the owner was part of its key, the second search could not remember
    its list at all."""
    alice, bob = (
        machine(tmp_path, "alice-laptop", team["alice"]),
        machine(tmp_path, "bob-laptop", team["bob"]),
    )
    mine = session(alice, SHOP, ("the cache headers for static assets", "gzip and a year."))
    theirs = session(bob, SHOP, ("a cache for the build graph", "Use ccache."))
    for each in (alice, bob):
        each.run("index")
        each.run("push")
        each.run("share", SHOP)

    def first_hit(cli: CLI, query: str) -> dict:
        found = cli.json("search", query, "--backend", "postgresql", "--mode", "keyword")
        return found["results"][0]

    hit = first_hit(bob, "static assets cache headers")
    assert hit["session"]["id"] == mine
    assert (hit["session"]["owner"], hit["session"]["machine"]) == ("alice", "alice-laptop")
    assert hit["session"]["yours"] is False and hit["resume"]["available"] is False
    assert "alice's session (pushed from alice-laptop)" in hit["resume"]["reason"]
    shown = bob.run("search", "static assets cache headers", "--backend", "postgresql").stdout
    assert "alice's, on alice-laptop" in shown

    hit = first_hit(alice, "static assets cache headers")
    assert hit["session"]["yours"] is True and hit["resume"]["machine"] is None
    alice.env["FINDSESSION_MACHINE"] = "alice-desktop"
    elsewhere = alice.run("open", mine, "--backend", "postgresql", "--print")
    del alice.env["FINDSESSION_MACHINE"]
    assert mine in elsewhere.stdout and "alice-laptop, not this machine" in elsewhere.stderr

    # Status on the server says where its sessions came from, not "run findsession index".
    assert bob.json("status", "--backend", "postgresql")["pushed"] == [
        {"owner": "bob", "machine": "bob-laptop", "sessions": 1, "yours": True},
        {"owner": "alice", "machine": "alice-laptop", "sessions": 1, "yours": False},
    ]
    text = bob.run("status", "--backend", "postgresql").stdout
    assert "pushed from  bob-laptop: 1 session\n" in text and "never" not in text
    assert "alice's alice-laptop: 1 session (shared)" in text

    # The same terminal name for both (this test's process), and machines both named
    # "laptop": each their own list.
    alice.env["FINDSESSION_MACHINE"] = bob.env["FINDSESSION_MACHINE"] = "laptop"
    alice.run("search", "static assets cache headers", "--backend", "postgresql")
    bob.run("search", "build graph ccache", "--backend", "postgresql")
    opened = {
        who: cli.json("open", "1", "--backend", "postgresql")["session"]["id"]
        for who, cli in (("alice", alice), ("bob", bob))
    }
    assert opened == {"alice": mine, "bob": theirs}


def test_a_colleague_reads_the_commands_and_edits_of_a_shared_session(
    team: dict[str, str], tmp_path: Path
) -> None:
    """The transcript stays on its machine, but the tool traffic indexed with each turn
    (redacted) is on the server: `read --tools` shows it, between prompt and reply."""
    alice, bob = (
        machine(tmp_path, "alice-laptop", team["alice"]),
        machine(tmp_path, "bob-laptop", team["bob"]),
    )
    t = Transcript(cwd=SHOP)
    t.prompt("the login test fails on the first run of the day")
    t.tool("Bash", {"command": "TZ=UTC npm test -- login.spec.ts"}, "1 passing")
    t.reply("It passes under UTC: the test read the local clock. Pinned TZ in CI.")
    t.write(project_dir(Path(alice.env["CLAUDE_CONFIG_DIR"]) / "projects", SHOP))
    alice.run("index")
    alice.run("push")
    alice.run("share", SHOP)

    read = bob.json("read", t.session_id, "--backend", "postgresql", "--tools")
    kinds = [m["kind"] for m in read["turns"][0]["messages"]]
    assert kinds == ["prompt", "tool_call", "tool_output", "reply"], kinds
    call, output = read["turns"][0]["messages"][1:3]
    assert call["tool"] == "Bash" and "TZ=UTC npm test -- login.spec.ts" in output["text"]
    plain = bob.json("read", t.session_id, "--backend", "postgresql")
    assert [m["kind"] for m in plain["turns"][0]["messages"]] == ["prompt", "reply"]


def test_a_person_may_index_straight_into_the_teams_server(
    team: dict[str, str], tmp_path: Path
) -> None:
    """Not only the admin: a person whose config makes the server their index embeds
    into it under row-level security (which refuses `COPY`) and builds its first graph
    (which people may not create themselves)."""
    alice = machine(tmp_path, "alice-laptop", team["alice"])
    config = tmp_path / "alice-laptop" / "config.toml"
    config.write_text(config.read_text("utf-8").replace('"sqlite"', '"postgresql"'), "utf-8")
    sid = session(alice, SHOP, ("why do the thumbnails come out blurry", "Resample with Lanczos."))
    alice.run("index")
    found = alice.json("search", "blurry pictures after resizing", "--mode", "vector")
    assert [r["session"]["id"] for r in found["results"]][:1] == [sid]
    assert rows(team["admin"], "SELECT count(*) FROM findsession.chunks WHERE owner = 'alice'")[0][
        0
    ], "her vectors are on the server, as hers"


def test_a_person_cannot_replace_the_servers_model(team: dict[str, str], tmp_path: Path) -> None:
    """The model every vector came from is one setting for the whole server: bob, whose
    config names another model, is refused before anything of anyone's is dropped, and
    plain SQL as bob cannot change it either."""
    alice, bob = (
        machine(tmp_path, "alice-laptop", team["alice"]),
        machine(tmp_path, "bob-laptop", team["bob"]),
    )
    session(alice, SHOP, ("why do the thumbnails come out blurry", "Resample with Lanczos."))
    alice.run("index")
    alice.run("push")
    model = "SELECT value FROM findsession.settings WHERE key = 'embedding_model'"
    held = rows(team["admin"], model)[0][0]
    chunks = "SELECT count(*) FROM findsession.chunks"
    before = rows(team["admin"], chunks)[0][0]
    assert before

    config = tmp_path / "bob-laptop" / "config.toml"
    config.write_text(
        config.read_text("utf-8").replace('"sqlite"', '"postgresql"')
        + '\n[embedding]\nmodel = "all-MiniLM-L6-v2"\n',
        "utf-8",
    )
    session(bob, "/home/bob/code/tools", ("a cache for the build", "Use ccache."))
    refused = bob.run("index", check=False)
    assert refused.returncode != 0
    assert f"come from {held}, and only its admin may replace that model" in refused.stderr
    assert rows(team["admin"], model)[0][0] == held
    assert rows(team["admin"], chunks)[0][0] == before, "nobody's vectors were dropped"

    for sql in (
        "UPDATE findsession.settings SET value = 'other' WHERE key = 'embedding_model'",
        "DELETE FROM findsession.settings WHERE key LIKE 'embedding%'",
        "UPDATE findsession.settings SET value = '1' WHERE key = 'schema_version'",
    ):
        with psycopg.connect(team["bob"], autocommit=True) as db:
            assert db.execute(sql).rowcount == 0, sql
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        rows(
            team["bob"],
            "INSERT INTO findsession.settings (key, value) VALUES ('embedding_model', 'x')"
            " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        )
    assert rows(team["admin"], model)[0][0] == held


def test_server_status_shows_the_admin_each_persons_sessions_and_the_graph(
    team: dict[str, str], tmp_path: Path
) -> None:
    alice = machine(tmp_path, "alice-laptop", team["alice"])
    admin = CLI(tmp_path / "admin", tmp_path / "admin" / "local.db")
    session(alice, SHOP, ("the cache headers for static assets", "gzip and a year."))
    session(alice, PRIVATE, ("the cache of letters from grandmother", "Kept private."))
    alice.run("index")
    alice.run("push")
    alice.run("share", SHOP)

    status = admin.json("server", "status", "--url", team["admin"])
    assert status["schema"] == "findsession.server/1" and status["graph_bytes"] > 0
    assert "multilingual-e5-small" in status["model"] and status["dims"] == 384
    people = {p["name"]: p for p in status["people"]}
    assert set(people) == {"alice", "bob"}
    assert people["alice"]["sessions"] == 2 and people["alice"]["units"] == 2
    assert people["alice"]["machines"] == ["alice-laptop"] and people["alice"]["member"]
    assert people["bob"]["sessions"] == 0 and people["bob"]["last_active"] is None
    assert status["shares"] == [{"owner": "alice", "project": SHOP}]
    text = admin.run("server", "status", "--url", team["admin"]).stdout
    assert "alice: 2 sessions, 2 units from alice-laptop" in text
    assert f"alice: {SHOP}" in text

    refused = admin.run("server", "status", "--url", team["bob"], check=False)
    assert refused.returncode != 0 and "server status is the admin's" in refused.stderr


def test_a_removed_person_loses_access_and_their_sessions_go_only_when_asked(
    team: dict[str, str], tmp_path: Path
) -> None:
    alice, bob = (
        machine(tmp_path, "alice-laptop", team["alice"]),
        machine(tmp_path, "bob-laptop", team["bob"]),
    )
    admin = CLI(tmp_path / "admin", tmp_path / "admin" / "local.db")
    shop = session(alice, SHOP, ("the cache headers for static assets", "gzip and a year."))
    session(alice, PRIVATE, ("the cache of letters from grandmother", "Kept private."))
    alice.run("index")
    alice.run("push")
    alice.run("share", SHOP)

    said = admin.run("server", "remove-person", "alice", "--url", team["admin"]).stderr
    assert "alice is no longer in findsession_users" in said
    assert "2 session(s) stay on the server (1 in projects they shared" in said
    denied = alice.run("search", "cache", "--backend", "postgresql", check=False)
    assert denied.returncode != 0 and "permission denied" in denied.stderr
    assert len(denied.stderr.strip().splitlines()) <= 2, denied.stderr
    found = bob.json("search", "cache", "--backend", "postgresql", "--mode", "keyword")
    assert [r["session"]["id"] for r in found["results"]] == [shop], "the shared work stays"

    said = admin.run(
        "server", "remove-person", "alice", "--delete-sessions", "--url", team["admin"]
    ).stderr
    assert "alice was not in findsession_users; deleted their 2 session(s)" in said
    left = {
        table: rows(
            team["admin"], f"SELECT count(*) FROM findsession.{table} WHERE owner = %s", ("alice",)
        )[0][0]
        for table in ("sessions", "units", "chunks", "messages", "files", "shares", "runs")
    }
    assert not any(left.values()), left
    after = bob.run("search", "cache", "--backend", "postgresql", "--json", check=False)
    assert '"results": []' in after.stdout and "the index is empty" in after.stdout
    assert rows(team["admin"], "SELECT count(*) FROM pg_roles WHERE rolname = 'alice'")[0][0] == 1

    gone = admin.run("server", "remove-person", "carol", "--url", team["admin"], check=False)
    assert gone.returncode != 0 and "no role 'carol'" in gone.stderr


def test_push_names_what_is_missing(tmp_path: Path) -> None:
    cli = CLI(tmp_path, tmp_path / "local.db")
    cli.env.pop("FINDSESSION_MACHINE", None)
    (tmp_path / "config.toml").write_text('[storage]\nbackend = "sqlite"\n', "utf-8")
    cli.run("index", "--no-embed")
    proc = cli.run("push", check=False)
    assert proc.returncode == 1 and "[machine] name" in proc.stderr
    cli.env["FINDSESSION_MACHINE"] = "laptop"
    proc = cli.run("push", check=False)
    assert proc.returncode == 1 and "[storage] url" in proc.stderr
