"""Protocol Buffers wire format: messages as fields, and streams of length-prefixed messages.

A message is a sequence of fields, each a key varint (field number << 3 | wire type) and a value:
VARINT (0) a varint, I64 (1) 8 bytes and I32 (5) 4 bytes little-endian, LEN (2) a varint length
and that many bytes (strings, bytes, messages, packed repeated scalars), SGROUP/EGROUP (3/4)
a deprecated group's fields between its start and end keys.  A varint holds 7 bits a byte, least
significant first, the high bit set on all but the last byte, at most 10 bytes (64 bits); int32
and int64 are two's complement in 64 bits, sint32 and sint64 zigzag-coded (n >= 0 as 2n, n < 0 as
-2n - 1).  Field numbers are 1 .. 2^29 - 1.  A reader skips the fields it does not know, and those of a
known number but an unexpected wire type; repeated scalars come packed (one LEN field) or one per
field.

Malformed input raises :class:`WireError`, saying what is wrong and at which byte (of the message
being read).
"""
from __future__ import annotations

import struct

VARINT, I64, LEN, SGROUP, EGROUP, I32 = 0, 1, 2, 3, 4, 5
#: The largest field number.
MAX_FIELD = (1 << 29) - 1
_MASK64 = (1 << 64) - 1


class WireError(ValueError):
    """Bytes that are not a well-formed message (the text says why and where)."""


def read_varint(data, pos: int) -> tuple[int, int]:
    """``(value, position after it)`` of the varint at byte ``pos`` of ``data`` (unsigned, < 2^64)."""
    value = shift = 0
    start, end = pos, len(data)
    while True:
        if pos >= end:
            raise WireError(f"a varint at byte {start} is cut off by the end at byte {end}")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value & _MASK64, pos
        shift += 7
        if shift >= 70:
            raise WireError(f"the varint at byte {start} is longer than 10 bytes")


#: Groups nested deeper than this are refused (as protobuf's own parsers refuse deep nesting).
MAX_DEPTH = 100


def _skip_group(data, pos: int, number: int, depth: int) -> int:
    """Position after the group of field ``number`` whose fields start at ``pos``."""
    if depth > MAX_DEPTH:
        raise WireError(f"groups are nested over {MAX_DEPTH} deep at byte {pos}")
    for _, wire_type, _, pos in _walk(data, pos, number, depth):
        if wire_type == EGROUP:
            return pos
    raise WireError(f"the group of field {number} has no end")


def _walk(data, pos: int, group: int | None = None, depth: int = 0):
    """``(field number, wire type, value, position after it)`` of each field from ``pos``; ``group``:
    stop after the end key of that group (which is yielded); ``depth``: groups it is nested in."""
    end = len(data)
    while pos < end:
        start = pos
        key, pos = read_varint(data, pos)
        number, wire_type = key >> 3, key & 7
        if not 1 <= number <= MAX_FIELD:
            raise WireError(f"the field at byte {start} has number {number}, outside 1 .. {MAX_FIELD}")
        if wire_type == VARINT:
            value, pos = read_varint(data, pos)
        elif wire_type in (I64, I32):
            size = 8 if wire_type == I64 else 4
            if pos + size > end:
                raise WireError(f"the {size}-byte field {number} at byte {start} is cut off by the end at byte {end}")
            value, pos = int.from_bytes(data[pos:pos + size], "little"), pos + size
        elif wire_type == LEN:
            size, pos = read_varint(data, pos)
            if pos + size > end:
                raise WireError(f"the {size}-byte field {number} at byte {start} runs past the end at byte {end}")
            value, pos = data[pos:pos + size], pos + size
        elif wire_type == SGROUP:
            value, pos = None, _skip_group(data, pos, number, depth + 1)
        elif wire_type == EGROUP:
            if group != number:
                raise WireError(f"the group end of field {number} at byte {start} ends no group")
            yield number, wire_type, None, pos
            return
        else:
            raise WireError(f"the field at byte {start} has wire type {wire_type}, which is not defined")
        yield number, wire_type, value, pos


def fields(data):
    """``(field number, wire type, value)`` of each field of the message ``data`` (bytes or memoryview),
    groups skipped: an int for VARINT, I64 and I32 (the raw unsigned bits), a memoryview for LEN."""
    for number, wire_type, value, _ in _walk(memoryview(data), 0):
        if wire_type != SGROUP:
            yield number, wire_type, value


def delimited(data):
    """``(byte offset, message)`` of each message of a stream of varint-length-prefixed messages (the
    message a memoryview)."""
    view, pos, end = memoryview(data), 0, len(data)
    while pos < end:
        size, start = read_varint(view, pos)
        if start + size > end:
            raise WireError(f"the {size}-byte message at byte {start} runs past the end at byte {end}")
        yield start, view[start:start + size]
        pos = start + size


# -- scalar values from the raw bits ---------------------------------------------------------------
def signed(bits: int, width: int) -> int:
    """The two's complement value of the low ``width`` bits."""
    bits &= (1 << width) - 1
    return bits - (1 << width) if bits >> (width - 1) else bits


def unzigzag(bits: int, width: int) -> int:
    """The sint32/sint64 value of a zigzag-coded varint."""
    bits &= (1 << width) - 1
    return (bits >> 1) ^ -(bits & 1)


def double(bits: int) -> float:
    return struct.unpack("<d", bits.to_bytes(8, "little"))[0]


def float32(bits: int) -> float:
    return struct.unpack("<f", bits.to_bytes(4, "little"))[0]


def text(value: memoryview) -> str:
    """A string field (UTF-8)."""
    try:
        return str(value, "utf-8")
    except UnicodeDecodeError as exc:
        raise WireError(f"a string field is not UTF-8 ({exc.reason} at its byte {exc.start})") from None


def packed_varints(value: memoryview) -> list[int]:
    """The varints of a packed repeated field."""
    found, pos = [], 0
    while pos < len(value):
        number, pos = read_varint(value, pos)
        found.append(number)
    return found


# -- writing ---------------------------------------------------------------------------------------
def varint(value: int) -> bytes:
    """The varint of ``value`` (a negative one as its 64-bit two's complement, 10 bytes)."""
    value &= _MASK64
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def varint_field(number: int, value: int) -> bytes:
    return varint(number << 3 | VARINT) + varint(value)


def len_field(number: int, value: bytes) -> bytes:
    return varint(number << 3 | LEN) + varint(len(value)) + value


def packed_field(number: int, values) -> bytes:
    """A packed repeated varint field (nothing if ``values`` is empty)."""
    return len_field(number, b"".join(map(varint, values))) if values else b""
