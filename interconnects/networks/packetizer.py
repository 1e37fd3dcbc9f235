"""Cutting messages into packets, per technology (data in a preset's ``network.packet``).

``header_B`` header bytes per packet, ``max_payload_B`` payload bytes per
packet, packet sizes rounded up to a multiple of ``chunk_B`` (flits, phits,
BG/Q 32-byte chunks), and optionally ``response_B``: every data packet is a
request answered by a response packet of that size travelling back (Cray
FMA PUT acknowledgements).
"""
from __future__ import annotations

from ppt.config import reject_unknown
from ppt.params import Param, names, read_section

#: The keys of the ``network.packet`` section.
PACKET_PARAMS = (
    Param("header_B", "header bytes of every packet", int, nonnegative=True),
    Param("max_payload_B", "most payload bytes of one packet", int, positive=True),
    Param("chunk_B", "packet sizes are rounded up to a multiple of this (flit, phit)", int, 1, positive=True),
    Param("response_B", "size of the response every data packet is answered with (0: none)", int, 0,
          nonnegative=True))


class Packetizer:
    __slots__ = names(PACKET_PARAMS)          # the keys are the attributes

    def __init__(self, cfg: dict):
        where = "network.packet"
        reject_unknown(cfg, where, self.__slots__)
        for key, value in read_section(cfg, PACKET_PARAMS, where).items():
            setattr(self, key, value)

    def count(self, nbytes: int) -> int:
        """Packets of an ``nbytes`` message (a zero-byte message still takes one)."""
        return max(1, -(-nbytes // self.max_payload_B))

    def size(self, payload_B: int) -> int:
        """Bytes on the wire of a packet carrying ``payload_B`` bytes."""
        raw = self.header_B + payload_B
        chunk = self.chunk_B
        return max(chunk, -(-raw // chunk) * chunk)

    def response_size(self) -> int:
        return self.size(0) if self.response_B == 0 else -(-self.response_B // self.chunk_B) * self.chunk_B

    def wire_bytes(self, nbytes: int) -> int:
        """Bytes on the wire for a whole message (data packets only)."""
        full, rest = divmod(nbytes, self.max_payload_B)
        total = full * self.size(self.max_payload_B)
        return total + (self.size(rest) if rest or not full else 0)
