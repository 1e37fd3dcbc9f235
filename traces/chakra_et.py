"""Chakra execution-trace messages (MLCommons Chakra's ``et_def.proto``, package ``ChakraProtoMsg``):
the fields PPT reads and writes, decoded from and encoded to the protobuf wire format
(:mod:`ppt.traces.protowire`), so no protobuf package is needed.

A rank's ET file is a stream of varint-length-prefixed messages: a ``GlobalMetadata``, then one
``Node`` per node.  Field numbers, from ``et_def.proto``:

* ``GlobalMetadata``: version 1 (string), attr 2 (repeated AttributeProto);
* ``Node``: id 1 (uint64), name 2 (string), type 3 (enum NodeType), ctrl_deps 4 and data_deps 5
  (repeated uint64), start_time_micros 6, duration_micros 7 (uint64), inputs 8 and outputs 9
  (IOInfo: values 1, shapes 2, types 3, strings), attr 10 (repeated AttributeProto);
* ``AttributeProto``: name 1, doc_string 2 (strings), then a oneof value: field 3 + 2k a scalar of
  kind k of :data:`KINDS`, field 4 + 2k a list of them (a message repeating the values as field 1).

Read: a node's id, name, type, dependencies, duration_micros, inputs.values and attributes, the
metadata's version and attributes; every other field is skipped.  As protobuf reads a message, a
later singular field overrides an earlier one, repeated fields accumulate, a later occurrence of
the same list attribute extends it, and any other later value of the oneof replaces the earlier.
Written: the fields above that are set, in field-number order, as protobuf writes them (proto3:
zero values left out, repeated integers packed); attribute values bool, str and int become
bool_val, string_val and int64_val.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ppt.traces.protowire import (I32, I64, LEN, VARINT, WireError, delimited, double, fields, float32, len_field,
                                  packed_field, packed_varints, signed, text, unzigzag, varint,
                                  varint_field)

#: NodeType names, by value.
NODE_TYPES = ("INVALID_NODE", "METADATA_NODE", "MEM_LOAD_NODE", "MEM_STORE_NODE", "COMP_NODE", "COMM_SEND_NODE",
              "COMM_RECV_NODE", "COMM_COLL_NODE")
INVALID_NODE, METADATA_NODE, MEM_LOAD_NODE, MEM_STORE_NODE, COMP_NODE, COMM_SEND_NODE, COMM_RECV_NODE, \
    COMM_COLL_NODE = range(len(NODE_TYPES))
#: CollectiveCommType names, by value.
COLLECTIVE_TYPES = ("ALL_REDUCE", "REDUCE", "ALL_GATHER", "GATHER", "SCATTER", "BROADCAST", "ALL_TO_ALL",
                    "REDUCE_SCATTER", "REDUCE_SCATTER_BLOCK", "BARRIER")

#: Attribute value kinds in oneof order: kind k is field 3 + 2k, a list of it field 4 + 2k; each with
#: its wire type and the value of its raw bits (VARINT, I64, I32) or bytes (LEN).
KINDS = {
    "double": (I64, double), "float": (I32, float32),
    "int32": (VARINT, lambda bits: signed(bits, 32)), "int64": (VARINT, lambda bits: signed(bits, 64)),
    "uint32": (VARINT, lambda bits: bits & 0xFFFFFFFF), "uint64": (VARINT, int),
    "sint32": (VARINT, lambda bits: unzigzag(bits, 32)), "sint64": (VARINT, lambda bits: unzigzag(bits, 64)),
    "fixed32": (I32, int), "fixed64": (I64, int),
    "sfixed32": (I32, lambda bits: signed(bits, 32)), "sfixed64": (I64, lambda bits: signed(bits, 64)),
    "bool": (VARINT, bool), "string": (LEN, text), "bytes": (LEN, bytes),
}
_KIND_OF_FIELD = {3 + 2 * k + is_list: (kind, bool(is_list)) for k, kind in enumerate(KINDS) for is_list in (0, 1)}
#: The oneof fields :func:`encode_node` writes each Python type of attribute value as.
BOOL_VAL, INT64_VAL, STRING_VAL = 27, 9, 29


@dataclass
class Node:
    """A node: ``attr`` is its attributes' ``(name, value)`` in file order (value None if none is set)."""

    id: int = 0
    name: str = ""
    type: int = INVALID_NODE
    ctrl_deps: list = field(default_factory=list)
    data_deps: list = field(default_factory=list)
    duration_micros: int = 0
    inputs_values: str = ""
    attr: list = field(default_factory=list)

    def attributes(self) -> dict:
        """``{name: value}`` of the attributes with a value (a later one of a name wins)."""
        return {name: value for name, value in self.attr if value is not None}


@dataclass
class GlobalMetadata:
    """A file's first message: the schema ``version`` and attributes (as :attr:`Node.attr`)."""

    version: str = ""
    attr: list = field(default_factory=list)


# -- reading -----------------------------------------------------------------------------------------
def _list_values(kind: str, message) -> list:
    """The values of an attribute list message (field 1, packed or one per field)."""
    wire_type, convert = KINDS[kind]
    values = []
    for number, got, value in fields(message):
        if number != 1:
            continue
        if got == wire_type:
            values.append(convert(value))
        elif got == LEN and wire_type == VARINT:
            values.extend(map(convert, packed_varints(value)))
        elif got == LEN:                                   # packed fixed-width values
            size = 8 if wire_type == I64 else 4
            if len(value) % size:
                raise WireError(f"a packed {kind} list of {len(value)} bytes is not a whole number of values")
            values.extend(convert(int.from_bytes(value[i:i + size], "little")) for i in range(0, len(value), size))
    return values


def decode_attribute(message) -> tuple:
    """``(name, value)`` of an AttributeProto (value None if none is set; a list for list kinds)."""
    name, value, current = "", None, None
    for number, wire_type, raw in fields(message):
        if number == 1 and wire_type == LEN:
            name = text(raw)
        elif number in _KIND_OF_FIELD:
            kind, is_list = _KIND_OF_FIELD[number]
            if is_list and wire_type == LEN:
                items = _list_values(kind, raw)
                value, current = (value + items if current == number else items), number
            elif not is_list and wire_type == KINDS[kind][0]:
                value, current = KINDS[kind][1](raw), number
    return name, value


def _deps(wire_type: int, raw) -> list:
    return packed_varints(raw) if wire_type == LEN else [raw] if wire_type == VARINT else []


def decode_node(message) -> Node:
    node = Node()
    for number, wire_type, raw in fields(message):
        if wire_type == VARINT and number in (1, 3, 7):
            if number == 1:
                node.id = raw
            elif number == 3:
                node.type = signed(raw, 32)
            else:
                node.duration_micros = raw
        elif number == 2 and wire_type == LEN:
            node.name = text(raw)
        elif number == 4:
            node.ctrl_deps += _deps(wire_type, raw)
        elif number == 5:
            node.data_deps += _deps(wire_type, raw)
        elif number == 8 and wire_type == LEN:
            for sub, sub_wire_type, value in fields(raw):
                if sub == 1 and sub_wire_type == LEN:
                    node.inputs_values = text(value)
        elif number == 10 and wire_type == LEN:
            node.attr.append(decode_attribute(raw))
    return node


def decode_metadata(message) -> GlobalMetadata:
    metadata = GlobalMetadata()
    for number, wire_type, raw in fields(message):
        if number == 1 and wire_type == LEN:
            metadata.version = text(raw)
        elif number == 2 and wire_type == LEN:
            metadata.attr.append(decode_attribute(raw))
    return metadata


def decode_stream(data) -> tuple:
    """``(GlobalMetadata or None if ``data`` is empty, [Node, ...])`` of one rank's ET bytes; a
    WireError names the message (its index and byte offset) and what is wrong with it."""
    metadata, nodes = None, []
    for index, (offset, message) in enumerate(delimited(data)):
        try:
            if index == 0:
                metadata = decode_metadata(message)
            else:
                nodes.append(decode_node(message))
        except WireError as exc:
            raise WireError(f"message {index} at byte {offset}: {exc}") from None
    return metadata, nodes


# -- writing -----------------------------------------------------------------------------------------
def encode_attribute(name: str, value) -> bytes:
    """An AttributeProto of a bool, str or int ``value`` (None: none set)."""
    out = len_field(1, name.encode()) if name else b""
    if isinstance(value, bool):
        return out + varint_field(BOOL_VAL, value)
    if isinstance(value, str):
        return out + len_field(STRING_VAL, value.encode())
    if isinstance(value, int):
        return out + varint_field(INT64_VAL, value)
    if value is None:
        return out
    raise TypeError(f"attribute {name!r}: a Chakra attribute written is a bool, str or int, not {type(value).__name__}")


def encode_node(node: Node) -> bytes:
    out = [varint_field(1, node.id) if node.id else b"", len_field(2, node.name.encode()) if node.name else b"",
           varint_field(3, node.type) if node.type else b"", packed_field(4, node.ctrl_deps),
           packed_field(5, node.data_deps), varint_field(7, node.duration_micros) if node.duration_micros else b"",
           len_field(8, len_field(1, node.inputs_values.encode())) if node.inputs_values else b""]
    out += [len_field(10, encode_attribute(name, value)) for name, value in node.attr]
    return b"".join(out)


def encode_metadata(metadata: GlobalMetadata) -> bytes:
    out = len_field(1, metadata.version.encode()) if metadata.version else b""
    return out + b"".join(len_field(2, encode_attribute(name, value)) for name, value in metadata.attr)


def encode_stream(metadata: GlobalMetadata, nodes) -> bytes:
    """One rank's ET bytes: each message prefixed by its length (a varint)."""
    messages = [encode_metadata(metadata), *map(encode_node, nodes)]
    return b"".join(varint(len(message)) + message for message in messages)
