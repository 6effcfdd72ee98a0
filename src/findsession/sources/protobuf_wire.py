"""Protocol buffers read from their wire format, by field number, with no schema compiled
in and no library: a store that keeps an agent's messages as protocol buffers (Warp's
`agent_tasks`) is read by the field numbers its published `.proto` files give.

The wire format is a run of `(field number, wire type, value)`: a varint, a fixed 64- or
32-bit value, or length-delimited bytes (a string, bytes, a nested message or a packed
list: which one only the schema says, so `Wire` parses a nested message when asked
for one). Bad input (a varint past ten bytes, a length past the end, a deprecated group,
too many fields) raises `WireError`; nothing else is raised, and one read costs at most
`MAX_FIELDS` fields in all, however deeply nested.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Any

#: Fields one decoding may read in all, every nested message counted: a store's blob
#: can be any size, and a run of two-byte fields would otherwise cost far more memory.
MAX_FIELDS = 1 << 20
_VARINT, _FIXED64, _BYTES, _FIXED32 = 0, 1, 2, 5
#: The keys of fields 1 to 8 holding bytes: how most nested messages open.
_LEADS = frozenset(n << 3 | _BYTES for n in range(1, 9))


class WireError(ValueError):
    """The bytes are not a protocol buffer (or hold more fields than one read may take)."""


@dataclass
class Budget:
    """The fields left to the decoding of one blob and everything nested in it."""

    left: int = MAX_FIELDS


@dataclass
class Wire:
    """One message's fields, each value as the wire holds it (`int` or `bytes`)."""

    fields: list[tuple[int, int, int | bytes]]
    budget: Budget = field(default_factory=Budget)

    @classmethod
    def parse(cls, data: bytes, budget: Budget | None = None) -> Wire:
        budget = budget if budget is not None else Budget()
        return cls(_fields(bytes(data), budget), budget)

    def has(self, number: int) -> bool:
        return any(n == number for n, _w, _v in self.fields)

    def numbers(self) -> list[int]:
        """The field numbers present, in order, each once."""
        return list(dict.fromkeys(n for n, _w, _v in self.fields))

    def raw(self, number: int) -> list[bytes]:
        """Every length-delimited value of field `number`, in order."""
        return [
            v for n, w, v in self.fields if n == number and w == _BYTES and isinstance(v, bytes)
        ]

    def strings(self, number: int) -> list[str]:
        """Every value of a string field (invalid UTF-8 replaced)."""
        return [v.decode("utf-8", "replace") for v in self.raw(number)]

    def string(self, number: int) -> str:
        """A string field's value: the last one, as a parser of the schema takes it."""
        found = self.strings(number)
        return found[-1] if found else ""

    def message(self, number: int) -> Wire | None:
        """A message field's value (several parts merge, as the format says), or None."""
        parts = self.raw(number)
        return Wire.parse(b"".join(parts), self.budget) if parts else None

    def messages(self, number: int) -> list[Wire]:
        """Every value of a repeated message field, in order."""
        return [Wire.parse(part, self.budget) for part in self.raw(number)]

    def varint(self, number: int) -> int | None:
        found = [v for n, w, v in self.fields if n == number and w == _VARINT]
        return found[-1] if found and isinstance(found[-1], int) else None

    def signed(self, number: int) -> int | None:
        """An `int32`/`int64` field: a varint read as two's complement."""
        value = self.varint(number)
        return value - (1 << 64) if value is not None and value >= 1 << 63 else value

    def double(self, number: int) -> float | None:
        found = [v for n, w, v in self.fields if n == number and w == _FIXED64]
        return struct.unpack("<d", struct.pack("<Q", found[-1]))[0] if found else None


def texts(wire: Wire, depth: int = 0) -> list[str]:
    """Every string a message holds, nested ones too, for a message whose schema is not
    known here. A length-delimited value is a nested message when it parses as one and
    is no clean text, or when it also opens the way a message's first string field does
    (a key of fields 1 to 8 and a length that the rest of it bears out: text seldom
    does); else it is text, when clean."""
    out: list[str] = []
    for _n, w, value in wire.fields:
        if w != _BYTES or not isinstance(value, bytes) or not value:
            continue
        nested = _nested(value, wire.budget) if depth < 12 else None
        text = _clean(value)
        if nested is not None and (text is None or value[0] in _LEADS):
            out += texts(nested, depth + 1)
        elif text is not None and text.strip():
            out.append(text)
    return out


def _clean(value: bytes) -> str | None:
    """`value` as text when it is UTF-8 with no control character but line breaks and
    tabs (a nested message's keys and lengths are such characters)."""
    try:
        text = value.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return text if all(c.isprintable() or c in "\n\r\t" for c in text) else None


def struct_value(wire: Wire, depth: int = 0) -> Any:
    """A `google.protobuf.Struct` as the JSON object it stands for (`fields` a map of
    `Value`s: null, number, string, bool, struct or list)."""
    out: dict[str, Any] = {}
    for entry in wire.messages(1):
        value = entry.message(2)
        out[entry.string(1)] = _value(value, depth + 1) if value is not None else None
    return out


def _value(wire: Wire, depth: int) -> Any:
    if depth > 32:
        return None
    if wire.has(3):
        return wire.string(3)
    if wire.has(2):
        return wire.double(2)
    if wire.has(4):
        return bool(wire.varint(4))
    if (inner := wire.message(5)) is not None:
        return struct_value(inner, depth)
    if (items := wire.message(6)) is not None:
        return [_value(item, depth + 1) for item in items.messages(1)]
    return None


def _nested(value: bytes, budget: Budget) -> Wire | None:
    """`value` as a message when it parses as one whose every field number is sane."""
    if value[0] & 0x07 not in (_VARINT, _FIXED64, _BYTES, _FIXED32) or value[0] < 8:
        return None
    try:
        wire = Wire.parse(value, budget)
    except WireError:
        return None
    return wire if all(0 < n < 1 << 16 for n, _w, _v in wire.fields) else None


def _fields(data: bytes, budget: Budget) -> list[tuple[int, int, int | bytes]]:
    out: list[tuple[int, int, int | bytes]] = []
    pos, end = 0, len(data)
    while pos < end:
        budget.left -= 1
        if budget.left < 0:
            raise WireError("more fields than one read may take")
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 0x07
        if number == 0:
            raise WireError("field number 0")
        if wire == _VARINT:
            value, pos = _varint(data, pos)
            out.append((number, wire, value))
        elif wire == _FIXED64:
            if pos + 8 > end:
                raise WireError("a fixed64 past the end")
            out.append((number, wire, int.from_bytes(data[pos : pos + 8], "little")))
            pos += 8
        elif wire == _FIXED32:
            if pos + 4 > end:
                raise WireError("a fixed32 past the end")
            out.append((number, wire, int.from_bytes(data[pos : pos + 4], "little")))
            pos += 4
        elif wire == _BYTES:
            size, pos = _varint(data, pos)
            if pos + size > end:
                raise WireError("a length past the end")
            out.append((number, wire, data[pos : pos + size]))
            pos += size
        else:
            raise WireError(f"wire type {wire}")
    return out


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    for _ in range(10):
        if pos >= len(data):
            raise WireError("a varint past the end")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value & ((1 << 64) - 1), pos
        shift += 7
    raise WireError("a varint longer than ten bytes")
