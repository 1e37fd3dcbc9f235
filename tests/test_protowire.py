"""The protobuf wire format (varints, zigzag, fields of every wire type, unknown fields, malformed bytes)
and the Chakra ET messages built on it: decode(encode(x)) == x, unknown fields skipped."""
import random
import struct

import pytest

from ppt.traces import chakra_et as et
from ppt.traces.protowire import (EGROUP, I32, I64, LEN, SGROUP, VARINT, WireError, delimited, fields, len_field,
                                  packed_varints, read_varint, signed, unzigzag, varint, varint_field)


def key(number, wire_type):
    return varint(number << 3 | wire_type)


@pytest.mark.parametrize("value, encoded", [
    # the protobuf encoding guide's examples, and the 64-bit ends
    (0, b"\x00"), (1, b"\x01"), (150, b"\x96\x01"), (300, b"\xac\x02"),
    ((1 << 64) - 1, b"\xff" * 9 + b"\x01"), (-1, b"\xff" * 9 + b"\x01"), (-2, b"\xfe" + b"\xff" * 8 + b"\x01"),
])
def test_varints_encode_as_the_guide_says_and_read_back(value, encoded):
    assert varint(value) == encoded
    assert read_varint(b"\x07" + encoded + b"\x07", 1) == (value % (1 << 64), 1 + len(encoded))
    assert signed(read_varint(encoded, 0)[0], 64) == (value if value < 1 << 63 else value - (1 << 64))


@pytest.mark.parametrize("n, zigzag", [(0, 0), (-1, 1), (1, 2), (-2, 3), (2 ** 31 - 1, 2 ** 32 - 2), (-2 ** 31, 2 ** 32 - 1),
                                       (-2 ** 63, 2 ** 64 - 1)])
def test_zigzag_decodes_the_guide_s_table(n, zigzag):
    assert unzigzag(zigzag, 64) == n
    if -2 ** 31 <= n < 2 ** 31:
        assert unzigzag(zigzag, 32) == n


def test_fields_of_every_wire_type_and_a_skipped_group():
    message = (varint_field(1, 300) + key(2, I64) + struct.pack("<d", -1.5) + len_field(3, b"abc")
               + key(4, SGROUP) + varint_field(5, 1) + key(6, SGROUP) + key(6, EGROUP) + key(4, EGROUP)
               + key(7, I32) + struct.pack("<I", 4000000000) + varint_field(536870911, 9))
    got = [(n, w, bytes(v) if w == LEN else v) for n, w, v in fields(message)]
    assert got == [(1, VARINT, 300), (2, I64, struct.unpack("<Q", struct.pack("<d", -1.5))[0]), (3, LEN, b"abc"),
                   (7, I32, 4000000000), (536870911, VARINT, 9)]


@pytest.mark.parametrize("data, match", [
    (b"\x08", "varint at byte 1 is cut off"),
    (b"\x08" + b"\x80" * 10 + b"\x01", "longer than 10 bytes"),
    (b"\x12\x05ab", "5-byte field 2 at byte 0 runs past"),
    (b"\x09\x00\x00\x00", "8-byte field 1 at byte 0 is cut off"),
    (b"\x0d\x00", "4-byte field 1"),
    (b"\x0e\x00", "wire type 6"),
    (b"\x0f\x00", "wire type 7"),
    (b"\x00\x01", "number 0"),
    (varint(1 << 32) + b"\x00", "number 536870912"),
    (b"\x0b\x10\x01", "group of field 1 has no end"),
    (b"\x0c", "group end of field 1 at byte 0 ends no group"),
    (b"\x0b" * 101 + b"\x0c" * 101, "nested over 100"),
])
def test_malformed_messages_say_what_and_where(data, match):
    with pytest.raises(WireError, match=match):
        list(fields(data))


def test_a_stream_of_delimited_messages_and_a_cut_one():
    stream = varint(3) + b"abc" + varint(0) + varint(2) + b"de"
    assert [(offset, bytes(m)) for offset, m in delimited(stream)] == [(1, b"abc"), (5, b""), (6, b"de")]
    with pytest.raises(WireError, match="3-byte message at byte 1 runs past the end at byte 3"):
        list(delimited(stream[:3]))


def random_node(rng):
    attrs = [(rng.choice(["comm_size", "pg_name", "is_cpu_op", "é"]), rng.choice(
        [rng.randrange(-2 ** 63, 2 ** 63), rng.randrange(2 ** 20), "grüße", "", True, False, None])) for _ in range(rng.randrange(4))]
    return et.Node(id=rng.choice([0, rng.randrange(2 ** 64)]), name=rng.choice(["", "allreduce.grad.3", "ß∑"]),
                   type=rng.randrange(len(et.NODE_TYPES)), ctrl_deps=[rng.randrange(2 ** 40) for _ in range(rng.randrange(3))],
                   data_deps=[rng.randrange(300) for _ in range(rng.randrange(4))],
                   duration_micros=rng.choice([0, rng.randrange(2 ** 64)]),
                   inputs_values=rng.choice(["", "['[{\"pg_name\": \"0\"}]']"]), attr=attrs)


def test_written_nodes_read_back_equal():
    rng = random.Random(5)
    for _ in range(300):
        nodes = [random_node(rng) for _ in range(rng.randrange(5))]
        meta = et.GlobalMetadata(version=rng.choice(["", "0.0.4"]), attr=[("pid", rng.randrange(2 ** 32))])
        assert et.decode_stream(et.encode_stream(meta, nodes)) == (meta, nodes)


def unknown_field(rng):
    """A field of a number no Chakra message defines, of a random wire type (a group holds a field)."""
    number = rng.choice([11, 99, 1000, 2 ** 29 - 1])
    return rng.choice([varint_field(number, rng.randrange(2 ** 64)), key(number, I64) + bytes(8),
                       key(number, I32) + bytes(4), len_field(number, bytes(rng.randrange(20))),
                       key(number, SGROUP) + varint_field(1, 5) + key(number, EGROUP)])


def test_unknown_fields_anywhere_are_skipped():
    rng = random.Random(6)
    for _ in range(300):
        node = random_node(rng)
        pieces = split_fields(et.encode_node(node))
        for _ in range(rng.randrange(1, 4)):
            pieces.insert(rng.randrange(len(pieces) + 1), unknown_field(rng))
        assert et.decode_node(b"".join(pieces)) == node


def split_fields(message):
    """The encoded fields of ``message``, each as bytes."""
    pieces, pos = [], 0
    while pos < len(message):
        start = pos
        k, pos = read_varint(message, pos)
        if k & 7 == LEN:
            size, pos = read_varint(message, pos)
            pos += size
        else:
            pos = read_varint(message, pos)[1]
        pieces.append(message[start:pos])
    return pieces


def test_deps_read_packed_or_one_per_field_and_a_wrong_wire_type_is_skipped():
    packed = len_field(5, b"".join(map(varint, [3, 300, 7])))
    single = varint_field(5, 3) + varint_field(5, 300) + varint_field(5, 7)
    assert et.decode_node(packed).data_deps == et.decode_node(single).data_deps == [3, 300, 7]
    assert et.decode_node(varint_field(5, 1) + packed).data_deps == [1, 3, 300, 7]
    assert et.decode_node(len_field(1, b"x") + varint_field(1, 9) + len_field(3, b"y")).id == 9


def attribute(*value_fields):
    return len_field(1, b"a") + b"".join(value_fields)


@pytest.mark.parametrize("number, raw, value", [
    (3, key(3, I64) + struct.pack("<d", 2.5), 2.5),
    (5, key(5, I32) + struct.pack("<f", 0.1), struct.unpack("<f", struct.pack("<f", 0.1))[0]),
    (7, varint_field(7, -7), -7), (9, varint_field(9, -(2 ** 40)), -(2 ** 40)),
    (11, varint_field(11, 2 ** 32 + 5), 5), (13, varint_field(13, 2 ** 64 - 1), 2 ** 64 - 1),
    (15, varint_field(15, 3), -2), (17, varint_field(17, 2 ** 64 - 1), -(2 ** 63)),
    (19, key(19, I32) + struct.pack("<I", 2 ** 32 - 1), 2 ** 32 - 1), (21, key(21, I64) + struct.pack("<Q", 2 ** 63), 2 ** 63),
    (23, key(23, I32) + struct.pack("<i", -5), -5), (25, key(25, I64) + struct.pack("<q", -6), -6),
    (27, varint_field(27, 2), True), (29, len_field(29, "ü".encode()), "ü"), (31, len_field(31, b"\xff"), b"\xff"),
])
def test_every_scalar_attribute_kind(number, raw, value):
    kind = list(et.KINDS)[(number - 3) // 2]
    assert et.decode_attribute(attribute(raw)) == ("a", value), kind
    packed = len_field(1, raw[len(key(number, 0)):]) if et.KINDS[kind][0] in (I32, I64) else None
    listed = et.decode_attribute(attribute(len_field(number + 1, raw.replace(key(number, et.KINDS[kind][0]),
                                                                            key(1, et.KINDS[kind][0]), 1) * 2)))
    assert listed == ("a", [value, value])
    if packed is not None:
        assert et.decode_attribute(attribute(len_field(number + 1, packed)))[1] == [value]


def test_the_last_value_of_the_oneof_wins_and_a_repeated_list_extends():
    assert et.decode_attribute(attribute(varint_field(9, 4), len_field(29, b"s"))) == ("a", "s")
    ints = len_field(10, len_field(1, varint(1) + varint(2)))
    assert et.decode_attribute(attribute(ints, ints)) == ("a", [1, 2, 1, 2])
    assert et.decode_attribute(attribute(ints, varint_field(9, 3), ints)) == ("a", [1, 2])
    assert et.decode_attribute(attribute()) == ("a", None)
    assert packed_varints(varint(1) + varint(2 ** 63)) == [1, 2 ** 63]


def test_a_packed_fixed_width_list_of_a_broken_length_and_bad_utf8_are_malformed():
    with pytest.raises(WireError, match="packed double list of 5 bytes"):
        et.decode_attribute(attribute(len_field(4, len_field(1, bytes(5)))))
    with pytest.raises(WireError, match="not UTF-8"):
        et.decode_node(len_field(2, b"\xff"))
