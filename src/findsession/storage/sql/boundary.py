"""The storage boundary for errors: no driver's exception leaves a backend.

Anything the driver raises inside a protocol method (a disk that fails mid-search, a
server restarted, a full disk, a lock held too long) is mapped, on every method of the
storage protocols, into a `DatabaseError` that says what to do; each backend says how
its driver's errors read (its `boundary.py`). An interface then prints one line instead
of a traceback, and an agent gets a tool error it can read.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from findsession.errors import DatabaseError

T = TypeVar("T", bound=type)
#: A driver's error, and the store it came from → the error to raise instead.
Translate = Callable[[Exception, Any], DatabaseError]


def map_errors(cls: T, names: Iterable[str], caught: type[Exception], translate: Translate) -> T:
    """Wrap each named method of `cls` so that `caught` leaves it as `translate` says."""
    for name in names:
        method = getattr(cls, name)
        if isinstance(method, property | classmethod | staticmethod):
            continue
        setattr(cls, name, _mapped(method, caught, translate))
    return cls


def _mapped(method: Callable[..., Any], caught: type[Exception], translate: Translate) -> Any:
    @functools.wraps(method)
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except caught as exc:
            raise translate(exc, self) from exc

    return call
