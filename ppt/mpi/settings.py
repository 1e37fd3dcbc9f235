"""MPI library settings of a system preset: its optional ``mpi`` section, read here and nowhere else.

``eager_threshold_B``: messages of at most this many bytes are sent eagerly
(at once, buffered at the receiver); larger ones use the rendezvous
protocol.  The default, 8192 bytes, is Cray MPICH's default eager limit on
its Gemini/Aries transport (P. Burton, "Further MPI Programming", ECMWF
2015) and within the common 4-16 KiB range of other libraries.

``send_overhead_s`` / ``recv_overhead_s``: the MPI library's software
overhead per message on the sending and on the receiving rank (LogGP's
``o``), in seconds of the rank's own time: a send is handed to the NIC only
after the sending rank has spent ``send_overhead_s``, and a receive is
taken over by its rank only after ``recv_overhead_s`` more.  They sit apart
from the network's ``nic_latency_s`` (hardware), so the one-way MPI latency
of a lone message is the network's NIC-to-NIC latency plus both overheads.
Default 0 (a network without an MPI library).

``poll_overhead_s``: the rank's time for one MPI call that polls and finds
nothing (an unsuccessful ``MPI_Test``/``Testany``/``Testall``/``Testsome``/
``Iprobe``/``Improbe``), charged when the rank repeats such a call with no
time passing otherwise, so that a ``while not req.Test(): pass`` loop lets
simulated time pass (see ``ppt.mpi.surface.api.MPI.polled``).  Default 100 ns, an estimate from what such
a call does: one pass of the library's progress engine, which reads the
NIC's completion queue in memory the NIC writes by DMA (a cache miss: about
80-100 ns of DRAM latency on current x86 servers) after a few tens of
nanoseconds of call path and request checks.

``nccl_channels`` / ``nccl_chunk_B``: how the NCCL-style collectives
(:mod:`ppt.mpi.collectives.nccl`) cut a buffer: into ``nccl_channels`` parallel rings
(or pairs of trees), each channel's share into pipelined chunks of at most
``nccl_chunk_B`` bytes.  NCCL picks its channel count from the topology it
detects (up to MAXCHANNELS = 32, src/include/device.h); the default here is
one channel, and a preset names its own.  The chunk default, 512 KiB, is one
step of NCCL's Simple protocol: its default per-channel buffer (1 << 22 =
4 MiB, src/init.cc) cut into 8 steps (src/include/device.h), the unit NCCL
sends and forwards.

``object_overhead_s``: what mpi4py's object layer costs a rank per
lowercase call (pickling, the pickle buffer, argument handling), in seconds,
by call kind (:data:`OBJECT_CALLS`): ``{"send": 1.5e-6, "recv": 1.5e-6,
"allreduce": 4e-6}``.  A program's top-level lowercase call owes it as
software overhead (:mod:`ppt.mpi.surface.core.fast`); the lowercase code an
uppercase buffer call runs inside owes nothing.  A point-to-point message
pays its sender's kind (``send``/``isend``, before the message leaves) and
its receiver's (``recv`` once the message is in; ``irecv`` when the request
is retired).  ``ppt calibrate`` measures it on the host
(:mod:`ppt.hardware.hostcalls`).  Default: none, no call kind costs anything.

``call_overhead_s``: what a top-level call costs a rank beyond the messages
the model sends for it, in seconds, by MPI call (:data:`HOST_CALLS`):
mpi4py's argument handling (an ``Alltoallv``'s counts and displacements
made C arrays) and the MPI library's entry into the call, which the
point-to-point overheads do not hold.  A lowercase call owes it too, before
its ``object_overhead_s``.  ``ppt calibrate`` measures it on the host as each
call's minimum time less what the fitted preset predicts for it.  Default:
none.

``class_of``: the traffic class of the job's messages by kind (collectives,
point-to-point, tag ranges) on a packet network with classes: see
:mod:`ppt.mpi.classes`.
"""
from __future__ import annotations

from dataclasses import dataclass

from ppt.errors import ConfigError
from ppt.mpi.classes import CLASS_OF, MessageClasses
from ppt.params import Param, read_section

#: Eager/rendezvous switch when a preset names none, bytes.
EAGER_THRESHOLD_B = 8192
#: Time of one unsuccessful test or probe when a preset names none, s (see the module docstring).
POLL_OVERHEAD_S = 1e-7
#: NCCL-style collectives' channels when a preset names none (see the module docstring).
NCCL_CHANNELS = 1
#: NCCL-style collectives' pipelined chunk when a preset names none, bytes (see the module docstring).
NCCL_CHUNK_B = 512 * 1024

#: Lowercase (object) call kinds ``object_overhead_s`` may name.
OBJECT_CALLS = ("send", "recv", "isend", "irecv", "bcast", "reduce", "allreduce", "gather", "scatter",
                "allgather", "alltoall")
#: MPI calls ``call_overhead_s`` may name: those whose cost the point-to-point overheads do not already hold.
HOST_CALLS = ("MPI_Sendrecv", "MPI_Allreduce", "MPI_Bcast", "MPI_Reduce", "MPI_Gather", "MPI_Scatter",
              "MPI_Allgather", "MPI_Alltoall", "MPI_Alltoallv", "MPI_Barrier")

#: The keys of the ``mpi`` section.
MPI_PARAMS = (
    Param("eager_threshold_B", "largest message sent eagerly; larger ones take the rendezvous protocol", int,
          EAGER_THRESHOLD_B, nonnegative=True),
    Param("send_overhead_s", "sending rank's time per message (LogGP o_s)", float, 0.0, nonnegative=True),
    Param("recv_overhead_s", "receiving rank's time per message (LogGP o_r)", float, 0.0, nonnegative=True),
    Param("poll_overhead_s", "a rank's time per unsuccessful test or probe", float, POLL_OVERHEAD_S,
          nonnegative=True),
    Param("nccl_channels", "NCCL-style collectives: parallel rings (or tree pairs) a buffer is split over", int,
          NCCL_CHANNELS, positive=True),
    Param("nccl_chunk_B", "NCCL-style collectives: most bytes of one pipelined chunk", int, NCCL_CHUNK_B,
          positive=True),
    Param("object_overhead_s", "a rank's time per top-level lowercase call (mpi4py's pickling layer), by call kind: "
          + ", ".join(OBJECT_CALLS), dict, {}, shape="mapping of kind to s"),
    Param("call_overhead_s", "a rank's time per top-level call beyond what the model's messages cost (mpi4py's "
          "argument handling, the MPI library's entry), by call: " + ", ".join(HOST_CALLS), dict, {},
          shape="mapping of call to s"),
    CLASS_OF)


@dataclass(frozen=True)
class MPISettings:
    """A preset's ``mpi`` section (:data:`MPI_PARAMS` declares each field)."""

    eager_threshold_B: int = EAGER_THRESHOLD_B
    send_overhead_s: float = 0.0
    recv_overhead_s: float = 0.0
    poll_overhead_s: float = POLL_OVERHEAD_S
    nccl_channels: int = NCCL_CHANNELS
    nccl_chunk_B: int = NCCL_CHUNK_B
    #: ``(kind, s)`` pairs sorted by kind (a mapping given here is made one), so the settings stay hashable.
    object_overhead_s: tuple = ()
    #: ``(call, s)`` pairs sorted by call, in the same way.
    call_overhead_s: tuple = ()
    #: Traffic classes of the job's messages (ppt.mpi.classes; given as the setting's mapping, kept read).
    class_of: MessageClasses = MessageClasses()

    def __post_init__(self):
        if not isinstance(self.class_of, MessageClasses):
            object.__setattr__(self, "class_of", MessageClasses.read(self.class_of))
        for key, known in (("object_overhead_s", OBJECT_CALLS), ("call_overhead_s", HOST_CALLS)):
            object.__setattr__(self, key, _costs(key, getattr(self, key), known))
        if self.eager_threshold_B < 0:
            raise ConfigError(f"mpi.eager_threshold_B must not be negative, got {self.eager_threshold_B}")
        for key in ("nccl_channels", "nccl_chunk_B"):
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ConfigError(f"mpi.{key} must be a positive integer, got {value!r}")

    @classmethod
    def from_preset(cls, preset: dict) -> "MPISettings":
        return cls(**read_section(preset.get("mpi", {}), MPI_PARAMS, "mpi"))

    @property
    def object_costs(self) -> dict:
        """``object_overhead_s`` by call kind, the kinds that cost something only, s."""
        return dict(self.object_overhead_s)

    @property
    def call_costs(self) -> dict:
        """``call_overhead_s`` by MPI call, the calls that cost something only, s."""
        return dict(self.call_overhead_s)

    @property
    def overhead_s(self) -> float:
        """Both overheads of one message (send + receive), s."""
        return self.send_overhead_s + self.recv_overhead_s


def _costs(key: str, given, known: tuple) -> tuple:
    """The mapping (or pairs) ``given`` of setting ``mpi.key`` as ``(name, s)`` pairs sorted by name, zero costs
    left out; a name not in ``known`` or a cost that is not a number of seconds >= 0 is a ConfigError."""
    pairs = tuple(sorted(dict(given).items()))
    for name, cost in pairs:
        if name not in known:
            raise ConfigError(f"mpi.{key} names {name!r}, not one of {', '.join(known)}")
        if isinstance(cost, bool) or not isinstance(cost, (int, float)) or not 0 <= cost < float("inf"):
            raise ConfigError(f"mpi.{key}.{name} must be a number of seconds >= 0, got {cost!r}")
    return tuple((name, float(cost)) for name, cost in pairs if cost)
