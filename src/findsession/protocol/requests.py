"""The questions an interface asks the index: one typed request per operation, named
after the core API's method, carrying the very options object that method takes.

A request crosses the service's socket as JSON: `to_wire` writes its fields (an options
object as an object of its own), `from_wire` reads them back into the same types and
refuses anything else, a missing field or a value of the wrong type, in one line: the
service answers its own user only, but a confused client must get an error, not a
traceback or a search for `None`.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar, Union

from findsession.api import (
    BlameOptions,
    HandoffOptions,
    ListOptions,
    ReadOptions,
    SearchOptions,
)
from findsession.errors import FindsessionError, SessionNotFound

R = TypeVar("R", bound="Request")


class BadRequest(FindsessionError):
    """A request the service cannot read: an unknown operation, a field missing or of
    the wrong type."""


@dataclass(frozen=True)
class Answer:
    """An operation's object (the one `--json` prints) and the milliseconds the core
    API took to make it."""

    result: dict[str, Any]
    ms: float


#: The errors a client tells apart after the service raised them (the page answers a
#: session not found with 404); any other arrives as a `FindsessionError`.
_ERRORS: dict[str, type[FindsessionError]] = {"SessionNotFound": SessionNotFound}


def error_object(exc: FindsessionError) -> dict[str, Any]:
    """An operation's error as the service sends it: its kind, message and hint."""
    return {"type": type(exc).__name__, "message": str(exc), "hint": exc.cli_hint}


def error_from(data: dict[str, Any]) -> FindsessionError:
    """The error `error_object` sent, to raise where the client is."""
    kind = _ERRORS.get(str(data.get("type")), FindsessionError)
    hint = data.get("hint")
    return kind(str(data.get("message")), cli_hint=hint if isinstance(hint, str) else None)


@dataclass(frozen=True)
class Request:
    """A question for the index; `op` names the operation (the core API's method). Each
    kind is declared `class Name(Request, op="name")` with its fields, and is made a
    frozen dataclass by that."""

    op: ClassVar[str] = ""
    #: Seconds a client waits for the answer before it answers itself: a warm search
    #: takes well under one, so longer means a stuck service; a brief a model writes, or
    #: a whole session exported, may take longer.
    patience: ClassVar[float] = 5.0

    def __init_subclass__(cls, op: str = "", patience: float = 5.0, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.op, cls.patience = op, patience
        dataclass(frozen=True)(cls)

    def to_wire(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_wire(cls: type[R], data: object) -> R:
        return _read(cls, data, cls.op)


class Search(Request, op="search"):
    """`Findsession.search`: the query and its options."""

    query: str
    options: SearchOptions = field(default_factory=SearchOptions)


class RememberShown(Request, op="remember_shown"):
    """`Findsession.remember_shown`: the sessions a search showed a person in
    `terminal`, in order, for `open N`."""

    terminal: str
    sessions: list[str]


class Read(Request, op="read"):
    """`Findsession.read`: a session's turns."""

    session: str
    options: ReadOptions = field(default_factory=ReadOptions)


class Resume(Request, op="resume"):
    """`Findsession.resume` of a session named by id or prefix (`session`), or by its
    place in the last list `terminal` was shown (`position`, from 1)."""

    session: str | None = None
    terminal: str | None = None
    position: int | None = None


class Restore(Request, op="restore"):
    """`Findsession.restore`: the gone transcript of the session `open` resumes (and its
    subagents'), written back from the archive where its agent looks for it."""

    session: str


class Status(Request, op="status"):
    """`Findsession.status`: what the index holds."""


class Sources(Request, op="sources"):
    """`Findsession.sources`: each source, where it looks, what it holds."""


class Sessions(Request, op="sessions"):
    """`Findsession.sessions`: sessions listed, each with its first prompt; with
    `titles_given`, whether `titles --write` gave each its title (the page's timeline)."""

    options: ListOptions = field(default_factory=ListOptions)
    titles_given: bool = False


class Blame(Request, op="blame", patience=60.0):
    """`Findsession.blame`: the sessions that wrote the file at `path` (absolute)."""

    path: str
    options: BlameOptions = field(default_factory=BlameOptions)


class Handoff(Request, op="handoff", patience=120.0):
    """`Findsession.handoff`: a session's brief; with `to`, the command that starts
    that agent with it (never run by the one answering)."""

    session: str
    options: HandoffOptions = field(default_factory=HandoffOptions)
    to: str | None = None


class Export(Request, op="export", patience=60.0):
    """A session as one document (`export`, the page's downloads): every message whole,
    each subagent's own document under the call that started it; `raw`, the
    transcript's own text (secrets included)."""

    session: str
    raw: bool = False


class Reader(Request, op="reader"):
    """A session as the page's reader shows it: tool calls and thinking, long messages
    cut, its parent and subagents, and the line that resumes it."""

    session: str


#: Every operation's request, by the operation's name.
REQUESTS: dict[str, type[Request]] = {
    r.op: r
    for r in (Search, RememberShown, Read, Resume, Status, Sources, Sessions, Blame, Handoff)
    + (Export, Reader, Restore)
}


def request_of(op: object, data: object) -> Request:
    """The typed request `op` names, read from `data`; `BadRequest` otherwise."""
    kind = REQUESTS.get(op) if isinstance(op, str) else None
    if kind is None:
        raise BadRequest(f"no operation {str(op)[:40]!r} (known: {', '.join(REQUESTS)})")
    return kind.from_wire(data)


def _read(kind: type, data: object, where: str) -> Any:
    """An instance of the dataclass `kind` from a JSON object, each field checked
    against its annotation."""
    if not isinstance(data, dict):
        raise BadRequest(f"{where}: expected an object")
    hints = typing.get_type_hints(kind)
    known = {f.name: f for f in dataclasses.fields(kind) if f.init}
    unknown = set(data) - set(known)
    if unknown:
        raise BadRequest(f"{where}: no field {sorted(unknown)[0]!r}")
    values = {}
    for name, f in known.items():
        if name not in data:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise BadRequest(f"{where}: {name} is missing")
            continue
        values[name] = _value(hints[name], data[name], f"{where}.{name}")
    return kind(**values)


def _value(hint: Any, value: object, where: str) -> Any:
    origin = typing.get_origin(hint)
    if origin in (Union, types.UnionType):
        for option in typing.get_args(hint):
            try:
                return _value(option, value, where)
            except BadRequest:
                continue
        raise BadRequest(f"{where}: {type(value).__name__} is not one of {hint}")
    if hint is type(None):
        if value is None:
            return None
    elif origin is list:
        (item,) = typing.get_args(hint)
        if isinstance(value, list):
            return [_value(item, v, f"{where}[]") for v in value]
    elif dataclasses.is_dataclass(hint):
        return _read(hint, value, where)
    elif hint is bool:
        if isinstance(value, bool):
            return value
    elif hint is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    elif hint is float:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
    elif hint is str and isinstance(value, str):
        return value
    raise BadRequest(f"{where}: expected {getattr(hint, '__name__', hint)}")
