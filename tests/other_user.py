"""A second local user, for the tests in which another user on the machine attacks.

Created by the test run (as root: CI runs as root) under a name of its own, removed
after; a test that needs one is skipped with the reason when the run is not root.
The other user's side runs as a real process of that user: Python starts as us (its
files may sit in a folder only we can read), runs the imports at the top of the code,
then becomes the other user (`become()`) before it does anything else.
"""

from __future__ import annotations

import os
import pwd
import secrets
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest


@dataclass(frozen=True)
class OtherUser:
    name: str
    uid: int
    gid: int

    def python(self, code: str, *args: str, **popen: Any) -> subprocess.Popen:
        """Run `code` as this user; `code` calls `become()` right after its imports."""
        prelude = (
            "import os\n"
            "def become():\n"
            f"    os.setgroups([]); os.setgid({self.gid}); os.setuid({self.uid})\n"
            f"    assert os.getuid() == {self.uid}\n"
        )
        return subprocess.Popen([sys.executable, "-c", prelude + code, *args], **popen)


@pytest.fixture(scope="session")
def other_user() -> Iterator[OtherUser]:
    if not hasattr(os, "getuid") or os.getuid() != 0:
        pytest.skip("needs root to create a second local user (CI runs as root)")
    if not shutil.which("useradd") or not shutil.which("userdel"):
        pytest.skip("needs useradd and userdel to create a second local user")
    name = f"fsother{secrets.token_hex(3)}"
    subprocess.run(
        ["useradd", "--no-create-home", "--user-group", "--shell", "/bin/false", name],
        check=True,
        capture_output=True,
    )
    try:
        entry = pwd.getpwnam(name)
        yield OtherUser(name, entry.pw_uid, entry.pw_gid)
    finally:
        subprocess.run(["userdel", name], check=False, capture_output=True)
