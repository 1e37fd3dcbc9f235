"""MPI protocol settings of a system preset: its optional ``mpi`` section, read here and nowhere else.

``eager_threshold_B``: messages of at most this many bytes are sent eagerly
(at once, buffered at the receiver); larger ones use the rendezvous
protocol.  The default, 8192 bytes, is Cray MPICH's default eager limit on
its Gemini/Aries transport (P. Burton, "Further MPI Programming", ECMWF
2015) and within the common 4-16 KiB range of other libraries.
"""
from __future__ import annotations

from dataclasses import dataclass

from ppt.config import field
from ppt.errors import ConfigError

#: Eager/rendezvous switch when a preset names none, bytes.
EAGER_THRESHOLD_B = 8192


@dataclass(frozen=True)
class MPISettings:
    eager_threshold_B: int = EAGER_THRESHOLD_B

    @classmethod
    def from_preset(cls, preset: dict) -> "MPISettings":
        section = preset.get("mpi", {})
        threshold = field(section, "eager_threshold_B", "mpi", int, default=EAGER_THRESHOLD_B)
        if threshold < 0:
            raise ConfigError(f"mpi.eager_threshold_B must not be negative, got {threshold}")
        return cls(threshold)
