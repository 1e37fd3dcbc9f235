"""Cutting messages into packets, per technology (data in a preset's ``network.packet``).

``header_B`` header bytes per packet, ``max_payload_B`` payload bytes per
packet, packet sizes rounded up to a multiple of ``chunk_B`` (flits, phits,
BG/Q 32-byte chunks), and optionally ``response_B``: every data packet is a
request answered by a response packet of that size travelling back (Cray
FMA PUT acknowledgements).
"""
from __future__ import annotations

from ppt.config import field, reject_unknown
from ppt.errors import ConfigError


class Packetizer:
    __slots__ = ("header_B", "max_payload_B", "chunk_B", "response_B")

    def __init__(self, cfg: dict):
        where = "network.packet"
        reject_unknown(cfg, where, self.__slots__)          # the keys are the attributes
        self.header_B = field(cfg, "header_B", where, int)
        self.max_payload_B = field(cfg, "max_payload_B", where, int, positive=True)
        self.chunk_B = field(cfg, "chunk_B", where, int, default=1, positive=True)
        self.response_B = field(cfg, "response_B", where, int, default=0)
        if self.header_B < 0 or self.response_B < 0:
            raise ConfigError(f"{where}: header_B and response_B must not be negative")

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
