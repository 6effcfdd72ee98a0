"""The items of a JSON array read a piece at a time, each with its own text.

A chat app's export keeps every conversation in one JSON array (ChatGPT's and
Claude.ai's `conversations.json`, Takeout's `MyActivity.json`) that reaches hundreds of
megabytes, and holding the whole of it as Python objects costs several times that. So
the array is read in chunks and decoded one item at a time: memory holds one item and
the chunk it sits in. Each item comes with the exact text it was decoded from, whose
digest says whether it changed since the last export was read.

An array that stops inside an item (a download cut short, a file still being written)
gives every item before the cut, and `Items.ended` says where and why it stopped; so
does one whose bytes stop being JSON. A document that is one object, not an array, is
one item.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

#: Bytes read at a time.
CHUNK = 1 << 20
#: The longest one item may be: beyond this the item is taken for garbage, not waited for.
ITEM_MAX = 256 << 20
_SPACE = " \t\r\n"


@dataclass(frozen=True, slots=True)
class Item:
    """One item of the array: its place (from 0), its text as the file has it, its value."""

    index: int
    text: str
    value: Any


class Items:
    """Iterate the items of the JSON array (or the one object) `raw` holds.

    After the iteration, `ended` is None when the document was read to its end, else
    one sentence saying where it stopped and why (the items before it were given).
    """

    def __init__(self, raw: IO[bytes]) -> None:
        self.raw = raw
        self.ended: str | None = None
        self._decode = codecs.getincrementaldecoder("utf-8")("replace")
        self._json = json.JSONDecoder()
        self._buf = ""
        self._pos = 0
        self._eof = False

    def __iter__(self) -> Iterator[Item]:
        if not self._skip(_SPACE + "\ufeff"):
            self.ended = "it is empty"
            return
        if self._buf[self._pos] != "[":
            yield from self._one()
            return
        self._pos += 1
        index = 0
        while True:
            if not self._skip(_SPACE + ","):
                self.ended = f"it stops after {index:,} items, before the array's end"
                return
            if self._buf[self._pos] == "]":
                return
            item = self._item(index)
            if item is None:
                return
            yield item
            index += 1

    def _one(self) -> Iterator[Item]:
        """The document read whole, as one item: an object (one conversation)."""
        while not self._eof and len(self._buf) - self._pos <= ITEM_MAX:
            self._more(CHUNK)
        text = self._buf[self._pos :].strip()
        try:
            value = self._json.decode(text)
        except (ValueError, RecursionError) as exc:
            self.ended = f"it is not JSON ({_reason(exc)})"
            return
        yield Item(0, text, value)

    def _item(self, index: int) -> Item | None:
        """The next item, reading on until it is whole; None (and `ended` says why) when
        the bytes stop first or are not JSON."""
        want = CHUNK
        while True:
            try:
                value, end = self._json.raw_decode(self._buf, self._pos)
            except RecursionError:
                self.ended = f"item {index + 1:,} nests too deep to read"
                return None
            except ValueError as exc:
                if self._eof:
                    self.ended = _stopped(index, exc, self._buf, self._pos)
                    return None
                if len(self._buf) - self._pos > ITEM_MAX:
                    self.ended = f"item {index + 1:,} is not JSON, or over {ITEM_MAX >> 20} MB"
                    return None
                # Twice as much each time: a long item is decoded a few times, not once
                # per chunk.
                self._more(want)
                want = min(want * 2, ITEM_MAX)
                continue
            text = self._buf[self._pos : end]
            self._pos = end
            return Item(index, text, value)

    def _skip(self, chars: str) -> bool:
        """Move past `chars`; False at the end of the bytes."""
        while True:
            while self._pos < len(self._buf) and self._buf[self._pos] in chars:
                self._pos += 1
            if self._pos < len(self._buf):
                return True
            if self._eof:
                return False
            self._more(CHUNK)

    def _more(self, size: int) -> None:
        """Read `size` more bytes, dropping what was already decoded."""
        chunk = self.raw.read(size)
        self._buf = self._buf[self._pos :]
        self._pos = 0
        if chunk:
            self._buf += self._decode.decode(chunk)
        else:
            self._eof = True
            self._buf += self._decode.decode(b"", final=True)


def _stopped(index: int, exc: ValueError, buf: str, pos: int) -> str:
    """Why the item at `index` could not be read once every byte was there."""
    rest = buf[pos:].rstrip()
    if not rest.endswith(("}", "]")):
        return f"it stops inside item {index + 1:,} (cut short?)"
    return f"item {index + 1:,} is not JSON ({_reason(exc)})"


def _reason(exc: BaseException) -> str:
    text = str(exc).split(":")[0]
    return text if len(text) < 80 else text[:80] + "…"
