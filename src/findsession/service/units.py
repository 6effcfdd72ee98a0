"""The files that start findsession at login, as text: a systemd user unit or a launchd agent.

Two jobs: the resident search service (`findsession service run`, kept running) and, for
people who want no resident process, `findsession index` every 15 minutes. Everything
here is pure (text, paths and the commands to run, from values passed in), so what gets
written can be tested on any platform; `cli/units.py` writes the files and runs the
commands.

A unit runs outside the shell that installed it: it sees none of that shell's
environment and another working directory. So it names the interpreter by absolute path,
the index by absolute path when it is not the default one, and carries the variables
that decide what gets indexed (which config file, where each agent keeps its
transcripts) with their values made absolute. Never an API key: a unit file is not a
place for a secret.
"""

from __future__ import annotations

import os
import plistlib
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from findsession.errors import FindsessionError

#: The systemd units, and the launchd labels (reverse-DNS, as launchd wants them).
SERVICE_UNIT = "findsession.service"
INDEX_UNIT = "findsession-index.service"
INDEX_TIMER = "findsession-index.timer"
SERVICE_LABEL = "org.findsession.service"
INDEX_LABEL = "org.findsession.index"
#: The service's documented memory ceiling (README): past MemoryHigh the kernel reclaims
#: its pages first, past MemoryMax it is ended (and Restart= starts it again).
MEMORY_HIGH = "500M"
MEMORY_MAX = "600M"
#: How often the scheduled index runs.
INDEX_EVERY_SECONDS = 900
_MINUTES = INDEX_EVERY_SECONDS // 60
#: The first line of every file we write: uninstall removes a file only if it holds it,
#: so a unit of the same name the person wrote is never taken for ours.
MARK = "Written by findsession; `findsession service uninstall` or `schedule remove` removes it."
#: Variables that change what a run reads, carried into the unit when set: findsession's
#: own, and (given to `job`) those that move where the sources read their agents'
#: transcripts, as the core API names them (`Findsession.source_variables`).
CARRIED_ENV = ("FINDSESSION_CONFIG",)

System = Literal["systemd", "launchd"]
Which = Literal["service", "schedule"]
#: A command to run, as argv.
Argv = tuple[str, ...]
#: Each job's name, and what installing it did, for the CLI's one line.
_WORDS = {
    "service": ("the findsession service", "the findsession service runs now and at every login"),
    "schedule": (
        f"the {_MINUTES}-minute index runs",
        f"findsession index runs every {_MINUTES} minutes while you are logged in",
    ),
}


class UnitError(FindsessionError):
    """A unit cannot be written here: an unsupported system, or a value no unit can hold."""


def init_system(platform: str = sys.platform) -> System:
    """Which service manager starts user jobs at login here; UnitError elsewhere."""
    if platform.startswith("linux"):
        return "systemd"
    if platform == "darwin":
        return "launchd"
    name = "Windows" if platform in ("win32", "cygwin") else platform
    raise UnitError(f"starting findsession at login is not supported on {name}")


@dataclass(frozen=True)
class Job:
    """What a unit runs: the argv, and the variables it needs beyond the login's own."""

    argv: Argv
    env: tuple[tuple[str, str], ...]


def job(
    python: str,
    command: Argv,
    db: Path | None,
    environ: Mapping[str, str],
    sources: Iterable[str] = (),
    names: Iterable[str] = (),
) -> Job:
    """`python -m findsession COMMAND [--db DB]` with the carried variables that are set,
    findsession's own and the `sources` ones, each made an absolute path but those in
    `names`, which hold a name (a unit runs in another folder). `db` is given only for an
    index the person chose (else the default is found again)."""
    argv = (python, "-m", "findsession", *command)
    if db is not None:
        argv += ("--db", os.path.abspath(db))
    kept = frozenset(names)
    env = tuple(
        (
            name,
            environ[name] if name in kept else os.path.abspath(os.path.expanduser(environ[name])),
        )
        for name in dict.fromkeys((*CARRIED_ENV, *sources))
        if environ.get(name)
    )
    for value in (*argv, *(v for _, v in env)):
        if re.search(r"[\x00-\x1f\x7f]", value):
            raise UnitError(f"a unit cannot hold a path with a control character: {value!r}")
    return Job(argv, env)


@dataclass(frozen=True)
class UnitFile:
    path: Path
    text: str


@dataclass(frozen=True)
class Plan:
    """The files of one job and the commands that start and stop it.

    `what` names the job, `started` says what installing it did. `start` runs after the
    files are written; `replace` before it when they were there already (a reinstall),
    its failure ignored (the old job may not be loaded); `stop` before the files are
    removed, `forget` after; `stop_by_hand` is what to tell a person to run when `stop`
    could not (the files are gone by then). `links` are the links enabling left,
    removed with the files when they lead to them.
    """

    what: str
    started: str
    files: tuple[UnitFile, ...]
    start: tuple[Argv, ...]
    replace: tuple[Argv, ...]
    stop: tuple[Argv, ...]
    forget: tuple[Argv, ...]
    stop_by_hand: tuple[Argv, ...]
    links: tuple[Path, ...] = ()


def plan(which: Which, system: System, job: Job, home: Path, environ: Mapping[str, str]) -> Plan:
    """The plan for `which` job under `system`; `home` and `environ` locate the files."""
    if system == "systemd":
        return _systemd_plan(which, job, systemd_dir(home, environ))
    return _launchd_plan(which, job, home, os.getuid())


def systemd_dir(home: Path, environ: Mapping[str, str]) -> Path:
    """Where a user's own units go: `$XDG_CONFIG_HOME/systemd/user` (default ~/.config)."""
    base = environ.get("XDG_CONFIG_HOME", "")
    return (Path(base) if os.path.isabs(base) else home / ".config") / "systemd" / "user"


def _systemd_plan(which: Which, job: Job, folder: Path) -> Plan:
    ctl = ("systemctl", "--user")
    reload = (*ctl, "daemon-reload")
    if which == "service":
        unit = SERVICE_UNIT
        files = (UnitFile(folder / unit, systemd_service(job)),)
        links = (folder / "default.target.wants" / unit,)
        replace: tuple[Argv, ...] = ((*ctl, "stop", unit),)
    else:
        unit = INDEX_TIMER
        files = (
            UnitFile(folder / INDEX_UNIT, systemd_index(job)),
            UnitFile(folder / INDEX_TIMER, systemd_timer()),
        )
        links = (folder / "timers.target.wants" / unit,)
        replace = ()
    return Plan(
        what=_WORDS[which][0],
        started=_WORDS[which][1],
        files=files,
        start=(reload, (*ctl, "enable", "--now", unit)),
        replace=replace,
        stop=((*ctl, "disable", "--now", unit),),
        forget=(reload,),
        stop_by_hand=((*ctl, "stop", unit), reload),
        links=links,
    )


def _launchd_plan(which: Which, job: Job, home: Path, uid: int) -> Plan:
    label = SERVICE_LABEL if which == "service" else INDEX_LABEL
    path = home / "Library" / "LaunchAgents" / f"{label}.plist"
    logs = home / "Library" / "Logs"
    if which == "service":
        text = launchd_service(job, logs / "findsession-service.log")
    else:
        text = launchd_index(job, logs / "findsession-index.log")
    bootout = ("launchctl", "bootout", f"gui/{uid}/{label}")
    return Plan(
        what=_WORDS[which][0],
        started=_WORDS[which][1],
        files=(UnitFile(path, text),),
        start=(("launchctl", "bootstrap", f"gui/{uid}", str(path)),),
        replace=(bootout,),
        stop=(bootout,),
        forget=(),
        stop_by_hand=(bootout,),
    )


def systemd_service(job: Job) -> str:
    """The resident service: restarted when it fails, held under the memory ceiling. Its
    CPU weight is left at the default: it answers searches a person is waiting for."""
    return _unit(
        ("Unit", ["Description=findsession search service (the index kept open for searches)"]),
        (
            "Service",
            [
                *_exec(job),
                "Restart=on-failure",
                "RestartSec=5",
                f"MemoryHigh={MEMORY_HIGH}",
                f"MemoryMax={MEMORY_MAX}",
            ],
        ),
        ("Install", ["WantedBy=default.target"]),
    )


def systemd_index(job: Job) -> str:
    """One index run, started by the timer; niced, as nobody waits for it."""
    return _unit(
        ("Unit", ["Description=findsession: index new agent sessions"]),
        ("Service", ["Type=oneshot", *_exec(job), "Nice=10"]),
    )


def systemd_timer() -> str:
    """Every 15 minutes on the clock; Persistent= runs a slot missed while the machine
    was off (OnCalendar= is the kind of timer it applies to)."""
    return _unit(
        ("Unit", [f"Description=findsession: index new agent sessions every {_MINUTES} minutes"]),
        ("Timer", [f"OnCalendar=*:0/{_MINUTES}", "Persistent=true"]),
        ("Install", ["WantedBy=timers.target"]),
    )


def _unit(*sections: tuple[str, list[str]]) -> str:
    body = "\n\n".join("\n".join([f"[{name}]", *lines]) for name, lines in sections)
    return f"# {MARK}\n{body}\n"


def _exec(job: Job) -> list[str]:
    lines = ["ExecStart=" + " ".join(systemd_word(word) for word in job.argv)]
    lines += [f"Environment={systemd_word(f'{k}={v}', dollars=False)}" for k, v in job.env]
    return lines


def systemd_word(word: str, *, dollars: bool = True) -> str:
    """One word of a systemd command line: `%` (a specifier) doubled, `$` (a variable
    in ExecStart=, not in Environment=) doubled, and anything besides plain path
    characters put in double quotes with `\\` and `"` escaped."""
    word = word.replace("%", "%%")
    if dollars:
        word = word.replace("$", "$$")
    if word and re.fullmatch(r"[A-Za-z0-9_@%+=:,./-]+", word):
        return word
    return '"' + word.replace("\\", "\\\\").replace('"', '\\"') + '"'


def launchd_service(job: Job, log: Path) -> str:
    """Loaded at login, started again after a crash or a failing exit (not after a clean
    stop); the default process type, so searches are not throttled."""
    return _plist(
        {
            "Label": SERVICE_LABEL,
            **_program(job),
            "RunAtLoad": True,
            "KeepAlive": {"SuccessfulExit": False, "Crashed": True},
            "StandardOutPath": str(log),
            "StandardErrorPath": str(log),
        }
    )


def launchd_index(job: Job, log: Path) -> str:
    """Run at login and every 15 minutes after, as a background process."""
    return _plist(
        {
            "Label": INDEX_LABEL,
            **_program(job),
            "RunAtLoad": True,
            "StartInterval": INDEX_EVERY_SECONDS,
            "ProcessType": "Background",
            "StandardOutPath": str(log),
            "StandardErrorPath": str(log),
        }
    )


def _program(job: Job) -> dict[str, object]:
    found: dict[str, object] = {"ProgramArguments": list(job.argv)}
    if job.env:
        found["EnvironmentVariables"] = dict(job.env)
    return found


def _plist(data: dict[str, object]) -> str:
    text = plistlib.dumps(data, sort_keys=False).decode("utf-8")
    head, rest = text.split("<plist", 1)
    return f"{head}<!-- {MARK} -->\n<plist{rest}"
