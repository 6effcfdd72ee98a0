"""The cursors findsession stored before a cursor had a state of its own, read back.

Until then a source that needed more than a digest folded it into the digest's string,
each in its own way: Aider the end of what it had read (`aider:<end>:<crc>:<tail>`),
Codex its parser's mode after the prefix hash (`<hash>|codex:<flags>`), a database
store each session's change token (`rows:<JSON>`), SpecStory which copy of a chat it
indexed (`blake2b:<hash>|<where>`), and three sources a marker for a file whose session
the agent's own store holds (`goose:in-store`, `held-by-database`, `kiro:in-database`).
An index written then still holds them; each is read here into the digest and state
the source keeps now, so the file goes on from where it stopped rather than being read
again from its start. Any other text is a digest as it was (a prefix or content hash).
"""

from __future__ import annotations

import json

#: The markers of a file whose session its agent's store holds (Goose, OpenCode, Kiro).
IN_STORE = frozenset({"goose:in-store", "held-by-database", "kiro:in-database"})


def digest_and_state(text: str | None) -> tuple[str | None, dict[str, str | int] | None]:
    """The digest and the state an older cursor text stands for."""
    if text is None:
        return None, None
    if text in IN_STORE:
        return None, {"in_store": True}
    if text.startswith("aider:"):
        return _aider(text)
    if "|codex:" in text:
        digest, flags = text.rsplit("|codex:", 1)
        return digest or None, {"events": "e" in flags, "replaying": "r" in flags}
    if text.startswith("rows:"):
        return None, _tokens(text[len("rows:") :])
    if text.startswith("blake2b:") and "|" in text:
        digest, elsewhere = text.split("|", 1)
        return digest, {"elsewhere": elsewhere} if elsewhere else None
    return text, None


def _aider(text: str) -> tuple[str | None, dict[str, str | int] | None]:
    """`aider:<end>:<crc>:<tail>`: the hash of the first `end` bytes in the form every
    prefix hash has now (`crc32:<crc>:<end>:<tail>`), and `end` as the state."""
    parts = text.split(":")
    if len(parts) != 4 or not parts[1].isdigit():
        return None, None
    _, end, crc, tail = parts
    return f"crc32:{crc}:{end}:{tail}", {"end": int(end)}


def _tokens(text: str) -> dict[str, str | int]:
    """Each session's change token; none when they do not parse (the store is then read
    whole, as it was then)."""
    try:
        tokens = json.loads(text)
    except (ValueError, RecursionError):
        return {}
    return {str(k): str(v) for k, v in tokens.items()} if isinstance(tokens, dict) else {}
