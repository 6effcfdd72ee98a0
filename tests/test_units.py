"""`findsession service install|uninstall` and `schedule install|remove`: the files that
start findsession at login, written, started, stopped and removed.

The CLI runs as a real subprocess with its own HOME and XDG_CONFIG_HOME. `systemctl` is
the operating system's, not ours: the tests run either with no `systemctl` on PATH (a
container, root without a login) or with a stand-in that records what it was asked.
What a unit runs is run for real: its command line, read back from the written file the
way systemd splits it, indexes the fixture corpus.
"""

from __future__ import annotations

import json
import os
import plistlib
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from findsession.cli.parser import build_parser, normalise_argv
from findsession.service import units

FIXTURES = Path(__file__).resolve().parent / "fixtures"
ENABLE = "systemctl --user daemon-reload && systemctl --user enable --now findsession.service"
linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="systemd units")


class Login:
    """A person's login: a home, a config folder, a PATH holding only what a test puts
    there, and `findsession` run as a subprocess in it."""

    def __init__(self, tmp_path: Path) -> None:
        self.home = tmp_path / "home"
        self.config_home = tmp_path / "xdg config"
        self.bin = tmp_path / "bin"
        for folder in (self.home, self.config_home, self.bin):
            folder.mkdir()
        self.units = self.config_home / "systemd" / "user"
        self.calls = tmp_path / "systemctl-calls"
        self.env = {
            "HOME": str(self.home),
            "XDG_CONFIG_HOME": str(self.config_home),
            "PATH": str(self.bin),
            "COLUMNS": "200",
            "NO_COLOR": "1",
        }

    def fake_systemctl(self, exit_status: int = 0, says: str = "") -> None:
        """A `systemctl` first on PATH that records each argv, one line each."""
        script = self.bin / "systemctl"
        script.write_text(
            "#!/bin/sh\n"
            f'printf "%s\\n" "$*" >> {shlex.quote(str(self.calls))}\n'
            f"[ -n {shlex.quote(says)} ] && echo {shlex.quote(says)} >&2\n"
            f"exit {exit_status}\n"
        )
        script.chmod(0o755)

    def called(self) -> list[str]:
        return self.calls.read_text().splitlines() if self.calls.exists() else []

    def run(self, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "findsession", *args],
            env={**self.env, **env},
            capture_output=True,
            text=True,
            timeout=300,
        )


@pytest.fixture
def login(tmp_path: Path) -> Login:
    return Login(tmp_path)


def systemd_split(value: str, *, dollars: bool = True) -> list[str]:
    """A unit line's value split into words as systemd reads it: whitespace apart,
    double quotes around a word, `\\` and `\"` escapes; then `%%` (and in ExecStart=
    `$$`) back to one character. A lone `%` or `$` would be expanded by systemd (`%h`
    is the home folder, `$HOME` a variable): here it fails the test."""
    words: list[str] = []
    word: list[str] = []
    quoted = started = False
    chars = iter(value)
    for c in chars:
        if c == "\\":
            escaped = next(chars)
            assert escaped in '\\"', f"unexpected escape \\{escaped} in {value!r}"
            word.append(escaped)
            started = True
        elif c == '"':
            quoted, started = not quoted, True
        elif c.isspace() and not quoted:
            if started:
                words.append("".join(word))
            word, started = [], False
        else:
            word.append(c)
            started = True
    assert not quoted, f"unbalanced quotes in {value!r}"
    if started:
        words.append("".join(word))
    return [_unexpanded(w, "%$" if dollars else "%") for w in words]


def _unexpanded(word: str, special: str) -> str:
    out = []
    i = 0
    while i < len(word):
        c = word[i]
        if c in special:
            assert word[i + 1 : i + 2] == c, f"systemd would expand {word[i : i + 2]!r} in {word!r}"
            i += 1
        out.append(c)
        i += 1
    return "".join(out)


def unit_lines(path: Path) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for line in path.read_text().splitlines():
        if "=" in line and not line.startswith(("#", "[")):
            key, value = line.split("=", 1)
            found.setdefault(key, []).append(value)
    return found


def unit_command(path: Path) -> tuple[list[str], dict[str, str]]:
    """ExecStart= as argv, and Environment= as a mapping."""
    lines = unit_lines(path)
    (exec_start,) = lines["ExecStart"]
    env = dict(
        word.split("=", 1)
        for value in lines.get("Environment", [])
        for word in systemd_split(value)
    )
    return systemd_split(exec_start), env


@linux_only
def test_install_without_systemctl_writes_the_unit_and_says_how_to_start_it(
    login: Login, tmp_path: Path
) -> None:
    db = tmp_path / "my index" / "find session.db"
    config = tmp_path / "my config" / "config.toml"
    proc = login.run("service", "install", "--db", str(db), FINDSESSION_CONFIG=str(config))
    assert proc.returncode == 0, proc.stderr
    unit = login.units / "findsession.service"
    argv, env = unit_command(unit)
    assert argv == [sys.executable, "-m", "findsession", "service", "run", "--db", str(db)]
    assert env == {"FINDSESSION_CONFIG": str(config), "XDG_CONFIG_HOME": str(login.config_home)}
    lines = unit_lines(unit)
    assert lines["Restart"] == ["on-failure"] and lines["MemoryMax"] == ["600M"]
    assert "CPUWeight" not in lines and "Nice" not in lines
    assert lines["WantedBy"] == ["default.target"]
    said = proc.stderr.strip().splitlines()
    assert len(said) == 1 and "systemctl is not on PATH" in said[0], proc.stderr
    assert said[0].endswith(f"run: {ENABLE}")

    proc = login.run("service", "uninstall", "--db", str(db))
    assert proc.returncode == 0, proc.stderr
    assert not unit.exists() and login.units.is_dir()
    assert f"removed {unit}" in proc.stderr


@linux_only
def test_the_default_index_is_left_to_be_found_again(login: Login) -> None:
    """No --db, no FINDSESSION_DB: the unit names no index, so it follows the default."""
    assert login.run("service", "install").returncode == 0
    argv, env = unit_command(login.units / "findsession.service")
    assert argv == [sys.executable, "-m", "findsession", "service", "run"] and env == {
        "XDG_CONFIG_HOME": str(login.config_home)
    }


@linux_only
def test_install_enables_and_starts_through_systemctl_and_uninstall_stops(
    login: Login, tmp_path: Path
) -> None:
    login.fake_systemctl()
    db = str(tmp_path / "index.db")
    proc = login.run("service", "install", FINDSESSION_DB=db)
    assert proc.returncode == 0, proc.stderr
    assert login.called() == ["--user daemon-reload", "--user enable --now findsession.service"]
    assert "installed" in proc.stderr and "runs now and at every login" in proc.stderr
    assert unit_command(login.units / "findsession.service")[0][-2:] == ["--db", db]

    # Installed again (a new interpreter, another index): the running one is stopped
    # first, so the new command line is what runs.
    login.calls.unlink()
    assert login.run("service", "install", FINDSESSION_DB=db).returncode == 0
    assert login.called()[0] == "--user stop findsession.service"

    # What `enable` leaves behind, a link in default.target.wants, goes with the file.
    wants = login.units / "default.target.wants"
    wants.mkdir()
    (wants / "findsession.service").symlink_to(login.units / "findsession.service")
    login.calls.unlink()
    proc = login.run("service", "uninstall", FINDSESSION_DB=db)
    assert proc.returncode == 0, proc.stderr
    assert login.called() == ["--user disable --now findsession.service", "--user daemon-reload"]
    assert not (login.units / "findsession.service").exists()
    assert not (wants / "findsession.service").is_symlink()
    assert login.run("service", "uninstall").returncode == 0  # nothing left: not an error


@linux_only
def test_no_user_bus_still_writes_the_unit_and_gives_the_command(login: Login) -> None:
    login.fake_systemctl(1, "Failed to connect to bus: No medium found")
    proc = login.run("service", "install")
    assert proc.returncode == 0
    said = proc.stderr.strip().splitlines()
    assert len(said) == 1 and "No medium found" in said[0] and said[0].endswith(ENABLE)
    assert (login.units / "findsession.service").exists()


@linux_only
def test_a_unit_findsession_did_not_write_is_never_replaced_or_removed(login: Login) -> None:
    login.units.mkdir(parents=True)
    theirs = login.units / "findsession.service"
    theirs.write_text("[Service]\nExecStart=/usr/local/bin/my-own-findsession\n")
    for action in ("install", "uninstall"):
        proc = login.run("service", action)
        assert proc.returncode == 1 and "findsession did not write it" in proc.stderr
        assert theirs.read_text().endswith("my-own-findsession\n")


@linux_only
def test_schedule_installs_a_timer_and_remove_takes_both_files(login: Login) -> None:
    login.fake_systemctl()
    proc = login.run("schedule", "install")
    assert proc.returncode == 0, proc.stderr
    assert login.called() == ["--user daemon-reload", "--user enable --now findsession-index.timer"]
    timer = unit_lines(login.units / "findsession-index.timer")
    assert timer["OnCalendar"] == ["*:0/15"] and timer["Persistent"] == ["true"]
    assert timer["WantedBy"] == ["timers.target"]
    oneshot = unit_lines(login.units / "findsession-index.service")
    assert oneshot["Type"] == ["oneshot"] and "WantedBy" not in oneshot

    login.calls.unlink()
    assert login.run("schedule", "remove").returncode == 0
    assert login.called() == [
        "--user disable --now findsession-index.timer",
        "--user daemon-reload",
    ]
    assert not list(login.units.iterdir())


@linux_only
@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="needs systemd-analyze")
def test_systemd_accepts_the_written_units(login: Login, tmp_path: Path) -> None:
    """systemd's own parser reads every unit without a complaint, paths with spaces,
    `%` and `$` in them included."""
    odd = tmp_path / "50% of $HOME" / "index.db"
    assert login.run("service", "install", "--db", str(odd)).returncode == 0
    assert login.run("schedule", "install", "--db", str(odd)).returncode == 0
    files = sorted(login.units.iterdir())
    assert len(files) == 3
    proc = subprocess.run(
        ["systemd-analyze", "verify", *map(str, files)], capture_output=True, text=True
    )
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert unit_command(login.units / "findsession-index.service")[0][-1] == str(odd)


@linux_only
def test_the_scheduled_command_line_indexes_the_corpus(login: Login, tmp_path: Path) -> None:
    """Install the schedule, read the oneshot unit's command and environment back from
    its file, run exactly that as systemd would (its environment, not the shell's), and
    find the index built from the places the unit names."""
    codex_home = tmp_path / "codex home"
    shutil.copytree(FIXTURES / "codex" / "home", codex_home)
    copilot_home = tmp_path / "copilot home"
    shutil.copytree(FIXTURES / "copilot-cli" / "home" / ".copilot", copilot_home)
    # The login's own config folder (not ~/.config): VS Code's chats are found there, by
    # the unit as by the shell.
    shutil.copytree(
        FIXTURES / "vscode-copilot" / "home" / ".config", login.config_home, dirs_exist_ok=True
    )
    config = tmp_path / "my config" / "config.toml"
    config.parent.mkdir()
    docs = FIXTURES / "notes" / "docs"
    config.write_text(f'roots = [{{ path = {json.dumps(str(docs))}, source = "markdown" }}]\n')
    db = tmp_path / "my index" / "findsession.db"
    proc = login.run(
        "schedule",
        "install",
        "--db",
        str(db),
        FINDSESSION_CONFIG=str(config),
        CODEX_HOME=str(codex_home),
        COPILOT_HOME=str(copilot_home),
    )
    assert proc.returncode == 0, proc.stderr
    argv, env = unit_command(login.units / "findsession-index.service")
    assert argv[1:] == ["-m", "findsession", "index", "--db", str(db)]
    assert env == {
        "FINDSESSION_CONFIG": str(config),
        "CODEX_HOME": str(codex_home),
        "COPILOT_HOME": str(copilot_home),
        "XDG_CONFIG_HOME": str(login.config_home),
    }

    run = subprocess.run(
        argv,
        env={"HOME": str(login.home), "PATH": "/usr/bin:/bin", **env},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr
    sources = login.run("sources", "--json", "--db", str(db), FINDSESSION_CONFIG=str(config))
    by_kind = {s["kind"]: s for s in json.loads(sources.stdout)["sources"]}
    assert by_kind["codex"]["sessions"] > 0, by_kind["codex"]
    assert by_kind["copilot-cli"]["sessions"] > 0, by_kind["copilot-cli"]
    assert by_kind["vscode-copilot"]["sessions"] > 0, by_kind["vscode-copilot"]
    assert by_kind["markdown"]["sessions"] > 0, by_kind["markdown"]


@linux_only
def test_a_variable_that_names_a_folder_rather_than_holding_one_is_carried_as_it_is(
    login: Login, tmp_path: Path
) -> None:
    """`NVIM_APPNAME` (the name Neovim gives its folders, where avante.nvim's chats are)
    is a name: made an absolute path, the service would read a folder of that name in
    its own working folder instead of Neovim's. A path beside it is still made whole."""
    proc = login.run("service", "install", NVIM_APPNAME="nvim-work", XDG_STATE_HOME="state")
    assert proc.returncode == 0, proc.stderr
    _, env = unit_command(login.units / "findsession.service")
    assert env["NVIM_APPNAME"] == "nvim-work"
    assert env["XDG_STATE_HOME"] == os.path.abspath("state")


def test_the_launchd_agents_hold_what_launchd_needs(tmp_path: Path) -> None:
    job = units.job(
        "/opt/py thon/bin/python3",
        ("service", "run"),
        Path("/data/my index.db"),
        {"FINDSESSION_CONFIG": "/etc/find session.toml", "OPENAI_API_KEY": "sk-secret"},
    )
    plan = units.plan("service", "launchd", job, tmp_path, {})
    (agent,) = plan.files
    assert agent.path == tmp_path / "Library" / "LaunchAgents" / "org.findsession.service.plist"
    data = plistlib.loads(agent.text.encode())
    assert data["Label"] == "org.findsession.service"
    assert data["ProgramArguments"] == [
        "/opt/py thon/bin/python3",
        "-m",
        "findsession",
        "service",
        "run",
        "--db",
        "/data/my index.db",
    ]
    # Only the variables that decide what is read; never a key.
    assert data["EnvironmentVariables"] == {"FINDSESSION_CONFIG": "/etc/find session.toml"}
    assert data["RunAtLoad"] is True and data["KeepAlive"]["SuccessfulExit"] is False
    assert "ProcessType" not in data  # searches are not throttled
    assert units.MARK in agent.text
    assert plan.start == (("launchctl", "bootstrap", f"gui/{os.getuid()}", str(agent.path)),)
    assert plan.stop == (("launchctl", "bootout", f"gui/{os.getuid()}/org.findsession.service"),)

    index = units.plan("schedule", "launchd", units.job("/py", ("index",), None, {}), tmp_path, {})
    data = plistlib.loads(index.files[0].text.encode())
    assert data["ProgramArguments"] == ["/py", "-m", "findsession", "index"]
    assert data["StartInterval"] == 900 and data["RunAtLoad"] is True
    assert "EnvironmentVariables" not in data
    assert index.files[0].path.name == "org.findsession.index.plist"


@pytest.mark.parametrize(
    "word", ["/plain/path", "with space", 'a "quoted" \\ word', "50% $HOME ${X}", "", "semi;colon"]
)
def test_a_systemd_word_reads_back_as_itself(word: str) -> None:
    assert systemd_split(units.systemd_word(word)) == [word]
    assert systemd_split(units.systemd_word(word, dollars=False), dollars=False) == [word]


def test_a_path_no_unit_can_hold_is_refused() -> None:
    with pytest.raises(units.UnitError, match="control character"):
        units.job("/py", ("index",), Path("/tmp/a\nExecStartPre=/bin/evil"), {})


def test_windows_is_told_it_is_not_supported() -> None:
    with pytest.raises(units.UnitError, match="not supported on Windows"):
        units.init_system("win32")
    assert units.init_system("linux") == "systemd" and units.init_system("darwin") == "launchd"


@pytest.mark.parametrize(
    "argv, action",
    [(["service", "install"], "install"), (["--db", "x.db", "service", "status"], "status")],
)
def test_service_is_a_command_not_a_search(argv: list[str], action: str) -> None:
    args = build_parser().parse_args(normalise_argv(argv))
    assert args.command == "service" and args.action == action
    args = build_parser().parse_args(normalise_argv(["schedule", "remove", "--db", "y.db"]))
    assert args.command == "schedule" and args.action == "remove" and args.db == "y.db"
