"""The resident service as people run it: real processes, a real Unix socket, real file
events. Each test starts its own service for its own index and stops it after."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import CLI
from transcripts import Transcript, project_dir

from findsession.protocol.client import Unavailable, ask
from findsession.protocol.place import Place

pytestmark = pytest.mark.skipif(
    not hasattr(os, "getuid") or sys.platform == "win32", reason="the service needs Unix sockets"
)

QUERY = "syncthing conflict"


@pytest.fixture
def service_cli(tmp_path: Path, db_path: Path) -> Iterator[CLI]:
    """A CLI with its own runtime folder (short: socket paths are limited to ~100
    bytes), an indexed corpus, and whatever service it starts stopped at the end."""
    cli = CLI(tmp_path, db_path)
    runtime = Path(tempfile.mkdtemp(prefix="fs-"))
    cli.env["XDG_RUNTIME_DIR"] = str(runtime)
    root = tmp_path / "home" / ".claude" / "projects"
    t = Transcript(session_id="5ac30ab5-1111-4222-8333-944445555666", cwd="/home/dev/code")
    t.prompt("i have another syncthing conflict, can you look at it and fix.")
    t.reply("The conflict file is notes.sync-conflict-20260611.md; I merged both versions.")
    t.write(project_dir(root, "/home/dev/code"))
    u = Transcript(session_id="9d0e1f2a-0000-4000-8000-000000000001", cwd="/home/dev/web")
    u.prompt("the deploy says it is live but the site still serves the old build")
    u.reply("The deploy script never checks the health endpoint's build hash.")
    u.write(project_dir(root, "/home/dev/web"))
    cli.run("index")
    yield cli
    cli.run("service", "stop", check=False)
    for folder in (runtime, runtime / "findsession"):  # a test may have opened them
        if folder.exists():
            folder.chmod(0o700)
    pid = _lock_pid(place_of(cli))
    if pid:
        _kill(pid)
    shutil.rmtree(runtime, ignore_errors=True)


def place_of(cli: CLI) -> Place:
    old = {k: os.environ.get(k) for k in ("XDG_RUNTIME_DIR", "FINDSESSION_CONFIG")}
    os.environ.update({k: cli.env[k] for k in old})
    try:
        return Place.for_index(cli.env["FINDSESSION_DB"])
    finally:
        for k, v in old.items():
            os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)


def status(cli: CLI) -> dict:
    return json.loads(cli.run("service", "status", "--json", check=False).stdout)


def wait_for(condition, seconds: float = 60.0) -> None:  # noqa: ANN001
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


def _lock_pid(place: Place) -> int | None:
    try:
        return int(place.lock.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (killed, not yet reaped by its parent) counts as gone.
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return True


def test_start_search_status_stop(service_cli: CLI) -> None:
    cli = service_cli
    cli.env["FINDSESSION_NO_SERVICE"] = "1"
    local = cli.run(QUERY)
    del cli.env["FINDSESSION_NO_SERVICE"]
    assert status(cli)["running"] is False

    started = cli.run("service", "start")
    assert "service started" in started.stdout
    place = place_of(cli)
    assert (place.socket.stat().st_mode & 0o777) == 0o600
    assert (place.folder.stat().st_mode & 0o777) == 0o700

    served = cli.run(QUERY)
    assert served.stdout == local.stdout  # the same results, printed the same way
    assert "hybrid search · 1 session" in served.stderr
    state = status(cli)
    # Two requests: the search, and the list it showed, remembered for `open N`.
    assert state["running"] is True and state["answered"] == 2
    assert cli.run("service", "start").stdout.startswith("the service already runs")

    assert "service stopped" in cli.run("service", "stop").stdout
    assert not place.socket.exists()
    gone = cli.run("service", "status", check=False)
    assert gone.returncode == 3 and "not running" in gone.stdout
    assert cli.run(QUERY).stdout == local.stdout  # in-process again


def test_two_clients_at_once(service_cli: CLI) -> None:
    cli = service_cli
    cli.run("service", "start")
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "findsession", query, "--json"],
            env=cli.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for query in (QUERY, "deploy build hash", QUERY)
    ]
    outs = [json.loads(p.communicate(timeout=120)[0]) for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert outs[0]["results"][0]["session"]["id"].startswith("5ac30ab5")
    assert outs[1]["results"][0]["session"]["id"].startswith("9d0e1f2a")
    assert outs[0]["results"] == outs[2]["results"]
    assert status(cli)["answered"] == 3


def test_killed_service_falls_back_and_is_replaced(service_cli: CLI) -> None:
    cli = service_cli
    cli.run("service", "start")
    first = status(cli)["pid"]
    os.kill(first, signal.SIGKILL)
    wait_for(lambda: not _alive(first))
    assert place_of(cli).socket.exists()  # a dead service leaves its socket behind

    started = time.monotonic()
    out = cli.run(QUERY)  # searches in-process, never waits on the dead one
    assert time.monotonic() - started < 30
    assert out.stdout.startswith("[1] 2026-06-11")
    wait_for(lambda: status(cli).get("running") and status(cli)["pid"] != first)
    assert cli.run(QUERY).stdout == out.stdout
    assert status(cli)["answered"] >= 1


def test_a_client_of_another_version_restarts_it(service_cli: CLI) -> None:
    cli = service_cli
    cli.run("service", "start")
    old = status(cli)["pid"]
    place = place_of(cli)
    with pytest.raises(Unavailable) as why:
        ask(place, {"op": "ping"}, me="0.0.0-other/0")
    assert why.value.other_version and why.value.other_version != "0.0.0-other/0"
    wait_for(lambda: not _alive(old))  # it stepped down for the other version

    assert cli.run(QUERY).stdout.startswith("[1] 2026-06-11")
    wait_for(lambda: status(cli).get("running") and status(cli)["pid"] != old)


def test_service_refuses_an_open_runtime_folder(service_cli: CLI) -> None:
    cli = service_cli
    folder = Path(cli.env["XDG_RUNTIME_DIR"]) / "findsession"
    folder.mkdir(mode=0o700, exist_ok=True)
    folder.chmod(0o777)
    out = cli.run("service", "start", check=False)
    assert out.returncode == 1 and "open to other users" in out.stderr
    assert cli.run(QUERY).stdout.startswith("[1] 2026-06-11")  # searches go on in-process
    assert not list(folder.iterdir())  # nothing was put in it
    folder.chmod(0o700)


@pytest.mark.skipif(
    not hasattr(os, "getuid") or os.getuid() != 0, reason="needs root to be another user"
)
def test_another_user_gets_no_answer_even_through_an_open_socket(service_cli: CLI) -> None:
    cli = service_cli
    cli.run("service", "start")
    place = place_of(cli)
    for path in (place.folder.parent, place.folder, place.socket):
        path.chmod(0o777)  # a mistake in modes must not open the index
    code = (
        "import os, socket, struct, sys\n"
        "os.setgid(65534); os.setuid(65534)\n"
        "s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.settimeout(5)\n"
        'b = b\'{"v": "x", "op": "service"}\'\n'
        "try:\n"
        "    s.sendall(struct.pack('>I', len(b)) + b); print(len(s.recv(100)))\n"
        "except (BrokenPipeError, ConnectionResetError):\n"
        "    print(0)\n"
    )
    try:
        out = subprocess.run(
            [sys.executable, "-c", code, str(place.socket)],
            capture_output=True,
            text=True,
            timeout=30,
        )
    finally:
        for path in (place.folder.parent, place.folder):
            path.chmod(0o700)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "0"  # closed without a byte
    assert status(cli)["running"] is True  # and it did not stop for the stranger


def test_an_appended_turn_is_found_through_the_watcher(service_cli: CLI, tmp_path: Path) -> None:
    cli = service_cli
    cli.run("service", "start")
    wait_for(lambda: status(cli).get("caught_up"))
    path = project_dir(tmp_path / "home" / ".claude" / "projects", "/home/dev/web")
    path = path / "9d0e1f2a-0000-4000-8000-000000000001.jsonl"
    t = Transcript(session_id="9d0e1f2a-0000-4000-8000-000000000001", cwd="/home/dev/web")
    t.time, t._n = t.time.replace(hour=11), 100  # later lines, new uuids
    t.prompt("now the zanzibarquokka cache needs warming before the deploy").reply("Warmed.")
    t.append_to(path)

    def found() -> bool:
        out = cli.json("search", "zanzibarquokka", "--mode", "keyword")
        return bool(out["results"])

    wait_for(found, seconds=20)
    last = status(cli)["last_index"]
    assert last["full"] is False and last["files_seen"] == 1  # just that file, of two

    # A file no source reads (an agent's log beside its transcripts) costs no walk.
    (path.parent / "agent.log").write_text("compacting...\n")
    wait_for(lambda: status(cli)["last_index"]["at"] != last["at"], seconds=20)
    assert status(cli)["last_index"]["full"] is False

    new = Transcript(session_id="77777777-0000-4000-8000-000000000002", cwd="/home/dev/new")
    new.prompt("a brand new session about the quasarpelican exporter").reply("Sure.")
    new.write(project_dir(tmp_path / "home" / ".claude" / "projects", "/home/dev/new"))
    wait_for(lambda: bool(cli.json("search", "quasarpelican", "--mode", "keyword")["results"]))


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads CPU time from /proc")
def test_an_idle_service_uses_no_cpu(service_cli: CLI) -> None:
    cli = service_cli
    cli.run("service", "start")
    wait_for(lambda: status(cli).get("caught_up") and not status(cli).get("embedding"))
    pid = status(cli)["pid"]
    time.sleep(1)  # let the last status answer finish

    def cpu_seconds() -> float:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    before = cpu_seconds()
    time.sleep(5)
    used = cpu_seconds() - before
    assert used <= 0.05, f"an idle service used {used:.2f} s of CPU in 5 s"


def test_a_changed_config_file_is_read_again(service_cli: CLI) -> None:
    cli = service_cli
    cli.run("service", "start")
    config = Path(cli.env["FINDSESSION_CONFIG"])
    config.write_text("[search\nbroken = \n")
    served = cli.run(QUERY, check=False)
    cli.env["FINDSESSION_NO_SERVICE"] = "1"
    local = cli.run(QUERY, check=False)
    del cli.env["FINDSESSION_NO_SERVICE"]
    assert served.returncode == local.returncode == 1
    assert "cannot read the config file" in served.stderr and served.stderr == local.stderr

    config.write_text("[search]\nhybrid_weight = 0.5\n")
    assert cli.run(QUERY).stdout.startswith("[1] 2026-06-11")
    assert status(cli)["answered"] >= 2


def test_the_service_serves_the_page_and_a_second_ui_reuses_it(service_cli: CLI) -> None:
    """`findsession ui` with a service: the page comes from its warm index, returns at
    once (nothing left running here), and a second `ui` gets the same page with a link
    of its own."""
    import json
    import urllib.request

    from web_page import LINK, redeem

    cli = service_cli
    cli.run("service", "start")
    first = cli.run("ui", "--no-open")
    url = first.stdout.strip()
    assert "the service serves this page" in first.stderr
    again = cli.run("ui", "--no-open").stdout.strip()
    one, two = LINK.fullmatch(url), LINK.fullmatch(again)
    assert one and two and again != url
    assert one.groups() == two.groups()  # the same port and folder: the same page
    request = urllib.request.Request(
        f"http://127.0.0.1:{one.group(1)}{one.group(2)}api/search?q=syncthing+conflict",
        headers={"X-Findsession-Token": redeem(url)},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        hits = json.loads(response.read())["results"]
    assert hits[0]["session"]["id"].startswith("5ac30ab5")
    cli.run("service", "stop")
    with pytest.raises(OSError):
        urllib.request.urlopen(request, timeout=5)  # the page went with the service


def test_an_index_of_named_folders_gets_no_sample_sessions(tmp_path: Path, db_path: Path) -> None:
    """The service watched "the standard roots", which fall back to the shipped sample
    when no agent folder exists: starting it added the nine sample sessions to an index
    built from a folder of archived transcripts. The sample is for an empty index only."""
    cli = CLI(tmp_path, db_path)
    runtime = Path(tempfile.mkdtemp(prefix="fs-"))
    cli.env["XDG_RUNTIME_DIR"] = str(runtime)
    (tmp_path / "home").mkdir()  # no agent folder in it
    archive = tmp_path / "archive"
    t = Transcript(session_id="a7c10000-0000-4000-8000-000000000001", cwd="/srv/old")
    t.prompt("why did the tarpaulin cache expire early").reply("Its TTL was in seconds.")
    t.write(project_dir(archive, "/srv/old"))
    cli.run("index", "--no-embed", str(archive))
    assert cli.json("status")["sessions"] == 1
    # Run by hand too, with no folder named: nothing to read, and no sample either.
    assert "sample" not in cli.run("index", "--no-embed").stderr
    assert cli.json("status")["sessions"] == 1
    try:
        cli.run("service", "start")
        wait_for(lambda: status(cli).get("caught_up"))
        assert cli.json("status")["sessions"] == 1
        assert cli.json("search", "tarpaulin cache", "--mode", "keyword")["results"]
        # An appended turn in the named folder is still followed.
        t.time, t._n = t.time.replace(hour=11), 100
        t.prompt("and the quokkaferry purge job").reply("Runs nightly now.")
        t.append_to(project_dir(archive, "/srv/old") / f"{t.session_id}.jsonl")
        wait_for(
            lambda: bool(cli.json("search", "quokkaferry", "--mode", "keyword")["results"]),
            seconds=20,
        )
        assert cli.json("status")["sessions"] == 1
    finally:
        cli.run("service", "stop", check=False)
        pid = _lock_pid(place_of(cli))
        if pid:
            _kill(pid)
        shutil.rmtree(runtime, ignore_errors=True)


#: A JSON document nested deeper than any parser recurses (Python's stops near 1,000).
DEEP = '{"a":' * 100_000 + "1" + "}" * 100_000


def test_deeply_nested_json_costs_its_file_not_the_run(service_cli: CLI, tmp_path: Path) -> None:
    """A subagent's `meta.json` nested 100k deep: the run goes on (its transcript is
    read, the meta ignored as a malformed one is), nothing is logged as a traceback, and
    the service does not retry in a loop."""
    cli = service_cli
    cli.run("service", "start")
    wait_for(lambda: status(cli).get("caught_up"))
    parent = "5ac30ab5-1111-4222-8333-944445555666"
    folder = project_dir(tmp_path / "home" / ".claude" / "projects", "/home/dev/code")
    agents = folder / parent / "subagents"
    agent = Transcript(session_id=parent, cwd="/home/dev/code", sidechain=True, agent_id="a1")
    agent.prompt("audit the zanzibarwombat exporter").reply("Audited.")
    agents.mkdir(parents=True)
    (agents / "agent-a1.meta.json").write_text(DEEP)
    agent.write(agents, "agent-a1.jsonl")
    wait_for(lambda: bool(cli.json("search", "zanzibarwombat", "--mode", "keyword")["results"]))
    runs = status(cli)["index_runs"]
    time.sleep(2)
    assert status(cli)["index_runs"] <= runs + 1, "the indexer retried in a loop"
    log = place_of(cli).log.read_text()
    assert "Traceback" not in log and "RecursionError" not in log, log[-2000:]
    assert "indexing failed" not in log, log[-2000:]

    cli.run("service", "stop")
    cli.env["FINDSESSION_NO_SERVICE"] = "1"
    out = cli.run("index", "--no-embed", check=False)
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr[-2000:]


def test_a_port_in_use_is_one_line_from_the_service_too(service_cli: CLI) -> None:
    import socket

    cli = service_cli
    cli.run("service", "start")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        out = cli.run("ui", "--no-open", "--port", str(port), check=False)
    assert out.returncode == 1, out
    assert out.stderr.count("\n") == 1 and f"127.0.0.1:{port}" in out.stderr, out.stderr
    assert "Traceback" not in place_of(cli).log.read_text()
    assert status(cli)["running"] is True
