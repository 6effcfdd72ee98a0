"""VS Code chat session files replayed into the session state they describe.

Since VS Code 1.109 a chat session is `<id>.jsonl`, an operation log (VS Code's
`ObjectMutationLog`): each line is `{kind, k?, v?, i?}`, where `k` is a path of property
names and array indexes.

- `0` Initial: `v` is the whole state, replacing whatever came before;
- `1` Set: the value at `k` becomes `v`;
- `2` Push: at the array at `k`, everything from index `i` is dropped when `i` is given,
  then `v`'s items are appended (`v` may be absent: a truncation);
- `3` Delete: the property at `k` goes.

The log only grows until VS Code compacts it into one Initial line, so no earlier line
can be read alone: the whole file is replayed. Before 1.109 a session was `<id>.json`,
the state itself, rewritten in place.
"""

from __future__ import annotations

import json
from typing import Any

from findsession.domain import Problem


class HalfWritten(OSError):
    """The file holds no state yet, or a `.json` state cut short: VS Code is writing it.
    An `OSError`, so the indexer keeps what it had and reads the file again next run."""


def replay(data: bytes, problems: list[Problem]) -> dict[str, Any]:
    """The state an operation log ends in. A bad line is reported and skipped (an
    unfinished last line as such); an operation on a path the state lacks is skipped,
    as VS Code itself would."""
    state: Any = None
    lines = data.split(b"\n")
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            entry = json.loads(raw.decode("utf-8", "replace"))
        except (ValueError, RecursionError):
            last = number == len(lines)
            reason = "incomplete last line" if last else "malformed JSON"
            problems.append(Problem(number, reason, raw[:80].decode("utf-8", "replace")))
            continue
        if not isinstance(entry, dict):
            problems.append(Problem(number, "not a JSON object"))
            continue
        kind, path = entry.get("kind"), entry.get("k")
        if kind == 0:
            state = entry.get("v")
        elif state is not None and isinstance(path, list) and path:
            _apply(state, kind, path, entry)
    if not isinstance(state, dict):
        raise HalfWritten("no session state in it yet (VS Code may be writing it)")
    return state


def load_json(data: bytes) -> dict[str, Any]:
    """The state a `.json` session file holds."""
    try:
        state = json.loads(data.decode("utf-8", "replace"))
    except (ValueError, RecursionError) as exc:
        raise HalfWritten(f"not whole JSON (VS Code may be writing it): {exc}") from None
    if not isinstance(state, dict):
        raise HalfWritten("not a chat session: the file is not a JSON object")
    return state


def _apply(state: Any, kind: Any, path: list[Any], entry: dict[str, Any]) -> None:
    parent = state
    for key in path[:-1]:
        parent = _child(parent, key)
        if parent is None:
            return
    last = path[-1]
    if kind == 1:
        settable = (isinstance(parent, dict) and isinstance(last, str)) or (
            isinstance(parent, list) and _index(parent, last) is not None
        )
        if settable:
            parent[last] = entry.get("v")
    elif kind == 2:
        target = _child(parent, last)
        if not isinstance(target, list):
            return
        start = entry.get("i")
        if isinstance(start, int) and not isinstance(start, bool) and start >= 0:
            del target[start:]
        items = entry.get("v")
        if isinstance(items, list):
            target.extend(items)
    elif kind == 3 and isinstance(parent, dict) and isinstance(last, str):
        parent.pop(last, None)


def _child(node: Any, key: Any) -> Any:
    if isinstance(node, dict) and isinstance(key, str):
        return node.get(key)
    if isinstance(node, list):
        index = _index(node, key)
        return node[index] if index is not None else None
    return None


def _index(items: list[Any], key: Any) -> int | None:
    if isinstance(key, int) and not isinstance(key, bool) and 0 <= key < len(items):
        return key
    return None
