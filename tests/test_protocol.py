"""The service's typed protocol as a client speaks it: a real service on a real socket,
each operation's request answered with the very object the same request gets in-process,
two requests answered at once, a client of another version, and peers that send what no
client of ours would."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import struct
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from conftest import CLI
from test_service import QUERY, place_of, service_cli, status, wait_for  # noqa: F401

from findsession.api import (
    BlameOptions,
    Findsession,
    HandoffOptions,
    ListOptions,
    ReadOptions,
    SearchOptions,
)
from findsession.protocol import requests as rq
from findsession.protocol.client import Unavailable, ask, ask_operation
from findsession.protocol.operations import answer
from findsession.protocol.place import Place
from findsession.protocol.wire import identity

pytestmark = pytest.mark.skipif(
    not hasattr(os, "getuid") or sys.platform == "win32", reason="the service needs Unix sockets"
)

#: The sessions `service_cli` indexes.
SYNC = "5ac30ab5-1111-4222-8333-944445555666"
DEPLOY = "9d0e1f2a-0000-4000-8000-000000000001"


@pytest.fixture
def served(service_cli: CLI, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[CLI, Place]]:  # noqa: F811
    """A running, caught-up service for `service_cli`'s index, and this process set up to
    open the same index with the same config (for the in-process answers)."""
    cli = service_cli
    cli.run("service", "start")
    for name in ("FINDSESSION_CONFIG", "HOME", "CLAUDE_CONFIG_DIR", "XDG_RUNTIME_DIR"):
        monkeypatch.setenv(name, cli.env[name])
    wait_for(lambda: status(cli).get("caught_up") and not status(cli).get("embedding"))
    yield cli, place_of(cli)


def here(cli: CLI, request: rq.Request) -> dict[str, Any]:
    with Findsession.open(cli.env["FINDSESSION_DB"]) as fs:
        return answer(fs, request).result


def test_each_operation_answers_with_the_object_an_in_process_run_makes(
    served: tuple[CLI, Place],
) -> None:
    cli, place = served
    requests = [
        rq.Search(QUERY, SearchOptions(top=3)),
        rq.Search("deploy build hash", SearchOptions(mode="keyword", project="/home/dev/web")),
        rq.Read(SYNC),
        rq.Read(SYNC[:8], ReadOptions(turn=1, tools=True)),
        rq.Resume(session=DEPLOY[:8]),
        rq.Status(),
        rq.Sources(),
        rq.Sessions(ListOptions(limit=5)),
        rq.Sessions(ListOptions(project="/home/dev/web"), titles_given=True),
        rq.Blame("/home/dev/code/notes.md", BlameOptions(project="/home/dev", limit=5)),
        rq.Handoff(SYNC, HandoffOptions(model=False), to="codex"),
        rq.Export(SYNC),
        rq.Reader(DEPLOY),
        rq.Restore(SYNC),  # its transcript is there: nothing to write back
        rq.RememberShown("tty:/dev/pts/test", [DEPLOY, SYNC]),
        rq.Resume(terminal="tty:/dev/pts/test", position=2),
    ]
    assert {r.op for r in requests} == set(rq.REQUESTS), "every operation is driven"
    for request in requests:
        served_answer = ask_operation(place, request)
        assert served_answer.result == here(cli, request), request.op
        assert served_answer.ms >= 0
    # What the last two asked was done where the service keeps it: `open 2` finds it.
    assert ask_operation(place, requests[-1]).result["session"]["id"] == SYNC
    assert status(cli)["answered"] >= len(requests)


def test_an_error_of_an_operation_arrives_as_the_error_it_was(served: tuple[CLI, Place]) -> None:
    from findsession.errors import SessionNotFound

    _, place = served
    with pytest.raises(SessionNotFound, match="no indexed session has the id 'nothere'"):
        ask_operation(place, rq.Read("nothere"))
    with pytest.raises(Exception, match="top must be at most 1000"):
        ask_operation(place, rq.Search(QUERY, SearchOptions(top=5000)))


def test_a_search_is_answered_while_another_request_waits(served: tuple[CLI, Place]) -> None:
    """Two requests at once take two connections: a request that waits for the index's
    write lock (held here, by another program) does not hold up a search."""
    cli, place = served
    done: dict[str, float] = {}
    errors: list[BaseException] = []

    def remember() -> None:
        try:
            ask_operation(place, rq.RememberShown("tty:/dev/pts/9", [SYNC]))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        done["remember"] = time.monotonic()

    holder = sqlite3.connect(cli.env["FINDSESSION_DB"], isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # the write lock, as an index run holds it
    try:
        waiting = threading.Thread(target=remember)
        waiting.start()
        time.sleep(0.3)  # the remember has borrowed its connection and waits
        started = time.monotonic()
        found = ask_operation(place, rq.Search(QUERY, SearchOptions(mode="keyword")))
        done["search"] = time.monotonic()
        assert found.result["results"][0]["session"]["id"] == SYNC
        time.sleep(0.5)
        assert "remember" not in done, "the remember did not wait for the lock"
    finally:
        holder.execute("COMMIT")
        holder.close()
    waiting.join(30)
    assert not errors, errors
    assert done["search"] < done["remember"]
    assert done["search"] - started < 1.5, "the search waited behind the other request"


def test_a_client_of_another_version_gets_a_clear_error_and_a_new_service(
    served: tuple[CLI, Place],
) -> None:
    """Never a misread reply: the version is the first thing compared, the other client
    is told which version answers, and the service stops for it; the next command of
    this version finds a service of its own (it was wanted)."""
    cli, place = served
    with pytest.raises(Unavailable) as why:
        ask(place, {"op": "search", "request": {"query": QUERY}}, me="0.0.0-other/2")
    assert why.value.other_version == identity()
    assert f"the service runs {identity()}, this is 0.0.0-other/2" in str(why.value)
    wait_for(lambda: status(cli)["running"] is False, 30)
    out = cli.run(QUERY, "--json")
    assert json.loads(out.stdout)["results"][0]["session"]["id"] == SYNC
    wait_for(lambda: status(cli)["running"] is True, 120)
    assert status(cli)["version"] == identity()


def _raw(place: Place, payload: bytes) -> dict[str, Any] | None:
    """Send `payload` as one framed message; the reply, or None when the service hung up."""
    with socket.socket(socket.AF_UNIX) as sock:
        sock.connect(str(place.socket))
        sock.settimeout(30)
        sock.sendall(struct.pack(">I", len(payload)) + payload)
        head = sock.recv(4, socket.MSG_WAITALL)
        if len(head) < 4:
            return None
        size = struct.unpack(">I", head)[0]
        return json.loads(sock.recv(size, socket.MSG_WAITALL))


def test_a_peer_that_sends_nonsense_gets_an_error_and_the_service_goes_on(
    served: tuple[CLI, Place],
) -> None:
    cli, place = served
    v = identity()
    refused = [
        {"v": v, "op": "rm -rf"},
        {"v": v, "op": "search"},  # no query
        {"v": v, "op": "search", "request": {"query": 5}},
        {"v": v, "op": "search", "request": {"query": QUERY, "options": {"top": "all"}}},
        {"v": v, "op": "search", "request": {"query": QUERY, "options": {"top": True}}},
        {"v": v, "op": "read", "request": {"session": SYNC, "options": {"turn": [1]}}},
        {"v": v, "op": "read", "request": {"session": SYNC, "shell": "id"}},
        {"v": v, "op": "sessions", "request": ["not", "an", "object"]},
        {"v": v, "op": "blame", "request": {"path": None}},
    ]
    for message in refused:
        reply = _raw(place, json.dumps(message).encode())
        assert reply is not None and reply["ok"] is False, message
        assert reply["error"]["type"] == "BadRequest" and reply["error"]["message"], reply
        assert "result" not in reply
    for garbage in (b"\xff\xfe not json", b"[1, 2, 3]", b"{" * 5000):
        assert _raw(place, garbage) is None  # not a message: the connection is dropped
    with socket.socket(socket.AF_UNIX) as sock:  # a header announcing 4 GB
        sock.connect(str(place.socket))
        sock.settimeout(30)
        sock.sendall(struct.pack(">I", 0xFFFFFFFF))
        assert sock.recv(4) == b""
    assert status(cli)["running"] is True
    assert ask_operation(place, rq.Search(QUERY)).result["results"][0]["session"]["id"] == SYNC
