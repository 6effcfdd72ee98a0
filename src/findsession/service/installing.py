"""`findsession service install|uninstall` and `findsession schedule install|remove`.

Writes (or removes) the files `service/units.py` renders and asks the service manager
to start (or stop) them. A file written is the job done: where `systemctl --user` or
`launchctl` is missing or cannot reach the user's session (a container, root without a
login), the file stays and one line gives the exact command to run by hand, exit 0.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console

from findsession.api import Findsession
from findsession.errors import FindsessionError
from findsession.paths import tilde
from findsession.render.console import say
from findsession.service import units

if TYPE_CHECKING:
    from findsession.protocol.context import Context

#: How long a service manager's command may take before it counts as failed.
TIMEOUT_SECONDS = 60


def service_install(args: argparse.Namespace, fs: Findsession, err: Console) -> int:
    return _install(_plan("service", ("service", "run"), args, fs), err)


def service_uninstall(args: argparse.Namespace, fs: Findsession, err: Console) -> int:
    return _remove(_plan("service", ("service", "run"), args, fs), err)


def schedule(args: argparse.Namespace, ctx: Context) -> int:
    """`findsession schedule install|remove`: `findsession index` every 15 minutes."""
    plan = _plan("schedule", ("index",), args, ctx.fs)
    return _install(plan, ctx.err) if args.action == "install" else _remove(plan, ctx.err)


def _plan(
    which: units.Which, command: units.Argv, args: argparse.Namespace, fs: Findsession
) -> units.Plan:
    """The job as this shell would run it: this interpreter, and the index by path only
    when the person chose one (`--db`, `FINDSESSION_DB`), so the default stays default."""
    system = units.init_system()
    chosen = getattr(args, "db", None) or os.environ.get("FINDSESSION_DB")
    where = fs.path if chosen else None
    job = units.job(
        sys.executable,
        command,
        where,
        os.environ,
        fs.source_variables(),
        names=fs.source_name_variables(),
    )
    return units.plan(which, system, job, Path.home(), os.environ)


def _install(plan: units.Plan, err: Console) -> int:
    reinstall = any(_ours(f.path) for f in plan.files)
    for unit in plan.files:
        if unit.path.exists() and not _ours(unit.path):
            raise FindsessionError(
                f"{unit.path} exists and findsession did not write it; move it away first"
            )
    for unit in plan.files:
        _write(unit)
    written = ", ".join(tilde(str(f.path)) for f in plan.files)
    if reinstall:
        for argv in plan.replace:
            _run(argv)
    failed = _run_all(plan.start)
    if failed is None:
        say(err, f"installed {written}: {plan.started}")
    else:
        say(
            err,
            f"wrote {written}, but {failed}; to start it (and at every login) run: "
            f"{_by_hand(plan.start)}",
        )
    return 0


def _remove(plan: units.Plan, err: Console) -> int:
    ours = [f.path for f in plan.files if _ours(f.path)]
    strangers = [f.path for f in plan.files if f.path.exists() and not _ours(f.path)]
    if strangers:
        raise FindsessionError(
            f"{strangers[0]} exists and findsession did not write it; it is left where it is"
        )
    if not ours:
        say(err, f"nothing to remove: no {tilde(str(plan.files[0].path))}")
        return 0
    failed = _run_all(plan.stop)
    for link in plan.links:
        # What enabling left: gone with `disable`, or by hand when that could not run.
        if link.is_symlink() and link.resolve() == (link.parent.parent / link.name).resolve():
            link.unlink()
    for path in ours:
        path.unlink()
    removed = ", ".join(tilde(str(p)) for p in ours)
    if failed is None:
        _run_all(plan.forget)
        say(err, f"stopped {plan.what} and removed {removed}")
    else:
        say(
            err,
            f"removed {removed}, but {failed}; if it still runs, stop it with: "
            f"{_by_hand(plan.stop_by_hand)}",
        )
    return 0


def _ours(path: Path) -> bool:
    try:
        return units.MARK in path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def _write(unit: units.UnitFile) -> None:
    """Whole or not at all: a half-written unit must not be what the manager loads."""
    unit.path.parent.mkdir(parents=True, exist_ok=True)
    part = unit.path.with_name(unit.path.name + ".part")
    try:
        part.write_text(unit.text, encoding="utf-8")
        part.replace(unit.path)
    except OSError as exc:
        part.unlink(missing_ok=True)
        raise FindsessionError(f"cannot write {unit.path}: {exc.strerror or exc}") from None


def _run_all(commands: tuple[units.Argv, ...]) -> str | None:
    """Run each in turn; None when all succeeded, else what went wrong, in a few words."""
    for argv in commands:
        failed = _run(argv)
        if failed is not None:
            return failed
    return None


def _run(argv: units.Argv) -> str | None:
    if shutil.which(argv[0]) is None:
        return f"{argv[0]} is not on PATH"
    try:
        proc = subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=TIMEOUT_SECONDS,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"`{shlex.join(argv)}` failed ({exc})"
    if proc.returncode == 0:
        return None
    said = next((line.strip() for line in proc.stderr.splitlines() if line.strip()), "")
    return f"`{shlex.join(argv)}` failed ({said or f'exit {proc.returncode}'})"


def _by_hand(commands: tuple[units.Argv, ...]) -> str:
    return " && ".join(shlex.join(argv) for argv in commands)

